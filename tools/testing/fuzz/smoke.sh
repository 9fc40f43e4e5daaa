#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short, repeatable fuzz of each wire decoder for `make test` (TAP): a
# fixed seed and run count from the committed corpus, so a run either finds
# the same failure again or none; `make fuzz` is the long, open-ended run.
set -u
cd "$(dirname "$0")"
RUNS=${FUZZ_SMOKE_RUNS:-2000000}
TARGETS="clc llc cdc"

echo "TAP version 13"
echo "1..3"
if ! make -s all >build.log 2>&1; then
	n=0
	for t in $TARGETS; do
		n=$((n + 1))
		echo "ok $n - fuzz $t # SKIP fuzzers not built (clang with libFuzzer: apt-get install clang libclang-rt-14-dev)"
	done
	sed 's/^/# /' build.log | tail -5
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for t in $TARGETS; do
	n=$((n + 1))
	mkdir -p "$work/$t"
	if ./"${t}_fuzz" -seed=1 -runs="$RUNS" -max_len=8192 \
		-artifact_prefix="$work/crash-$t-" "$work/$t" "corpus/$t" \
		>"$work/$t.log" 2>&1; then
		echo "ok $n - fuzz $t: $RUNS inputs from seed 1, no failure"
	else
		echo "not ok $n - fuzz $t: failed after $(grep -aoE '^#[0-9]+' "$work/$t.log" | tail -1)"
		grep -aE 'assertion|ERROR|SUMMARY|Test unit written' "$work/$t.log" | sed 's/^/# /' | head -8
		for f in "$work"/crash-"$t"-*; do
			[ -e "$f" ] && echo "# input: $(od -An -tx1 -v "$f" | tr -d '\n' | head -c 400)"
		done
	fi
done
