#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: builds a snapshot of the checkout, boots the two test guests
# once to measure raw RDMA, TCP, this module and Linux's net/smc, and writes
# Documentation/bench/{results.json,results.md,throughput.png}.
#
# The build happens in a copy (BENCH_SNAP, default /var/tmp/snap-bench) so
# that the checkout's own build products are never touched; the guests run
# that copy. Knobs:
#   BENCH_QUICK=1      ~2 s per measurement, short lists (a smoke test)
#   BENCH_SECS=N       seconds per measurement (default 10, quick 2)
#   BENCH_ROUNDS=N     the phase list runs N times, ours and intree taking
#                      turns; the report gives each cell's median (default
#                      3, quick 1; the guests' timeout grows with N)
#   BENCH_PHASES="raw tcp ours intree"   which phases (that order)
#   BENCH_TESTS="rr.s64 crr.*"  only these tests (default all; raw: bw.sN,
#                      lat.sN)
#   BENCH_OURS_SYSCTL="rmem=262144"  net.smc sysctls set after our module
#                      is loaded (ours only: to try other defaults)
#   BENCH_PERF="rr.s64"  CPU profiles of these tests on both guests
#                      (perf record -e cpu-clock -a), in SMC_VM_RESULTS/pair/perf/,
#                      summed by module in its modules.md (perf_modules.py)
#   BENCH_OUT=DIR      where the report goes (default Documentation/bench;
#                      only a full run there updates README.md's table,
#                      BENCH_README=0 not even that)
#   SMC_VM_RESULTS=DIR the guests' results dir (default a new one under
#                      /var/tmp/smc-vm/bench); SMC_VM_TIMEOUT_PAIR (seconds,
#                      default 1800 + 1200 per round, quick 900 + 600)
#   KVER               guest kernel release (default: newest with headers;
#                      a series other than 6.1 reports to
#                      Documentation/bench/SERIES unless BENCH_OUT is set)
# Exit status: 0 when the report was written (missing phases or failed
# tests are marked in it), 1 when there is no report.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
SNAP=${BENCH_SNAP:-/var/tmp/snap-bench}
QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] && QUICK=
export BENCH_QUICK=${QUICK:+1}
[ -n "$QUICK" ] || unset BENCH_QUICK

log() { echo "bench: $*" >&2; }

# the defaults of bench_guest.sh; checked here, before the long build (its
# port plan holds 50 rounds)
if [ -n "$QUICK" ]; then rounds=${BENCH_ROUNDS:-1}; else rounds=${BENCH_ROUNDS:-3}; fi
case $rounds in
''|*[!0-9]*|0*) log "BENCH_ROUNDS=$rounds: not a positive number"; exit 1 ;;
esac
[ "$rounds" -le 50 ] || { log "BENCH_ROUNDS=$rounds: at most 50"; exit 1; }
export BENCH_ROUNDS=$rounds

if [ -z "${KVER:-}" ]; then
	KVER=$(for v in $(ls -1 /lib/modules 2>/dev/null); do
		[ -e "/lib/modules/$v/build/Makefile" ] && echo "$v"; done | sort -V | tail -n 1)
fi
[ -n "$KVER" ] || { log "no kernel headers: apt-get install linux-headers-amd64"; exit 1; }
export KVER
# Documentation/bench and the README's table are the 6.1 guests' (the
# kernel the targets name); a run on another series goes beside them
kseries=$(cut -d. -f1,2 <<<"$KVER")
if [ -z "${BENCH_OUT:-}" ] && [ "$kseries" != 6.1 ]; then
	BENCH_OUT=$REPO/Documentation/bench/$kseries
	log "guest kernel $KVER: the report goes to Documentation/bench/$kseries (KVER=6.1.x for the main one)"
fi
OUTDIR=${BENCH_OUT:-$REPO/Documentation/bench}

results=${SMC_VM_RESULTS:-/var/tmp/smc-vm/bench/run.$(date +%Y%m%d-%H%M%S).$$}
mkdir -p "$results" || exit 1
log "results in $results"

# 0. host tools .ci/run does not install: rsync (the snapshot), gnuplot (the plot)
need=()
command -v rsync >/dev/null || need+=(rsync)
command -v gnuplot >/dev/null || need+=(gnuplot-nox)
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	# shellcheck source=../lib/host_apt.sh
	source "$REPO/tools/testing/lib/host_apt.sh"
	host_apt_install "$results/apt.log" "${need[@]}" ||
		log "apt-get install ${need[*]} failed (no gnuplot: no plot)"
fi
command -v rsync >/dev/null || { log "no rsync (apt-get install rsync)"; exit 1; }

