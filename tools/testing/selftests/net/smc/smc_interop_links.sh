#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link redundancy against Linux's own net/smc (6.1): a group with a second
# link over the second path, built by either implementation as the server
# and joined by the other as the client. Phase A: ours serves on guest 1,
# Linux's smc connects from guest 0 and must take the link we offer over
# rxe1 (its group turns SYMMETRIC). Phase B: the roles swap; we take
# Linux's offer and connections spread over both links. With
# SMC_INTEROP_LINKS_FAILOVER=1, guest 0's eth0 then goes down under the
# four transfers of B: they move to the link over eth1 and finish with
# verified data (2026-12-03: 4 x 48M verified). Opt-in, because Linux's smc
# then hangs: it waits without a timeout for sends on its lost link to
# complete, which rxe never completes (kworkers blocked, hung-task
# reports); its module cannot be unloaded nor rxe1 deleted, and the rest
# of the pair's tests could not run.
#
# Linux 6.1 builds a second SMC-R v2 link only on a device whose network
# device has an address in the subnet of the group's first source address
# (and its rxe, like ours, sends out of the GID's own device): eth1 gets
# one, 192.0.2.(11+guest)/24, beside its 198.51.100.0/24.
#
#   +---- guest 0 ------+  link 1: rxe0 on eth0 (192.0.2.1 - .2)  +---- guest 1 ------+
#   | A: Linux, client  |==========================================| A: ours, server   |
#   | B: ours, client   |  link 2: rxe1 on eth1 (+192.0.2.11 - .12)| B: Linux, server  |
#   | (B: eth0 down)    |==========================================|                   |
#   +-------------------+                                          +-------------------+
#
# Usage: smc_interop_links.sh GUEST
# SMC_INTEROP_LINKS_SIZE: bytes each way of each of phase B's 4 transfers
# (default 48M with the failover, else 8M; make check-debug: 6M).
# SMC_INTEROP_LINKS_FAILOVER=1: phase B takes eth0 down (see above).

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_interop_links[$guest]"
PEER=192.0.2.2
ADDR1=192.0.2.$((11 + guest))
EID=SMC-INTEROP-LINKS
PORT=29900
INTREE=${SMC_INTREE_DIR:-/var/tmp/smc-vm/intree-smc/$(uname -r)}
FAILOVER=${SMC_INTEROP_LINKS_FAILOVER:-0}
if [ "$FAILOVER" = 1 ]; then
	SIZE=${SMC_INTEROP_LINKS_SIZE:-48M}
else
	SIZE=${SMC_INTEROP_LINKS_SIZE:-8M}
fi
NO_FAILOVER="opt-in (SMC_INTEROP_LINKS_FAILOVER=1): Linux's smc 6.1 then waits forever for sends rxe never completes on its lost link and cannot be unloaded"
NL="python3 $SMC_TESTDIR/smc_nl.py"

[ -f "$INTREE/smc.ko" ] || ksft_skip_all "in-tree smc not built ($INTREE)"
[ -e /sys/class/net/eth1 ] || ksft_skip_all "no second path (eth1) between the guests"
smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"

