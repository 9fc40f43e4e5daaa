#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest runner of `make bench` (SMC_GUEST_RUNNER for run-suite.sh, pair
# topology): guest 1 serves at 192.0.2.2, guest 0 measures from 192.0.2.1.
#
# Phases (BENCH_PHASES, default "raw tcp ours intree"), in this order:
#   raw     perftest ib_write_bw / ib_write_lat over rxe0 (RoCE v2 GID)
#   tcp     smc_bench -f tcp
#   ours    smc_bench -f smc with $SRC/net/smc/smc.ko loaded
#   intree  smc_bench -f smc with Linux's smc.ko (6.1 + the two rxe fixes,
#           or another series' own module: build-intree-smc.sh) instead
# Socket workloads per phase: stream.bBUF (1 stream, SO_SNDBUF/SO_RCVBUF
# BUF), stream.pN (N streams, default buffers; stream.p1 is the single
# stream of each module's defaults), rr.sSIZE (request/response latency),
# crr.cN (connect + 1 B request/response + close, N clients), idle.kK
# (memory of K idle connections with default buffers, measured first) and
# idle.kK.bBUF (the same with SO_SNDBUF/SO_RCVBUF BUF, after the modules
# were loaded anew, so that no buffer of the first is pooled for reuse).
# BENCH_OURS_SYSCTL="rmem=262144 ..." sets net.smc sysctls after our
# module is loaded (only ours: tries other defaults). Both guests walk the same plan
# and meet at two barriers per test (ready, done), between which each
# reads /proc/stat (CPU), rxe0's packet counters and, for ours, the
# fallback counters. Results, one JSON object a line: guest 0 in
# /results/bench.jsonl, guest 1 in /results/bench.g1.jsonl
# (tools/testing/bench/report.py joins them by phase and test).
#
# BENCH_ROUNDS=N (default 3, quick 1): the whole phase list runs N times
# (raw tcp ours intree, raw tcp ours intree, ...), so that ours and intree
# alternate in time and a slow drift of the host hits both alike; the
# report takes the median per cell. Every round's phases set their modules
# up again. idle.kK runs in round 1 only (slow, and steady between runs).
# Every record carries "round" (env: "rounds"); barrier names, phase status
# files and ports are per round, as the barrier files stay during a run.
#
# BENCH_QUICK=1: ~2 s per measurement and one or two values per list.
# BENCH_SECS overrides the measurement time. BENCH_TESTS="rr.s64 crr.c1"
# runs only the tests named (patterns as for case; raw tests are bw.sN and
# lat.sN). BENCH_PERF="rr.s64 ..." profiles those tests on both guests
# (perf record -e cpu-clock -a over the measurement) and writes the
# report by module and by symbol to /results/perf/. Prints TAP for the
# harness.
#
# Usage: bench_guest.sh pair N

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${SRC:-$(cd "$BENCH_DIR/../../.." && pwd)}
# shellcheck source=../selftests/net/smc/smc_lib.sh
source "$SRC/tools/testing/selftests/net/smc/smc_lib.sh"
# no object debug lines (a printk per object) while measuring
SMC_OBJLOG=0

mode=${1:-pair}
guest=${2:-${GUEST:-0}}
GUEST=$guest
tap_prefix="bench[$guest]"
PEER=${BENCH_PEER:-192.0.2.2}
# shared between the guests; another directory (and BENCH_PEER=127.0.0.1,
# BENCH_NO_DROP_CACHES=1, BENCH_KEEP_SYSCTL=1, BENCH_PHASES=tcp) runs both
# "guests" on one host for a dry run
RES=${BENCH_RESULTS:-/results}
EID=SMC-BENCH-EID
PNET=PNETBENCH
BENCH=$BENCH_DIR/smc_bench
INTREE=${SMC_INTREE_DIR:-/var/tmp/smc-vm/intree-smc/$(uname -r)}
NL="python3 $SMC_TESTDIR/smc_nl.py"

if [ "$guest" = 0 ]; then OUT=$RES/bench.jsonl; else OUT=$RES/bench.g1.jsonl; fi

if [ "${BENCH_QUICK:-0}" != 0 ]; then
	QUICK=1
	T=${BENCH_SECS:-2}
	BUFS="65536 1048576"
	PARS="1 4"
	SIZES="1 65536"
	CRRS="1 16"
	IDLE_K=20
	IDLE_BUF=65536
	LAT_ITERS=200
	RAW_BW_SIZES="65536"
	ROUNDS=${BENCH_ROUNDS:-1}
else
	QUICK=0
	T=${BENCH_SECS:-10}
	BUFS="65536 131072 524288 1048576"
	PARS="1 4 16"
	SIZES="1 64 4096 65536"
	CRRS="1 16"
	IDLE_K=100
	IDLE_BUF=65536
	LAT_ITERS=1000
	RAW_BW_SIZES="65536 1048576"
	ROUNDS=${BENCH_ROUNDS:-3}
