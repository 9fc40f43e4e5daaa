#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link redundancy between two hosts with two RoCE ports each. The server
# adds a second link to the link group over the second path; connections
# are spread over both links. Then guest 0's first path (eth0) goes down
# under four running transfers: its RoCE port goes down with it, the link
# fails at once, the connections on it move to the other link (guest 1
# learns by DELETE_LINK) and every transfer finishes with verified data. Once eth0 is back,
# the server adds a link over it again. Then the second RDMA device goes
# away under an idle group: the group keeps its first link and serves a
# new connection. Then, with rxe1 back, an SMC-R v1 group gets its second
# link too (the rkeys in ADD_LINK_CONT messages). Then groups made while
# one side had no rxe1 get their second link once it is there (v2 and v1).
# Then a link added to a group with more RMBs than the peer knows rkeys of
# lists only the known ones. Last, a client that refused an offer for the
# moment asks for the link itself.
#
#   +---- guest 0 ----+   link A: rxe0 on eth0 (192.0.2.0/24)   +---- guest 1 ----+
#   | smc_xfer client |=========================================| smc_xfer -s     |
#   |   4 connections |   link B: rxe1 on eth1 (198.51.100.0/24)|   (server,      |
#   | eth0 down       |=========================================|    adds link B) |
#   +-----------------+                                         +-----------------+
#
# Usage: smc_redundancy.sh GUEST
# SMC_REDUNDANCY_SIZE: bytes each way of each of the 4 transfers across the
# failover (default 48M; make check-debug: 6M).
# SMC_REDUNDANCY_LOST_MAX: seconds from eth0 down to the link's loss
# (default 5; make check-debug: 30).
# SMC_REDUNDANCY_LATEACT: ms the client's first link stays activating in
# the last phase (default 5000; make check-debug: 10000, the most the fault
# allows: a netlink dump that looks for it takes seconds there).

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_redundancy[$guest]"
EID=SMC-REDUNDANCY-TEST
PORT=29700
PEER=192.0.2.2
SIZE=${SMC_REDUNDANCY_SIZE:-48M}
LOST_MAX=${SMC_REDUNDANCY_LOST_MAX:-5}
LATEACT=${SMC_REDUNDANCY_LATEACT:-5000}

cleanup() {
	ip link set eth0 up 2>/dev/null
	smc_fault_off 2>/dev/null
	sysctl -q -w net.smc.smcr_max_conns_per_lgr=255 2>/dev/null
	[ -z "${rmem0:-}" ] || echo "$rmem0" >/proc/sys/net/smc/rmem
	smc_links_cleanup smc_rxe1_del
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -e /sys/class/net/eth1 ] || ksft_skip_all "no second path (eth1) between the guests"
smc_rxe1_add || ksft_skip_all "no rxe1 on eth1"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"
# groups of earlier tests were made with one device: gone first
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
added0=$(smc_counters smcr_links added)
moved0=$(smc_counters smcr_links conns_moved)
lost0=$(smc_counters smcr_links lost)
smc_barrier red.ready 60

# 1. a second link, connections on both
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -P -f smc -p $PORT -c 4 -H 4 -t 120 &
	spid=$!
	smc_wait_port $PORT 10
	smc_barrier red.listening 60
	wait $spid
	tap_check "server: 4 connections over the group, verified" [ $? = 0 ]
else
	smc_barrier red.listening 60
	# the first connection builds the group, the others join it; its
	# first link turns active 300 ms after our CONFIRM_LINK answer
	# (fault lateact), so the server's ADD_LINK comes before: it waits
	# for the link (was rejected at once, seen on PREEMPT_RT)
	la0=$(smc_fault_injected lateact)
	smc_fault_on lateact 1 1
	tap_check "first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $PORT -n 1M -t 60 $PEER
	smc_fault_off
	tap_check "its first link turned active late (injected once)" \
		[ $(( $(smc_fault_injected lateact) - la0 )) = 1 ]
	tap_check "the server added a link over the second path" smc_two_links 20
	# held open 3 s after the data (-H): still on their links when
	# looked at, also where the transfers starve this shell (PREEMPT_RT,
	# whose softirq threads outrank it)
	"$SMC_XFER" -q -P -f smc -p $PORT -c 3 -n 1M -t 60 -H 3 $PEER &
	cpid=$!
	tap_check "connections on both links" smc_conns_on_both 20
	wait $cpid
	tap_check "3 more connections, verified" [ $? = 0 ]
