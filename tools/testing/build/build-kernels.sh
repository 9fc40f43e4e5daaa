#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side build check (TAP): the module against every kernel whose headers
# are installed, with sparse and W=1 warnings as errors, so that a kernel
# the guests do not boot (Debian's 6.12 beside 6.1) keeps building.
#
# Each build runs in a scratch copy of Kbuild, net/ and include/ (the
# checkout's own build for KVER stays as it is). SMC_BUILD_KERNELS= names
# the kernel releases (default: every /lib/modules/*/build).
set -u

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=../lib/kernels.sh
source "$SRC/tools/testing/lib/kernels.sh"
n=0 failed=0

kernels=${SMC_BUILD_KERNELS:-$(kernels_with_headers)}
if [ -z "$kernels" ]; then
	echo "ok 1 - build: every kernel with headers # SKIP no kernel headers (apt-get install linux-headers-amd64)"
	echo "1..1"
	exit 0
fi
sparse=C=2 label="sparse and W=1"
command -v sparse >/dev/null || { sparse='' label="W=1 (no sparse installed)"; }

T=$(mktemp -d "${TMPDIR:-/var/tmp}/smc-build-kernels.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
for k in $kernels; do
	n=$((n + 1))
	d=$T/$k
	mkdir -p "$d/tools/testing"
	cp -a "$SRC/Kbuild" "$SRC/net" "$SRC/include" "$d/"
	cp -a "$SRC/tools/testing/kunit" "$SRC/tools/testing/unit" "$d/tools/testing/"
	find "$d" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o \
		-name '.*.cmd' -o -name 'modules.order' \) -delete
	start=$SECONDS
	make -C "/lib/modules/$k/build" M="$d" $sparse W=1 KCFLAGS=-Werror \
		modules >"$d.log" 2>&1
	rc=$?
	# the KUnit module of the wire codecs (check-debug loads it): its
	# code must compile too; a kernel without KUnit cannot link it
	if [ $rc = 0 ]; then
		make -C "/lib/modules/$k/build" M="$d/tools/testing/kunit" \
			W=1 KCFLAGS=-Werror KBUILD_MODPOST_WARN=1 modules \
			>>"$d.log" 2>&1
		rc=$?
	fi
	if [ $rc = 0 ] && ! grep -qE 'warning:|error:' "$d.log" &&
	   [ -e "$d/net/smc/smc.ko" ] && [ -e "$d/net/smc/smc_diag.ko" ]; then
		echo "ok $n - build: smc.ko, smc_diag.ko (and smc_wire_kunit's code) for $k, $label clean ($((SECONDS - start)) s)"
	else
		failed=$((failed + 1))
		echo "not ok $n - build: for $k (make exit $rc)"
		grep -E 'warning:|error:|ERROR' "$d.log" | head -n 20 | sed 's/^/# /'
		[ $rc = 0 ] || tail -n 5 "$d.log" | sed 's/^/# /'
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