fi
PHASES=${BENCH_PHASES:-raw tcp ours intree}
ROUND=1

echo "TAP version 13"
echo "# bench guest $guest, mode $mode, kernel $(uname -r), quick=$QUICK, T=$T s, $ROUNDS rounds"
[ "$mode" = pair ] || { echo "usage: $0 pair N" >&2; exit 2; }
# ports per round: sockets BASE + (ROUND - 1) * 20 (a phase has at most 16
# tests), raw 18600 + (ROUND - 1) * 10 (at most 6; a second attempt 500
# above); the socket phases' bases are 1000 apart, so 50 rounds fit
# (run-bench.sh checks BENCH_ROUNDS)

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

emit() { printf '%s\n' "$1" >>"$OUT"; }

# listed TEST LIST: TEST matches one of the patterns of LIST
listed() {
	local p
	for p in $2; do
		# shellcheck disable=SC2254 # the patterns are meant to match
		case $1 in $p) return 0 ;; esac
	done
	return 1
}

# wanted TEST: BENCH_TESTS (default: every test) names it
wanted() { [ -z "${BENCH_TESTS:-}" ] || listed "$1" "$BENCH_TESTS"; }

# perf_start PHASE TEST / perf_stop: CPU profile of this guest over one
# measurement, when BENCH_PERF names the test. The report goes to
# $RES/perf/PHASE.rROUND.TEST.gGUEST.txt: samples per module, then per
# symbol.
perf_pid=
perf_start() {
	perf_name=
	[ -n "${BENCH_PERF:-}" ] && listed "$2" "$BENCH_PERF" || return 0
	command -v perf >/dev/null || { echo "# perf not found: no profile of $2"; return 0; }
	perf_name=$1.r$ROUND.$2
	# perf takes seconds to set up on these guests: it starts with its
	# events off and the measurement waits for its answer to "enable"
	rm -f /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack || return 0
	# BENCH_PERF_GRAPH=1: with call chains (a .graph report per profile)
	perf record -e cpu-clock -F 1000 -a -q -D -1 \
		${BENCH_PERF_GRAPH:+-g} --control fifo:/tmp/perf.ctl,/tmp/perf.ack \
		-o "/tmp/perf.$perf_name.data" >"/tmp/perf.$perf_name.log" 2>&1 &
	perf_pid=$!
	timeout 60 sh -c 'echo enable >/tmp/perf.ctl && read -r a </tmp/perf.ack' ||
		echo "# perf did not start in 60 s: profile of $perf_name incomplete"
}
perf_stop() {
	local f
	[ -n "$perf_pid" ] || return 0
	kill -INT "$perf_pid" 2>/dev/null
	wait "$perf_pid" 2>/dev/null
	perf_pid=
	mkdir -p "$RES/perf"
	f=$RES/perf/$perf_name.g$guest.txt
	{
		echo "# $perf_name, guest $guest ($(uname -r)): perf record -e cpu-clock -F 1000 -a"
		perf report -i "/tmp/perf.$perf_name.data" --stdio --no-children \
			--sort dso 2>&1 | grep -v '^$' | head -n 30
		perf report -i "/tmp/perf.$perf_name.data" --stdio --no-children \
			--sort dso,sym 2>&1 | grep -v '^$' | grep -v '^#' | head -n 80
	} >"$f"
	# every symbol, for tools/testing/bench/perf_modules.py
	perf report -i "/tmp/perf.$perf_name.data" --stdio --no-children \
		--sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' \
		>"${f%.txt}.sym"
	[ -z "${BENCH_PERF_GRAPH:-}" ] ||
		perf report -i "/tmp/perf.$perf_name.data" --stdio --no-children \
			--sort sym --percent-limit 1 -g graph,0.5,caller 2>/dev/null |
			grep -v '^$' | head -n 600 >"${f%.txt}.graph"
	rm -f "/tmp/perf.$perf_name.data" /tmp/perf.ctl /tmp/perf.ack
}

# bench_barrier NAME [TIMEOUT]: smc_barrier (smc_lib.sh, GUEST=$guest) on
# $RES; the round in the name, as every round passes the same names
bench_barrier() { smc_barrier "r$ROUND.$1" "${2:-120}" "$RES"; }

# JSON string body: drop quotes, backslashes and control characters
jstr() { printf '%s' "$*" | tr -d '"\\' | tr -c '[:print:]' ' '; }

# cpu_read: "busy total ctxt intr netrx irqpoll tasklet": jiffies of all
# CPUs (busy = user nice system irq softirq; total adds idle iowait
# steal), context switches, interrupts and the runs of three softirqs
# since boot
cpu_read() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8; t = b + $5 + $6 + $9 }
	     $1 == "intr" { i = $2 } $1 == "ctxt" { c = $2 }
	     $1 == "softirq" { n = $6; p = $8; k = $9 }
	     END { print b, t, c + 0, i + 0, n + 0, p + 0, k + 0 }' /proc/stat
}

