# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the smc shell selftests: TAP output, loading the module,
# reading its debugfs counters, and checking that every object was freed.

# kselftest exit codes
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

SMC_TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SMC_SRC=${SRC:-$(cd "$SMC_TESTDIR/../../../../.." && pwd)}
SMC_KO=${SMC_KO:-$SMC_SRC/net/smc/smc.ko}
SMC_HOLDER_KO=${SMC_HOLDER_KO:-$SMC_TESTDIR/modules/pf_smc_holder.ko}
SMC_DBG=/sys/kernel/debug/smc
SMC_XFER=$SMC_TESTDIR/smc_xfer

tap_n=0
tap_failed=0
tap_prefix=${TAP_PREFIX:-$(basename "$0" .sh)}

tap_ok()   { tap_n=$((tap_n + 1)); echo "ok $tap_n - $tap_prefix: $*"; }
tap_fail() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $tap_prefix: $*"; }
# tap_todo NAME REASON: a known failure (TAP TODO directive), reported and
# counted apart by the harness, never as passed
tap_todo() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $tap_prefix: $1 # TODO $2"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $tap_prefix: $1 # SKIP $2"; }
tap_diag() { sed 's/^/# /'; }

# tap_check NAME CMD... : one result from a command's exit status; the
# command's output is shown as diagnostics only when it fails. A failure
# goes to $TAP_FAIL (default tap_fail), which may decide it later.
tap_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		tap_ok "$name"
	else
		"${TAP_FAIL:-tap_fail}" "$name"
		printf '%s\n' "$out" | tail -n 20 | tap_diag
	fi
}

tap_done() {
	echo "# $tap_prefix: $tap_n checks, $tap_failed failed"
	[ "$tap_failed" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# Skip the whole script with a reason (kselftest code 4).
ksft_skip_all() {
	echo "ok 1 - $tap_prefix # SKIP $*"
	exit $KSFT_SKIP
}

smc_is_ours_loaded() {
	[ -d /sys/module/smc ] && [ -d "$SMC_DBG" ]
}

# smc_insmod [PARAM...]: insmod our smc.ko. Where the kernel has dynamic
# debug, the module's object lines ("<type> <ptr> created/destroyed") are on
# from its first moment, for smc_objlog_check (SMC_OBJLOG=0: off, as for
# the benchmarks). SMC_DYNDBG="QUERY; ..." switches more of them on, to
# chase a rare failure (e.g. "file llc.c +p; file clc.c +p").
smc_insmod() {
	local ctl=/proc/dynamic_debug/control
	[ -e $ctl ] || ctl=/sys/kernel/debug/dynamic_debug/control
	if [ "${SMC_OBJLOG:-1}" != 0 ] && [ -e $ctl ]; then
		insmod "$SMC_KO" 'dyndbg="format created\n +p; format destroyed\n +p"' "$@"
	else
		insmod "$SMC_KO" "$@"
	fi || return
	[ -z "${SMC_DYNDBG:-}" ] || [ ! -e $ctl ] ||
		echo "module smc ${SMC_DYNDBG//;/; module smc }" > $ctl
}

smc_load() {
	smc_is_ours_loaded && return 0
	[ -d /sys/module/smc ] && { echo "another smc module is loaded" >&2; return 1; }
	modprobe -q ib_core 2>/dev/null
	smc_insmod "$@"
}

smc_unload() {
	[ -d /sys/module/smc ] || return 0
	rmmod smc
}

# smc_unload_any [SECS]: unload whichever smc module is loaded (ours or
# Linux's, with smc_diag), retrying while closing sockets still hold it;
# idle link groups of ours are freed first and every 2 s (Linux's smc has
# no flush_idle: "2>" comes first so the failed ">" is quiet too).
smc_unload_any() {
	local i=0 end=$((SECONDS + ${1:-60}))
	[ -d /sys/module/smc ] || return 0
	echo 1 2>/dev/null >"$SMC_DBG/flush_idle"
	# by the clock: two rmmods a round take long in a TCG guest
	while [ $SECONDS -lt $end ]; do
		rmmod smc_diag 2>/dev/null
		rmmod smc 2>/dev/null && return 0
		[ -d /sys/module/smc ] || return 0
		[ $((++i % 20)) = 0 ] && echo 1 2>/dev/null >"$SMC_DBG/flush_idle"
		smc_nap 0.1
	done
	echo "rmmod smc failed after ${1:-60} s" >&2
	return 1
}

# smc_reload_ours [SECS]: ours loaded, whichever smc module was in before
# (Linux's is unloaded, waiting up to SECS for its sockets to go)
smc_reload_ours() {
	smc_is_ours_loaded && return 0
	smc_unload_any "${1:-60}" && smc_load
}

# smc_obj_live TYPE: live count of one object type ("sock", "clcsock", ...)
smc_obj_live() {
	awk -v t="$1" '$1 == t { print $7 }' "$SMC_DBG/objects"
}

# True when every object type has as many destroyed as created (RDMA
# devices live as long as the device does: not counted here).
smc_objs_balanced() {
	awk '$1 != "ibdev" && $7 != 0 { bad = 1 } END { exit bad }' "$SMC_DBG/objects"
}

# smc_check_released NAME [SECS]: a TAP result that every object created
# during the scenario was destroyed (closing is asynchronous: allow 15 s of
# wall time by default, freeing idle link groups as they become idle).
smc_check_released() {
	local _smc_t0 _smc_flush _smc_now

	smc_clock _smc_t0
	_smc_flush=$_smc_t0
	if smc_within "${2:-15}" smc_balanced_flushing; then
		smc_clock _smc_now
		_smc_now=$(((_smc_now - _smc_t0) / 1000))
		[ "$_smc_now" -gt 0 ] &&
			echo "# objects of $1 took $_smc_now s to go"
		tap_ok "objects released after $1"
		return 0
	fi
	tap_fail "objects released after $1"
	tap_diag < "$SMC_DBG/objects"
	return 1
}
# smc_balanced_flushing: smc_objs_balanced; if not, frees idle link groups
# once a second. A group is idle only once its last connection finished
# closing: free it now instead of after 600 s.
smc_balanced_flushing() {
	smc_objs_balanced && return 0
	smc_flush_idle_every 1000
	return 1
}
# smc_flush_idle_every MS: frees idle link groups if the last time was MS
# or more ago (the caller's _smc_flush: ms of the last time, 0 for never)
smc_flush_idle_every() {
	local _smc_t

	smc_clock _smc_t
	[ $((_smc_t - _smc_flush)) -ge "$1" ] || return 0
	echo 1 > "$SMC_DBG/flush_idle" 2>/dev/null
	_smc_flush=$_smc_t
}

# smc_objlog_check: a TAP result that in the whole kernel log of this guest
# every object's creation line has the destruction line of the same object
# (smc_objlog.py; RDMA devices still known to a loaded module may stay; a
# devref line names the device it holds, which many may hold at once).
smc_objlog_check() {
	local out rc ibdev=0

	smc_is_ours_loaded && ibdev=$(smc_obj_live ibdev)
	out=$(python3 "$SMC_TESTDIR/smc_objlog.py" --live "ibdev=$ibdev" \
		--refs devref 2>&1)
	rc=$?
	case $rc in
	0)
		tap_ok "every object's creation line has its destruction line"
		printf '%s\n' "$out" ;;
	"$KSFT_SKIP")
		tap_skip "every object's creation line has its destruction line" \
			"$(printf '%s\n' "$out" | sed -n '1s/^# //p')" ;;
	*)
		tap_fail "every object's creation line has its destruction line"
		printf '%s\n' "$out" | sed '/^#/!s/^/# /' ;;
	esac
}