cleanup() {
	ip link set eth0 up 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	[ -e "/results/gave_up.$guest" ] || use_ours >/dev/null 2>&1
	ip addr del "$ADDR1/24" dev eth1 2>/dev/null
	smc_rxe1_del 2>/dev/null
	$NL ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# Linux's smc, with both RoCE ports on the PNET ID of both interfaces
use_intree() {
	smc_unload_any 40 || return 1
	insmod "$INTREE/smc.ko" || return 1
	$NL pnet-add PNETIOP eth0 rxe0 1 && $NL pnet-add PNETIOP eth1 rxe1 1 &&
		$NL ueid-add "$EID"
}

use_ours() {
	smc_is_ours_loaded && return 0
	smc_reload_ours 40 && $NL ueid-add "$EID"
}

# nl_two_links SECS: within SECS the module's netlink shows one SMC-R group,
# SYMMETRIC (type 2), with two active links (state 3; either module: same
# uapi)
nl_two_links() {
	local i out
	for i in $(seq $(($1 * 5))); do
		out=$($NL link-smcr 2>/dev/null)
		[ "$(grep -c 'lgr.*type=2' <<<"$out")" = 1 ] &&
			[ "$(grep -c 'link\.id=.*link\.state=3' <<<"$out")" = 2 ] &&
			return 0
		sleep 0.2
	done
	printf '%s\n' "$out" | tap_diag
	return 1
}

# two_links SECS: our debugfs shows a group with active links on rxe0 and rxe1
two_links() {
	local i l
	for i in $(seq $(($1 * 10))); do
		l=$(grep -E "links [0-9]+:rxe[01]:active:[0-9]+ [0-9]+:rxe[01]:active:[0-9]+ retired" \
			"$SMC_DBG/lgrs")
		grep -q rxe0 <<<"$l" && grep -q rxe1 <<<"$l" && return 0
		sleep 0.1
	done
	tap_diag <"$SMC_DBG/lgrs"
	return 1
}

conns_on_both() {
	grep -qE "links [0-9]+:rxe[01]:active:[1-9][0-9]* [0-9]+:rxe[01]:active:[1-9]" \
		"$SMC_DBG/lgrs"
}

# serve PORT CONNS: our or Linux's server for CONNS connections, verified
serve() {
	"$SMC_XFER" -s -q -P -f smc -p "$1" -c "$2" -t 300 2>/tmp/il.srv &
	spid=$!
	smc_wait_port "$1" 10
}

smc_rxe1_add || ksft_skip_all "no rxe1 on eth1"
ip addr add "$ADDR1/24" dev eth1 || ksft_skip_all "cannot add $ADDR1 to eth1"
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
smc_barrier il.ready 60

# A. ours serves (guest 1), Linux's smc is the client (guest 0)
if [ "$guest" = 0 ]; then
	use_intree || tap_fail "A: Linux's smc loaded"
else
	$NL ueid-add "$EID" >/dev/null 2>&1
	added0=$(smc_counters smcr_links added)
fi
smc_barrier il.A.loaded 120
if [ "$guest" = 1 ]; then
	serve $PORT 5
	smc_barrier il.A.listening 60
	tap_check "A: we added a second link to Linux's client over rxe1" two_links 20
	ok=1
	for i in $(seq 600); do
		conns_on_both && ok=0 && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.1
	done
	tap_diag <"$SMC_DBG/lgrs"
	tap_check "A: connections on both links" [ $ok = 0 ]
	wait $spid
	rc=$?
	tap_diag </tmp/il.srv
	tap_check "A: server: 5 connections verified" [ $rc = 0 ]
	tap_check "A: the added link is counted" \
		[ "$(smc_counters smcr_links added)" -gt "$added0" ]
else
	smc_barrier il.A.listening 60
	tap_check "A: first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $PORT -n 1M -t 60 $PEER
	tap_check "A: Linux's netlink: the group is SYMMETRIC, two links" \
		nl_two_links 20
	tap_check "A: 4 more connections, 8M each way, verified" \
		"$SMC_XFER" -q -P -f smc -p $PORT -c 4 -n 8M -t 240 $PEER
fi
smc_barrier il.A.done 300

# B. Linux's smc serves (guest 1), ours is the client (guest 0); eth0 of
# guest 0 goes down under four transfers
if [ "$guest" = 0 ]; then
	use_ours || tap_fail "B: our smc.ko back"
	echo 1 >"$SMC_DBG/flush_idle"
	added0=$(smc_counters smcr_links added)
	moved0=$(smc_counters smcr_links conns_moved)
	lost0=$(smc_counters smcr_links lost)
else
	use_intree || tap_fail "B: Linux's smc loaded"
fi
smc_barrier il.B.loaded 120
if [ "$guest" = 1 ]; then
	serve $((PORT + 1)) 5
	smc_barrier il.B.listening 60
	tap_check "B: Linux's netlink: the group is SYMMETRIC, two links" \
		nl_two_links 30
	wait $spid
	rc=$?
	tap_diag </tmp/il.srv
	tap_check "B: Linux's server: 5 connections verified" [ $rc = 0 ]
	smc_barrier il.B.done 300
	use_ours || tap_fail "our smc.ko back after B"
else
	smc_barrier il.B.listening 60
	tap_check "B: first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $((PORT + 1)) -n 1M -t 60 $PEER
	tap_check "B: we took Linux's link over rxe1" two_links 20
	tap_check "B: the added link is counted" \
		[ "$(smc_counters smcr_links added)" -gt "$added0" ]
	"$SMC_XFER" -q -P -f smc -p $((PORT + 1)) -c 4 -n "$SIZE" -t 300 $PEER \
		2>/tmp/il.cli &
	cpid=$!
	ok=1
	for i in $(seq 100); do
		conns_on_both && ok=0 && break
		sleep 0.1
	done
	tap_diag <"$SMC_DBG/lgrs"
	tap_check "B: connections on both links" [ $ok = 0 ]
	if [ "$FAILOVER" = 1 ]; then
		sleep 1
		echo "smc_interop_links: eth0 down" >/dev/kmsg
		ip link set eth0 down
		ok=1
		for i in $(seq 300); do
			[ "$(smc_counters smcr_links lost)" -gt "$lost0" ] && ok=0 && break
			sleep 0.1
		done
		tap_check "B: eth0 down: the link over rxe0 is lost" [ $ok = 0 ]
	fi
	wait $cpid
	rc=$?
	tap_diag </tmp/il.cli
	if [ "$FAILOVER" = 1 ]; then
		tap_check "B: 4 x $SIZE each way verified across the failover" [ $rc = 0 ]
		tap_check "B: connections moved to the link over rxe1" \
			[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]
		dmesg | sed -n '/smc_interop_links: eth0 down/,$p' | grep smc |
			tail -n 20 | tap_diag
		ip link set eth0 up
		tap_check "B: eth0 back: rxe0 active and the peer reachable" \
			smc_eth0_back $PEER
	else
		tap_check "B: 4 x $SIZE each way verified" [ $rc = 0 ]
		tap_skip "B: eth0 down under the transfers: they move to the link over rxe1" \
			"$NO_FAILOVER"
	fi
	smc_barrier il.B.done 300
fi
smc_barrier il.end 120
ip addr del "$ADDR1/24" dev eth1
smc_rxe1_del
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "interop links" 60
tap_done