fallbacks() {
	if smc_is_ours_loaded; then
		echo $(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	else
		echo 0
	fi
}

# wire_read: CDCs sent (data + control) and RDMA WRITEs of our module's
# data path (debugfs stats, smcr_wire); 0 0 for the other phases
wire_read() {
	if smc_is_ours_loaded && [ -r "$SMC_DBG/stats" ]; then
		local data ctrl writes
		# the three counters of one moment (one read)
		read -r data ctrl writes <<<"$(smc_wire cdc_tx_data cdc_tx_ctrl rdma_writes)"
		echo $((data + ctrl)) "$((writes))"
	else
		echo 0 0
	fi
}

# tcp_segs: TCP segments this guest sent and received (/proc/net/snmp
# OutSegs + InSegs): the CLC sockets' share of an SMC connection's cost
tcp_segs() {
	awk '$1 == "Tcp:" && $2 ~ /^[0-9]+$/ { print $11 + $12; exit }' /proc/net/snmp
}

# eth0_kicks: doorbells of eth0's virtio transmit queues (ethtool -S
# tx_queue_N_kicks, txN_kicks since 6.10), each a trap into QEMU: what one
# packet costs beyond its bytes depends on how many share a kick
eth0_kicks() {
	ethtool -S eth0 2>/dev/null |
		awk '$1 ~ /^tx(_queue_)?[0-9]+_kicks:$/ { n += $2 } END { print n + 0 }'
}

# snap_begin [PHASE TEST] / snap_end: counters around one measurement, and
# its CPU profile (perf_start) when BENCH_PERF names TEST; snap_json prints
# the fields (CPU jiffies, USER_HZ, rxe packets, TCP segments, our
# fallbacks, our CDCs and RDMA WRITEs, eth0's virtio kicks, context
# switches, interrupts and three softirqs' runs from /proc/stat: NET_RX
# (eth0 and rxe's receive), IRQ_POLL (ib_core polling our completion
# queues) and TASKLET (rxe 6.1's work, Linux's smc's polling)). CPU and
# profile cover only the measurement: reading the other counters forks processes (more of them
# with our module loaded), which must count in neither.
snap_begin() {
	rxe0_=$(smc_rxe_pkts)
	tcp0_=$(tcp_segs)
	kick0_=$(eth0_kicks)
	fb0_=$(fallbacks)
	read -r cdc0_ wr0_ <<<"$(wire_read)"
	[ $# -lt 2 ] || perf_start "$1" "$2"
	t0_=$(date +%s.%N)
	read -r c_busy0 c_total0 ctxt0_ intr0_ netrx0_ irqpoll0_ tasklet0_ <<<"$(cpu_read)"
}
snap_end() {
	read -r c_busy1 c_total1 ctxt1_ intr1_ netrx1_ irqpoll1_ tasklet1_ <<<"$(cpu_read)"
	t1_=$(date +%s.%N)
	perf_stop
	rxe1_=$(smc_rxe_pkts)
	tcp1_=$(tcp_segs)
	kick1_=$(eth0_kicks)
	fb1_=$(fallbacks)
	read -r cdc1_ wr1_ <<<"$(wire_read)"
}
snap_json() {
	printf '"cpu_busy_jiffies":%d,"cpu_total_jiffies":%d,"user_hz":%d,"ncpu":%d,"wall_s":%s,"rxe_pkts":%d,"tcp_segs":%d,"fallbacks":%d,"cdc_tx":%d,"rdma_writes":%d,"tx_kicks":%d,"ctxt":%d,"intr":%d,"sirq_net_rx":%d,"sirq_irq_poll":%d,"sirq_tasklet":%d' \
		$((c_busy1 - c_busy0)) $((c_total1 - c_total0)) "$(getconf CLK_TCK)" \
		"$(nproc)" "$(awk -v a="$t0_" -v b="$t1_" 'BEGIN { printf "%.3f", b - a }')" \
		$((rxe1_ - rxe0_)) $((tcp1_ - tcp0_)) $((fb1_ - fb0_)) $((cdc1_ - cdc0_)) $((wr1_ - wr0_)) \
		$((kick1_ - kick0_)) $((ctxt1_ - ctxt0_)) $((intr1_ - intr0_)) \
		$((netrx1_ - netrx0_)) $((irqpoll1_ - irqpoll0_)) $((tasklet1_ - tasklet0_))
}

# pace_read: the host's pace just now (smc_bench -m pace: ms for a fixed
# loop, lower is faster), 0 if it could not tell. The client reads it
# before and after each measurement, outside the CPU window: a report
# tells from it whether the phases it compares met the same host.
pace_read() {
	"$BENCH" -m pace 2>/dev/null |
		awk -F'[:}]' '/"pace_ms"/ { v = $2 } END { print v + 0 }'
}
pace_json() {
	printf '"pace0_ms":%s,"pace1_ms":%s' "${pace0_:-0}" "${pace1_:-0}"
}

# merge LINE FIELDS: the JSON object LINE with more fields added
merge() {
	local line=$1
	case $line in
	'{'*'}') printf '%s,%s}' "${line%\}}" "$2" ;;
	*) return 1 ;;
	esac
}