# smc_stat KEY: a value from debugfs stats ("fallback_client", ...)
smc_stat() {
	awk -v k="$1" '$1 == k { print $2 }' "$SMC_DBG/stats"
}

# smc_counters LINE KEY...: counters of one "LINE key value key value ..."
# line of debugfs stats, on one line in the order asked, from one read
smc_counters() {
	local line=$1
	shift
	awk -v line="$line" -v keys="$*" '$1 == line {
		for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		n = split(keys, k, " ")
		for (j = 1; j <= n; j++) printf "%s%s", v[k[j]], j < n ? " " : "\n"
	}' "$SMC_DBG/stats"
}

# smc_wire KEY...: data path message counters (smcr_wire: cdc_tx_data,
# cdc_tx_ctrl, rdma_writes, cdc_rx, tx_noslot, cdc_rx_bad, cdc_rx_drop)
smc_wire() { smc_counters smcr_wire "$@"; }

# smc_llc KEY...: LLC requests we sent (smcr_llc: confirm_rkey, delete_rkey,
# test_link, test_link_early), links failed for no TEST_LINK answer
# (test_link_lost), ADD_LINKs a server of ours sent offering no second
# link (add_link_none), ADD_LINKs of the peer we rejected (add_link_rej)
# and its requests we dropped, malformed or of an unknown type (llc_rx_bad)
smc_llc() { smc_counters smcr_llc "$@"; }

# smc_inject_fired: how often the debugfs wr_inject hook has altered a
# message; smc_inject_idle: it is disarmed ("armed none")
smc_inject_fired() { awk '$1 == "fired" { print $2 }' "$SMC_DBG/wr_inject"; }
smc_inject_idle() { grep -qx "armed none" "$SMC_DBG/wr_inject"; }

