#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loading and unloading smc.ko: refused cleanly when AF_SMC is taken, not
# unloadable while sockets exist, and 100 load/traffic/unload cycles that
# leave nothing behind.
#
#   +------------------------ guest ------------------------+
#   |  insmod smc.ko / rmmod smc        (pf_smc_holder.ko,   |
#   |  smc_xfer -s <--- lo ---> smc_xfer  the kernel's smc.ko)|
#   +--------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

CYCLES=${SMC_LOAD_CYCLES:-100}

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	rmmod pf_smc_holder 2>/dev/null
	# leave our module loaded for the scripts that follow
	if [ -d /sys/module/smc ] && [ ! -d "$SMC_DBG" ]; then
		rmmod smc_diag 2>/dev/null
		rmmod smc 2>/dev/null
	fi
	smc_load 2>/dev/null
}
trap cleanup EXIT

[ -f "$SMC_KO" ] || ksft_skip_all "$SMC_KO not built"
smc_unload 2>/dev/null

# 1. loads, says so, and reports our version
dmesg -C
if smc_insmod; then
	tap_ok "insmod smc.ko"
else
	tap_fail "insmod smc.ko"
fi
want=$(modinfo -F version "$SMC_KO")
[ "$(cat /sys/module/smc/version 2>/dev/null)" = "$want" ] &&
	tap_ok "loaded module is ours (version $want)" ||
	tap_fail "loaded module is ours (version $want)"
dmesg | grep -q "smc: AF_SMC .* loaded" &&
	tap_ok "load logged" || tap_fail "load logged"

# 2. a socket pins the module: rmmod is refused, then works after close
"$SMC_XFER" -s -q -f smc -p 21001 -c 1 -t 30 &
spid=$!
smc_wait_port 21001 10
if rmmod smc 2>/dev/null; then
	tap_fail "rmmod refused while an AF_SMC socket is open"
else
	tap_ok "rmmod refused while an AF_SMC socket is open"
fi
"$SMC_XFER" -q -f smc -p 21001 -n 64K 127.0.0.1
wait "$spid"
smc_check_released "listener closed"
tap_check "rmmod after the last socket closed" rmmod smc

# 3. AF_SMC already registered by another module: clear error, no oops
if [ -f "$SMC_HOLDER_KO" ] && insmod "$SMC_HOLDER_KO"; then
	dmesg -C
	if smc_insmod 2>/dev/null; then
		tap_fail "insmod refused while AF_SMC is registered elsewhere"
		rmmod smc
	else
		tap_ok "insmod refused while AF_SMC is registered elsewhere"
	fi
	dmesg | grep -q "smc: address family AF_SMC (43) is already registered" &&
		tap_ok "refusal explained in the kernel log" ||
		tap_fail "refusal explained in the kernel log"
	[ -d /sys/module/smc ] && tap_fail "nothing left loaded after refusal" ||
		tap_ok "nothing left loaded after refusal"
	rmmod pf_smc_holder
else
	tap_skip "insmod refused while AF_SMC is registered elsewhere" \
		"pf_smc_holder.ko not available"
fi

# 4. the kernel's own smc module loaded: ours cannot load next to it
intree=$(modinfo -n smc 2>/dev/null)
if [ -n "$intree" ] && [ "$intree" != "$SMC_KO" ] && modprobe smc; then
	err=$(smc_insmod 2>&1)
	[ $? -ne 0 ] && echo "$err" | grep -q "File exists" &&
		tap_ok "insmod refused while the in-tree smc is loaded (EEXIST)" ||
		tap_fail "insmod refused while the in-tree smc is loaded (EEXIST)"
	python3 -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0).close()' &&
		tap_ok "in-tree smc still serves AF_SMC" ||
		tap_fail "in-tree smc still serves AF_SMC"
	intree_errnos=$(smc_socket_errnos)
	modprobe -r smc_diag 2>/dev/null
	modprobe -r smc
	# unsupported socket types and protocols: the same errno as in-tree
	if smc_insmod; then
		ours=$(smc_socket_errnos)
		echo "# in-tree: $intree_errnos"
		echo "# ours:    $ours"
		[ "$ours" = "$intree_errnos" ] &&
			tap_ok "socket() type/protocol errors match the in-tree module" ||
			tap_fail "socket() type/protocol errors match the in-tree module"
		rmmod smc
	fi
else
	tap_skip "insmod refused while the in-tree smc is loaded" \
		"no in-tree smc.ko in /lib/modules"
fi

# 5. load / traffic / unload cycles
tcp_inuse() { awk '$1 == "TCP:" { print $3 }' /proc/net/sockstat; }
base_tcp=$(tcp_inuse)
bad=0
for i in $(seq 1 "$CYCLES"); do
	if ! smc_insmod; then
		echo "# cycle $i: insmod failed"; bad=1; break
	fi
	port=$((22000 + i % 100))
	"$SMC_XFER" -s -q -f smc -p $port -c 2 -t 20 &
	spid=$!
	smc_wait_port $port 10
	"$SMC_XFER" -q -f smc -p $port -n 16K -c 1 -t 20 127.0.0.1 &&
	"$SMC_XFER" -q -f tcp -p $port -n 16K -c 1 -t 20 127.0.0.1 &&
	wait "$spid" || {
		echo "# cycle $i: transfer failed; the module's counters:"
		# which handshake step or fallback reason: stats say it
		smc_stats_brief | tap_diag
		dmesg | tail -n 20 | tap_diag
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
		bad=1; break; }
	smc_within 15 smc_objs_balanced
	if ! smc_objs_balanced; then
		echo "# cycle $i: objects left:"; tap_diag < "$SMC_DBG/objects"
		bad=1; break
	fi
	if ! rmmod smc; then
		echo "# cycle $i: rmmod failed"; bad=1; break
	fi
done
[ $bad = 0 ] && tap_ok "$CYCLES load/transfer/unload cycles" ||
	tap_fail "$CYCLES load/transfer/unload cycles"
grep -q '^SMC ' /proc/slabinfo 2>/dev/null &&
	tap_fail "SMC slab cache gone after unload" ||
	tap_ok "SMC slab cache gone after unload"
# TCP sockets of the transfers may linger in FIN_WAIT briefly
tcp_back() { [ "$(tcp_inuse)" -le "$base_tcp" ]; }
smc_within 15 tcp_back
[ "$(tcp_inuse)" -le "$base_tcp" ] &&
	tap_ok "no TCP sockets left in use after the cycles" ||
	tap_fail "no TCP sockets left in use after the cycles ($(tcp_inuse) > $base_tcp)"

tap_done