# stop_pid PID: SIGTERM, then SIGKILL after 5 s; never waits longer
stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		smc_nap 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# wait_line FILE PATTERN SECS: until FILE has a line matching PATTERN
wait_line() {
	local i
	for i in $(seq $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		smc_nap 0.1
	done
	return 1
}

# ------------------------------------------------------------- modules

# prints a reason and fails when the phase's module cannot be set up
setup_module() { # ours|intree|none
	case $1 in
	none)
		[ -d /sys/module/smc ] || return 0
		smc_unload_any 2>&1 || return 1
		;;
	ours)
		# anew in every round, as Linux's: also when the round before
		# ran ours last (the EID would exist already)
		{ smc_unload_any && smc_load; } 2>&1 ||
			{ echo "cannot load $SMC_KO"; return 1; }
		$NL ueid-add "$EID" >/dev/null 2>&1 || { echo "ueid-add $EID failed"; return 1; }
		ours_sysctl || return 1
		;;
	intree)
		[ -f "$INTREE/smc.ko" ] || { echo "in-tree smc not built ($INTREE)"; return 1; }
		smc_unload_any 2>&1 || return 1
		modprobe -q ib_core 2>/dev/null
		insmod "$INTREE/smc.ko" 2>&1 || { echo "insmod $INTREE/smc.ko failed"; return 1; }
		$NL pnet-add "$PNET" eth0 rxe0 1 >/dev/null 2>&1 || { echo "pnet-add failed"; return 1; }
		$NL ueid-add "$EID" >/dev/null 2>&1 || { echo "ueid-add $EID failed"; return 1; }
		;;
	esac
	return 0
}

# BENCH_OURS_SYSCTL "name=value ...": net.smc sysctls for our module
ours_sysctl() {
	local kv
	for kv in ${BENCH_OURS_SYSCTL:-}; do
		echo "${kv#*=}" >"/proc/sys/net/smc/${kv%%=*}" 2>/dev/null ||
			{ echo "cannot set net.smc.$kv"; return 1; }
	done
}

# module_reload PHASE: the phase's module unloaded and loaded again on
# both guests (a fresh module has no buffers pooled); 1 when either failed
module_reload() {
	local why other
	case $1 in
	ours) why=$(setup_module ours | tr '\n' ' ') ;;
	intree) why=$(setup_module intree | tr '\n' ' ') ;;
	*) why= ;;
	esac
	echo "${why:-ok}" >"$RES/reload.r$ROUND.$1.$guest"
	bench_barrier "$1.reload" 300 || return 1
	other=$(cat "$RES/reload.r$ROUND.$1.$((1 - guest))" 2>/dev/null)
	[ -z "$why" ] && [ "$other" = ok ] && return 0
	tap_fail "r$ROUND $1: module reload: ${why:-ok}; guest $((1 - guest)): ${other:-no status}"
	return 1
}

# A guest's eth0 that stopped transmitting (smc_eth0_recover) would cost
# every later test of the run: looked at (cheaply) before each phase and
# test, on both guests; not in a pipe, the function keeps its count
net_check() { smc_eth0_recover "$peer"; }

# phase_start PHASE MODULE: both guests set up and agree; 0 when both are
# ready, else the phase is reported as skipped with both guests' reasons
phase_start() {
	local phase=$1 why other
	net_check
	why=$(setup_module "$2" | tr '\n' ' ')
	if [ -z "$why" ] && [ "$2" != none ] && [ "$phase" != raw ]; then
		[ -d /sys/module/smc ] || why="no smc module after loading"
	fi
	if [ "$phase" = raw ] && [ -z "$why" ]; then
		modprobe -q ib_uverbs 2>/dev/null
		command -v ib_write_bw >/dev/null || why="perftest not installed"
		[ -n "$why" ] || GID=$(raw_gid) || why="no IPv4 RoCE v2 GID on rxe0"
	fi
	if [ -z "$why" ] && ! rdma link 2>/dev/null | grep -q "rxe0.*ACTIVE" &&
	   [ "$phase" != tcp ]; then
		why="no active rxe0"
	fi
	echo "${why:-ok}" >"$RES/phase.r$ROUND.$phase.$guest"
	if ! bench_barrier "$phase.setup" 300; then
		why="${why:+$why; }peer guest did not reach the phase"
	fi
	other=$(cat "$RES/phase.r$ROUND.$phase.$((1 - guest))" 2>/dev/null)
	[ "$other" = ok ] || why="${why:+$why; }guest $((1 - guest)): ${other:-no status}"
	if [ -n "$why" ]; then
		tap_skip "r$ROUND phase $phase" "$why"
		emit "{\"type\":\"phase\",\"phase\":\"$phase\",\"guest\":$guest,\"round\":$ROUND,\"status\":\"skipped\",\"reason\":\"$(jstr "$why")\"}"
		return 1
	fi
	emit "{\"type\":\"phase\",\"phase\":\"$phase\",\"guest\":$guest,\"round\":$ROUND,\"status\":\"ok\",\"module\":\"$2\"$(modinfo_json)}"
	return 0
}