# smc_fin: passive closes that waited for the peer's TCP FIN, and those
# that gave up after 1 s (smcr_close: fin_wait fin_late)
smc_fin() { smc_counters smcr_close fin_wait fin_late; }

# smc_lgrs_all PATTERN: the SMC-R link group dump (smc_nl.py lgr-smcr) goes
# to the TAP diagnostics; true when there is a group and every one matches
# the extended regular expression PATTERN
smc_lgrs_all() {
	local lg n
	lg=$(python3 "$SMC_TESTDIR/smc_nl.py" lgr-smcr)
	printf '%s\n' "$lg" | tap_diag
	n=$(grep -c "v2_common.rel=" <<<"$lg")
	[ "$n" -ge 1 ] && [ "$(grep -cE "$1" <<<"$lg")" = "$n" ]
}

# smc_lgrs_v1: like smc_lgrs_all, true when there is a link group and all
# are SMC-R v1 (debugfs "v1"; netlink shows no v2 attributes for them)
smc_lgrs_v1() {
	local lg n
	lg=$(python3 "$SMC_TESTDIR/smc_nl.py" lgr-smcr)
	printf '%s\n' "$lg" | tap_diag
	grep -q "v2_common" <<<"$lg" && return 1
	n=$(grep -c "^lgr " "$SMC_DBG/lgrs")
	[ "$n" -ge 1 ] && [ "$(grep -cE "^lgr [0-9]+ role [a-z]+ v1 " "$SMC_DBG/lgrs")" = "$n" ]
}

# smc_fallback_count REASON ROLE: fallbacks counted for reason (hex code
# as printed, e.g. 0x03010000) and role (server|client)
smc_fallback_count() {
	awk -v r="$1" -v role="$2" '
		$1 == "fallback_reason" && $2 == r {
			for (i = 3; i < NF; i += 2) if ($i == role) print $(i + 1)
			found = 1
		}
		END { if (!found) print 0 }' "$SMC_DBG/stats"
}

# smc_wait_port PORT [TIMEOUT]: wait until something listens on TCP PORT
smc_wait_port() {
	smc_within "${2:-10}" smc_port_listens "$1"
}
smc_port_listens() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# smc_wait_gone PID SECS: true when PID ended within SECS
smc_wait_gone() {
	smc_within "$2" smc_pid_gone "$1"
}
smc_pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# smc_wait_objs TYPE MAX SECS: true when at most MAX objects of TYPE
# (debugfs objects: lgr, link, sock, ...) are live within SECS
smc_wait_objs() {
	smc_within "$3" smc_objs_at_most "$1" "$2"
}
smc_objs_at_most() { [ "$(smc_obj_live "$1")" -le "$2" ]; }

# smc_wait_objs_min TYPE MIN SECS: true when at least MIN objects of TYPE
# are live within SECS
smc_wait_objs_min() {
	smc_within "$3" smc_objs_at_least "$1" "$2"
}
smc_objs_at_least() { [ "$(smc_obj_live "$1")" -ge "$2" ]; }

