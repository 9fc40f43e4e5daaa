#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds Linux's own smc.ko/smc_diag.ko from Debian's linux-source-6.1 (or of
# the kernel's series) as the interop peer, with the two Soft-RoCE fixes;
# cached outside the repository.
#
# Fixes (see ../../../../shared/ENVIRONMENT.md "The in-tree implementation as a
# test peer"): test qp_state instead of cur_qp_state (rxe keeps the latter at
# RESET) and arm CQs with IB_CQ_NEXT_COMP instead of IB_CQ_SOLICITED_MASK
# (rxe arms nothing for the combined mask). Nothing of that source is
# committed here.
#
# --v1: a second, test-only build for SMC-R v1 interop. Linux's smc offers
# and accepts v1 only on a RoCE v1 GID, which Soft-RoCE does not have; this
# build takes an IPv4-mapped RoCE v2 GID where it looks for a v1 GID (GID
# choice only, no wire change), so v1 CLC, LLC and CDC of both
# implementations can meet over rxe. Goes to KVER-v1.
#
# For a kernel of another series (Debian's 6.12), its own smc.ko and
# smc_diag.ko are copied (decompressed) instead; its --v1 build needs
# linux-source of that series (linux-source-6.12), which gets the same fixes.
#
# Usage: build-intree-smc.sh [--v1] [KVER]   prints the directory holding the .ko files
set -euo pipefail

V1=
if [ "${1:-}" = --v1 ]; then
	V1=-v1
	shift
fi
KVER=${1:-${KVER:-$(ls -1 /lib/modules | sort -V | tail -n 1)}}
KDIR=${KDIR:-/lib/modules/$KVER/build}
k_series=$(cut -d. -f1,2 <<<"$KVER")
# the source of the kernel's own series (the only one that can fit it);
# none installed is no error here (a 6.12 kernel's own smc.ko needs none)
TARBALL=${SMC_LINUX_SOURCE:-$(ls -1 /usr/src/linux-source-"$k_series".tar.* 2>/dev/null | head -n 1 || true)}
CACHE=${SMC_VM_CACHE:-/var/tmp/smc-vm}/intree-smc
OUT=$CACHE/$KVER$V1

[ -d "$KDIR" ] || { echo "build-intree-smc: no $KDIR" >&2; exit 1; }

# the modules in $OUT were made from what $stamp describes: nothing to do
exit_if_cached() {
	if [ -f "$OUT/smc.ko" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "$OUT"
		exit 0
	fi
}

# A kernel of another series than 6.1 (Debian's 6.12, say): its own smc.ko
# is Linux's smc for it, used as it is (no fixes: rxe and smc of 6.12 meet
# without them); the v1 test build needs the source of that series.
if [ "$k_series" != 6.1 ] && [ -z "$V1" ]; then
	ko=$(ls -1 "/lib/modules/$KVER/kernel/net/smc/smc.ko"* 2>/dev/null | head -n 1)
	[ -n "$ko" ] || {
		echo "build-intree-smc: $KVER has no smc.ko of its own" >&2
		exit 4
	}
	stamp="stock $(stat -c %s-%Y "$ko") $(sha1sum "$0" | cut -c1-12) $KVER"
	exit_if_cached
	rm -rf "$OUT"
	mkdir -p "$OUT"
	for m in smc smc_diag; do
		f=$(ls -1 "/lib/modules/$KVER/kernel/net/smc/$m.ko"* | head -n 1)
		case $f in
		*.xz) xz -dc "$f" >"$OUT/$m.ko" ;;
		*.zst) zstd -qdc "$f" >"$OUT/$m.ko" ;;
		*.gz) gzip -dc "$f" >"$OUT/$m.ko" ;;
		*) cp "$f" "$OUT/$m.ko" ;;
		esac
	done
	echo "$stamp" >"$OUT/stamp"
	echo "$OUT"
	exit 0
fi

[ -n "$TARBALL" ] && [ -f "$TARBALL" ] || {
	echo "build-intree-smc: linux-source-$k_series not installed (apt-get install linux-source-$k_series)" >&2
	exit 4
}
src_series=$(basename "$TARBALL"); src_series=${src_series#linux-source-}
src_series=${src_series%%.tar.*}
if [ "$k_series" != "$src_series" ]; then
	echo "build-intree-smc: the build for $KVER needs linux-source-$k_series (have $src_series)" >&2
	exit 4
fi

# the tree's configuration too: a kernel rebuilt with other options (struct
# module changes with CONFIG_DYNAMIC_DEBUG) refuses modules of the old one
kconf=$(sha1sum <"$KDIR/.config" 2>/dev/null | cut -c1-12 || true)
stamp="$(stat -c %s-%Y "$TARBALL") $(sha1sum "$0" | cut -c1-12) $KVER$V1 ${kconf:-noconfig}"
exit_if_cached

rm -rf "$OUT"
mkdir -p "$OUT/src"
top=$(basename "$TARBALL"); top=${top%%.tar.*}
tar xf "$TARBALL" -C "$OUT/src" --strip-components=3 "$top/net/smc"

# the two Soft-RoCE fixes; fail loudly if the source no longer matches
grep -q 'qp_attr.cur_qp_state' "$OUT/src/smc_core.h"
sed -i 's/qp_attr\.cur_qp_state/qp_attr.qp_state/' "$OUT/src/smc_core.h"
n=$(grep -l 'IB_CQ_SOLICITED_MASK' "$OUT"/src/*.c | wc -l)
[ "$n" -ge 1 ]
sed -i 's/IB_CQ_SOLICITED_MASK/IB_CQ_NEXT_COMP/' "$OUT"/src/*.c

if [ -n "$V1" ]; then
	v1gid='!smcrv2 \&\& attr->gid_type == IB_GID_TYPE_ROCE)'
	[ "$(grep -c '!smcrv2 && attr->gid_type == IB_GID_TYPE_ROCE)' "$OUT/src/smc_ib.c")" -ge 1 ]
	sed -i "s/$v1gid/!smcrv2 \&\& attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP \&\& ipv6_addr_v4mapped((const struct in6_addr *)\&attr->gid))/" \
		"$OUT/src/smc_ib.c"
	! grep -q 'IB_GID_TYPE_ROCE)' "$OUT/src/smc_ib.c"
fi

make -s -C "$KDIR" M="$OUT/src" CONFIG_SMC=m CONFIG_SMC_DIAG=m modules \
	>"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log" >&2; exit 1; }
cp "$OUT/src/smc.ko" "$OUT/src/smc_diag.ko" "$OUT/"
echo "$stamp" >"$OUT/stamp"
echo "$OUT"
