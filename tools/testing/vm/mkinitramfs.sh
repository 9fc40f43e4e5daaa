#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds the small busybox initramfs that boots the QEMU test guests.
# Usage: mkinitramfs.sh KVER [OUTFILE]  (no OUTFILE: cached build, prints its path)
# Modules come from $SMC_VM_MODDIR (default /lib/modules/KVER); those built
# into the kernel (modules.builtin) are left out: a kernel with all of them
# built in gets an initramfs without modules.
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
kver=${1:?usage: mkinitramfs.sh KVER [OUTFILE]}
out=${2:-}
moddir=${SMC_VM_MODDIR:-/lib/modules/$kver}
cache=${SMC_VM_CACHE:-/var/tmp/smc-vm}
wanted="virtio_pci 9pnet 9pnet_virtio 9p overlay"

die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ -r "$moddir/modules.dep" ] || die "no $moddir/modules.dep"
busybox=/bin/busybox
[ -x "$busybox" ] || busybox=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
if readelf -l "$busybox" 2>/dev/null | grep -q 'interpreter'; then
	die "$busybox is dynamically linked (apt-get install busybox-static)"
fi

# Module paths (relative to $moddir) in load order: a module's dependencies
# come first. modules.dep lists all transitive deps, deepest last.
resolve() {
	local m line
	for m in $wanted; do
		if ! line=$(grep -E "(^|/)${m}\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep"); then
			grep -qE "(^|/)${m}\.ko\$" "$moddir/modules.builtin" 2>/dev/null && continue
			die "module $m neither in $moddir/modules.dep nor built in"
		fi
		# shellcheck disable=SC2086
		printf '%s\n' ${line#*:} | tac
		echo "${line%%:*}"
	done | awk 'NF && !seen[$0]++'
}
mods=$(resolve) || exit 1

if [ -z "$out" ]; then
	key=$( {
		echo "$kver"
		[ "$moddir" = "/lib/modules/$kver" ] || echo "$moddir"
		# shellcheck disable=SC2086
		[ -z "$mods" ] || (cd "$moddir" && sha256sum $mods)
		sha256sum "$here/init" "$here/mkinitramfs.sh" "$busybox"
	} | sha256sum | cut -c1-16)
	out=$cache/initramfs-$kver-$key.cpio.gz
	if [ -s "$out" ]; then
		echo "$out"
		exit 0
	fi
	mkdir -p "$cache"
	# older variants; recent ones may belong to a run of another checkout
	find "$cache" -maxdepth 1 -name "initramfs-$kver-*.cpio.gz" -mmin +120 -delete 2>/dev/null || :
	print=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,modules}
cp "$busybox" "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
install -m 0755 "$here/init" "$tmp/init"
mknod -m 600 "$tmp/dev/console" c 5 1 2>/dev/null || true
: >"$tmp/modules/load-order"
for m in $mods; do
	b=$(basename "$m")
	case $m in
	*.ko.xz) xz -dc "$moddir/$m" >"$tmp/modules/${b%.xz}" ;;
	*.ko.zst) zstd -qdc "$moddir/$m" >"$tmp/modules/${b%.zst}" ;;
	*.ko.gz) gzip -dc "$moddir/$m" >"$tmp/modules/${b%.gz}" ;;
	*) cp "$moddir/$m" "$tmp/modules/$b" ;;
	esac
	echo "${b%.ko*}.ko" >>"$tmp/modules/load-order"
done
(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -6) >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
[ -z "${print:-}" ] || echo "$out"