fi
tap_check "both ends count the added link" \
	[ "$(smc_counters smcr_links added)" -gt "$added0" ]
nl=$(python3 "$SMC_TESTDIR/smc_nl.py" link-smcr)
printf '%s\n' "$nl" | tap_diag
tap_check "netlink: the group is symmetric (type 2) with two active links" \
	[ "$(grep -c 'lgr.*type=2' <<<"$nl")" = 1 -a \
	  "$(grep -c 'link.*state=3' <<<"$nl")" = 2 ]
smc_barrier red.phase2 60

# 2. eth0 goes down under four transfers: failover to link B
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -P -f smc -p $((PORT + 1)) -c 4 -t 300 2>/tmp/red.srv &
	spid=$!
	smc_wait_port $((PORT + 1)) 10
	smc_barrier red.listening2 60
	wait $spid
	rc=$?
	tap_diag </tmp/red.srv
	tap_check "server: every transfer finished verified across the failover" [ $rc = 0 ]
else
	smc_barrier red.listening2 60
	slots0=$(smc_obj_created slot)
	"$SMC_XFER" -q -P -f smc -p $((PORT + 1)) -c 4 -n "$SIZE" -t 300 $PEER 2>/tmp/red.cli &
	cpid=$!
	smc_conns_on_both 10 | tap_diag
	sleep 2
	echo "smc_redundancy: eth0 down" >/dev/kmsg
	ip link set eth0 down
	echo "smc_redundancy: eth0 is down" >/dev/kmsg
	t0=$SECONDS
	smc_link_lost_since "$lost0" 30
	ok=$?
	# rxe0's port goes down with eth0: its link fails at once, where
	# a lost path alone is found by the keepalive (~9 s). Timed by the
	# kernel's log (its failover line), not by this shell, from the end
	# of `ip link set` (under PREEMPT_RT both may wait seconds for the
	# CPU while the transfers' softirq threads run; the loss, once eth0
	# is down, may then be logged before the second mark)
	dt=$(smc_klog_since "smc_redundancy: eth0 down" \
		"$(smc_link_log rxe0/1)down, ")
	dip=$(smc_klog_since "smc_redundancy: eth0 down" \
		"smc_redundancy: eth0 is down")
	[ $ok = 0 ] && [ -n "$dt" ] && [ -n "$dip" ] &&
		awk -v d="$dt" -v i="$dip" -v m="$LOST_MAX" \
			'BEGIN { exit !(d - i <= m) }' || ok=1
	tap_check "link A lost within $LOST_MAX s of eth0 down (${dt:-?} s after ip link set began, which took ${dip:-?} s; $((SECONDS - t0)) s looked)" \
		[ $ok = 0 ]
	tap_check "its connections moved to link B" \
		[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]
	tap_check "the group goes on with one link, on rxe1" \
		grep -qE "links [0-9]+:rxe1:active:[0-9]+ retired" "$SMC_DBG/lgrs"
	# its send buffers stay mapped on the lost link's slot until the QP
	# is destroyed, which waits (the moved connections do not) while
	# rxe0's port is down: rxe holds a QP whose packets sit in the
	# queue of a net_device that is down
	tap_check "the lost link's slot held while eth0 is down" \
		[ "$(smc_obj_created slot)" -gt "$slots0" -a "$(smc_obj_live slot)" = 1 ]
	wait $cpid
	rc=$?
	tap_diag </tmp/red.cli
	tap_check "client: every transfer finished verified across the failover" [ $rc = 0 ]
	dmesg | sed -n '/smc_redundancy: eth0 down/,$p' | grep smc | tail -n 20 | tap_diag
	ip link set eth0 up
	tap_check "eth0 back: rxe0 active and the peer reachable" \
		smc_eth0_back $PEER
	tap_check "then the slot released, the QP gone, within 10 s" \
		smc_within 10 eval '[ "$(smc_obj_live slot)" = 0 ]'
