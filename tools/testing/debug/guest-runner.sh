#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest runner of `make check-debug`: in the single-host topology first
# the KUnit suites ($SMC_KUNIT_KO, tools/testing/kunit/run_kunit.sh), then
# the real runner ($SMC_DEBUG_RUNNER, default run_guest.sh) with the same
# arguments, then unloads smc.ko, so that the kmemleak scan which follows
# (tools/testing/vm/init) also sees what the module did not free on unload.
# In a pair the guests first wait for each other (files in /results), so no
# guest loses its peer's module while its own tests still run.
runner=${SMC_DEBUG_RUNNER:-$SRC/tools/testing/selftests/net/smc/run_guest.sh}
n=${GUEST:-0} ng=${NGUESTS:-1}

# Where each module's text sections were loaded ("module section address",
# new ones every 0.2 s) to /results/guestN.modmap: kmemleak prints frames of
# an unloaded module as bare addresses, symbolize.sh maps them back.
modmap_sample() {
	local f m s a
	declare -A seen=()
	while :; do
		for f in /sys/module/*/sections/.*text*; do
			read -r a 2>/dev/null <"$f" || continue
			m=${f#/sys/module/}
			m=${m%%/*}
			s=${f##*/}
			[ -z "${seen[$m $s $a]:-}" ] || continue
			seen[$m $s $a]=1
			echo "$m $s $a" >>"/results/guest$n.modmap"
		done
		[ -e "/tmp/.modmap-stop" ] && break
		sleep 0.2
	done
}
if [ -d /results ]; then
	modmap_sample </dev/null >/dev/null 2>&1 &
	sampler=$!
fi

if [ -n "${SMC_KUNIT_KO:-}" ] && [ "${1:-}" = single ]; then
	"$(dirname "${BASH_SOURCE[0]}")/../kunit/run_kunit.sh" "$SMC_KUNIT_KO"
fi
"$runner" "$@"
rc=$?
if [ -d /results ]; then
	: >"/results/.runner-done.$n"
	for ((t = 0; t < 600; t++)); do
		all=1
		for ((g = 0; g < ng; g++)); do
			# guestN.rc: a guest that powered itself off (smc_killpeer)
			[ -e "/results/.runner-done.$g" ] || [ -e "/results/guest$g.rc" ] || all=
		done
		[ -n "$all" ] && break
		sleep 1
	done
	[ -n "$all" ] || echo "# debug: peers not done after 600 s, unloading anyway"
fi
if [ -d /sys/module/smc ]; then
	if out=$(rmmod smc 2>&1); then
		echo "ok - debug: rmmod smc after the tests (before the kmemleak scan)"
	else
		echo "not ok - debug: rmmod smc after the tests (before the kmemleak scan)"
		echo "# $out"
		[ -r /sys/kernel/debug/smc/objects ] && sed 's/^/# /' /sys/kernel/debug/smc/objects
	fi
fi
if [ -n "${sampler:-}" ]; then
	: >/tmp/.modmap-stop
	wait "$sampler"
fi
exit $rc
