# SPDX-License-Identifier: GPL-2.0
# Bash library (sourced) to boot, wait for and check the QEMU/TCG test guests.
# Call vm_boot in the current shell (not in $(...)): it sets VM_PID.
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${SMC_VM_CACHE:-/var/tmp/smc-vm}
VM_PIDS=()
VM_PID=
VM_PORTS=()
declare -A VM_QEMU_PIDFILE=()

# Kernel release: $KVER, else the newest /lib/modules/* with a /boot/vmlinuz-*.
# A kernel of our own (SMC_VM_KERNEL with SMC_VM_MODDIR, its modules'
# directory) needs neither: KVER defaults to the name of SMC_VM_MODDIR.
vm_kver() {
	local v best=
	if [ -n "${SMC_VM_MODDIR:-}" ]; then
		best=${KVER:-$(basename "$SMC_VM_MODDIR")}
		if [ -z "${SMC_VM_KERNEL:-}" ] || [ ! -r "$SMC_VM_MODDIR/modules.dep" ]; then
			echo "vm: SMC_VM_MODDIR needs SMC_VM_KERNEL and a modules.dep in $SMC_VM_MODDIR" >&2
			return 1
		fi
		echo "$best"
		return
	fi
	if [ -n "${KVER:-}" ]; then
		best=$KVER
	else
		# shellcheck disable=SC2012
		for v in $(ls -1 /lib/modules 2>/dev/null | sort -V); do
			[ -e "/boot/vmlinuz-$v" ] && best=$v
		done
	fi
	if [ -z "$best" ] || [ ! -d "/lib/modules/$best" ] || [ ! -e "/boot/vmlinuz-$best" ]; then
		echo "vm: no usable guest kernel (KVER=${best:-?}): apt-get install linux-image-amd64" >&2
		return 1
	fi
	echo "$best"
}

# Path of the (cached) initramfs for KVER (default: vm_kver).
vm_initramfs() {
	local kver=${1:-}
	[ -n "$kver" ] || kver=$(vm_kver) || return 1
	"$VM_DIR/mkinitramfs.sh" "$kver"
}

# Guest kernel image for KVER: $SMC_VM_KERNEL, else the vmlinux ELF unpacked
# (cached) from /boot/vmlinuz-KVER when it has a PVH entry (QEMU then skips
# firmware and decompression under TCG: boots ~4 s faster), else the bzImage.
vm_kernel() {
	local kver=$1 bz=/boot/vmlinuz-$1 out off magic cmd
	[ -z "${SMC_VM_KERNEL:-}" ] || { echo "$SMC_VM_KERNEL"; return; }
	out=$VM_CACHE/vmlinux-$kver-$(stat -c %s-%Y "$bz")
	if [ ! -s "$out" ] && [ ! -e "$out.none" ]; then
		mkdir -p "$VM_CACHE"
		for magic in xz:$'\xfd7zXZ' zstd:$'\x28\xb5\x2f\xfd' gzip:$'\x1f\x8b\x08'; do
			off=$(LC_ALL=C grep -obUa "${magic#*:}" "$bz" | head -n 1 | cut -d: -f1)
			[ -n "$off" ] || continue
			case ${magic%%:*} in
			xz) cmd="xz -dc --single-stream" ;;
			zstd) cmd="zstd -dcq" ;;
			gzip) cmd="gzip -dcq" ;;
			esac
			tail -c +$((off + 1)) "$bz" | $cmd >"$out.$$" 2>/dev/null
			if readelf -n "$out.$$" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
				mv "$out.$$" "$out"
				break
			fi
		done
		rm -f "$out.$$"
		[ -s "$out" ] || : >"$out.none"
	fi
	if [ -s "$out" ]; then echo "$out"; else echo "$bz"; fi
}

# QMP socket of guest I, named by its eth0 port (VM_PORTS[I]): QEMU
# removes it when it exits, vm_net_doctor when it was killed.
vm_qmp_sock() { echo "${TMPDIR:-/tmp}/smcvm-qmp.${VM_PORTS[$1]}"; }