# 1. snapshot of the checkout, without its build products
case $SNAP in /|"$REPO"|"$REPO"/*) log "BENCH_SNAP must be outside the checkout"; exit 1 ;; esac
mkdir -p "$SNAP" || exit 1
rsync -rlpD --checksum --delete --exclude=.git --exclude='*.o' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
	--exclude=modules.order --exclude=Module.symvers --exclude='*.o.d' \
	--exclude=/Documentation/bench --exclude=/tools/testing/bench/smc_bench \
	"$REPO/" "$SNAP/" || { log "rsync to $SNAP failed"; exit 1; }
git_desc=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)

# 2. builds: smc_bench is required; a missing module or in-tree peer only
# makes its phase "missing" in the report
make -s -C "$SNAP/tools/testing/bench" >"$results/build-bench.log" 2>&1 ||
	{ log "smc_bench build failed:"; tail -n 20 "$results/build-bench.log" >&2; exit 1; }
# (objects from before the content-based copy can be stale: once from clean)
if ! make -s -C "$SNAP" module >"$results/build-module.log" 2>&1 &&
   ! { make -s -C "$SNAP" clean && make -s -C "$SNAP" module; } \
	>"$results/build-module.log" 2>&1; then
	log "module build failed (phase ours will be missing):"
	tail -n 20 "$results/build-module.log" >&2
	rm -f "$SNAP/net/smc/smc.ko"
fi
intree=$("$SNAP/tools/testing/interop/build-intree-smc.sh" "$KVER" 2>"$results/build-intree.log") ||
	log "in-tree smc not built (phase intree will be missing): $(tail -n 3 "$results/build-intree.log")"
[ -z "$intree" ] || export SMC_INTREE_DIR=$intree
# what the intree phase loads: Linux's smc built from linux-source-6.1 with
# the rxe fixes, or, for another kernel series, the kernel's own module
case "$(cat "${SMC_INTREE_DIR:-/nonexistent}/stamp" 2>/dev/null)" in
stock\ *) intree_desc="smc.ko of the kernel package $KVER, unmodified" ;;
?*) intree_desc="smc.ko built from linux-source-$kseries with the two rxe fixes" ;;
*) intree_desc= ;;
esac

# 3. host facts for the report
jq_str() { printf '%s' "$*" | tr -d '"\\' | tr -c '[:print:]' ' '; }
{
	printf '{"date":"%s","cpu":"%s","host_cpus":%d,"qemu":"%s","kver":"%s",' \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" \
		"$(jq_str "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)")" \
		"$(nproc)" "$(jq_str "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)")" "$KVER"
	printf '"intree_series":"%s","intree_module":"%s",' "$(jq_str "$kseries")" \
		"$(jq_str "$intree_desc")"
	printf '"git":"%s","quick":%s,"load_before":"%s"}\n' "$(jq_str "$git_desc")" \
		"$([ -n "$QUICK" ] && echo true || echo false)" "$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$results/host-env.json"

# 4. the two guests; guest 0 writes pair/bench.jsonl, guest 1 pair/bench.g1.jsonl.
# A full round takes ~10 min (sockets ~8.5, raw ~1.3), plus the boot
if [ -n "$QUICK" ]; then
	tmo=${SMC_VM_TIMEOUT_PAIR:-$((900 + 600 * rounds))}
else
	tmo=${SMC_VM_TIMEOUT_PAIR:-$((1800 + 1200 * rounds))}
fi
log "booting the guests ($rounds rounds, timeout $tmo s)"
SMC_GUEST_RUNNER=$SNAP/tools/testing/bench/bench_guest.sh \
SMC_VM_RESULTS=$results SMC_VM_TIMEOUT_PAIR=$tmo \
SMC_VM_GUEST_ENV="BENCH_QUICK BENCH_SECS BENCH_PHASES BENCH_ROUNDS BENCH_TESTS BENCH_OURS_SYSCTL BENCH_PERF BENCH_PERF_GRAPH BENCH_FAKE_RAW_FAIL SMC_INTREE_DIR" \
	"$SNAP/tools/testing/vm/run-suite.sh" --only pair 2>&1 | tee "$results/suite.log"
suite_rc=${PIPESTATUS[0]}
[ "$suite_rc" = 0 ] || log "guest harness reported failures (exit $suite_rc): see $results/suite.log"

# 4b. the CPU profiles (BENCH_PERF), summed by module
perfdir=$results/pair/perf
if [ -n "${BENCH_PERF:-}" ] && compgen -G "$perfdir/*.sym" >/dev/null; then
	mods=()
	[ -f "$SNAP/net/smc/smc.ko" ] && mods+=(--module "smc_ours=$SNAP/net/smc/smc.ko")
	[ -f "${SMC_INTREE_DIR:-}/smc.ko" ] && mods+=(--module "smc_intree=$SMC_INTREE_DIR/smc.ko")
	for m in rdma_rxe ib_core; do
		ko=$(modinfo -k "$KVER" -n "$m" 2>/dev/null) && [ -f "$ko" ] &&
			mods+=(--module "$m=$ko")
	done
	if python3 "$SNAP/tools/testing/bench/perf_modules.py" "${mods[@]}" \
		"$perfdir"/*.sym >"$perfdir/modules.md" 2>"$perfdir/modules.err"; then
		log "profiles by module: $perfdir/modules.md"
	else
		log "profile summary failed: $(tail -n 3 "$perfdir/modules.err")"
	fi
fi

# 5. the report
mkdir -p "$OUTDIR" || exit 1
# the README shows the latest full run written to the default place
readme=()
[ -z "$QUICK" ] && [ -z "${BENCH_OUT:-}" ] && [ "${BENCH_README:-1}" != 0 ] &&
	readme=(--readme "$REPO/README.md")
if python3 "$SNAP/tools/testing/bench/report.py" "$results" "$OUTDIR" \
	--host-env "$results/host-env.json" --suite-log "$results/suite.log" \
	--work "$results" --targets "$REPO/Documentation/bench/targets.md" "${readme[@]}"; then
	log "report: $OUTDIR/results.md, results.json, throughput.png"
	exit 0
fi
log "report generation failed"
exit 1