# smc_wait_tcp HOST PORT [TIMEOUT]: wait until a remote TCP port accepts
smc_wait_tcp() {
	smc_within "${3:-30}" smc_tcp_accepts "$1" "$2"
}
smc_tcp_accepts() {
	timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# smc_socket_errnos: what socket(AF_SMC, ...) answers for unsupported
# types and protocols, one "case:result" word each
smc_socket_errnos() {
	python3 - <<'PY'
import errno, socket
out = []
for name, typ, proto in (("dgram", socket.SOCK_DGRAM, 0),
			 ("raw", socket.SOCK_RAW, 0),
			 ("seqpacket", socket.SOCK_SEQPACKET, 0),
			 ("proto2", socket.SOCK_STREAM, 2),
			 ("proto99", socket.SOCK_STREAM, 99),
			 ("stream0", socket.SOCK_STREAM, 0),
			 ("stream1", socket.SOCK_STREAM, 1)):
    try:
        socket.socket(43, typ, proto).close()
        out.append(name + ":ok")
    except OSError as e:
        out.append(name + ":" + errno.errorcode.get(e.errno, str(e.errno)))
print(" ".join(out))
PY
}

# smc_nap SECS: sleep without starting a process, by read's timeout on a
# FIFO of our own that nobody writes (opened read-write, so the open does
# not block and no writer ever closes). A guest waiting at a barrier while
# the other one measures would otherwise fork and exec "sleep" ten times a
# second on its single TCG vCPU. Anything but a timeout (no FIFO, a read
# that returns at once) falls back to sleep: a nap never spins.
smc_nap() {
	local f
	if [ -z "${SMC_NAP_FD:-}" ]; then
		SMC_NAP_FD=none
		f=/tmp/smc_nap.$$.$RANDOM
		if mkfifo -m 600 "$f" 2>/dev/null; then
			exec {SMC_NAP_FD}<>"$f" || SMC_NAP_FD=none
			rm -f "$f"
		fi
	fi
	if [ "$SMC_NAP_FD" != none ]; then
		read -r -t "$1" -u "$SMC_NAP_FD" _ 2>/dev/null
		[ $? -gt 128 ] && return 0
	fi
	sleep "$1"
}

# smc_stats_brief: the lines of our counters that tell what went wrong or
# what ran: fallbacks and their reasons, handshake errors, SMC-R
# connections, wire messages, LLC requests
smc_stats_brief() {
	grep -E '^(fallback|hs_err|smcr_conn|smcr_wire|smcr_llc)' "$SMC_DBG/stats" 2>/dev/null
}

# smc_dump_state: what a failed scenario leaves behind, as TAP diagnostics:
# our link groups and counters, the RDMA devices' error counters, their
# QPs, and the kernel log's tail.
smc_dump_state() {
	local d
	{
		echo "state after the failure:"
		[ -r "$SMC_DBG/lgrs" ] && cat "$SMC_DBG/lgrs"
		smc_stats_brief
		for d in /sys/class/infiniband/*/ports/1/hw_counters; do
			[ -d "$d" ] || continue
			echo "${d#/sys/class/infiniband/}: $(grep -H . "$d"/* 2>/dev/null |
				sed 's|.*/||' | grep -v ':0$' | tr '\n' ' ')"
		done
		rdma res show qp 2>/dev/null | head -n 20
		dmesg 2>/dev/null | grep -v "speed is unknown" | tail -n 30
	} | tap_diag
}

# smc_barrier NAME [TIMEOUT [DIR]]: both guests of a pair reach NAME, through
# marker files on the shared directory DIR (default /results), before either
# goes on. Fails at once (status 2) when the other guest gave up.
smc_barrier() {
	local name=$1 t=${2:-120} dir=${3:-/results} other=$((1 - ${GUEST:-0})) i
	touch "$dir/barrier.$name.${GUEST:-0}"
	for i in $(seq $((t * 10))); do
		[ -e "$dir/barrier.$name.$other" ] && return 0
		if [ -e "$dir/gave_up.$other" ]; then
			echo "# barrier $name: guest $other gave up: $(cat "$dir/gave_up.$other")"
			return 2
		fi
		smc_nap 0.1
	done
	echo "# barrier $name: no sign of guest $other after $t s"
	return 1
}

# smc_tx_timeouts [IFACE]: NETDEV WATCHDOG firings on IFACE's (default
# eth0) transmit queues so far
smc_tx_timeouts() {
	local q v n=0
	for q in /sys/class/net/"${1:-eth0}"/queues/tx-*/tx_timeout; do
		[ -r "$q" ] && read -r v <"$q" && n=$((n + v))
	done
	echo "$n"
}

# smc_eth0_recover PEER: a guest's virtio_net now and then stops sending
# for good (QEMU TCG, with our module, Linux's or none; the NETDEV WATCHDOG
# fires only once its ring is full, minutes later at a low rate). When PEER
# does not answer a ping and this side is the one that stopped (eth0's
# watchdog fired since the last call, or the ping's packets never left:
# tx_packets counts completed sends), eth0 goes down and up. Status 0:
# nothing to do or the peer answers again; 1: this guest cannot send.
# (Resetting the virtio device instead panics the guest: the ring's unsent
# rxe packets point at QPs already destroyed.)
smc_eth0_recover() {
	local peer=$1 now tx how=
	local txp=/sys/class/net/eth0/statistics/tx_packets
	now=$(smc_tx_timeouts)
	tx=$(cat $txp 2>/dev/null)
	if ping -c 1 -W 2 "$peer" >/dev/null 2>&1 ||
	   { [ "$now" = "${SMC_TXTO_SEEN:-0}" ] &&
	     [ "$(cat $txp 2>/dev/null)" != "$tx" ]; }; then
		SMC_TXTO_SEEN=$now
		return 0
	fi
	echo "# eth0 stopped sending (tx_timeout $now, tx_packets $tx): eth0 down and up"
	smc_eth0_queue_stats
	ip link set eth0 down
	sleep 1
	ip link set eth0 up
	if smc_ping_within 10 "$peer"; then
		how="eth0 sends again"
	elif smc_host_net_doctor "tx_packets $(cat $txp 2>/dev/null), ping $peer fails" &&
	     smc_ping_within 10 "$peer"; then
		how="eth0 sends again after the host's link down/up"
	fi
	SMC_TXTO_SEEN=$(smc_tx_timeouts)
	if [ -n "$how" ]; then
		echo "# $how: $peer answers"
		return 0
	fi
	echo "# eth0 still sends nothing (tx_packets $(cat $txp 2>/dev/null)): $peer unreachable"
	smc_eth0_queue_stats
	return 1
}

# smc_eth0_back PEER: after eth0 came up again, wait up to 30 s for rxe0's
# port to be ACTIVE and PEER to answer a ping. The guest's virtio_net once
# kept its TX queue stopped after the up (NETDEV WATCHDOG every 5 s,
# nothing sent for 10 min; seen once in ~20 suite runs, the module does not
# touch eth0's queues): after 2 s eth0 goes down and up once more if so.
smc_eth0_back() {
	local t0 now checked=

	smc_clock t0
	while :; do
		smc_port_active rxe0 && ping -c 1 -W 1 "$1" >/dev/null 2>&1 &&
			return 0
		smc_clock now
		[ $((now - t0)) -lt 30000 ] || return 1
		if [ -z "$checked" ] && [ $((now - t0)) -ge 2000 ]; then
			checked=1
			smc_eth0_recover "$1"
		fi
		smc_nap 0.1
	done
}

# smc_tshark ARGS...: tshark that decodes each TCP stream in order. Its
# heuristic SMC dissector is not tried on a segment flagged as out of
# order, so a capture that stored a CLC message after the next segment
# (the likely cause of one CI failure on lo) shows no such message; put
# back in order, it shows once, even when the capture holds it twice.
smc_tshark() { tshark -o tcp.reassemble_out_of_order:TRUE "$@"; }

# smc_port_active DEV: port 1 of the RDMA device DEV is ACTIVE
smc_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

# smc_ping_within N PEER: PEER answers one of N pings (1 s each)
smc_ping_within() {
	local i
	for i in $(seq "$1"); do
		ping -c 1 -W 1 "$2" >/dev/null 2>&1 && return 0
	done
	return 1
}

# virtio_net's own counters of eth0's first queue pair (kicks: doorbells
# rung; packets: sends QEMU completed), when ethtool is there
smc_eth0_queue_stats() {
	command -v ethtool >/dev/null || return 0
	echo "# eth0 queues: $(ethtool -S eth0 2>/dev/null |
		awk '/[rt]x_queue_0_(packets|kicks|timeouts):/ { printf "%s %s ", $1, $2 }')"
}

