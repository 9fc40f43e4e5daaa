#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Asymmetric link groups: one host has two RoCE ports on one network, the
# other a single port there. The group still gets a second link, sharing
# the single port: a server of ours with one port offers a link on it (a
# client with two takes it on its other port), a client of ours with one
# port takes a server's offer from the server's other port on the port it
# uses. Connections spread over both links; when the two-port side loses
# its second port, the connections move to the first link.
#
#                    192.0.2.0/24 (eth0 of both guests)
#   +---- guest 0 (client) ---+                    +---- guest 1 (server) ---+
#   | rxe0 on eth0 192.0.2.1  |====== link A =======| rxe0 on eth0 192.0.2.2  |
#   |                         |====== link B ==+    |                         |
#   | [rxe2 on mv0, a macvlan |                +====| [rxe2 on mv0, a macvlan |
#   |  of eth0, 192.0.2.101]  |                     |  of eth0, 192.0.2.102]  |
#   +-------------------------+                     +-------------------------+
#   srv2: only guest 1 has rxe2 (link B: its rxe2 to guest 0's rxe0)
#   cli2: only guest 0 has rxe2 (link B: its rxe2 to guest 1's rxe0)
#   v1-srv2: srv2 in an SMC-R v1 group
#   none: neither has rxe2: the client rejects the server's offer
#
# Usage: smc_asym_links.sh GUEST
# SMC_ASYM_LINKS_SIZE: bytes each way of each of the 2 transfers across the
# loss of the second port (default 16M; make check-debug: 4M).

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_asym_links[$guest]"
EID=SMC-ASYM-LINKS-TEST
PORT=29800
PEER=192.0.2.2
SIZE=${SMC_ASYM_LINKS_SIZE:-16M}

cleanup() { smc_links_cleanup smc_rxe2_del; }
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
modprobe -q macvlan || ksft_skip_all "no macvlan module for a second port on eth0"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"
smc_rxe1_del
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30

# lgr_type T: the netlink dump gives our group type T (3: asymmetric peer,
# 4: asymmetric local) with two active links
lgr_type() {
	local nl
	nl=$(python3 "$SMC_TESTDIR/smc_nl.py" link-smcr)
	printf '%s\n' "$nl" | tap_diag
	[ "$(grep -c "lgr.*type=$1" <<<"$nl")" = 1 ] &&
		[ "$(grep -c 'link.*state=3' <<<"$nl")" = 2 ]
}