fi
smc_barrier red.phase3 300

# 3. the path is back: the server adds a link over it again
tap_check "a link over rxe0 again within 75 s" smc_two_links 75
smc_barrier red.phase4 120

# 4. rxe1 goes away under the idle group: it keeps link A
if [ "$guest" = 0 ]; then
	smc_rxe1_del
	tap_check "rxe1 deleted: the group keeps its link on rxe0" \
		grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
	tap_diag <"$SMC_DBG/lgrs"
fi
smc_barrier red.phase5 60
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -f smc -p $((PORT + 2)) -c 1 -t 60 &
	spid=$!
	smc_wait_port $((PORT + 2)) 10
	smc_barrier red.listening5 60
	wait $spid
	tap_check "server: new connection after rxe1 went, verified" [ $? = 0 ]
else
	smc_barrier red.listening5 60
	c1=$(smc_obj_created conn)
	tap_check "new connection after rxe1 went: 1M each way, SMC-R, verified" \
		"$SMC_XFER" -q -f smc -p $((PORT + 2)) -n 1M -t 60 $PEER
	tap_check "it used SMC-R" [ $(( $(smc_obj_created conn) - c1 )) = 1 ]
fi
smc_barrier red.phase6 120

# 6. SMC-R v1 groups get a second link too (ADD_LINK, then the rkeys in
# ADD_LINK_CONT messages)
smc_rxe1_add || tap_fail "v1: rxe1 back"
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
sysctl -q -w net.smc.smcr_v1=2 net.smc.smcr_v2=0
smc_barrier red.v1 60
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -P -f smc -p $((PORT + 3)) -c 5 -t 300 &
	spid=$!
	smc_wait_port $((PORT + 3)) 10
	smc_barrier red.listening6 60
	wait $spid
	tap_check "v1: server: 5 connections verified" [ $? = 0 ]
else
	smc_barrier red.listening6 60
	tap_check "v1: first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $((PORT + 3)) -n 1M -t 60 $PEER
	tap_check "v1: the group is SMC-R v1 with a second link over rxe1" \
		eval 'smc_two_links 20 && grep -q " v1 .*links " "$SMC_DBG/lgrs"'
	"$SMC_XFER" -q -P -f smc -p $((PORT + 3)) -c 4 -n 4M -t 300 -H 3 $PEER &
	cpid=$!
	tap_check "v1: connections on both links" smc_conns_on_both 20
	wait $cpid
	tap_check "v1: 4 more connections, 4M each way, verified" [ $? = 0 ]
fi
# the link over rxe1 lost (guest 0 deletes the device) and added again
# once it is back: the group has 4 or 5 RMBs a side by now, whose rkeys
# take 2 or 3 ADD_LINK_CONT messages each way; connections on the new
# link reuse them (no CONFIRM_RKEY)
smc_barrier red.v1down 60
if [ "$guest" = 0 ]; then
	lost0=$(smc_counters smcr_links lost)
	smc_rxe1_del
	tap_check "v1: rxe1 deleted: its link lost" smc_link_lost_since "$lost0" 30
	tap_check "v1: rxe1 back" smc_rxe1_add
fi
tap_check "v1: a link over rxe1 again within 75 s" smc_two_links 75
smc_barrier red.v1up 60
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -P -f smc -p $((PORT + 4)) -c 4 -t 300 &
	spid=$!
	smc_wait_port $((PORT + 4)) 10
	smc_barrier red.listening7 60
	wait $spid
	tap_check "v1: server: 4 connections over the re-added link verified" [ $? = 0 ]
else
	smc_barrier red.listening7 60
	"$SMC_XFER" -q -P -f smc -p $((PORT + 4)) -c 4 -n 4M -t 300 -H 3 $PEER &
	cpid=$!
	tap_check "v1: connections on both links again" smc_conns_on_both 20
	wait $cpid
	tap_check "v1: 4 connections on pooled RMBs, 4M each way, verified" [ $? = 0 ]