# smc_host_net_doctor REASON: a pair's host (vm_net_doctor in
# tools/testing/vm/vm.sh) notes QEMU's view of the guests' NICs and takes
# this guest's link down and up from outside; status 1 when no host
# answered within 30 s. SMC_FAKE_ETH0_STALL=STEP:host (run_guest.sh) makes
# the faked stall one that this cures.
smc_host_net_doctor() {
	local g=${GUEST:-0} i
	[ -d /results ] || return 1
	rm -f "/results/netdoctor.done.$g"
	echo "$*" >"/results/netdoctor.req.$g"
	for i in $(seq 300); do
		if [ -e "/results/netdoctor.done.$g" ]; then
			echo "# host took eth0's link down and up (results: netdoctor.$g.log)"
			case ${SMC_FAKE_ETH0_STALL:-} in
			*:host) ip route del blackhole "192.0.2.$((2 - g))/32" 2>/dev/null ;;
			esac
			return 0
		fi
		smc_nap 0.1
	done
	echo "# no answer from the host's net doctor in 30 s"
	return 1
}

# smc_give_up REASON: this guest of a pair can run no more pair tests (its
# smc module cannot be swapped back); the other stops waiting for it
smc_give_up() {
	echo "$*" >"/results/gave_up.${GUEST:-0}"
}

# smc_peer_gave_up: the other guest's reason, when it gave up
smc_peer_gave_up() {
	cat "/results/gave_up.$((1 - ${GUEST:-0}))" 2>/dev/null
}

# Linux's smc 6.1 over Soft-RoCE at times registers a buffer's MR a second
# time without invalidating it; rxe refuses the work request, the link goes
# down, and sockets of the module then stay forever, so that it cannot be
# unloaded (smc-testing.rst). SMC_INTREE_DEFECT says so in results.
SMC_INTREE_DEFECT="Linux's smc lost its link to its fast-registration defect on rxe (rxe_reg_fast_mr: lkey not free)"

