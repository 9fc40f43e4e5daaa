#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The network goes away under a transfer: guest 0 takes eth0 (which rxe0
# runs on) down in the middle of an SMC-R transfer, for 5 s or until the
# link group ended if that takes longer, then up again.
# Each end's application must finish with verified data or get an error —
# never hang; the broken link group and every object go away; once eth0 is
# back, a new connection uses SMC-R again.
#
#   +---- guest 0 ----+        SMC-R         +---- guest 1 ----+
#   | smc_xfer client |=====================>| smc_xfer -s     |
#   | eth0 down >= 5 s|     eth0 (dgram)     |                 |
#   | then up         |                      |                 |
#   +-----------------+                      +-----------------+
#
# Usage: smc_linkflap.sh GUEST

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_linkflap[$guest]"
EID=SMC-FLAP-TEST
PORT=29600
PEER=192.0.2.2
DOWN=5
# a group's only link is not failed by its port going down (a short flap
# may pass): a completion error ends it, or the probe of a send that got
# no answer (ASMC_LINK_PROBE 5 s + ASMC_TESTLINK_WAIT 4 s), with margin
# for the debug kernel
ENDED=30
DEADLINE=120	# RDMA retries, TEST_LINK (30 s idle) and the close, with margin

cleanup() {
	ip link set eth0 up 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# outcome WHO PID: the application returned within DEADLINE (data
# verified or an error); a hang fails
outcome() {
	local rc
	if smc_wait_gone "$2" $DEADLINE; then
		wait "$2"
		rc=$?
		[ $rc = 0 ] && r="finished, data verified" || r="got an error (exit $rc)"
		tap_ok "$1 returned within $DEADLINE s after the flap: $r"
	else
		tap_fail "$1 returned within $DEADLINE s after the flap (still blocked)"
		kill "$2"
		wait "$2"
	fi
}

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"

c0=$(smc_obj_created conn)
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -q -f smc -p $PORT -c 1 -t 300 2>/tmp/flap.srv &
	spid=$!
	smc_barrier flap.listening 60
	smc_barrier flap.running 60
	outcome "server" $spid
	tap_diag </tmp/flap.srv
	c1=$(smc_obj_created conn)
	"$SMC_XFER" -s -q -f smc -p $((PORT + 1)) -c 1 -t 120 &
	spid=$!
	smc_wait_port $((PORT + 1)) 10
	smc_barrier flap.after 300
	wait $spid
	tap_check "new connection after the flap verified" [ $? = 0 ]
	tap_check "it used SMC-R" [ $(( $(smc_obj_created conn) - c1 )) = 1 ]
else
	smc_barrier flap.listening 60
	"$SMC_XFER" -q -f smc -p $PORT -n 1G -t 300 $PEER 2>/tmp/flap.cli &
	cpid=$!
	sleep 3
	tap_check "transfer running over SMC-R before the flap" \
		[ $(( $(smc_obj_created conn) - c0 )) = 1 ]
	smc_barrier flap.running 60
	SMC_TXTO_SEEN=$(smc_tx_timeouts)
	echo "smc_linkflap: eth0 down" >/dev/kmsg
	ip link set eth0 down
	sleep $DOWN
	# with rxe0's port down the group lost its only link (a completion
	# error at once where sends were in flight, else the probe) and
	# ended, but the link's QP goes only once the port is back (rxe
	# holds a QP whose packets sit in the queue of a net_device that is
	# down, and destroying it would block a worker meanwhile)
	t0=$SECONDS
	tap_check "group ended with eth0 down, the link's QP kept until eth0 is up" \
		eval 'smc_within $ENDED grep -q "terminating.* link none " \
			"$SMC_DBG/lgrs" &&
		      [ "$(smc_obj_live link)" = 1 ] ||
		      { cat "$SMC_DBG/lgrs" "$SMC_DBG/objects"; false; }'
	dt=$(smc_klog_since "smc_linkflap: eth0 down" \
		"$(smc_link_log rxe0/1)down, no link left")
	echo "group ended ${dt:-?} s after eth0 down (kernel log)" | tap_diag
	ip link set eth0 up
	outcome "client" $cpid
	tap_diag </tmp/flap.cli
	# back: the RDMA port active and the peer reachable again
	smc_eth0_back $PEER
	tap_check "rxe0 active and the peer reachable again" \
		eval "smc_port_active rxe0 && ping -c 1 -W 2 $PEER"
	tap_check "then the lost link's QP gone within 10 s" \
		smc_within 10 eval '[ "$(smc_obj_live link)" = 0 ]'
	smc_barrier flap.after 300
	c1=$(smc_obj_created conn)
	fb1=$(smc_stat fallback_client)
	tap_check "new connection after the flap: 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $((PORT + 1)) -n 1M -t 120 $PEER
	tap_check "it used SMC-R, no fallback" \
		[ $(( $(smc_obj_created conn) - c1 )) = 1 -a \
		  "$(smc_stat fallback_client)" = "$fb1" ]
fi
smc_barrier flap.done 300
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the link flap" 60
tap_done