fi

# 7. a device that comes later: a group made while one side had no rxe1
# takes its second link as soon as rxe1 is there - a client asks its
# server (v2 REQUEST_ADD_LINK, v1 an ADD_LINK "invite"), a server offers
# (where before a group that never had two links kept to one)
# late NAME WHO VER PORT: guest WHO has no rxe1 while the group is made
late() {
	local name=$1 who=$2 ver=$3 port=$4 asked0 peer0 t0
	smc_barrier "red.late.$name" 120
	echo 1 >"$SMC_DBG/flush_idle"
	smc_wait_objs lgr 0 30
	if [ "$ver" = 1 ]; then
		sysctl -q -w net.smc.smcr_v1=2 net.smc.smcr_v2=0
	else
		sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
	fi
	[ "$guest" != "$who" ] || smc_rxe1_del
	smc_barrier "red.late.$name.gone" 60
	if [ "$guest" = 1 ]; then
		"$SMC_XFER" -s -q -f smc -p "$port" -c 1 -t 60 &
		local spid=$!
		smc_wait_port "$port" 10
		smc_barrier "red.late.$name.listening" 60
		wait $spid
		tap_check "$name: server: a connection, verified" [ $? = 0 ]
	else
		smc_barrier "red.late.$name.listening" 60
		tap_check "$name: a connection while guest $who has no rxe1, verified" \
			"$SMC_XFER" -q -f smc -p "$port" -n 1M -t 60 $PEER
	fi
	tap_check "$name: the group has one link, on rxe0" \
		grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
	asked0=$(smc_counters smcr_links asked)
	peer0=$(smc_counters smcr_links peer_asked)
	smc_barrier "red.late.$name.one" 60
	t0=$SECONDS
	if [ "$guest" = "$who" ]; then
		tap_check "$name: rxe1 back on guest $who" smc_rxe1_add
	fi
	tap_check "$name: a second link within 15 s of rxe1 on guest $who" \
		smc_two_links 15
	echo "$name: after $((SECONDS - t0)) s" | tap_diag
	[ "$who" != 0 ] || smc_check_asked "$name" "$asked0" "$peer0"
}
late v2-client 0 2 $((PORT + 5))
late v2-server 1 2 $((PORT + 6))
late v1-client 0 1 $((PORT + 7))

# 8. a new link lists only the rkeys the peer knows. With
# smcr_max_conns_per_lgr 16, 16 connections on 16 KiB RMBs and then 16 on
# 64 KiB ones leave 32 RMBs a side in a one-link group, 16 of them known
# to the peer (the others' rkeys deleted to make room). The link added
# then lists those 16 each way, all found by the peer (listing every RMB
# sent stale ones, and past 255 cut off live ones: a v1 ADD_LINK_CONT
# count is a u8); 16 connections reusing them, some on the new link,
# need no CONFIRM_RKEY.
# rk NAME RMEM PORT HOLD [both]: 16 connections at once on RMEM-byte
# RMBs, 64K each way, each held HOLD s; "both": they use both links
rk() {
	local name=$1 port=$3 pid rc
	echo "$2" >/proc/sys/net/smc/rmem
	if [ "$guest" = 1 ]; then
		"$SMC_XFER" -s -q -P -f smc -p "$port" -c 16 -t 120 \
			>/tmp/rk.srv 2>&1 &
		pid=$!
		smc_wait_port "$port" 10
		smc_barrier "red.rk.$name" 60
		wait $pid
		rc=$?
		tap_diag </tmp/rk.srv
		tap_check "rkeys $name: server: 16 connections on $2-byte RMBs, verified" \
			[ $rc = 0 ]
		return
	fi
	smc_barrier "red.rk.$name" 60
	"$SMC_XFER" -q -P -f smc -p "$port" -n 64K -c 16 -H "$4" -t 120 $PEER \
		>/tmp/rk.cli 2>&1 &
	pid=$!
	[ -z "${5:-}" ] ||
		tap_check "rkeys $name: connections on both links" \
			smc_conns_on_both 10 $pid
	wait $pid
	rc=$?
	tap_diag </tmp/rk.cli
	tap_check "rkeys $name: 16 connections at once on $2-byte RMBs, 64K each way, verified" \
		[ $rc = 0 ]
}
smc_barrier red.rk 120
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
rmem0=$(cat /proc/sys/net/smc/rmem)
sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1 net.smc.smcr_max_conns_per_lgr=16
[ "$guest" != 0 ] || smc_rxe1_del
unknown0=$(smc_counters smcr_links rkeys_unknown)
rk A 16384 $((PORT + 8)) 8
rk B 65536 $((PORT + 9)) 8
tap_check "rkeys: one link, 16 rkeys known to the peer" \
	grep -qE " rkeys 16 .*links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