modinfo_json() {
	[ -d /sys/module/smc ] || return 0
	printf ',"srcversion":"%s","ours":%s' \
		"$(cat /sys/module/smc/srcversion 2>/dev/null)" \
		"$(smc_is_ours_loaded && echo true || echo false)"
}

# ------------------------------------------------------------- raw RDMA

# index of rxe0's RoCE v2 GID that holds an IPv4-mapped address
raw_gid() {
	local d=/sys/class/infiniband/rxe0/ports/1 f i g t
	for f in "$d"/gids/*; do
		i=${f##*/}
		g=$(cat "$f" 2>/dev/null) || continue
		t=$(cat "$d/gid_attrs/types/$i" 2>/dev/null) || continue
		case $g in
		0000:0000:0000:0000:0000:ffff:*)
			case $t in *"v2"*) echo "$i"; return 0 ;; esac ;;
		esac
	done
	return 1
}

# raw_test KIND(bw|lat) SIZE PORT: one perftest measurement; an attempt
# that gives no result (perftest over rxe now and then hangs until its
# timeout) is run once more, server side restarted: the client leaves
# $RES/rawretry.rROUND.TEST.aN before the attempt's "done" barrier.
# BENCH_FAKE_RAW_FAIL="lat.s64 ..." makes the first attempt of those fail.
raw_test() {
	local kind=$1 size=$2 port=$3 test="$1.s$2" args out spid line i json a
	net_check
	args=(-d rxe0 -i 1 -x "$GID" -s "$size" -F)
	if [ "$kind" = bw ]; then
		args+=(-D "$T" --report_gbits)
		kind=ib_write_bw
	else
		args+=(-n "$LAT_ITERS")
		kind=ib_write_lat
	fi
	out=/tmp/raw.$test.$guest
	if [ "$guest" = 1 ]; then
		for a in 1 2; do
			# a port per attempt: the hung one may linger
			timeout -k 5 $((T * 3 + 240)) "$kind" "${args[@]}" \
				-p $((port + (a - 1) * 500)) >"$out" 2>&1 &
			spid=$!
			sleep 1
			snap_begin
			bench_barrier "raw.$test.a$a.ready" 300
			bench_barrier "raw.$test.a$a.done" $((T * 3 + 300))
			snap_end
			stop_pid "$spid"
			[ -e "$RES/rawretry.r$ROUND.$test.a$a" ] || break
		done
		emit "{\"phase\":\"raw\",\"test\":\"$test\",\"guest\":1,\"round\":$ROUND,\"role\":\"server\",$(snap_json)}"
		tap_ok "r$ROUND raw $test (server side)"
		return
	fi
	pace0_=$(pace_read)
	for a in 1 2; do
		bench_barrier "raw.$test.a$a.ready" 300
		snap_begin
		# the server may still be starting: retry a refused out-of-band connect
		for i in $(seq 10); do
			if [ "$a" = 1 ] && listed "$test" "${BENCH_FAKE_RAW_FAIL:-}"; then
				echo "BENCH_FAKE_RAW_FAIL: no client run" >"$out"
				break
			fi
			# (line-buffered: a run that hangs still shows how far it got)
			timeout -k 5 $((T * 3 + 180)) stdbuf -oL "$kind" "${args[@]}" \
				-p $((port + (a - 1) * 500)) "$PEER" >"$out" 2>&1
			grep -q "Couldn't connect\|Unable to open file descriptor" "$out" || break
			sleep 1
		done
		snap_end
		if [ "$kind" = ib_write_bw ]; then
			# #bytes #iterations BW-peak BW-average[Gb/s] MsgRate[Mpps]
			line=$(awk -v s="$size" '$1 == s && NF >= 5 { l = $0 } END { print l }' "$out")
			json=$(awk -v s="$size" '$1 == s && NF >= 5 { it = $2; bw = $4 }
				END { if (bw != "") printf "\"mode\":\"rdma_write_bw\",\"size\":%d,\"iters\":%d,\"gbit_per_s\":%s,\"bytes_per_s\":%.0f,\"mbit_per_s\":%.2f", s, it, bw, bw * 125000000, bw * 1000 }' "$out")
		else
			# #bytes #iter t_min t_max t_typical t_avg t_stdev 99% 99.9% [usec]
			line=$(awk -v s="$size" '$1 == s && NF >= 9 { l = $0 } END { print l }' "$out")
			json=$(awk -v s="$size" '$1 == s && NF >= 9 { split($0, f) }
				END { if (f[1] != "") printf "\"mode\":\"rdma_write_lat\",\"size\":%d,\"count\":%d,\"min_us\":%s,\"max_us\":%s,\"p50_us\":%s,\"mean_us\":%s,\"stdev_us\":%s,\"p99_us\":%s,\"p999_us\":%s", s, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9] }' "$out")
		fi
		if [ -z "$json" ] && [ "$a" = 1 ]; then
			echo "# r$ROUND raw $test: no result, once more; last lines:"
			tail -n 5 "$out" | tap_diag
			touch "$RES/rawretry.r$ROUND.$test.a$a"
		fi
		[ -n "$json" ] && pace1_=$(pace_read)
		bench_barrier "raw.$test.a$a.done" 300
		[ -n "$json" ] && break
	done
	if [ -n "$json" ]; then
		emit "{\"phase\":\"raw\",\"test\":\"$test\",\"guest\":0,\"round\":$ROUND,\"role\":\"client\",$json,\"attempts\":$a,\"raw_line\":\"$(jstr "$line")\",$(snap_json),$(pace_json)}"
		tap_ok "r$ROUND raw $test"
	else
		emit "{\"phase\":\"raw\",\"test\":\"$test\",\"guest\":0,\"round\":$ROUND,\"role\":\"client\",\"error\":\"$(jstr "$(tail -n 3 "$out")")\",$(snap_json)}"
		tap_fail "r$ROUND raw $test: no result"
		tail -n 20 "$out" | tap_diag
	fi
}

run_raw() {
	local s port=$((18600 + (ROUND - 1) * 10))
	for s in $RAW_BW_SIZES; do
		wanted "bw.s$s" && raw_test bw "$s" $port
		port=$((port + 1))
	done
	for s in $SIZES; do
		wanted "lat.s$s" && raw_test lat "$s" $port
		port=$((port + 1))
	done
}

# ------------------------------------------------------------- sockets

# sock_test PHASE FAMILY PORT TEST MODE SERVER-ARGS CLIENT-ARGS
sock_test() {
	local phase=$1 fam=$2 port=$3 test=$4 mode=$5 sargs=$6 cargs=$7
	local out=/tmp/bench.$phase.$test.$guest spid line summary rc
	net_check
	if [ "$guest" = 1 ]; then
		# shellcheck disable=SC2086 # word lists
		"$BENCH" -s -f "$fam" -p "$port" $sargs -t $((T * 3 + 400)) >"$out" 2>&1 &
		spid=$!
		wait_line "$out" listening 30 || echo "# r$ROUND $phase $test: server not listening: $(head -c 300 "$out")"
		# counters and profiler before the client starts: the forks and
		# perf's set-up would take this guest's CPU from the exchanges
		snap_begin "$phase" "$test"
		bench_barrier "$phase.$test.ready" 300
		bench_barrier "$phase.$test.done" $((T * 3 + 300))
		snap_end
		stop_pid "$spid"
		summary=$(grep '"accepted"' "$out" | tail -n 1)
		emit "{\"phase\":\"$phase\",\"test\":\"$test\",\"guest\":1,\"round\":$ROUND,\"role\":\"server\",$(snap_json)${summary:+,\"server\":$summary}}"
		tap_ok "r$ROUND $phase $test (server side)"
		return
	fi
	pace0_=$(pace_read)
	bench_barrier "$phase.$test.ready" 300
	snap_begin "$phase" "$test"
	# shellcheck disable=SC2086
	timeout -k 5 $((T * 3 + 250)) "$BENCH" -m "$mode" -f "$fam" -p "$port" $cargs -t "$T" \
		-x "\"phase\":\"$phase\",\"test\":\"$test\",\"guest\":0,\"round\":$ROUND" "$PEER" >"$out" 2>&1
	rc=$?
	snap_end
	pace1_=$(pace_read)
	bench_barrier "$phase.$test.done" 300
	line=$(grep '^{' "$out" | tail -n 1)
	if line=$(merge "$line" "\"rc\":$rc,$(snap_json),$(pace_json)"); then
		emit "$line"
		case $line in
		*'"errors":0,'*) ;;
		*) echo "# r$ROUND $phase $test: errors: $(grep '^{' "$out" | tail -n 1)" ;;
		esac
		case $line in
		*'"error":'* | *'"count":0,'* | *'"streams_ok":0,'*)
			tap_fail "r$ROUND $phase $test: no measurement"
			tap_diag <"$out" ;;
		*) tap_ok "r$ROUND $phase $test" ;;
		esac
	else
		emit "{\"phase\":\"$phase\",\"test\":\"$test\",\"guest\":0,\"round\":$ROUND,\"role\":\"client\",\"error\":\"no result, exit status $rc: $(jstr "$(tail -n 3 "$out")")\",$(snap_json)}"
		tap_fail "r$ROUND $phase $test (exit status $rc)"
		tail -n 20 "$out" | tap_diag
	fi
}