# vm_tsc_khz: the host's TSC rate in kHz, which is a TCG guest's (QEMU
# hands it the host's own counter). Given to the guest as tsc_early_khz:
# left to calibrate, a guest under load once took 502 MHz from the PIT for
# a 2300 MHz TSC (HPET disagreed, the refinement only corrects within 1 %)
# and its clock ran 4.6 times fast, so every timeout in it expired early.
vm_tsc_khz() {
	local mhz
	# the refined rate where the host logged one, else the detected one
	mhz=$(dmesg 2>/dev/null | awk '
		/tsc: Refined TSC clocksource calibration: / { r = $(NF - 1) }
		/tsc: Detected [0-9.]+ MHz/ { for (i = 1; i < NF; i++) if ($i == "Detected") d = $(i + 1) }
		END { print (r != "" ? r : d) }')
	if [ -z "$mhz" ] && grep -qw constant_tsc /proc/cpuinfo; then
		mhz=$(awk -F: '/^cpu MHz/ { print $2 + 0; exit }' /proc/cpuinfo)
	fi
	[ -n "$mhz" ] && awk -v m="$mhz" 'BEGIN { if (m > 0) printf "%d\n", m * 1000 }'
}
VM_TSC_KHZ=${SMC_VM_TSC_KHZ-$(vm_tsc_khz)}

vm_udp_free() { ! ss -Huan "( sport = :$1 )" 2>/dev/null | grep -q .; }

# Pick four free loopback UDP ports for the guests' two dgram netdevs:
# VM_PORTS[0..1] join n0 (eth0) of guest 0 and 1, VM_PORTS[2..3] join n1
# (eth1, a second path for SMC-R link redundancy tests).
vm_net_setup() {
	local p=$((20000 + (($$ * 31 + RANDOM) % 10000) * 4)) i
	for ((i = 0; i < 200; i++, p += 4)); do
		((p < 60000)) || p=20000
		if vm_udp_free "$p" && vm_udp_free $((p + 1)) &&
		   vm_udp_free $((p + 2)) && vm_udp_free $((p + 3)); then
			VM_PORTS=("$p" $((p + 1)) $((p + 2)) $((p + 3)))
			return 0
		fi
	done
	echo "vm: no four free UDP ports" >&2
	return 1
}

# vm_boot INDEX NGUESTS RESULTSDIR TIMEOUT_SEC [qemu args...]
# Starts guest INDEX in the background (VM_PID). Console: RESULTSDIR/consoleN.log.
# A `timeout` wrapper (TIMEOUT + 60 s) backs up vm_wait should this shell die.
# vCPUs: 2 for a lone guest, 1 each when guests share the 2 host cores (boots
# in ~7 s instead of ~16 s, same RDMA/TCP throughput); SMC_VM_SMP overrides.
# log_buf_len: the kernel log of a whole run stays in memory, for the test
# that pairs the module's object lines (smc_objlog_check in smc_lib.sh).
# Two NICs, each a dgram netdev to the same NIC of the other guest: nic0
# (n0, eth0: rxe0 and every test) and nic1 (n1, eth1: a second path; no
# RDMA device on it unless a test adds one, smc_rxe1_add in smc_lib.sh).
vm_boot() {
	local i=$1 ng=$2 dir=$3 tmo=$4 kver kernel initrd lp rp lp1 rp1
	shift 4
	kver=$(vm_kver) || return 1
	initrd=$(vm_initramfs "$kver") || return 1
	kernel=$(vm_kernel "$kver")
	[ ${#VM_PORTS[@]} -eq 4 ] || vm_net_setup || return 1
	lp=${VM_PORTS[$i]}
	rp=${VM_PORTS[$((1 - i))]}
	lp1=${VM_PORTS[$((2 + i))]}
	rp1=${VM_PORTS[$((3 - i))]}
	case ${SRC:-}${SMC_VM_MODDIR:-} in *[[:space:]]*) echo "vm: SRC and SMC_VM_MODDIR may not contain spaces" >&2; return 1 ;; esac
	rm -f "$dir/guest$i.rc" "$dir/guest$i.log" "$dir/qemu$i.pid" "$dir/console$i.log" \
		"$dir/guest$i.powercut"
	# shellcheck disable=SC2086
	timeout -k 5 $((tmo + 60)) qemu-system-x86_64 -name "guest$i" \
		-accel tcg,thread=multi -cpu max -smp "${SMC_VM_SMP:-$((ng > 1 ? 1 : 2))}" -m "${SMC_VM_MEM:-1536}" \
		-nodefaults -display none -no-reboot -pidfile "$dir/qemu$i.pid" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=5 log_buf_len=16M printk.time=1 panic=-1 oops=panic tsc=reliable${VM_TSC_KHZ:+ tsc_early_khz=$VM_TSC_KHZ} mitigations=off smcvm.guest=$i smcvm.nguests=$ng smcvm.src=${SRC:-/}${SMC_VM_MODDIR:+ smcvm.moddir=$SMC_VM_MODDIR} ${SMC_VM_APPEND:-}" \
		-serial "file:$dir/console$i.log" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$dir,mount_tag=results,security_model=none,multidevs=remap" \
		-netdev "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lp,remote.type=inet,remote.host=127.0.0.1,remote.port=$rp" \
		-device "virtio-net-pci,id=nic0,netdev=n0,mac=52:54:00:12:34:0$i,speed=10000,duplex=full" \
		-netdev "dgram,id=n1,local.type=inet,local.host=127.0.0.1,local.port=$lp1,remote.type=inet,remote.host=127.0.0.1,remote.port=$rp1" \
		-device "virtio-net-pci,id=nic1,netdev=n1,mac=52:54:00:12:35:0$i,speed=10000,duplex=full" \
		-qmp "unix:$(vm_qmp_sock "$i"),server=on,wait=off" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		"$@" ${SMC_VM_QEMU_ARGS:-} </dev/null >"$dir/qemu$i.out" 2>&1 &
	VM_PID=$!
	VM_PIDS+=("$VM_PID")
	VM_QEMU_PIDFILE[$VM_PID]=$dir/qemu$i.pid
}

# vm_boot_watch DIR NGUESTS STALL PID...: watch the consoles until every
# guest printed "guestN ready at" (init, tools/testing/vm/init) or all
# PIDs are gone. A console that stands still for STALL seconds before its
# guest is ready is a boot that hung (seen a few times with two vCPUs
# under TCG on a loaded host: early TSC/SMP bring-up never returned):
# then every PID gets SIGTERM and DIR/boot-stalled says which guest.
# So does a kernel that reported trouble (VM_TROUBLE) before it was ready,
# that is before any module of ours was loaded: seen with two KASAN guests
# booting at once, an early interrupt during CPU bring-up that KASAN
# flagged; its taint turns lockdep off for the whole run.
vm_boot_watch() {
	local dir=$1 ng=$2 stall=$3 i sz ready alive p bad
	shift 3
	local -a last=() since=() seen=()
	for ((i = 0; i < ng; i++)); do
		last[i]=-1
		since[i]=$SECONDS
	done
	while :; do
		ready=0
		for ((i = 0; i < ng; i++)); do
			if grep -aq "guest$i ready at" "$dir/console$i.log" 2>/dev/null; then
				ready=$((ready + 1))
				[ -z "${seen[i]:-}" ] || continue
				seen[i]=1
				bad=$(sed -n "1,/guest$i ready at/p" "$dir/console$i.log" |
					grep -aE -m1 "$VM_TROUBLE" | tr -d '\r')
				[ -z "$bad" ] && continue
				echo "guest$i: kernel trouble while booting: $bad" \
					>"$dir/boot-stalled"
				kill -TERM "$@" 2>/dev/null
				return 1
			fi
			sz=$(stat -c %s "$dir/console$i.log" 2>/dev/null || echo 0)
			if [ "$sz" != "${last[i]}" ]; then
				last[i]=$sz
				since[i]=$SECONDS
			elif ((SECONDS - since[i] >= stall)); then
				echo "guest$i: console silent for $stall s at $(tail -c 200 "$dir/console$i.log" | tr -d '\r' | tail -n 1)" \
					>"$dir/boot-stalled"
				kill -TERM "$@" 2>/dev/null
				return 1
			fi
		done
		((ready == ng)) && return 0
		alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		((alive)) || return 0
		sleep 5
	done
}

# vm_net_state SOCK...: what QEMU knows of each guest's network: its NICs
# and netdevs, and nic0's (eth0's) virtio-net receive (0) and transmit (1)
# queues
# (inuse > 0: QEMU holds buffers the backend has not taken; last_avail_idx
# = shadow_avail_idx: QEMU saw nothing new from the guest).
vm_net_state() {
	local s q dev=/machine/peripheral/nic0/virtio-backend
	for s in "$@"; do
		echo "--- $s"
		python3 "$VM_DIR/qmp.py" "$s" hmp info network
		for q in 0 1; do
			python3 "$VM_DIR/qmp.py" "$s" x-query-virtio-queue-status \
				"{\"path\":\"$dev\",\"queue\":$q}" | tr -d '\n '
			echo
		done
	done
}

# vm_net_doctor DIR SOCK0 SOCK1 PID0 PID1: the host's side of a pair
# guest's eth0 recovery (smc_eth0_recover in smc_lib.sh). While either QEMU
# runs, a request DIR/netdoctor.req.I (guest I's eth0 stopped sending and
# down/up did not help) gets QEMU's view of both guests' NICs into
# DIR/netdoctor.I.log, then guest I's eth0 link (n0; eth1's n1 is left
# alone) goes down and up from the host
# (QEMU returns the transmit ring's pending buffers to the guest on link
# down), its view once more, and DIR/netdoctor.done.I tells the guest.
vm_net_doctor() {
	local dir=$1 i
	local -a socks=("$2" "$3") pids=("$4" "$5")
	while kill -0 "${pids[0]}" 2>/dev/null || kill -0 "${pids[1]}" 2>/dev/null; do
		for i in 0 1; do
			[ -e "$dir/netdoctor.req.$i" ] || continue
			{
				echo "== $(date -u +%T) guest $i: $(cat "$dir/netdoctor.req.$i")"
				vm_net_state "${socks[@]}"
				echo "== set_link n0 off, on: guest $i"
				python3 "$VM_DIR/qmp.py" "${socks[i]}" hmp set_link n0 off
				sleep 1
				python3 "$VM_DIR/qmp.py" "${socks[i]}" hmp set_link n0 on
				sleep 2
				echo "== $(date -u +%T) after"
				vm_net_state "${socks[i]}"
			} >>"$dir/netdoctor.$i.log" 2>&1
			rm -f "$dir/netdoctor.req.$i"
			: >"$dir/netdoctor.done.$i"
		done
		sleep 1
	done
	rm -f "${socks[@]}"
}

# Stop a guest: SIGTERM (timeout relays it to QEMU), SIGKILL after 5 s.
vm_kill() {
	local pid=$1 q t
	kill -TERM "$pid" 2>/dev/null
	for ((t = 0; t < 10; t++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		q=$(cat "${VM_QEMU_PIDFILE[$pid]:-/dev/null}" 2>/dev/null)
		kill -KILL "$pid" ${q:+"$q"} 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
}

vm_kill_all() {
	local pid
	for pid in "${VM_PIDS[@]}"; do
		kill -0 "$pid" 2>/dev/null && vm_kill "$pid"
	done
	return 0
}

# vm_wait PID TIMEOUT_SEC: QEMU's exit status; on timeout kills it, returns 124.
vm_wait() {
	local pid=$1 end=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= end)); then
			vm_kill "$pid"
			return 124
		fi
		sleep 0.5
	done
	wait "$pid" 2>/dev/null
	local rc=$?
	((rc == 137)) && return 124
	return $rc
}

# Kernel messages (printk timestamps on) that mean trouble.
# Debug kernels: "BUG: KASAN: ...", "BUG: sleeping function called from
# invalid context", lockdep's "WARNING: possible circular locking dependency
# detected" / "INFO: trying to register non-static key", kmemleak's own
# trouble (leaks themselves are read from debugfs: vm_kmemleak_report).
VM_TROUBLE='\[ *[0-9]+\.[0-9]+\].*(BUG:|WARNING:|Oops|Kernel panic|general protection|KASAN|UBSAN|INFO: task .* blocked for more than|INFO: trying to register non-static key|possible circular locking|unreferenced object|kmemleak: (Memory pool empty|Cannot )|Call Trace|soft lockup|hard LOCKUP|detected stalls)'

# vm_console_scan FILE: prints trouble lines with context, returns 1 if any.
vm_console_scan() {
	[ -r "$1" ] || return 0
	grep -qaE "$VM_TROUBLE" "$1" || return 0
	grep -naE -B3 -A30 "$VM_TROUBLE" "$1" | tr -d '\r' | head -n 300
	return 1
}
