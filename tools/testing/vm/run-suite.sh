#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test entry point (`make test`): boots QEMU guests per topology, runs the
# in-guest TAP runner, counts the results and prints "N passed, M failed".
set -u

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
export SRC
# shellcheck source=vm.sh
. "$SRC/tools/testing/vm/vm.sh"

usage() {
	echo "usage: $0 [--only host|single|pair] [--demo] [--keep]" >&2
	exit 2
}

only='' demo='' keep=''
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || usage; only=$2; shift ;;
	--only=*) only=${1#*=} ;;
	--demo) demo=1 ;;
	--keep) keep=1 ;;
	*) usage ;;
	esac
	shift
done
case $only in '' | host | single | pair) ;; *) usage ;; esac

runner=${SMC_GUEST_RUNNER:-$SRC/tools/testing/selftests/net/smc/run_guest.sh}
case $runner in /*) ;; *) runner=$PWD/$runner ;; esac

passed=0 failed=0 skipped=0 todo=0 count=0
result() { # ok|fail|skip|todo NAME [REASON]
	count=$((count + 1))
	case $1 in
	ok) passed=$((passed + 1)); echo "ok $count - $2" ;;
	fail) failed=$((failed + 1)); echo "not ok $count - $2" ;;
	skip) skipped=$((skipped + 1)); echo "ok $count - $2 # SKIP ${3:-}" ;;
	todo) todo=$((todo + 1)); echo "not ok $count - $2 # TODO ${3:-}" ;;
	esac
}

summary() {
	[ -z "$keep" ] && [ "$failed" -eq 0 ] || echo "# results kept in $results"
	[ "$skipped" -eq 0 ] || echo "$skipped skipped"
	[ "$todo" -eq 0 ] || echo "$todo known failures (TAP TODO: listed above, not counted as failed)"
	echo "$passed passed, $failed failed"
}

finish() {
	summary
	[ "$failed" -eq 0 ]
	exit
}

if [ -n "${SMC_VM_RESULTS:-}" ]; then
	results=$SMC_VM_RESULTS
	keep=1
	mkdir -p "$results" || exit 1
else
	mkdir -p "$VM_CACHE/runs" || exit 1
	results=$(mktemp -d "$VM_CACHE/runs/run.XXXXXX") || exit 1
fi
# shellcheck disable=SC2317 # called by trap
cleanup() {
	vm_kill_all
	[ -n "$keep" ] || [ "$failed" -ne 0 ] || rm -rf "$results"
}
trap cleanup EXIT
trap 'vm_kill_all; result fail interrupted; summary; exit 130' INT TERM HUP
trap 'vm_kill_all; exit 141' PIPE

if ! kver=$(vm_kver) || ! vm_initramfs "$kver" >/dev/null; then
	result fail "guest setup (kernel/initramfs)"
	finish
fi
vm_kernel "$kver" >/dev/null
if [ ! -e "$runner" ]; then
	result fail "guest runner $runner exists"
	finish
fi

# Count the TAP lines of one guest log: PREFIX LOG -> nonzero if any failed.
# Plans (1..N) are not checked: a runner concatenates several TAP streams.
parse_tap() {
	local prefix=$1 log=$2 line name notok dir seen=0 bad=0
	local re='^(not )?ok([[:space:]]+[0-9]+)?([[:space:]]+-)?([[:space:]]+(.*))?$'
	[ -r "$log" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		[[ $line =~ $re ]] || continue
		seen=$((seen + 1))
		notok=${BASH_REMATCH[1]}
		name=${BASH_REMATCH[5]:-unnamed $seen}
		if [[ $name =~ ^(.*[^[:space:]])[[:space:]]*\#[[:space:]]*[Ss][Kk][Ii][Pp]([[:space:]]+(.*))?$ ]]; then
			name=${BASH_REMATCH[1]}
			dir=${BASH_REMATCH[3]:-skipped}
			result skip "$prefix$name" "$dir"
		elif [ -n "$notok" ] &&
		     [[ $name =~ ^(.*[^[:space:]])[[:space:]]*\#[[:space:]]*[Tt][Oo][Dd][Oo]([[:space:]]+(.*))?$ ]]; then
			# a known failure (TAP TODO): shown and counted apart
			result todo "$prefix${BASH_REMATCH[1]}" "${BASH_REMATCH[3]:-known failure}"
		elif [ -n "$notok" ]; then
			result fail "$prefix$name"
			bad=1
		else
			result ok "$prefix$name"
		fi
	done <"$log"
	return $bad
}

# Filter for kernel reports of guest INDEX in DIR: $SMC_VM_SYMBOLIZE DIR INDEX
# (adds source lines to stack frames, e.g. tools/testing/debug/symbolize.sh)
symbolize() {
	if [ -n "${SMC_VM_SYMBOLIZE:-}" ]; then
		$SMC_VM_SYMBOLIZE "$1" "$2"
	else
		cat
	fi
}

# Kernel health of one guest: PREFIX DIR INDEX WAITSTATUS; sets guest_rc.
check_guest() {
	local prefix=$1 dir=$2 i=$3 st=$4 why=() trouble rc
	trouble=$(vm_console_scan "$dir/console$i.log") || why+=("kernel trouble in console log")
	case $st in
	0) ;;
	# isa-debug-exit with 0x21: a test cut the power (smc_killpeer)
	67) [ -e "$dir/guest$i.powercut" ] ||
		why+=("qemu exit status 67 (debug exit) without a power cut") ;;
	124) why+=("timed out after ${tmo:-?} s, killed") ;;
	*) why+=("qemu exit status $st") ;;
	esac
	rc=$(cat "$dir/guest$i.rc" 2>/dev/null)
	[ -n "$rc" ] || why+=("no exit status from the guest (crash, panic or hang)")
	if [ ${#why[@]} -eq 0 ]; then
		result ok "${prefix}guest$i kernel health"
	else
		result fail "${prefix}guest$i kernel health"
		printf '# %s\n' "${why[@]}"
		echo "# --- last 80 lines of console$i.log ---"
		tail -n 80 "$dir/console$i.log" 2>/dev/null | tr -d '\r' | symbolize "$dir" "$i" | sed 's/^/# /'
		sed 's/^/# qemu: /' "$dir/qemu$i.out" 2>/dev/null
		[ -z "$trouble" ] || { echo "# --- kernel trouble ---"; symbolize "$dir" "$i" <<<"$trouble" | sed 's/^/# /'; }
	fi
	guest_rc=$rc
}

# Leaks kmemleak found in one guest (only kernels with kmemleak write the
# report): PREFIX DIR INDEX. Reports whose text matches a line (ERE) of the
# file $SMC_VM_KMEMLEAK_IGNORE are dropped, and counted as such.
check_kmemleak() {
	local prefix=$1 dir=$2 i=$3 f=$2/guest$3.kmemleak ign=${SMC_VM_KMEMLEAK_IGNORE:-} n dropped
	if [ -e "$f.err" ]; then
		result fail "${prefix}guest$i kmemleak"
		sed 's/^/# /' "$f.err"
		return
	fi
	[ -e "$f" ] || return 0
	rm -f "$f.ignored"
	if [ -n "$ign" ] && [ -s "$f" ]; then
		[ -r "$ign" ] || { echo "# kmemleak ignore file $ign missing" >&2; ign=/dev/null; }
		awk -v out="$f.ignored" '
			FNR == NR { if (NF && $0 !~ /^#/) pat[++np] = $0; next }
			function flush(   j, hit) {
				if (rec == "") return
				for (j = 1; j <= np && !hit; j++) hit = rec ~ pat[j]
				if (hit) printf "%s", rec > out; else printf "%s", rec
				rec = ""
			}
			/^unreferenced object/ { flush() }
			{ rec = rec $0 "\n" }
			END { flush() }' "$ign" "$f" >"$f.reported"
	else
		cp "$f" "$f.reported"
	fi
	if [ -s "$f.reported" ] && [ -n "${SMC_VM_SYMBOLIZE:-}" ]; then
		symbolize "$dir" "$i" <"$f.reported" >"$f.sym" && mv "$f.sym" "$f.reported"
	fi
	n=$(grep -c '^unreferenced object' "$f.reported")
	dropped=$(grep -c '^unreferenced object' "$f.ignored" 2>/dev/null)
	if [ -s "$f.reported" ]; then
		result fail "${prefix}guest$i kmemleak"
		echo "# $n unreferenced object(s), report in $f.reported:"
		head -n 200 "$f.reported" | sed 's/^/# /'
	else
		result ok "${prefix}guest$i kmemleak"
	fi
	[ "${dropped:-0}" -eq 0 ] ||
		echo "# ${prefix}guest$i: $dropped known kmemleak false positive(s) ignored ($ign), see $f.ignored"
}

# Environment for the guest runner: SMC_VM_GUEST_ENV holds words NAME=VALUE,
# or NAME alone to pass that variable's value from here. SMC_TESTS (the
# subset of tests run_guest.sh runs) always passes.
guest_env() {
	local w
	for w in SMC_TESTS ${SMC_VM_GUEST_ENV:-}; do
		case $w in
		*=*) printf 'export %s=%q\n' "${w%%=*}" "${w#*=}" ;;
		*) [ -z "${!w+x}" ] || printf 'export %s=%q\n' "$w" "${!w}" ;;
		esac
	done
}

# topo_start NAME NGUESTS TIMEOUT RUNNER-ARGS... (@GUEST@ = guest index):
# boot the guests of a topology in the background; several topologies run
# at once, topo_finish collects each one's results.
declare -A topo_ng topo_end topo_pids topo_args topo_watch topo_doctor topo_nicwatch
topo_start() {
	local topo=$1 ng=$2 tmo=$3 i a cmd pids=()
	topo_args[$topo]=$(printf '%q ' "$@")
	shift 3
	local dir=$results/$topo
	mkdir -p "$dir"
	rm -f "$dir/boot-stalled" "$dir"/netdoctor.* "$dir/nicwatch.log"
	topo_ng[$topo]=0
	VM_PORTS=()
	for ((i = 0; i < ng; i++)); do
		cmd=$(printf '%q' "$runner")
		for a in "$@"; do cmd+=$(printf ' %q' "${a//@GUEST@/$i}"); done
		{
			printf '#!/bin/bash\ncd %q || exit 99\n' "$SRC"
			guest_env
			printf '[ -x %q ] && exec %s\nexec bash %s\n' "$runner" "$cmd" "$cmd"
		} >"$dir/guest$i.sh"
		if ! vm_boot "$i" "$ng" "$dir" "$tmo"; then
			result fail "$topo: guest$i boot"
			for a in "${pids[@]}"; do kill "$a" 2>/dev/null; done
			return 1
		fi
		pids+=("$VM_PID")
	done
	topo_ng[$topo]=$ng
	topo_end[$topo]=$((SECONDS + tmo))
	topo_pids[$topo]="${pids[*]}"
	vm_boot_watch "$dir" "$ng" "${SMC_VM_BOOT_STALL:-300}" "${pids[@]}" &
	topo_watch[$topo]=$!
	# QEMU's transmit queues that stop taking the guests' packets get
	# notified from here (nicwatch.py: what and why)
	local watched=()
	for ((i = 0; i < ng; i++)); do watched+=("${pids[i]}:$(vm_qmp_sock "$i")"); done
	python3 "$VM_DIR/nicwatch.py" "$dir/nicwatch.log" "${watched[@]}" \
		2>>"$dir/nicwatch.log" &
	topo_nicwatch[$topo]=$!
	topo_doctor[$topo]=
	if [ "$ng" = 2 ]; then
		vm_net_doctor "$dir" "$(vm_qmp_sock 0)" "$(vm_qmp_sock 1)" "${pids[@]}" &
		topo_doctor[$topo]=$!
	fi
}

# Wait for a topology's guests, their exit statuses into the caller's st[];
# a topology whose boot hung or went wrong (vm_boot_watch) boots once
# more, all guests.
topo_wait() {
	local topo=$1 ng=${topo_ng[$1]} dir=$results/$1 i pids=()
	read -ra pids <<<"${topo_pids[$topo]}"
	for ((i = 0; i < ng; i++)); do
		vm_wait "${pids[$i]}" $((topo_end[$topo] > SECONDS ? topo_end[$topo] - SECONDS : 0))
		st[i]=$?
	done
	wait "${topo_watch[$topo]}" 2>/dev/null
	[ -z "${topo_doctor[$topo]}" ] || wait "${topo_doctor[$topo]}" 2>/dev/null
	kill "${topo_nicwatch[$topo]}" 2>/dev/null
	wait "${topo_nicwatch[$topo]}" 2>/dev/null
	[ -f "$dir/boot-stalled" ] || return 0
	[ -z "${topo_retried[$topo]:-}" ] || return 0
	topo_retried[$topo]=1
	echo "# $topo: boot failed ($(cat "$dir/boot-stalled")): booting again"
	for ((i = 0; i < ng; i++)); do
		mv -f "$dir/console$i.log" "$dir/console$i.stalled.log" 2>/dev/null
	done
	eval "topo_start ${topo_args[$topo]}" || return 1
	topo_wait "$topo"
}
declare -A topo_retried

topo_finish() {
	local topo=$1 ng=${topo_ng[$1]:-0} i prefix bad t
	local dir=$results/$1 st=()
	[ "$ng" -gt 0 ] || return 0
	echo "== topology $topo ($ng guest$([ "$ng" -gt 1 ] && echo s)) =="
	topo_wait "$topo"
	if [ -n "$demo" ]; then
		for ((i = 0; i < ng; i++)); do
			echo "--- guest$i ---"
			cat "$dir/guest$i.log" 2>/dev/null
		done
		echo "---"
	fi
	for ((i = 0; i < ng; i++)); do
		prefix="$topo: "
		[ "$ng" -eq 1 ] || prefix="$topo: guest$i: "
		parse_tap "$prefix" "$dir/guest$i.log"
		bad=$?
		check_guest "$topo: " "$dir" "$i" "${st[$i]}"
		check_kmemleak "$topo: " "$dir" "$i"
		t=$(grep -aoE 'guest[0-9] (ready|done) at [0-9.]+ s' "$dir/console$i.log" 2>/dev/null | tr '\n' ' ')
		[ -z "$t" ] || echo "# $topo: $t(guest clock)"
		if [ -n "$guest_rc" ] && [ "$guest_rc" != 0 ] && [ "$bad" -eq 0 ]; then
			result fail "${prefix}runner exit status $guest_rc"
		fi
	done
	topo_ng[$topo]=0	# collected: a second call does nothing
}

run_topology() {
	topo_start "$@" && topo_finish "$1"
}

# Host-side tests: the pure code (wire codecs) built in userspace, the
# module built for every kernel with headers (sparse, W=1), a short fuzz of
# the decoders, and the DKMS packaging (into a scratch tree).
run_host() {
	echo "== host (unit tests, build for each kernel, fuzz smoke, docs, dkms) =="
	make -s -C "$SRC/tools/testing/unit" run >"$results/host.log" 2>&1 ||
		result fail "host: unit tests build"
	parse_tap "host: " "$results/host.log"
	"$SRC/tools/testing/build/build-kernels.sh" >"$results/build.log" 2>&1 ||
		grep -q '^not ok' "$results/build.log" || result fail "host: build check exit status"
	parse_tap "host: " "$results/build.log"
	"$SRC/tools/testing/fuzz/smoke.sh" >"$results/fuzz.log" 2>&1 ||
		result fail "host: fuzz smoke exit status"
	parse_tap "host: " "$results/fuzz.log"
	"$SRC/tools/testing/build/check-docs.sh" >"$results/docs.log" 2>&1 ||
		grep -q '^not ok' "$results/docs.log" || result fail "host: docs check exit status"
	parse_tap "host: " "$results/docs.log"
	"$SRC/tools/testing/dkms/test-dkms.sh" >"$results/dkms.log" 2>&1 ||
		grep -q '^not ok' "$results/dkms.log" || result fail "host: dkms test exit status"
	parse_tap "host: " "$results/dkms.log"
}

if [ -n "$demo" ]; then
	run_topology demo 2 "${SMC_VM_TIMEOUT_DEMO:-900}" demo @GUEST@
else
	# All guests run at once (the single-host tests split over two
	# guests), the host-side tests meanwhile: the host's cores are better
	# used than by one topology after the other. SMC_VM_SERIAL=1 (the
	# debug kernel: four KASAN guests overload two cores) boots the pair
	# only once the single-host guests are done.
	if [ "${only:-single}" = single ]; then
		topo_start single 1 "${SMC_VM_TIMEOUT_SINGLE:-2400}" single
		topo_start single2 1 "${SMC_VM_TIMEOUT_SINGLE:-2400}" single2
	fi
	if [ "${SMC_VM_SERIAL:-0}" = 1 ]; then
		topo_finish single
		topo_finish single2
	fi
	if [ "${only:-pair}" = pair ]; then
		topo_start pair 2 "${SMC_VM_TIMEOUT_PAIR:-2400}" pair @GUEST@
	fi
	if [ "${only:-host}" = host ]; then
		run_host
	fi
	for t in single single2 pair; do
		topo_finish $t
	done
fi
finish