# mem_read: FREE AVAIL SLAB SUNRECLAIM KSTACK PAGETABLES (KiB). FREE is the
# buddy allocator's free pages plus the per-CPU page lists: MemFree leaves
# the latter out, and they absorb allocations of up to a few MiB unseen.
mem_read() {
	sync
	[ -n "${BENCH_NO_DROP_CACHES:-}" ] || echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
	sleep 1
	awk -v kb=$(($(getconf PAGESIZE) / 1024)) '
		$1 == "pages" && $2 == "free" { f += $3 }
		$1 == "count:" { c += $2 }
		END { printf "%d ", (f + c) * kb }' /proc/zoneinfo
	awk '{ v[$1] = $2 }
		END { print v["MemAvailable:"] + 0, v["Slab:"] + 0, v["SUnreclaim:"] + 0,
			    v["KernelStack:"] + 0, v["PageTables:"] + 0 }' /proc/meminfo
}

# idle_test PHASE FAMILY PORT [BUF]: memory of IDLE_K idle connections,
# both sides, with default buffers or SO_SNDBUF/SO_RCVBUF BUF. One
# connection opened before the baseline and held throughout makes the SMC
# link group (QPs, ...) part of the baseline: the figure is the cost of one
# more connection.
idle_test() {
	local phase=$1 fam=$2 port=$3 buf=${4:-} test=idle.k$IDLE_K out spid cpid wpid n=0 line
	local f0 a0 s0 u0 k0 p0 f1 a1 s1 u1 k1 p1 x b=
	[ -n "$buf" ] && { test=$test.b$buf; b="-b $buf"; }
	out=/tmp/bench.$phase.$test.$guest
	x="\"phase\":\"$phase\",\"test\":\"$test\",\"guest\":0,\"round\":$ROUND"
	if [ "$guest" = 1 ]; then
		# shellcheck disable=SC2086 # word list
		"$BENCH" -s -f "$fam" -p "$port" $b -t $((IDLE_K + 900)) >"$out" 2>&1 &
		spid=$!
		wait_line "$out" listening 30
	fi
	bench_barrier "$phase.$test.ready" 300
	if [ "$guest" = 0 ]; then
		# shellcheck disable=SC2086
		"$BENCH" -m idle -f "$fam" -p "$port" -P 1 $b -t $((IDLE_K + 900)) -x "$x" \
			"$PEER" >"$out.warm" 2>&1 &
		wpid=$!
		wait_line "$out.warm" '"state":"open"' 60 ||
			echo "# $phase $test: warm-up connection not opened in time"
	fi
	bench_barrier "$phase.$test.warm" 300
	read -r f0 a0 s0 u0 k0 p0 <<<"$(mem_read)"
	bench_barrier "$phase.$test.base" 300
	if [ "$guest" = 0 ]; then
		# shellcheck disable=SC2086
		"$BENCH" -m idle -f "$fam" -p "$port" -P "$IDLE_K" $b -t $((IDLE_K + 600)) \
			-x "$x" "$PEER" >"$out" 2>&1 &
		cpid=$!
		wait_line "$out" '"state":"open"' $((IDLE_K + 120)) ||
			echo "# $phase $test: idle connections not opened in time"
		sleep 2
	fi
	bench_barrier "$phase.$test.open" $((IDLE_K + 300))
	read -r f1 a1 s1 u1 k1 p1 <<<"$(mem_read)"
	bench_barrier "$phase.$test.measured" 300
	if [ "$guest" = 0 ]; then
		stop_pid "$cpid"
		stop_pid "$wpid"
		line=$(grep '"state":"open"' "$out" | tail -n 1)
		n=$(sed -n 's/.*"opened":\([0-9]*\).*/\1/p' <<<"$line")
	else
		# the server counts what it accepted, less the warm-up connection
		sleep 3
		stop_pid "$spid"
		n=$(sed -n 's/.*"accepted":\([0-9]*\).*/\1/p' "$out" | tail -n 1)
		[ "${n:-0}" -gt 0 ] && n=$((n - 1))
	fi
	n=${n:-0}
	: "${f0:=0}" "${f1:=0}"
	emit "{\"phase\":\"$phase\",\"test\":\"$test\",\"guest\":$guest,\"round\":$ROUND,\"mode\":\"idle\",\"family\":\"$fam\",\"buf\":${buf:-0},\"conns\":$n,\"free_kib_before\":$f0,\"free_kib_after\":$f1,\"free_delta_kib\":$((f0 - f1)),\"memavail_delta_kib\":$((a0 - a1)),\"slab_delta_kib\":$((s1 - s0)),\"sunreclaim_delta_kib\":$((u1 - u0)),\"kstack_delta_kib\":$((k1 - k0)),\"pagetables_delta_kib\":$((p1 - p0))$([ "$n" -gt 0 ] && printf ',"kib_per_conn":%.2f' "$(awk -v d=$((f0 - f1)) -v n="$n" 'BEGIN { print d / n }')")}"
	bench_barrier "$phase.$test.done" 300
	if [ "$n" -gt 0 ]; then
		tap_ok "r$ROUND $phase $test ($n connections)"
	else
		tap_fail "r$ROUND $phase $test: no idle connection opened"
		tap_diag <"$out"
	fi
}

