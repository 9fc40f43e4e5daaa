#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filter (stdin -> stdout) adding source lines to the stack frames of our
# modules in kernel reports of a check-debug guest:
#   "func+0x1c/0x80 [smc]"   console traces, kmemleak of a loaded module
#   "0xffffffffa0123456"     kmemleak frames of a module unloaded since:
#                            looked up in DIR/guestN.modmap ("module section
#                            address" lines sampled in the guest by
#                            guest-runner.sh)
# Usage: symbolize.sh DIR INDEX. Modules (NAME.ko, built with -g) are looked
# for in the directories of $SMC_DEBUG_KO_DIRS (space separated); the
# directory prefixes in $SMC_DEBUG_SRC_PREFIXES are cut from file names.
# Lines it cannot resolve pass unchanged.
dir=${1:-.} idx=${2:-0}
modmap=$dir/guest$idx.modmap
declare -A ko_of=() cache=() secsize=()

ko_for() { # module name -> .ko path (or empty)
	local m=$1 d f
	if [ -z "${ko_of[$m]+x}" ]; then
		ko_of[$m]=
		for d in ${SMC_DEBUG_KO_DIRS:-}; do
			f=$(find "$d" -name "$m.ko" -print -quit 2>/dev/null)
			[ -n "$f" ] && { ko_of[$m]=$f; break; }
		done
	fi
	echo "${ko_of[$m]}"
}

# where KO SECTION OFFSET -> "file:line" (inlined callers joined by " < ")
where() {
	local out p
	out=$(addr2line -i -e "$1" -j "$2" "$3" 2>/dev/null | sed 's/ (discriminator [0-9]*)//')
	for p in ${SMC_DEBUG_SRC_PREFIXES:-}; do out=${out//$p\//}; done
	printf '%s' "$out" | paste -sd'<' | sed 's/</ < /g'
}

# sym_frame MOD FUNC OFF -> " (file:line)" for func+off in MOD
sym_frame() {
	local m=$1 fn=$2 off=$3 ko line val sec key=$1:$2:$3
	if [ -z "${cache[$key]+x}" ]; then
		cache[$key]=
		ko=$(ko_for "$m")
		if [ -n "$ko" ]; then
			# symbol value and section name of FUNC in the relocatable .ko
			line=$(readelf -sW "$ko" 2>/dev/null | awk -v f="$fn" '$8 == f && $4 == "FUNC" { print $2, $7; exit }')
			if [ -n "$line" ]; then
				val=${line% *}
				sec=$(readelf -SW "$ko" | sed 's/^ *\[ */[/' | awk -v n="[${line#* }]" '$1 == n { print $2; exit }')
				[ -n "$sec" ] && cache[$key]=$(where "$ko" "$sec" "$(printf '0x%x' $((0x$val + off)))")
			fi
		fi
	fi
	[ -z "${cache[$key]}" ] || printf ' (%s)' "${cache[$key]}"
}

# sym_addr ADDR -> " mod:func+0xoff (file:line)" via the modmap
sym_addr() {
	local a=$1 m sec base ko size off fn key=$1 hit=
	if [ -z "${cache[$key]+x}" ]; then
		cache[$key]=
		[ -r "$modmap" ] || return
		while read -r m sec base; do
			ko=$(ko_for "$m")
			[ -n "$ko" ] || continue
			if [ -z "${secsize[$ko$sec]+x}" ]; then
				secsize[$ko$sec]=$(readelf -SW "$ko" | sed 's/^ *\[ *[0-9]*\]//' |
					awk -v s="$sec" '$1 == s { print "0x" $5; exit }')
			fi
			size=${secsize[$ko$sec]}
			[ -n "$size" ] || continue
			if ((a >= base && a < base + size)); then
				off=$(printf '0x%x' $((a - base)))
				fn=$(addr2line -f -e "$ko" -j "$sec" "$off" 2>/dev/null | head -n 1)
				hit=" [$m $sec+$off] ${fn:-?} ($(where "$ko" "$sec" "$off"))"
			fi
		done <"$modmap"
		cache[$key]=$hit
	fi
	printf '%s' "${cache[$key]}"
}

re_sym='([A-Za-z0-9_.]+)\+0x([0-9a-f]+)/0x[0-9a-f]+ \[([A-Za-z0-9_]+)\]'
re_raw='\] (0xffffffff[0-9a-f]{8})$'
while IFS= read -r l || [ -n "$l" ]; do
	if [[ $l =~ $re_sym ]]; then
		printf '%s%s\n' "$l" "$(sym_frame "${BASH_REMATCH[3]}" "${BASH_REMATCH[1]}" $((0x${BASH_REMATCH[2]})))"
	elif [[ $l =~ $re_raw ]]; then
		printf '%s%s\n' "$l" "$(sym_addr $((BASH_REMATCH[1])))"
	else
		printf '%s\n' "$l"
	fi
done
