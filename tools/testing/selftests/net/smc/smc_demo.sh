#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Demo: an AF_SMC server on guest 1 and an AF_SMC client on guest 0 exchange
# checksummed data over SMC-R (RDMA writes over Soft-RoCE) and show how the
# connection was carried while it is open.
#
#   +---- guest 0 ----+   eth0 + rxe0    +---- guest 1 ----+
#   | smc_xfer (SMC)  |=================>| smc_xfer -s (SMC)|
#   | 192.0.2.1       |   SMC-R v2       | 192.0.2.2       |
#   +-----------------+                  +-----------------+

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_demo[$guest]"
EID=SMC-DEMO

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
echo "# module: $(modinfo -F description "$SMC_KO") $(cat /sys/module/smc/version)"
echo "# RDMA: $(rdma link | head -n 1)"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" && echo "# user EID $EID added"
if [ "$guest" = 1 ]; then
	"$SMC_XFER" -s -f smc -p 25000 -c 1 -t 120 -H 3 > /tmp/demo.out &
	spid=$!
	smc_barrier demo.listening 60
	smc_barrier demo.open 120
	echo "# the server's sockets while the connection is open:"
	tap_diag < "$SMC_DBG/sockets"
	wait $spid
	rc=$?
	tap_diag < /tmp/demo.out
	[ "$rc" = 0 ] && tap_ok "AF_SMC server received and sent 8 MiB, verified" ||
		tap_fail "AF_SMC server received and sent 8 MiB, verified"
else
	smc_barrier demo.listening 60
	"$SMC_XFER" -f smc -p 25000 -n 8M -t 120 -H 3 192.0.2.2 > /tmp/demo.out &
	cpid=$!
	# show the connection while it carries data
	for i in $(seq 300); do
		grep -q "state ACTIVE.*mode SMCR" "$SMC_DBG/sockets" && break
		kill -0 $cpid 2>/dev/null || break
		sleep 0.1
	done
	smc_barrier demo.open 60
	echo "# the client's sockets while the connection is open:"
	tap_diag < "$SMC_DBG/sockets"
	wait $cpid
	rc=$?
	tap_diag < /tmp/demo.out
	[ "$rc" = 0 ] && tap_ok "AF_SMC client sent and received 8 MiB, verified" ||
		tap_fail "AF_SMC client sent and received 8 MiB, verified"
fi
echo "# counters (debugfs smc/stats):"
tap_diag < "$SMC_DBG/stats"
[ "$(smc_stat fallback_client)" = 0 ] && [ "$(smc_stat fallback_server)" = 0 ] &&
	tap_ok "no fallback: the data went over SMC-R" ||
	tap_fail "no fallback: the data went over SMC-R"
tap_done
