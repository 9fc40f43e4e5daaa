#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest step: load KUnit test modules and report every test case as TAP,
# "ok N - kunit: SUITE: CASE" / "not ok N - ..." (the failed case's kernel
# log lines follow as "# " diagnostics), then unload the module.
# Usage: run_kunit.sh MODULE.ko...
#
# KUnit runs a module's suites while it loads (insmod returns after them);
# their KTAP output is read back from the kernel log, after a marker written
# to /dev/kmsg just before the load. A kernel without KUnit gives one
# skipped result per module.
n=0
failed=0
result() { # ok|fail|skip NAME [REASON]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n - kunit: $2" ;;
	fail) failed=$((failed + 1)); echo "not ok $n - kunit: $2" ;;
	skip) echo "ok $n - kunit: $2 # SKIP $3" ;;
	esac
}

has_kunit() {
	[ -d /sys/kernel/debug/kunit ] && return 0
	[ -r /proc/config.gz ] && zgrep -qE '^CONFIG_KUNIT=[ym]' /proc/config.gz
}

# KTAP of the module's suites on stdin (timestamps stripped) -> TAP results.
# Suite headers and results are at indent 0/4, cases at indent 4, a case's
# log lines (its failed expectations) at indent 8 before its result line.
ktap_to_tap() { # MODULE-NAME
	local mod=$1 n0=$n line re_suite re_case re_end suite='' cases=0 log=()
	re_suite='^    # Subtest: ([^ ]+)'
	re_case='^    (not )?ok [0-9]+ ([^ #]+)( # SKIP ?(.*))?$'
	re_end='^(not )?ok [0-9]+ ([^ #]+)'
	while IFS= read -r line; do
		if [[ $line =~ $re_suite ]]; then
			suite=${BASH_REMATCH[1]} cases=0 log=()
		elif [[ $line =~ $re_end ]]; then
			# a suite that failed without a case result (init error)
			[ -z "${BASH_REMATCH[1]}" ] || [ "$cases" -gt 0 ] ||
				result fail "${BASH_REMATCH[2]}: no case ran"
			[ ${#log[@]} -eq 0 ] || printf '# %s\n' "${log[@]}"
			suite='' cases=0 log=()
		elif [ -z "$suite" ] || [[ $line =~ ^\ *(KTAP\ version|1\.\.) ]]; then
			continue
		elif [[ $line =~ $re_case ]]; then
			cases=$((cases + 1))
			if [ -n "${BASH_REMATCH[3]}" ]; then
				result skip "$suite: ${BASH_REMATCH[2]}" "${BASH_REMATCH[4]:-skipped}"
			elif [ -n "${BASH_REMATCH[1]}" ]; then
				result fail "$suite: ${BASH_REMATCH[2]}"
				[ ${#log[@]} -eq 0 ] || printf '# %s\n' "${log[@]}"
			else
				result ok "$suite: ${BASH_REMATCH[2]}"
			fi
			log=()
		else
			log+=("$line")
		fi
	done
	[ $n -gt "$n0" ] || result fail "$mod: no KUnit results in the kernel log"
}

echo "# --- kunit"
for ko in "$@"; do
	mod=$(basename "$ko" .ko)
	if ! has_kunit; then
		result skip "$mod" "kernel without KUnit (CONFIG_KUNIT)"
		continue
	fi
	if [ ! -r "$ko" ]; then
		result fail "$mod: $ko not built"
		continue
	fi
	marker="smc-kunit: loading $mod $$.$RANDOM"
	echo "$marker" >/dev/kmsg
	if ! out=$(insmod "$ko" 2>&1); then
		result fail "$mod: insmod"
		echo "# $out"
		continue
	fi
	# (no process substitution: the guests have no /dev/fd)
	ktap=$(dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' |
		awk -v m="$marker" 'found; index($0, m) { found = 1 }')
	ktap_to_tap "$mod" <<<"$ktap"
	if out=$(rmmod "$mod" 2>&1); then
		result ok "$mod: unload"
	else
		result fail "$mod: unload"
		echo "# $out"
	fi
done
[ "$failed" -eq 0 ]