# phase NAME WHO VER PORT: guest WHO (or none) has rxe2 while the group
# is made; the group gets its second link, connections use both
phase() {
	local name=$1 who=$2 ver=$3 port=$4 refused0 rej0 asym0
	smc_barrier "asym.$name" 120
	echo 1 >"$SMC_DBG/flush_idle"
	smc_wait_objs lgr 0 30
	if [ "$ver" = 1 ]; then
		sysctl -q -w net.smc.smcr_v1=2 net.smc.smcr_v2=0
	else
		sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
	fi
	if [ "$guest" = "$who" ]; then
		tap_check "$name: rxe2 on a macvlan of eth0" smc_rxe2_add
	else
		smc_rxe2_del
	fi
	refused0=$(smc_counters smcr_links refused)
	asym0=$(smc_counters smcr_links asym)
	read -r rej0 <<<"$(smc_llc add_link_rej)"
	smc_barrier "asym.$name.ready" 60
	if [ "$guest" = 1 ]; then
		"$SMC_XFER" -s -q -P -f smc -p "$port" -c 4 -t 120 &
		local spid=$!
		smc_wait_port "$port" 10
		smc_barrier "asym.$name.listening" 60
		wait $spid
		tap_check "$name: server: 4 connections, verified" [ $? = 0 ]
	else
		smc_barrier "asym.$name.listening" 60
		tap_check "$name: first connection, 1M each way, verified" \
			"$SMC_XFER" -q -f smc -p "$port" -n 1M -t 60 $PEER
		if [ "$who" = none ]; then
			"$SMC_XFER" -q -P -f smc -p "$port" -c 3 -n 1M -t 60 $PEER
			tap_check "$name: 3 more connections, verified" [ $? = 0 ]
		else
			tap_check "$name: a second link" \
				smc_links_on 20 rxe0 "$([ "$who" = 0 ] && echo rxe2 || echo rxe0)"
			# held open 3 s after the data: still on their links
			# when looked at
			"$SMC_XFER" -q -P -f smc -p "$port" -c 3 -n 1M -t 60 -H 3 $PEER &
			local cpid=$!
			tap_check "$name: connections on both links" smc_conns_on_both 6
			wait $cpid
			tap_check "$name: 3 more connections, verified" [ $? = 0 ]
		fi
	fi
	if [ "$who" = none ]; then
		# the offer was on the server's one port, the client has no
		# path of its own to it
		smc_check_refused "$name" "$rej0" "$refused0"
		tap_check "$name: the group keeps one link" \
			grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
		return
	fi
	[ "$guest" = 0 ] || tap_check "$name: a second link" \
		smc_links_on 20 rxe0 "$([ "$who" = 1 ] && echo rxe2 || echo rxe0)"
	# the side with one port uses it for both links
	if [ "$guest" = "$who" ]; then
		tap_check "$name: netlink: asymmetric peer (type 3), two active links" \
			lgr_type 3
	else
		tap_check "$name: netlink: asymmetric local (type 4), two active links" \
			lgr_type 4
	fi
	tap_check "$name: counted as an asymmetric link" \
		[ "$(smc_counters smcr_links asym)" -gt "$asym0" ]
}

# loss PORT: guest 1 (rxe2 of srv2) loses rxe2 under two transfers (or
# right after their data, while they are still open): its connections
# move to link A, every byte arrives
loss() {
	local port=$1 lost0 moved0 rc
	lost0=$(smc_counters smcr_links lost)
	moved0=$(smc_counters smcr_links conns_moved)
	smc_barrier asym.loss 60
	if [ "$guest" = 1 ]; then
		"$SMC_XFER" -s -q -P -f smc -p "$port" -c 2 -t 300 2>/tmp/asym.srv &
		local spid=$!
		smc_wait_port "$port" 10
		smc_barrier asym.loss.listening 60
		smc_barrier asym.loss.running 60
		smc_conns_on_both 10 | tap_diag
		echo "smc_asym_links: rxe2 deleted" >/dev/kmsg
		rdma link delete rxe2
		tap_check "loss: rxe2 deleted: its link lost" \
			smc_link_lost_since "$lost0" 30
		wait $spid
		rc=$?
		tap_diag </tmp/asym.srv
		tap_check "loss: server: both transfers verified across the loss" [ $rc = 0 ]
	else
		smc_barrier asym.loss.listening 60
		# held open 5 s after the data (-H): the loss still finds
		# them on their links where the transfers starved the shells
		# that delete rxe2 (PREEMPT_RT: it came after the data)
		"$SMC_XFER" -q -P -f smc -p "$port" -c 2 -n "$SIZE" -t 300 -H 5 $PEER 2>/tmp/asym.cli &
		local cpid=$!
		smc_conns_on_both 10 | tap_diag
		smc_barrier asym.loss.running 60
		tap_check "loss: the server's link lost" smc_link_lost_since "$lost0" 30
		wait $cpid
		rc=$?
		tap_diag </tmp/asym.cli
		tap_check "loss: client: both transfers verified across the loss" [ $rc = 0 ]
	fi
	tap_check "loss: connections moved to the remaining link" \
		[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]
	tap_check "loss: the group goes on with its link on rxe0" \
		grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
}

phase srv2 1 2 $PORT
loss $((PORT + 1))
phase cli2 0 2 $((PORT + 2))
phase v1-srv2 1 1 $((PORT + 3))
phase none none 2 $((PORT + 4))

sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
smc_barrier asym.done 120
smc_rxe2_del
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "asymmetric links" 60
tap_done
