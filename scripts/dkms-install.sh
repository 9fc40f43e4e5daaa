#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installs the smc module with DKMS (source to /usr/src/smc-VERSION, then dkms
# add/build/install for one kernel), or removes it again with --uninstall.
set -euo pipefail

usage() {
	cat >&2 <<EOF
usage: $0 [--uninstall] [--scratch DIR]
  (default)      copy the module sources to /usr/src/smc-VERSION and
                 dkms add/build/install them for KVER (env; default: the
                 newest kernel with headers). Re-running replaces the same
                 version (dkms remove first).
  --uninstall    dkms remove every registered smc version, delete the
                 /usr/src/smc-* trees this script created, depmod.
  --scratch DIR  use DIR/src, DIR/dkms and DIR/lib/modules instead of
                 /usr/src, /var/lib/dkms and /lib/modules (dkms --sourcetree
                 --dkmstree --installtree; depmod -b DIR): the system's
                 module tree is not touched. For tests.
EOF
	exit 2
}

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
uninstall='' scratch=''
while [ $# -gt 0 ]; do
	case $1 in
	--uninstall) uninstall=1 ;;
	--scratch) [ $# -ge 2 ] || usage; scratch=$2; shift ;;
	--scratch=*) scratch=${1#*=} ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
	shift
done

die() { echo "dkms-install: $*" >&2; exit 1; }

command -v dkms >/dev/null || die "dkms not found (apt-get install dkms)"
[ "$(id -u)" = 0 ] || die "must run as root (dkms add/install)"

# The version comes from include/smc/version.h, through dkms.conf exactly as
# dkms reads it.
VERSION=$(cd / && bash -c '. "$1" && echo "$PACKAGE_VERSION"' _ "$SRC/dkms.conf")
[ -n "$VERSION" ] || die "no SMC_MODULE_VERSION in $SRC/include/smc/version.h"

if [ -z "${KVER:-}" ]; then
	KVER=$(for d in /lib/modules/*/build/Makefile; do
		[ -e "$d" ] && basename "$(dirname "$(dirname "$d")")"
	done | sort -V | tail -n 1)
fi

MARKER=.smc-dkms-install	# in each source tree this script created
DKMS=(dkms)
DEPMOD=(depmod)
if [ -n "$scratch" ]; then
	mkdir -p "$scratch/dkms"
	scratch=$(cd "$scratch" && pwd)
	source_tree=$scratch/src
	install_tree=$scratch/lib/modules
	DKMS+=(--sourcetree "$source_tree" --dkmstree "$scratch/dkms"
	       --installtree "$install_tree" --no-depmod)
	# dkms' own depmod would work on /lib/modules: run depmod -b DIR here.
	DEPMOD+=(-b "$scratch")
	# Signed like a real install on Debian, with a throwaway key here
	# instead of /var/lib/dkms/mok.key.
	export mok_signing_key=$scratch/mok.key mok_certificate=$scratch/mok.pub
else
	source_tree=/usr/src
	install_tree=/lib/modules
fi

# dkms status lines "smc/V, KVER, ARCH: state" or "smc/V: added" -> V
registered() {
	"${DKMS[@]}" status -m smc 2>/dev/null |
		sed -n 's|^smc/\([^,:]*\)[,:].*|\1|p' | sort -u
}

# Run depmod for every kernel an smc module was installed or removed for,
# so that modprobe resolves to what is there now.
depmod_kver() {
	[ -d "$install_tree/$1" ] || return 0
	echo "depmod ${DEPMOD[*]:1} $1"
	"${DEPMOD[@]}" "$1"
}

remove_version() { # V: unregister V from all kernels, drop our source copy
	local v=$1
	if registered | grep -qxF "$v"; then
		echo "dkms remove smc/$v --all"
		"${DKMS[@]}" remove "smc/$v" --all
	fi
	if [ -e "$source_tree/smc-$v/$MARKER" ]; then
		rm -rf "${source_tree:?}/smc-$v"
	fi
}

if [ -n "$uninstall" ]; then
	kvers=$(ls -1 "$install_tree" 2>/dev/null || true)
	for v in $(registered); do
		remove_version "$v"
	done
	for d in "$source_tree"/smc-*; do
		[ ! -e "$d/$MARKER" ] || rm -rf "$d"
	done
	# dkms ran depmod, except in a scratch tree (--no-depmod)
	if [ -n "$scratch" ]; then
		for k in $kvers; do depmod_kver "$k"; done
	fi
	echo "smc removed from dkms"
	exit 0
fi

[ -n "$KVER" ] || die "no kernel headers found: apt-get install linux-headers-amd64"
[ -e "/lib/modules/$KVER/build/Makefile" ] ||
	die "no headers for $KVER in /lib/modules/$KVER/build"

if [ -n "$scratch" ] && [ ! -e "$install_tree/$KVER/modules.order" ]; then
	# The kernel's own modules as symlinks, so that dkms sees the in-tree
	# smc.ko and depmod -b / modprobe -d resolve as on the real tree.
	mkdir -p "$install_tree/$KVER"
	cp -as "/lib/modules/$KVER/kernel" "$install_tree/$KVER/"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ ! -e "/lib/modules/$KVER/$f" ] || cp "/lib/modules/$KVER/$f" "$install_tree/$KVER/"
	done
fi

remove_version "$VERSION"

# What the module build needs, nothing else: no .git, objects, tools, tests.
dest=$source_tree/smc-$VERSION
[ ! -e "$dest" ] || die "$dest exists and was not made by this script"
echo "copying sources to $dest"
mkdir -p "$dest"
(
	cd "$SRC"
	shopt -s nullglob
	files=(dkms.conf Makefile Kbuild include/smc/*.h net/smc/Kbuild
	       net/smc/*.[ch])
	cp --parents "${files[@]}" "$dest/"
)
touch "$dest/$MARKER"

"${DKMS[@]}" add -m smc -v "$VERSION"
"${DKMS[@]}" build -m smc -v "$VERSION" -k "$KVER"
# both modules carry MODULE_VERSION: dkms' version check sees ours as
# newer than the in-tree smc.ko/smc_diag.ko (which have none)
"${DKMS[@]}" install -m smc -v "$VERSION" -k "$KVER"
[ -z "$scratch" ] || depmod_kver "$KVER"
"${DKMS[@]}" status -m smc
