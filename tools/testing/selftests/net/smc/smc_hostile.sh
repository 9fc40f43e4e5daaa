#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Malformed CLC messages: the next Proposal, Accept or Confirm this host
# sends is altered on purpose (debugfs smc/clc_inject), and the receiving
# side, this same module over the rxe0 loopback, must answer with a reset
# or a Decline as the protocol wants, count it, and stay healthy: a good
# SMC-R connection works right after each case, and nothing leaks.
#
#   +------------------------------ guest ------------------------------+
#   |  smc_xfer client --(altered CLC)--> smc_xfer -s    on 192.0.2.1     |
#   |  AF_SMC, SMC-R over rxe0 loopback      AF_SMC                       |
#   +--------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-HOSTILE-TEST
PORT=29000

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -w "$SMC_DBG/clc_inject" ] || ksft_skip_all "no clc_inject in debugfs"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"

# one connection: "ok" when the data went through, "fail" otherwise
xfer() {
	local s rc
	PORT=$((PORT + 1))
	"$SMC_XFER" -s -q -f smc -p $PORT -c 1 -t 30 2>/dev/null &
	s=$!
	smc_wait_port $PORT 10
	"$SMC_XFER" -q -f smc -p $PORT -n 64K -t 30 "$ADDR" 2>/dev/null
	rc=$?
	wait $s
	[ $rc = 0 ] && echo ok || echo fail
}

healthy() { # NAME: a good SMC-R connection right after a case
	local c0 fb0
	c0=$(smc_obj_created conn)
	fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	[ "$(xfer)" = ok ] &&
	[ $(( $(smc_obj_created conn) - c0 )) = 2 ] &&
	[ $(( $(smc_stat fallback_client) + $(smc_stat fallback_server) )) = "$fb0" ] &&
		tap_ok "$1: next connection works over SMC-R" ||
		tap_fail "$1: next connection works over SMC-R"
}

tap_check "baseline SMC-R connection" test "$(xfer)" = ok

# name | injection | expected: reset (connect fails, handshake error
# counted on the receiving side) or fallback:REASON (data over TCP, the
# client counts the reason)
CASES="proposal_bad_eyecatcher|1 0=0x00|reset:server
proposal_version_0|1 7=0x02|reset:server
proposal_unknown_type|1 4=0x09|reset:server
proposal_length_2000|1 5=0x07 6=0xd0|reset:server
proposal_9_ueids|1 80=9|reset:server
proposal_bad_trailer|1 152=0x00|reset:server
proposal_truncated|1 trunc=100|reset:server
accept_bad_eyecatcher|2 0=0x00|reset:client
accept_absurd_rmb_size|2 50=0xf3|reset:client
accept_rmbe_index_0|2 45=0x00|reset:client
accept_unknown_qp|2 40=0x99|fallback:0x04000000
confirm_truncated|3 trunc=60|reset:server
confirm_bad_trailer|3 104=0x00|reset:server"

while IFS='|' read -r name inj want; do
	hs_s=$(smc_stat hs_err_server)
	hs_c=$(smc_stat hs_err_client)
	rsn=${want#fallback:}
	fb=$(smc_fallback_count "$rsn" client)
	echo "$inj" > "$SMC_DBG/clc_inject"
	got=$(xfer)
	echo "# $name: transfer $got; hs_err server $(smc_stat hs_err_server) client $(smc_stat hs_err_client)"
	case $want in
	reset:server)
		[ "$got" = fail ] && [ "$(smc_stat hs_err_server)" -gt "$hs_s" ] &&
			tap_ok "$name: connection reset, server counted a handshake error" ||
			tap_fail "$name: connection reset, server counted a handshake error"
		;;
	reset:client)
		[ "$got" = fail ] && [ "$(smc_stat hs_err_client)" -gt "$hs_c" ] &&
			tap_ok "$name: connection reset, client counted a handshake error" ||
			tap_fail "$name: connection reset, client counted a handshake error"
		;;
	fallback:*)
		[ "$got" = ok ] && [ "$(smc_fallback_count "$rsn" client)" -gt "$fb" ] &&
			tap_ok "$name: Decline $rsn, data over TCP" ||
			tap_fail "$name: Decline $rsn, data over TCP"
		;;
	esac
	healthy "$name"
done <<<"$CASES"

echo 1 > "$SMC_DBG/flush_idle"
smc_check_released "malformed CLC messages"
tap_done
