#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's tracepoints (tracefs events/smc/): an SMC-R transfer over the
# loopback link must show both links coming up and send/receive events
# whose byte counts add up to exactly what the applications moved; a
# connection to a plain TCP server must show one fallback with its reason.
# (smcr_link_down is checked by smc_devremove.sh.)
#
#   +----------------------------- guest ------------------------------+
#   |  smc_xfer client --\                        /-- smc_xfer -s       |
#   |             192.0.2.1 (eth0) --> rxe0 (loopback SMC-R)            |
#   |  smc_xfer -f smc client --> smc_xfer -f tcp -s (TCP: fallback)   |
#   |  /sys/kernel/tracing/events/smc/*  -->  trace                     |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-TRACE-TEST
PORT=29900
T=/sys/kernel/tracing
BYTES=1048576

cleanup() {
	[ -d $T/events/smc ] && echo 0 >$T/events/smc/enable
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events ] || ksft_skip_all "no tracefs"
rdma link 2>/dev/null | grep -q ACTIVE || ksft_skip_all "no active RDMA device"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "cannot add a user EID"

for e in smc_switch_to_fallback smcr_link_up smcr_link_down smc_tx_sendmsg smc_rx_recvmsg; do
	tap_check "event smc/$e exists" [ -e $T/events/smc/$e/enable ]
done

# a fresh link group, so that its links come up while we trace
echo 1 >"$SMC_DBG/flush_idle"
w0_data=$(smc_wire cdc_tx_data) w0_ctrl=$(smc_wire cdc_tx_ctrl)
w0_wr=$(smc_wire rdma_writes) w0_rx=$(smc_wire cdc_rx)
echo 0 >$T/tracing_on
echo >$T/trace
echo 1 >$T/events/smc/enable
echo 1 >$T/tracing_on

"$SMC_XFER" -s -q -f smc -p $PORT -c 1 -t 60 &
spid=$!
smc_wait_port $PORT 10
"$SMC_XFER" -q -f smc -p $PORT -n $BYTES -t 60 "$ADDR"
crc=$?
wait $spid
src=$?
tap_check "1 x 1M each way over SMC-R, verified" [ "$crc$src" = 00 ]

"$SMC_XFER" -s -q -f tcp -p $((PORT + 1)) -c 1 -t 60 &
spid=$!
smc_wait_port $((PORT + 1)) 10
"$SMC_XFER" -q -f smc -p $((PORT + 1)) -n 4K -t 60 "$ADDR"
wait $spid
echo 0 >$T/tracing_on
cp $T/trace /tmp/smc_trace.txt
echo 0 >$T/events/smc/enable

# rc= of one event type, summed over positive results
sum_rc() {
	awk -v ev="$1:" '$0 ~ ev {
		for (i = 1; i <= NF; i++) if ($i ~ /^rc=/) {
			v = substr($i, 4) + 0; if (v > 0) s += v } }
		END { printf "%d\n", s }' /tmp/smc_trace.txt
}
# the client sends a 16-byte header and the data, the server the data and
# a 1-byte status: both directions together
want=$((2 * BYTES + 16 + 1))
tx=$(sum_rc smc_tx_sendmsg)
rx=$(sum_rc smc_rx_recvmsg)
tap_check "send events add up to the bytes sent ($tx of $want)" [ "$tx" = $want ]
tap_check "receive events add up to the bytes received ($rx of $want)" [ "$rx" = $want ]
ups=$(grep -c 'smcr_link_up:' /tmp/smc_trace.txt)
tap_check "both links came up ($ups smcr_link_up events)" [ "$ups" = 2 ]
tap_check "link events name rxe0 port 1" \
	bash -c "grep 'smcr_link_up:' /tmp/smc_trace.txt | grep -v 'dev=rxe0 port=1' | grep -q . && exit 1 || exit 0"
fb=$(grep 'smc_switch_to_fallback:' /tmp/smc_trace.txt)
tap_check "one fallback event: client, peer without SMC (0x03010000)" \
	bash -c "[ \$(grep -c . <<<'$fb') = 1 ] && grep -q 'role=client reason=0x03010000' <<<'$fb'"
tap_check "no fallback for the SMC-R transfer" \
	[ "$(grep -c 'smc_switch_to_fallback:' /tmp/smc_trace.txt)" -le 1 ]
grep -m3 'smc_tx_sendmsg:\|smcr_link_up:' /tmp/smc_trace.txt | tap_diag
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the traced connections"

# the data path's message counters over the same transfer: over the
# loopback every CDC sent was received here; 1 MiB each way through 64 KiB
# RMBs takes at least 16 WRITEs and 16 data CDCs per direction
d_data=$(( $(smc_wire cdc_tx_data) - w0_data ))
d_ctrl=$(( $(smc_wire cdc_tx_ctrl) - w0_ctrl ))
d_wr=$(( $(smc_wire rdma_writes) - w0_wr ))
d_rx=$(( $(smc_wire cdc_rx) - w0_rx ))
echo "# wire: $d_data data CDCs, $d_ctrl control CDCs, $d_wr RDMA WRITEs, $d_rx CDCs received"
tap_check "wire counters: every CDC sent was received ($d_rx = $d_data + $d_ctrl)" \
	[ "$d_rx" = $((d_data + d_ctrl)) ]
[ "$d_wr" -ge 32 ] && [ "$d_data" -ge 32 ] && [ "$d_data" -le "$d_wr" ]
tap_check "wire counters: at least 32 WRITEs and data CDCs, no more data CDCs than WRITEs" \
	[ $? = 0 ]

# autocorking: with net.smc.autocorking_size=0 each of 2048 writes of 64
# bytes goes as its own data CDC (a reader that lags merges a few; the
# server's 128 KiB the other way, in 64 KiB writes, adds a few). With
# autocorking, writes made while a CDC is in flight wait for it and go
# together. Over the loopback a CDC mostly completes before the next write
# (1405 of 2052 went in one run, 2052 of 2052 in others), so only "never
# more CDCs" is asserted here; the policy itself is unit-tested (cdc_wire
# test_policy).
small_cdcs() {
	local d0 rc spid

	d0=$(smc_wire cdc_tx_data)
	"$SMC_XFER" -s -q -f smc -p $((PORT + 2)) -c 1 -t 60 &
	spid=$!
	smc_wait_port $((PORT + 2)) 10
	"$SMC_XFER" -q -f smc -p $((PORT + 2)) -n 128K -w 64 -t 60 "$ADDR"
	rc=$?
	wait $spid
	[ $rc$? = 00 ] || { echo -1; return; }
	echo $(( $(smc_wire cdc_tx_data) - d0 ))
}
cork0=$(sysctl -n net.smc.autocorking_size)
corked=$(small_cdcs)
sysctl -qw net.smc.autocorking_size=0
uncorked=$(small_cdcs)
sysctl -qw net.smc.autocorking_size="$cork0"
echo "# 2048 x 64 B writes: $corked data CDCs with autocorking_size $cork0, $uncorked with 0"
tap_check "autocorking: 64 B writes verified, both settings" \
	[ "$corked" -ge 0 -a "$uncorked" -ge 0 ]
tap_check "without autocorking nearly every 64 B write is a CDC ($uncorked for 2048)" \
	[ "$uncorked" -ge 1843 ]
tap_check "autocorking never adds CDCs ($corked data CDCs, $uncorked without)" \
	[ "$corked" -ge 1 -a "$corked" -le $((uncorked + 4)) ]
smc_check_released "the autocorking connections"
tap_done
