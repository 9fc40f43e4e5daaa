#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RDMA device goes away under running SMC-R connections: `rdma link
# delete rxe0` in the middle of a transfer over the loopback link. The
# removal must finish, both ends must get an error (never hang), every
# object must be freed; a re-created device is used again by new
# connections. Also: rmmod is refused while connections run.
#
#   +----------------------------- guest ------------------------------+
#   |  smc_xfer client --\                        /-- smc_xfer -s       |
#   |             192.0.2.1 (eth0) --> rxe0 (loopback SMC-R)            |
#   |                                   ^                               |
#   |                      rdma link delete rxe0 (mid-transfer)         |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-DEVREMOVE-TEST
PORT=29700
DEADLINE=30	# removal and the applications' errors, each

cleanup() {
	kill "$spid" "$cpid" 2>/dev/null
	rdma link show rxe0 >/dev/null 2>&1 ||
		rdma link add rxe0 type rxe netdev eth0 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# rxe_active SECS: rxe0 exists and its port is ACTIVE within SECS
rxe_active() {
	smc_within "$1" smc_port_active rxe0
}

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
rxe_active 5 || ksft_skip_all "no active RDMA device rxe0"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "cannot add a user EID"

conns0=$(smc_obj_created conn)
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
"$SMC_XFER" -s -q -f smc -p $PORT -c 1 -t 120 2>/tmp/devrm.server &
spid=$!
smc_wait_port $PORT 10 || tap_diag <<<"server not listening"
"$SMC_XFER" -q -f smc -p $PORT -n 1G -t 120 "$ADDR" 2>/tmp/devrm.client &
cpid=$!
sleep 3
running() { kill -0 "$1" && [ $(( $(smc_obj_created conn) - conns0 )) = 2 ]; }
tap_check "transfer running over SMC-R" running $cpid

# the module is in use: rmmod must refuse and leave the transfer alone
if rmmod smc 2>/tmp/devrm.rmmod; then
	tap_fail "rmmod refused while connections run (it unloaded)"
	exit 1
fi
tap_check "rmmod refused while connections run, transfer goes on" running $cpid

# the links' end is traced (tracefs event smc/smcr_link_down)
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
if [ -e $T/events/smc/smcr_link_down/enable ]; then
	echo >$T/trace
	echo 1 >$T/events/smc/smcr_link_down/enable
	echo 1 >$T/tracing_on
fi

t0=$(date +%s)
timeout $((DEADLINE + 60)) rdma link delete rxe0 &
dpid=$!
if smc_wait_gone $dpid $DEADLINE; then
	wait $dpid
	rc=$?
	tap_check "rdma link delete finished ($(( $(date +%s) - t0 )) s, exit $rc)" [ $rc = 0 ]
else
	tap_fail "rdma link delete finished within $DEADLINE s"
	dmesg | tail -n 20 | tap_diag
fi

for who in client server; do
	[ $who = client ] && p=$cpid || p=$spid
	if smc_wait_gone $p $DEADLINE; then
		wait $p
		rc=$?
		tap_diag </tmp/devrm.$who
		tap_check "$who gets an error ($(( $(date +%s) - t0 )) s)" [ $rc != 0 ]
	else
		tap_fail "$who gets an error within $DEADLINE s (still blocked)"
		kill $p
		wait $p
	fi
done
if [ -e $T/events/smc/smcr_link_down/enable ]; then
	echo 0 >$T/events/smc/smcr_link_down/enable
	downs=$(grep -c 'smcr_link_down:.*dev=rxe0' $T/trace)
	tap_check "both links traced going down ($downs smcr_link_down events)" \
		[ "$downs" = 2 ]
else
	tap_skip "links traced going down" "no tracefs event smc/smcr_link_down"
fi
tap_check "device removal logged" \
	bash -c "dmesg | grep -q 'smc: RDMA device rxe0 removed'"
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the device was removed"

# a new device of the same name is found and used
rdma link add rxe0 type rxe netdev eth0
tap_check "rxe0 re-created" rxe_active 10
conns1=$(smc_obj_created conn)
fb1=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
"$SMC_XFER" -s -q -f smc -p $((PORT + 1)) -c 1 -t 60 &
spid=$!
smc_wait_port $((PORT + 1)) 10
"$SMC_XFER" -q -f smc -p $((PORT + 1)) -n 1M -t 60 "$ADDR"
rc=$?
wait $spid
tap_check "1 x 1M each way over the new device, verified" [ $rc = 0 ]
tap_check "the new connection used SMC-R" \
	[ $(( $(smc_obj_created conn) - conns1 )) = 2 ]
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
tap_check "no fallback to TCP ($((fb - fb1)) after, $((fb1 - fb0)) during removal)" \
	[ "$fb" = "$fb1" ]
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the new device's connection"
tap_done