# socket workloads of one phase; ports BASE + (ROUND - 1) * 20 + index
run_sockets() {
	local phase=$1 fam=$2 port=$(($3 + (ROUND - 1) * 20)) b p s c
	# first: no buffers of earlier tests are pooled for reuse yet; round 1
	# only, as it takes long and hardly varies (its port stays reserved)
	[ "$ROUND" = 1 ] && wanted "idle.k$IDLE_K" &&
		idle_test "$phase" "$fam" "$port"
	port=$((port + 1))
	# then at equal buffer sizes for every phase: the modules' defaults
	# may differ; loaded anew, as the first test's buffers are pooled
	[ "$ROUND" = 1 ] && wanted "idle.k$IDLE_K.b$IDLE_BUF" &&
		module_reload "$phase" &&
		idle_test "$phase" "$fam" "$port" "$IDLE_BUF"
	port=$((port + 1))
	for b in $BUFS; do
		wanted "stream.b$b" &&
			sock_test "$phase" "$fam" "$port" "stream.b$b" stream "-b $b" "-b $b -P 1"
		port=$((port + 1))
	done
	for p in $PARS; do
		wanted "stream.p$p" &&
			sock_test "$phase" "$fam" "$port" "stream.p$p" stream "" "-P $p"
		port=$((port + 1))
	done
	for s in $SIZES; do
		wanted "rr.s$s" && sock_test "$phase" "$fam" "$port" "rr.s$s" rr "" "-S $s"
		port=$((port + 1))
	done
	for c in $CRRS; do
		wanted "crr.c$c" && sock_test "$phase" "$fam" "$port" "crr.c$c" crr "" "-P $c"
		port=$((port + 1))
	done
}