# smc_intree_defect SINCE: true when this guest's log shows that defect at or
# after uptime SINCE (seconds)
smc_intree_defect() {
	dmesg 2>/dev/null | awk -v t="${1:-0}" -F'[][]' '
		$2 + 0 >= t && /rxe_reg_fast_mr: .*not free/ { f = 1 }
		END { exit !f }'
}

# smc_link_log DEV/PORT: the start of the module's kernel log lines about
# one link (asmc_link_pr() in lgr.h), "smc: link L of group G on DEV/PORT: ",
# as an ERE; DEV/PORT may be an ERE itself
smc_link_log() { echo "smc: link [0-9]+ of group [0-9]+ on $1: "; }

# smc_klog_since MARK ERE: seconds (0.1) from the last kernel log line
# containing MARK (a test writes it to /dev/kmsg) to the first one after
# it matching ERE, by the kernel's timestamps: what the kernel did when,
# even where the test shell was kept from looking (PREEMPT_RT's softirq
# threads starve it under load). Status 1 when no such line follows.
smc_klog_since() {
	dmesg 2>/dev/null | awk -v mark="$1" -v re="$2" -F'[][]' '
		index($0, mark) { t0 = $2 + 0; t = ""; next }
		t0 != "" && t == "" && $0 ~ re { t = $2 - t0 }
		END {
			if (t == "")
				exit 1
			printf "%.1f\n", t
		}'
}

# smc_intree_stuck: why Linux's smc cannot leave this guest, when it hit its
# defect here in this run (smc_interop marks the phase: /results/defect.*)
smc_intree_stuck() {
	local f
	for f in /results/defect.*; do
		[ "$(cat "$f" 2>/dev/null)" = "${GUEST:-0}" ] || continue
		echo "Linux's smc cannot be unloaded: its sockets of the link it lost in phase ${f##*.} stay (rxe_reg_fast_mr: lkey not free)"
		return 0
	done
	return 1
}

# smc_obj_created TYPE: how many objects of TYPE were created so far
smc_obj_created() {
	awk -v t="$1" '$1 == t { print $3 }' "$SMC_DBG/objects"
}

# smc_rxe_pkts: packets the RDMA device rxe0 sent plus received
smc_rxe_pkts() {
	local d=/sys/class/infiniband/rxe0/ports/1/hw_counters
	echo $(( $(cat $d/sent_pkts 2>/dev/null || echo 0) +
		 $(cat $d/rcvd_pkts 2>/dev/null || echo 0) ))
}

# smc_rxe1_add: a second RDMA device, rxe1 on eth1 (the pair guests' second
# path, 198.51.100.0/24; tools/testing/vm/init creates no device on it), for
# link redundancy tests. Waits up to 10 s for its port to be ACTIVE with a
# RoCE v2 GID of eth1's IPv4 address; status 1 and why on stderr otherwise.
smc_rxe1_add() {
	[ -e /sys/class/net/eth1 ] || { echo "smc_rxe1_add: no eth1" >&2; return 1; }
	modprobe -q rdma_rxe || { echo "smc_rxe1_add: modprobe rdma_rxe failed" >&2; return 1; }
	if [ ! -e /sys/class/infiniband/rxe1 ]; then
		rdma link add rxe1 type rxe netdev eth1 || {
			echo "smc_rxe1_add: rdma link add rxe1 failed" >&2
			return 1
		}
	fi
	# an IPv4-mapped GID (::ffff:198.51.100.x)
	smc_rxe_wait_gid rxe1 '0000:0000:0000:0000:0000:ffff:c633:64*' \
		"a RoCE v2 GID of 198.51.100.x"
}

# smc_rxe_has_gid DEV PATTERN: port 1 of DEV is ACTIVE with a RoCE v2 GID
# matching the glob PATTERN
smc_rxe_has_gid() {
	local d=/sys/class/infiniband/$1/ports/1 f

	smc_port_active "$1" || return 1
	for f in "$d"/gids/*; do
		# shellcheck disable=SC2254
		case $(cat "$f" 2>/dev/null) in
		$2)
			grep -q v2 "$d/gid_attrs/types/${f##*/}" 2>/dev/null &&
				return 0 ;;
		esac
	done
	return 1
}

# smc_rxe_wait_gid DEV PATTERN WHAT: within 10 s port 1 of DEV is ACTIVE
# with a RoCE v2 GID matching the glob PATTERN; status 1 and why (WHAT:
# the GID in words) on stderr otherwise
smc_rxe_wait_gid() {
	smc_within 10 smc_rxe_has_gid "$1" "$2" && return 0
	echo "$1 port 1 not ACTIVE with $3 after 10 s ($(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null))" >&2
	return 1
}

