#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side test of the DKMS packaging (TAP): scripts/dkms-install.sh into a
# scratch tree, modinfo/modprobe checks, re-install, uninstall.
#
# Everything goes to a scratch directory (dkms --sourcetree/--dkmstree/
# --installtree, depmod -b): the host's /lib/modules, /var/lib/dkms and
# /usr/src stay as they are (the QEMU guests of `make test` see the host's
# /lib/modules, so a real install would shadow the checkout's smc.ko there).
# KVER= picks the kernel (default: the newest one with headers).
set -u

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
INSTALL=$SRC/scripts/dkms-install.sh
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - dkms: $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - dkms: $1"; }
check() { # NAME CMD...: ok if CMD succeeds
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
skip_all() {
	echo "ok 1 - dkms: install, modinfo, uninstall # SKIP $1"
	echo "1..1"
	exit 0
}

# shellcheck source=../lib/kernels.sh
source "$SRC/tools/testing/lib/kernels.sh"
[ -n "${KVER:-}" ] || KVER=$(kernels_with_headers | tail -n 1)
command -v dkms >/dev/null || skip_all "dkms not installed (apt-get install dkms)"
if [ -z "$KVER" ] || [ ! -e "/lib/modules/$KVER/build/Makefile" ]; then
	skip_all "no kernel headers${KVER:+ for $KVER} (apt-get install linux-headers-amd64)"
fi
[ "$(id -u)" = 0 ] || skip_all "dkms add/install need root"
export KVER

T=$(mktemp -d "${TMPDIR:-/var/tmp}/smc-dkms-test.XXXXXX") || exit 1
# shellcheck disable=SC2317 # called by trap
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'not_ok interrupted; exit 130' INT TERM HUP
LIB=$T/lib/modules/$KVER
DKMS=(dkms --sourcetree "$T/src" --dkmstree "$T/dkms" --installtree "$T/lib/modules")
start=$SECONDS

# The expected values come from the sources, not from a build.
VERSION=$(cd / && bash -c '. "$1" && echo "$PACKAGE_VERSION"' _ "$SRC/dkms.conf")
hdr=$(sed -n 's/^#define[[:space:]]*SMC_MODULE_VERSION[[:space:]]*"\(.*\)".*/\1/p' \
	"$SRC/include/smc/version.h")
tag() { # MACRO FILE...: the string arguments of MODULE_MACRO("...") lines
	local m=$1
	shift
	sed -n "s/^[[:space:]]*MODULE_$m(\"\(.*\)\");.*/\1/p" "$@"
}
smc_c=()
for f in "$SRC"/net/smc/*.c; do [ "${f##*/}" = diag.c ] || smc_c+=("$f"); done
want_desc=$(tag DESCRIPTION "${smc_c[@]}")
want_author=$(tag AUTHOR "${smc_c[@]}")
want_diag_desc=$(tag DESCRIPTION "$SRC/net/smc/diag.c")
# vermagic of the target kernel, as its own modules carry it
want_magic=$(modinfo -k "$KVER" -F vermagic smc 2>/dev/null)
[ -n "$want_magic" ] || want_magic="$KVER "

# What the host has before, to show it is unchanged after.
host_state() {
	stat -c '%n %Y' "/lib/modules/$KVER/modules.dep" 2>/dev/null
	find "/lib/modules/$KVER/updates" -name 'smc*.ko*' 2>/dev/null
	ls -d /usr/src/smc-* /var/lib/dkms/smc 2>/dev/null
	dkms status -m smc 2>/dev/null
}
host_before=$(host_state)

echo "# kernel $KVER, version $VERSION, scratch tree $T"
check "version from dkms.conf ($VERSION) is include/smc/version.h's ($hdr)" \
	test -n "$VERSION" -a "$VERSION" = "$hdr"

if timeout 900 "$INSTALL" --scratch "$T" >"$T/install.log" 2>&1; then
	ok "install smc/$VERSION for $KVER ($((SECONDS - start)) s)"
else
	not_ok "install smc/$VERSION for $KVER"
	sed 's/^/# /' "$T/install.log" | tail -n 60
	find "$T/dkms" -name make.log -exec tail -n 40 {} + 2>/dev/null | sed 's/^/# /'
fi

# stdout only: dkms of newer kernels warns on stderr (readelf on .comment)
status=$("${DKMS[@]}" status -m smc 2>"$T/status.err")
echo "# dkms status: $status"
sed 's/^/# dkms status stderr: /' "$T/status.err"
check "dkms status: smc/$VERSION installed for $KVER" \
	test "$status" = "smc/$VERSION, $KVER, $(uname -m): installed"