smc_barrier red.rk.one 60
[ "$guest" != 0 ] || tap_check "rkeys: rxe1 back" smc_rxe1_add
tap_check "rkeys: a second link within 15 s" smc_two_links 15
tap_check "rkeys: the peer's list on the new link names no RMB we do not know" \
	[ "$(smc_counters smcr_links rkeys_unknown)" = "$unknown0" ]
read -r crk0 drk0 <<<"$(smc_llc confirm_rkey delete_rkey)"
smc_barrier red.rk.two 60
rk C 65536 $((PORT + 10)) 8 both
read -r crk drk <<<"$(smc_llc confirm_rkey delete_rkey)"
tap_check "rkeys C: RMBs reused on both links: no CONFIRM_RKEY or DELETE_RKEY (got $((crk - crk0)), $((drk - drk0)))" \
	[ "$crk" = "$crk0" -a "$drk" = "$drk0" ]
echo "$rmem0" >/proc/sys/net/smc/rmem
sysctl -q -w net.smc.smcr_max_conns_per_lgr=255

sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1

# 9. a client that refused the server's offer of a link for the moment
# asks for it itself: its first link turns active 5 s late (fault
# lateact, SMC_REDUNDANCY_LATEACT), the offer's handler waits 2 s for it
# and rejects; a server offers only once, so the client asks (v2
# REQUEST_ADD_LINK) once the link is active (the group used to keep one
# link for good)
smc_barrier red.refuse 120
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
refused0=$(smc_counters smcr_links refused)
rej0=$(smc_llc add_link_rej)
asked0=$(smc_counters smcr_links asked)
peer0=$(smc_counters smcr_links peer_asked)
smc_barrier red.refuse.ready 60
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -f smc -p $((PORT + 11)) -c 1 -t 60 &
	spid=$!
	smc_wait_port $((PORT + 11)) 10
	smc_barrier red.refuse.listening 60
	wait $spid
	tap_check "refused: server: a connection, verified" [ $? = 0 ]
else
	smc_barrier red.refuse.listening 60
	la0=$(smc_fault_injected lateact)
	smc_fault_on lateact 1 1
	echo "$LATEACT" >"$SMC_DBG/fault/lateact_ms"
	"$SMC_XFER" -q -f smc -p $((PORT + 11)) -n 1M -t 60 $PEER &
	cpid=$!
	# what `smc linkgroup` shows meanwhile: set up, not yet active
	tap_check "refused: netlink shows the late link activating (state 2)" \
		smc_within $((LATEACT / 1000 - 1)) smc_nl_link_state 2
	wait $cpid
	tap_check "refused: a connection, its first link active $((LATEACT / 1000)) s late, verified" \
		[ $? = 0 ]
	smc_fault_off
	tap_check "refused: lateact injected once" \
		[ $(( $(smc_fault_injected lateact) - la0 )) = 1 ]
fi
t0=$SECONDS
tap_check "refused: a second link within 15 s" smc_two_links 15
echo "refused: second link after $((SECONDS - t0)) s" | tap_diag
smc_check_refused refused "$rej0" "$refused0"
smc_check_asked refused "$asked0" "$peer0"

smc_barrier red.done 120
smc_rxe1_del
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "link redundancy" 60
tap_done