# The module's fault injection (debugfs smc/fault, debug.h):
# smc_fault_injected SITE: faults injected so far at SITE
smc_fault_injected() {
	awk -v s="$1" '$1 == s { print $5 }' "$SMC_DBG/fault/injected"
}

# smc_fault_on "SITE..." INTERVAL TIMES: fail every INTERVAL-th call of the
# SITEs (one budget of TIMES for all); "sites" 0 turns them off
smc_fault_on() {
	local site bit mask=0 f=$SMC_DBG/fault
	# the module's lateact delay, for smc_fault_off to put back
	[ -n "${SMC_LATEACT_MS:-}" ] || [ ! -e "$f/lateact_ms" ] ||
		SMC_LATEACT_MS=$(cat "$f/lateact_ms")
	for site in $1; do
		bit=$(awk -v s="$site" '$1 == s { print $3 }' "$f/injected")
		mask=$((mask | 1 << bit))
	done
	echo "$2" >"$f/interval"
	echo "$3" >"$f/times"
	printf '0x%x\n' $mask >"$f/sites"
}

# smc_fault_off: no site armed, interval, budget and the lateact delay back
# to the defaults
smc_fault_off() {
	local f=$SMC_DBG/fault
	[ -d "$f" ] || return 0
	echo 0 >"$f/sites"
	echo 1 >"$f/interval"
	echo -1 >"$f/times"
	[ -z "${SMC_LATEACT_MS:-}" ] || echo "$SMC_LATEACT_MS" >"$f/lateact_ms"
}

# smc_no_lgrs: flush idle link groups until none is left (10 s at most),
# so that the next connection is a first contact
smc_no_lgrs() {
	smc_within 10 smc_flushed_to_none
}
smc_flushed_to_none() {
	echo 1 >"$SMC_DBG/flush_idle"
	[ "$(smc_obj_live lgr)" = 0 ]
}

