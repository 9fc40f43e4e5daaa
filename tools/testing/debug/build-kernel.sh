#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds (once, cached outside the checkout) the debug guest kernel of
# `make check-debug`: Debian's linux-source-6.1 with debug.config merged on
# top of x86_64_defconfig + kvm_guest.config. Keeps the build tree (the KDIR
# for out-of-tree modules) and installs its modules under $CACHE/root.
#
# Usage: build-kernel.sh [--print-env] [--force]
#   --print-env  stdout gets only shell assignments (DEBUG_KREL=... etc.);
#                progress goes to stderr either way
#   --force      rebuild even if the stamp matches
# Env: SMC_DEBUG_CACHE (/var/tmp/smc-debug), SMC_DEBUG_TARBALL
#      (/usr/src/linux-source-6.1.tar.xz), SMC_DEBUG_CONFIG (debug.config
#      here), SMC_DEBUG_JOBS (nproc).
# Rebuilds when the tarball or the fragment's CONFIG lines change (a
# fragment change alone reconfigures the tree in place: Kbuild then
# recompiles only what the changed options touch); resumes an interrupted
# build of the same inputs.
set -eu -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${SMC_DEBUG_CACHE:-/var/tmp/smc-debug}
tarball=${SMC_DEBUG_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
frag=${SMC_DEBUG_CONFIG:-$here/debug.config}
jobs=${SMC_DEBUG_JOBS:-$(nproc)}
# Bump when the build recipe below changes in a way that needs a rebuild.
recipe=1

print_env='' force=''
for a in "$@"; do
	case $a in
	--print-env) print_env=1 ;;
	--force) force=1 ;;
	*) echo "usage: $0 [--print-env] [--force]" >&2; exit 2 ;;
	esac
done

say() { echo "build-kernel: $*" >&2; }
die() { say "$*"; exit 1; }

[ -r "$tarball" ] || die "no $tarball (apt-get install linux-source-6.1)"
[ -r "$frag" ] || die "no config fragment $frag"
# the kernel's build needs, and rsync for check-debug.sh's copies (as
# .ci/run: installed when missing, quietly)
pkgs=(flex bison bc libelf-dev libssl-dev build-essential rsync)
# shellcheck source=../lib/host_apt.sh
source "$here/../lib/host_apt.sh"
host_apt_install /dev/null "${pkgs[@]}" || say "apt-get install of ${pkgs[*]} incomplete"
for t in flex bison bc make gcc rsync; do
	command -v "$t" >/dev/null || die "$t missing (apt-get install ${pkgs[*]})"
done

src=$cache/linux
log=$cache/build.log
stamp=$cache/stamp
mkdir -p "$cache"

# One builder at a time; others wait for it (and then find the stamp).
exec 9>"$cache/.lock"
if ! flock -n 9; then
	say "another build holds $cache/.lock, waiting"
	flock 9
fi

# Stamp key: recipe, tarball content, fragment's config lines. The tarball's hash is
# remembered per size+mtime (hashing 140 MB each run is wasted time).
tarkey=$cache/.tarball-sha256
tarid=$(stat -c '%s %Y' "$tarball")
if [ -r "$tarkey" ] && [ "$(head -n 1 "$tarkey")" = "$tarid" ]; then
	tarsum=$(sed -n 2p "$tarkey")
else
	tarsum=$(sha256sum <"$tarball" | cut -d' ' -f1)
	printf '%s\n%s\n' "$tarid" "$tarsum" >"$tarkey"