# modinfo/modprobe resolve through the scratch tree's depmod files.
mi() { modinfo -b "$T" -k "$KVER" "$@" 2>/dev/null; }
for m in smc smc_diag; do
	file=$(mi -F filename "$m")
	echo "# $m: $file"
	check "$m.ko installed under updates/ ($KVER/${file#"$LIB"/})" \
		test -f "$file" -a "${file#"$LIB"/updates/}" != "$file"
	check "$m vermagic is $KVER's (${want_magic% })" \
		test "$(mi -F vermagic "$m")" = "$want_magic"
done
check "smc version $(mi -F version smc) = $VERSION" test "$(mi -F version smc)" = "$VERSION"
check "smc description is ours: $want_desc" \
	test -n "$want_desc" -a "$(mi -F description smc)" = "$want_desc"
# our sources set no MODULE_AUTHOR today: then there must be none (the
# in-tree smc.ko has one)
check "smc author is ours: ${want_author:-(none)}" \
	test "$(mi -F author smc)" = "$want_author"
check "smc_diag description is ours: $want_diag_desc" \
	test -n "$want_diag_desc" -a "$(mi -F description smc_diag)" = "$want_diag_desc"
check "smc is signed by the (scratch) DKMS key" \
	test "$(mi -F signer smc)" = "DKMS module signing key"

# depmod's search order: updates/ before the in-tree kernel/net/smc
deps=$(modprobe -d "$T" -S "$KVER" -n -v smc_diag 2>&1)
while IFS= read -r l; do echo "# modprobe -n -v smc_diag: $l"; done <<<"$deps"
deps_ok() {
	[[ $deps == *"$LIB/updates/dkms/smc.ko"* &&
	   $deps == *"$LIB/updates/dkms/smc_diag.ko"* &&
	   $deps != *kernel/net/smc/* ]]
}
check "modprobe smc_diag loads updates/dkms/smc.ko and smc_diag.ko, not kernel/net/smc" \
	deps_ok

# the source tree holds only what the module build needs
extra=$(cd "$T/src/smc-$VERSION" 2>/dev/null && find . -type f ! -name '*.[ch]' \
	! -name Kbuild ! -name Makefile ! -name dkms.conf ! -name .smc-dkms-install)
src_ok() { [ -z "$extra" ] && [ -f "$T/src/smc-$VERSION/net/smc/main.c" ]; }
check "sources in src/smc-$VERSION: only Makefile, Kbuild, dkms.conf, *.c, *.h${extra:+ (also: $extra)}" \
	src_ok

# idempotent: the same version again replaces it cleanly
t0=$SECONDS
if timeout 900 "$INSTALL" --scratch "$T" >"$T/reinstall.log" 2>&1 &&
   [ "$("${DKMS[@]}" status -m smc 2>/dev/null)" = "$status" ] &&
   [ "$(mi -F version smc)" = "$VERSION" ]; then
	ok "re-install of the same version ($((SECONDS - t0)) s)"
else
	not_ok "re-install of the same version"
	tail -n 40 "$T/reinstall.log" | sed 's/^/# /'
fi

if "$INSTALL" --scratch "$T" --uninstall >"$T/uninstall.log" 2>&1; then
	ok "uninstall"
else
	not_ok "uninstall"
	tail -n 40 "$T/uninstall.log" | sed 's/^/# /'
fi
check "uninstall: dkms status empty" test -z "$("${DKMS[@]}" status -m smc 2>/dev/null)"
gone() {
	[ -z "$(find "$LIB/updates" -name 'smc*.ko*' 2>/dev/null)" ] &&
		[ ! -e "$T/src/smc-$VERSION" ]
}
check "uninstall: no smc*.ko under updates/, no src/smc-$VERSION" gone
# (compressed on newer kernels: smc.ko.xz)
intree() {
	case $(mi -F filename smc) in
	"$LIB/kernel/net/smc/smc.ko" | "$LIB/kernel/net/smc/smc.ko."*) return 0 ;;
	esac
	return 1
}
check "uninstall: modinfo smc is the in-tree one again" intree

host_after=$(host_state)
check "host's /lib/modules/$KVER, /usr/src, /var/lib/dkms untouched" \
	test "$host_before" = "$host_after"
echo "# dkms test took $((SECONDS - start)) s"
echo "1..$n"
[ "$failed" -eq 0 ]