# smc_clock VAR: VAR = the wall clock in ms, without starting a process
# (bash's EPOCHREALTIME; date where that is missing)
smc_clock() {
	local _smc_us=${EPOCHREALTIME:-}

	_smc_us=${_smc_us/[.,]/}
	if [ -n "$_smc_us" ]; then
		printf -v "$1" %d $((10#$_smc_us / 1000))
	else
		printf -v "$1" %s "$(date +%s%3N)"
	fi
}

# smc_within SECS CMD...: CMD succeeds within SECS of wall time, tried every
# 0.1 s. A slow CMD (a netlink dump in Python takes seconds under the debug
# kernel) is tried fewer times, not for longer: no try starts after SECS.
smc_within() {
	local _smc_end _smc_now

	smc_clock _smc_end
	_smc_end=$((_smc_end + $1 * 1000))
	shift
	while :; do
		"$@" && return 0
		smc_clock _smc_now
		[ "$_smc_now" -lt "$_smc_end" ] || return 1
		smc_nap 0.1
	done
}

# smc_links_on SECS DEV DEV2: within SECS our link group has two active
# links, one on DEV and one on DEV2 (the same device for the side of an
# asymmetric group that has one port; debugfs lgrs: "links
# ID:DEV:STATE:CONNS ... retired N"); prints the groups when not (for
# tap_check)
smc_links_on() {
	local a="[0-9]+:$2:active:[0-9]+" b="[0-9]+:$3:active:[0-9]+"
	smc_within "$1" grep -qE "links ($a $b|$b $a) retired" "$SMC_DBG/lgrs" &&
		return 0
	cat "$SMC_DBG/lgrs"
	return 1
}

# smc_nl_link_state STATE: the SMC-R link dump (netlink) has a link in
# STATE (1 inactive, 2 activating, 3 active)
smc_nl_link_state() {
	python3 "$SMC_TESTDIR/smc_nl.py" link-smcr | grep -q "link.*state=$1\b"
}

# smc_two_links SECS: within SECS our link group has two active links, on
# rxe0 and rxe1
smc_two_links() {
	smc_links_on "$1" rxe0 rxe1
}

# smc_conns_on_both SECS [PID]: within SECS (while PID runs) both links of
# our group carry connections; prints the groups either way
smc_conns_on_both() {
	local _smc_both=1

	smc_within "$1" smc_both_carry "${2:-}"
	cat "$SMC_DBG/lgrs"
	return $_smc_both
}
# smc_both_carry [PID]: both links carry connections (sets the caller's
# _smc_both to 0); also true, to stop waiting, once PID has ended
smc_both_carry() {
	if grep -qE "links [0-9]+:rxe[0-9]+:active:[1-9][0-9]* [0-9]+:rxe[0-9]+:active:[1-9]" \
		"$SMC_DBG/lgrs"; then
		_smc_both=0
		return 0
	fi
	[ -n "$1" ] && smc_pid_gone "$1"
}

# smc_links_above FIELD N SECS: within SECS the stats counter smcr_links
# FIELD exceeds N
smc_links_above() {
	smc_within "$3" smc_links_gt "$1" "$2"
}
smc_links_gt() { [ "$(smc_counters smcr_links "$1")" -gt "$2" ]; }

# smc_link_lost_since N SECS: within SECS our links lost (stats smcr_links
# lost) exceed N
smc_link_lost_since() {
	smc_links_above lost "$1" "$2"
}

# smc_check_refused NAME REJ0 REFUSED0: one result - on guest 0 (the
# client) its rejects of the server's ADD_LINK (smcr_llc add_link_rej)
# exceed REJ0, on guest 1 (the server) the offers refused (smcr_links
# refused) exceed REFUSED0
smc_check_refused() {
	if [ "$GUEST" = 0 ]; then
		tap_check "$1: the client rejected the offer" \
			[ "$(smc_llc add_link_rej)" -gt "$2" ]
	else
		tap_check "$1: the server's offer was refused" \
			[ "$(smc_counters smcr_links refused)" -gt "$3" ]
	fi
}

# smc_check_asked NAME ASKED0 PEER0: one result - on guest 0 (the client)
# its asks for a link (stats smcr_links asked) exceed ASKED0, on guest 1
# (the server) the asks it heard (peer_asked) exceed PEER0
smc_check_asked() {
	if [ "$GUEST" = 0 ]; then
		tap_check "$1: the client asked for the link" \
			[ "$(smc_counters smcr_links asked)" -gt "$2" ]
	else
		tap_check "$1: the server was asked for the link" \
			[ "$(smc_counters smcr_links peer_asked)" -gt "$3" ]
	fi
}

# smc_rxe2_add: a second RoCE port on the FIRST path, for asymmetric link
# groups (the other host has one port, on the same network): rxe2 on mv0,
# a macvlan of eth0 with 192.0.2.(101 + GUEST)/24. ARP answers only from
# the interface owning the address (arp_ignore=1, arp_announce=2), so the
# peer's packets to either address arrive on that address's own RDMA
# device. mv0 has a fixed MAC per guest: neighbour entries the peer kept
# from an earlier mv0 stay right (the RDMA core takes a RoCE v2 peer's MAC
# from a still valid neighbour entry, stale or not). Waits up to 10 s for
# the port to be ACTIVE with the RoCE v2 GID of that address; status 1 and
# why on stderr otherwise.
smc_rxe2_add() {
	local n=$((101 + GUEST)) gid
	gid=0000:0000:0000:0000:0000:ffff:c000:02$(printf %02x $n)
	modprobe -q macvlan || { echo "smc_rxe2_add: modprobe macvlan failed" >&2; return 1; }
	modprobe -q rdma_rxe || { echo "smc_rxe2_add: modprobe rdma_rxe failed" >&2; return 1; }
	sysctl -q -w net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	ip link set eth0 promisc on
	if [ ! -e /sys/class/net/mv0 ]; then
		ip link add mv0 link eth0 address "52:54:00:12:36:0$GUEST" \
			type macvlan mode bridge || {
			echo "smc_rxe2_add: no macvlan mv0 on eth0" >&2
			return 1
		}
	fi
	ip addr replace "192.0.2.$n/24" dev mv0 && ip link set mv0 up || return 1
	if [ ! -e /sys/class/infiniband/rxe2 ]; then
		rdma link add rxe2 type rxe netdev mv0 || {
			echo "smc_rxe2_add: rdma link add rxe2 failed" >&2
			return 1
		}
	fi
	smc_rxe_wait_gid rxe2 "$gid" "GID $gid"
}

# smc_rxe2_del: rxe2 and mv0 (smc_rxe2_add) gone, ARP as before
smc_rxe2_del() {
	[ ! -e /sys/class/infiniband/rxe2 ] || rdma link delete rxe2
	[ ! -e /sys/class/net/mv0 ] || ip link delete mv0
	ip link set eth0 promisc off
	sysctl -q -w net.ipv4.conf.all.arp_ignore=0 net.ipv4.conf.all.arp_announce=0
}

# smc_links_cleanup DEL: the common part of the link scenarios' EXIT
# traps: both SMC-R versions on again, background jobs gone, command DEL
# run (smc_rxe1_del or smc_rxe2_del), the UEID $EID removed
smc_links_cleanup() {
	sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	"$1" 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}

# smc_rxe1_del: rxe1 (smc_rxe1_add) gone again, if it is there
smc_rxe1_del() {
	[ -e /sys/class/infiniband/rxe1 ] || return 0
	rdma link delete rxe1
}