# ------------------------------------------------------------- main

[ -x "$BENCH" ] || { tap_fail "smc_bench built ($BENCH)"; exit 1; }
# SO_SNDBUF/SO_RCVBUF are capped at net.core.[rw]mem_max (208 KiB by
# default): lift the caps so that the 512 KiB and 1 MiB cases are what
# they say (the guests are thrown away afterwards)
if [ -z "${BENCH_KEEP_SYSCTL:-}" ]; then
	echo 16777216 >/proc/sys/net/core/rmem_max
	echo 16777216 >/proc/sys/net/core/wmem_max
fi
if [ "$guest" = 0 ]; then
	: >"$OUT"
	emit "{\"type\":\"env\",\"guest\":0,\"kernel\":\"$(uname -r)\",\"ncpu\":$(nproc),\"mem_kib\":$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo),\"cpu_model\":\"$(jstr "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)")\",\"quick\":$QUICK,\"secs\":$T,\"phases\":\"$PHASES\",\"bufs\":\"$BUFS\",\"pars\":\"$PARS\",\"sizes\":\"$SIZES\",\"crr\":\"$CRRS\",\"idle_conns\":$IDLE_K,\"idle_buf\":$IDLE_BUF,\"ours_sysctl\":\"$(jstr "${BENCH_OURS_SYSCTL:-}")\",\"rmem_max\":$(cat /proc/sys/net/core/rmem_max),\"wmem_max\":$(cat /proc/sys/net/core/wmem_max),\"lat_iters\":$LAT_ITERS,\"rounds\":$ROUNDS,\"date\":\"$(date -u +%FT%TZ)\"}"
else
	: >"$OUT"
fi
# both guests up (and the peer reachable) before anything is measured
bench_barrier start 300
# (a dry run on one host sets BENCH_PEER for both "guests")
if [ "$guest" = 1 ]; then peer=${BENCH_PEER:-192.0.2.1}; else peer=$PEER; fi
for i in $(seq 100); do ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && break; sleep 0.2; done

# round after round of the whole phase list, so that ours and intree take
# turns; phase_start sets the modules up in every round (raw and tcp unload
# smc, intree replaces ours and the next round's ours replaces intree)
for ROUND in $(seq "$ROUNDS"); do
	for phase in $PHASES; do
		echo "# --- round $ROUND of $ROUNDS, phase $phase ($(date -u +%T))"
		case $phase in
		raw) phase_start raw none && run_raw ;;
		tcp) phase_start tcp none && run_sockets tcp tcp 30000 ;;
		ours) phase_start ours ours && run_sockets ours smc 31000 ;;
		intree) phase_start intree intree && run_sockets intree smc 32000 ;;
		*) tap_skip "r$ROUND phase $phase" "unknown phase" ;;
		esac
		bench_barrier "$phase.end" 600
		if [ "$phase" = ours ] && smc_is_ours_loaded; then
			echo "# ours after the phase (round $ROUND):"
			smc_stats_brief | head -n 20 | tap_diag
		fi
	done
done
bench_barrier finished 600
echo "# bench guest $guest done"
tap_done
