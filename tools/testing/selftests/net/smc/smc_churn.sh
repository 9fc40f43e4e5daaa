#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Connection churn: 1,000 SMC-R connections opened, used for one byte each
# way and closed as fast as one client can, then 4 clients at once; every
# one must be verified over SMC-R (no fallback), reuse the link group, and
# leave no object behind.
#
#   +----------------------------- guest ------------------------------+
#   |  smc_xfer -c 1000 (serial)  --\          /-- smc_xfer -s -P      |
#   |  4 x smc_xfer -c 100 (parallel) 192.0.2.1 --> rxe0 (loopback)   |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-CHURN-TEST
PORT=29900
SERIAL=${SMC_CHURN_SERIAL:-1000}
PAR_CLIENTS=4
PAR_EACH=${SMC_CHURN_PAR_EACH:-100}
LIMIT=${SMC_CHURN_LIMIT:-300}	# seconds per run: ~10 x a TCG guest (debug kernel: more)

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
smc_port_active rxe0 ||
	ksft_skip_all "no active RDMA device rxe0"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "cannot add a user EID"

# run NAME CLIENTS EACH: a parallel server for CLIENTS * EACH connections,
# CLIENTS serial clients at once; checks data, SMC-R use, link group reuse
run() {
	local name=$1 clients=$2 each=$3 total=$(($2 * $3))
	local c0 fb0 l0 t0 spid rc=0 i pids=() c fb l ms
	c0=$(smc_obj_created conn)
	l0=$(smc_obj_created lgr)
	fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	PORT=$((PORT + 1))
	# one client: a serial server; more: a thread per connection
	"$SMC_XFER" -s -q -f smc $([ $clients -gt 1 ] && echo -P) -p $PORT \
		-c $total -t $LIMIT 2>/tmp/churn.srv &
	spid=$!
	smc_wait_port $PORT 10 || echo "# $name: server not listening"
	t0=$(date +%s%N)
	for i in $(seq $clients); do
		"$SMC_XFER" -q -f smc -p $PORT -n 1 -c "$each" -t $LIMIT "$ADDR" \
			2>/tmp/churn.cli$i &
		pids+=($!)
	done
	# a stall is a failure with the module's view of it, not a hang
	local end=$((SECONDS + LIMIT))
	while [ $SECONDS -lt $end ]; do
		jobs -pr | grep -qv "^$spid\$" || break
		sleep 0.5
	done
	if jobs -pr | grep -qv "^$spid\$"; then
		echo "# $name: clients still running after $LIMIT s:"
		awk '{ s[$3 " " $7]++ } END { for (k in s) print s[k], k }' \
			"$SMC_DBG/sockets" | sort -rn | head | tap_diag
		grep -v "mode SMCR" "$SMC_DBG/sockets" | head -n 8 | tap_diag
		tap_diag <"$SMC_DBG/lgrs"
		grep -E "fallback|hs_" "$SMC_DBG/stats" | tap_diag
		ss -tn | awk 'NR > 1 { print $1, $2, $3 }' | sort | uniq -c | tap_diag
		kill "${pids[@]}" $spid 2>/dev/null
		rc=1
	fi
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait $spid || rc=1
	c=$(( ($(smc_obj_created conn) - c0) / 2 ))
	l=$(( $(smc_obj_created lgr) - l0 ))
	fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
	echo "# $name: $total connections in $ms ms ($(( total * 1000 / (ms + 1) ))/s), $c over SMC-R, $fb fallbacks, $l new link groups"
	if [ $rc = 0 ]; then
		tap_ok "$name: $total connections opened, verified and closed"
	else
		tap_fail "$name: $total connections opened, verified and closed"
		cat /tmp/churn.cli* /tmp/churn.srv | tail -n 20 | tap_diag
	fi
	if [ "$c" = $total ] && [ "$fb" = 0 ]; then
		tap_ok "$name: all $total over SMC-R, no fallback"
	else
		tap_fail "$name: all $total over SMC-R, no fallback ($c, $fb)"
		grep fallback_reason "$SMC_DBG/stats" | tap_diag
		dmesg | grep -i smc | tail -n 10 | tap_diag
	fi
	# loopback: one group for the client role, one for the server role
	tap_check "$name: link groups reused ($l new)" [ "$l" -le 2 ]
	rm -f /tmp/churn.cli*
}

echo 1 >"$SMC_DBG/flush_idle"
run serial 1 "$SERIAL"
run parallel $PAR_CLIENTS "$PAR_EACH"
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "connection churn" 30
tap_done