fi
# only the fragment's effective lines count: comment edits do not rebuild
fragsum=$(grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$frag" | sha256sum)
want=$(printf 'recipe %s\n%s\n%s\n' "$recipe" "$tarsum" "$fragsum" | sha256sum | cut -c1-16)
# what the extracted tree is made of: the config aside
srckey=$(printf 'recipe %s\n%s\n' "$recipe" "$tarsum" | sha256sum | cut -c1-16)

krel() { make -s -C "$src" kernelrelease 2>/dev/null; }

emit() {
	local krel=$1
	if [ -n "$print_env" ]; then
		printf 'DEBUG_KREL=%q\n' "$krel"
		printf 'DEBUG_KDIR=%q\n' "$src"
		printf 'DEBUG_MODROOT=%q\n' "$cache/root"
		printf 'DEBUG_VMLINUX=%q\n' "$src/vmlinux"
		printf 'DEBUG_BZIMAGE=%q\n' "$src/arch/x86/boot/bzImage"
	else
		echo "KREL     $krel"
		echo "KDIR     $src"
		echo "MODROOT  $cache/root (modules in $cache/root/lib/modules/$krel)"
		echo "VMLINUX  $src/vmlinux"
		echo "BZIMAGE  $src/arch/x86/boot/bzImage"
		echo "LOG      $log"
	fi
}

if [ -z "$force" ] && [ -r "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$want" ] &&
	[ -s "$src/vmlinux" ] && [ -d "$cache/root/lib/modules/$(sed -n 2p "$stamp")" ]; then
	emit "$(sed -n 2p "$stamp")"
	exit 0
fi
rm -f "$stamp"

# run_logged WHAT CMD...: appends to the log; on failure shows its tail.
run_logged() {
	local what=$1
	shift
	echo "### $what: $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		say "$what FAILED; last 40 lines of $log:"
		tail -n 40 "$log" | sed 's/^/  /' >&2
		exit 1
	fi
}

t0=$SECONDS
# Extract unless the tree holds this tarball already; configure unless a
# previous (maybe interrupted) build of the same inputs got that far: then
# `make` just continues.
if [ -n "$force" ] || [ ! -r "$src/.smc-source" ] || [ "$(cat "$src/.smc-source")" != "$srckey" ]; then
	: >"$log"
	say "extracting $tarball into $src"
	rm -rf "$src" "$cache/root"
	mkdir -p "$src"
	run_logged extract tar -xf "$tarball" -C "$src" --strip-components=1
	echo "$srckey" >"$src/.smc-source"
fi
if [ ! -r "$src/.smc-configured" ] || [ "$(cat "$src/.smc-configured")" != "$want" ]; then
	say "configuring: x86_64_defconfig + kvm_guest.config + $(basename "$frag")"
	run_logged defconfig make -C "$src" x86_64_defconfig
	run_logged kvm_guest.config make -C "$src" kvm_guest.config
	run_logged merge_config bash -c 'cd "$1" && scripts/kconfig/merge_config.sh -m .config "$2"' _ "$src" "$frag"
	run_logged olddefconfig make -C "$src" olddefconfig
	# every fragment line must have survived olddefconfig
	bad=$(awk '
		FNR == NR {
			if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) have[substr($0, 1, RLENGTH - 1)] = $0
			else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) have[$2] = "unset"
			next
		}
		/^CONFIG_[A-Za-z0-9_]+=/ {
			k = substr($0, 1, index($0, "=") - 1)
			if (have[k] != $0) print "  want " $0 ", got " (k in have ? have[k] : "(absent)")
		}
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ {
			if (($2 in have) && have[$2] != "unset") print "  want " $2 " unset, got " have[$2]
		}' "$src/.config" "$frag")
	if [ -n "$bad" ]; then
		say "config fragment not applied as written (unmet dependencies?):"
		echo "$bad" >&2
		exit 1
	fi
	echo "$want" >"$src/.smc-configured"
else
	say "resuming the build in $src"
fi

say "compiling bzImage vmlinux modules with -j$jobs (log: $log)"
echo "### make bzImage vmlinux modules" >>"$log"
make -C "$src" -j"$jobs" bzImage vmlinux modules >>"$log" 2>&1 &
mpid=$!
trap 'kill $mpid 2>/dev/null; wait $mpid 2>/dev/null; exit 130' INT TERM HUP
last=$SECONDS
while kill -0 $mpid 2>/dev/null; do
	sleep 2
	if ((SECONDS - last >= 60)); then
		last=$SECONDS
		say "  $(((SECONDS - t0) / 60)) min: $(grep -c '^  CC ' "$log" || :) files compiled, now: $(grep -E '^  [A-Z]' "$log" | tail -n 1 | sed 's/^ *//')"
	fi
done
if ! wait $mpid; then
	say "compile FAILED; errors / last lines of $log:"
	{ grep -E 'error:|Error [0-9]' "$log" | head -n 20; echo ...; tail -n 30 "$log"; } | sed 's/^/  /' >&2
	exit 1
fi
trap - INT TERM HUP

krel=$(krel)
[ -n "$krel" ] || die "cannot read kernelrelease"
say "installing modules into $cache/root/lib/modules/$krel"
rm -rf "$cache/root"
run_logged modules_install make -C "$src" INSTALL_MOD_PATH="$cache/root" modules_install
[ -r "$cache/root/lib/modules/$krel/modules.dep" ] || die "no modules.dep after modules_install"
printf '%s\n%s\n' "$want" "$krel" >"$stamp"
say "done in $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s"
emit "$krel"
