#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Injected failures in the module's own calls (debugfs smc/fault/) during
# connection setup and data transfer over the loopback SMC-R link: every
# connection must still deliver verified data (a failed setup falls back to
# TCP with the Decline reason counted) or end with an error, never hang;
# every object is freed and the module unloads afterwards. On a kernel with
# failslab/fail_page_alloc (the debug kernel) the same runs again with the
# kernel's own injection on the test programs' allocations.
#
#   +----------------------------- guest ------------------------------+
#   |  smc_xfer client --\                        /-- smc_xfer -s       |
#   |             192.0.2.1 (eth0) --> rxe0 (loopback SMC-R)            |
#   |                                                                   |
#   |  /sys/kernel/debug/smc/fault/{sites,interval,times,injected}      |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-FAULTS-TEST
PORT=29800
F=$SMC_DBG/fault
DEADLINE=120	# per transfer: far beyond any timeout of the module
slow0=$(cat "$F/slowqp_ms" 2>/dev/null)	# the module's own, put back

fault_off() {
	[ -d "$F" ] || return 0
	smc_fault_off
	[ -z "$slow0" ] || echo "$slow0" >"$F/slowqp_ms"
}

cleanup() {
	fault_off
	for k in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		[ -d $k ] && echo 0 >$k/probability
	done
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# xfer NAME CONNS BYTES [client opts]: server and client, both must end
# within DEADLINE; sets xrc_s/xrc_c to their exit codes (124: hung)
xfer() {
	local name=$1 conns=$2 bytes=$3
	shift 3
	PORT=$((PORT + 1))
	timeout $DEADLINE "$SMC_XFER" -s -q -f smc -p $PORT -c "$conns" \
		-t $DEADLINE 2>/tmp/faults.srv &
	local spid=$!
	smc_wait_port $PORT 10 || echo "# $name: server not listening"
	timeout $DEADLINE "$SMC_XFER" -q -f smc -p $PORT -n "$bytes" \
		-c "$conns" -t $DEADLINE "$@" "$ADDR" 2>/tmp/faults.cli
	xrc_c=$?
	wait $spid
	xrc_s=$?
}

# xfer_result STATUS NAME CHECK OK-DETAIL FAIL-DETAIL SECS: the TAP result
# "NAME: CHECK (DETAIL)", passed when STATUS is 0, else with both programs'
# stderr; then every object of NAME must be released within SECS
xfer_result() {
	if [ "$1" = 0 ]; then
		tap_ok "$2: $3 ($4)"
	else
		tap_fail "$2: $3 ($5)"
		tap_diag </tmp/faults.cli
		tap_diag </tmp/faults.srv
	fi
	echo 1 >"$SMC_DBG/flush_idle"
	smc_check_released "$2" "$6"
}

# smc_first SITE NAME CHECK: a first contact (no group left) whose SITE
# fails once must still go over SMC-R: both ends verified, nothing falls
# back, two connections
smc_first() {
	local i0 fb0 c0 n fb conns
	smc_no_lgrs
	i0=$(smc_fault_injected "$1")
	fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	c0=$(smc_obj_created conn)
	smc_fault_on "$1" 1 1
	xfer "$1" 1 64K
	fault_off
	n=$(( $(smc_fault_injected "$1") - i0 ))
	fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
	conns=$(( $(smc_obj_created conn) - c0 ))
	[ $xrc_c = 0 ] && [ $xrc_s = 0 ] && [ $n = 1 ] && [ $fb = 0 ] &&
		[ $conns = 2 ]
	xfer_result $? "$2" "$3" "$n injected" \
		"client $xrc_c, server $xrc_s, $n injected, $fb fallback ends, $conns conns" 30
}

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -d "$F" ] || ksft_skip_all "this smc.ko has no fault injection knobs"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
smc_port_active rxe0 ||
	ksft_skip_all "no active RDMA device rxe0"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "cannot add a user EID"

# 1. socket creation: socket() reports the failure, the next one works
smc_fault_on sock 1 1
errs=$(python3 -c '
import socket, errno
try:
    socket.socket(43, socket.SOCK_STREAM, 0)
    print("none")
except OSError as e:
    print(errno.errorcode[e.errno])
socket.socket(43, socket.SOCK_STREAM, 0).close()
print("ok")' 2>&1 | tr '\n' ' ')
fault_off
if [[ "$errs" =~ ^(ENOBUFS|ENOMEM)\ ok ]]; then
	tap_ok "socket() fails with ${BASH_REMATCH[1]} under injection, then works"
else
	tap_fail "socket() fails with ENOBUFS/ENOMEM under injection, then works (got: $errs)"
fi

# 2. setup faults: each site fails every 2nd, then every 5th (3rd) call; every
# connection must still carry verified data, set-up failures falling back
# to TCP with a reason the peer and we count
for run in clc:2 lgr:2 buf:2 verbs:2 clc:5 lgr:3 buf:5 verbs:5; do
	site=${run%:*} every=${run#*:}
	echo 1 >"$SMC_DBG/flush_idle"
	i0=$(smc_fault_injected $site)
	fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	c0=$(smc_obj_created conn)
	smc_fault_on $site $every -1
	xfer "$site" 6 64K
	fault_off
	n=$(( $(smc_fault_injected $site) - i0 ))
	fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
	smcr=$(( ($(smc_obj_created conn) - c0) / 2 ))
	[ $xrc_c = 0 ] && [ $xrc_s = 0 ] && [ $n -gt 0 ]
	xfer_result $? "$site faults (every $every)" "6 connections verified" \
		"$n injected, $fb fallback ends, ~$smcr over SMC-R" \
		"client $xrc_c, server $xrc_s, $n injected" 30
done

# 3. a lost LLC request: the next connection's CONFIRM_RKEY gets no
# answer; after 5 s that handshake falls back to TCP (0x09990001), its data
# still arrives, and the connection after it uses SMC-R again. A pooled RMB
# is reused without CONFIRM_RKEY: the connections under the fault want
# RMBs of a size the group has none of (net.smc.rmem), so new ones.
xfer warm 1 1K
# its closes done before the fault is armed
smc_wait_objs conn 0 30
sleep 0.5
i0=$(smc_fault_injected llc)
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
rmem0=$(cat /proc/sys/net/smc/rmem)
echo 262144 >/proc/sys/net/smc/rmem
smc_fault_on llc 1 1
xfer llc 2 64K
fault_off
echo "$rmem0" >/proc/sys/net/smc/rmem
n=$(( $(smc_fault_injected llc) - i0 ))
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
if [ $xrc_c = 0 ] && [ $xrc_s = 0 ] && [ $n = 1 ] && [ $fb -ge 1 ]; then
	tap_ok "lost LLC request: 2 connections verified ($fb fallback ends)"
else
	tap_fail "lost LLC request: 2 connections verified (client $xrc_c, server $xrc_s, $n injected, $fb fallback ends)"
	grep fallback_reason "$SMC_DBG/stats" | tap_diag
fi
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "a lost LLC request" 30

# 3b. a client that starts waiting for its first CONFIRM_LINK late (300
# ms): the server's came before, and is taken from where it was kept; the
# first contact goes on over SMC-R, nothing falls back
smc_first latecl "late CONFIRM_LINK wait" "first contact over SMC-R"

# 3c. a client that loses the server's first CONFIRM_LINK (lostcl, once,
# as Linux's client drops one that comes before it waits): no answer in
# 2.5 s, the server sends it again, inside the 4 s the client waits
smc_first lostcl "lost first CONFIRM_LINK" \
	"first contact over SMC-R (the server sent it again)"

# 3d. the repeat lost too: the client gives up after 4 s and declines
# (0x02010000); the server, whose wait for the answer ends 5 s after its
# request, finds that Decline and sends none of its own, which the
# client, on TCP by then, would read as data: both ends fall back and the
# data verifies (with Linux's smc client on PREEMPT_RT, the server's late
# Decline stalled the connection)
smc_no_lgrs
i0=$(smc_fault_injected lostcl)
cl0=$(smc_fallback_count 0x02010000 client)
sv0=$(smc_fallback_count 0x05000000 server)
smc_fault_on lostcl 1 2
xfer lostcl 1 64K
fault_off
n=$(( $(smc_fault_injected lostcl) - i0 ))
cl=$(( $(smc_fallback_count 0x02010000 client) - cl0 ))
sv=$(( $(smc_fallback_count 0x05000000 server) - sv0 ))
[ $xrc_c = 0 ] && [ $xrc_s = 0 ] && [ $n = 2 ] && [ $cl = 1 ] && [ $sv = 1 ]
xfer_result $? "first CONFIRM_LINK and its repeat lost" \
	"data verified over TCP, only the client declined" \
	"client timed out 0x02010000, server took its Decline" \
	"client $xrc_c, server $xrc_s, $n injected, client 0x02010000 $cl, server peer-declined $sv" 30

# 3e. the server's first CONFIRM_LINK comes twice (dupcl: the repeat at
# once): the client answers one and ignores the other
smc_first dupcl "first CONFIRM_LINK twice" "first contact over SMC-R"

# broken_xfer "SITE..." TIMES: two parallel connections send 1G each way;
# 2 s in, the SITEs fail (TIMES in all); both ends must return within
# DEADLINE. Sets xrc_s/xrc_c (124: hung) and took (seconds from the fault
# until both had returned).
broken_xfer() {
	local spid cpid t0
	PORT=$((PORT + 1))
	timeout $DEADLINE "$SMC_XFER" -s -q -f smc -p $PORT -c 2 -P \
		-t $DEADLINE 2>/tmp/faults.srv &
	spid=$!
	smc_wait_port $PORT 10
	timeout $DEADLINE "$SMC_XFER" -q -f smc -p $PORT -n 1G -c 2 -P \
		-t $DEADLINE "$ADDR" 2>/tmp/faults.cli &
	cpid=$!
	sleep 2
	smc_fault_on "$1" 1 "$2"
	t0=$(date +%s%N)
	wait $cpid
	xrc_c=$?
	wait $spid
	xrc_s=$?
	took=$(( ($(date +%s%N) - t0) / 1000000 ))
	took=$((took / 1000)).$((took % 1000 / 100))
}

# 4. a failed post in the middle of a transfer breaks the link: both ends
# get an error (or finish), none hangs
i0=$(smc_fault_injected post)
broken_xfer post 1
fault_off
n=$(( $(smc_fault_injected post) - i0 ))
# the end whose link did not fail waits for the peer's window: its probe
# (5 s, then 4 s for the answer) ends it, not the idle keepalive (30 s)
[ $xrc_c != 124 ] && [ $xrc_s != 124 ] && [ $n -gt 0 ] &&
	[ "${took%.*}" -lt "${SMC_FAULTS_RETURN_S:-25}" ]
xfer_result $? "post fault mid-transfer" "both ends returned within ${SMC_FAULTS_RETURN_S:-25} s" \
	"client $xrc_c, server $xrc_s after $took s, $n injected" \
	"client $xrc_c, server $xrc_s after $took s: 124 is hung" 60

# 4b. the same with a device slow to destroy each QP (rxe waits up to 50 s
# for packets of the QP still in the stack): the link groups' teardown
# must not hold up the connections' closes, whose sockets go while the QPs
# are still being destroyed. 15 s a QP (SMC_FAULTS_SLOWQP_MS): a close that
# waited for it would take that long, a debug kernel's programs may need
# several seconds to return after the fault (it took 5 s to see the links
# gone before the sockets were checked once).
slow_ms=${SMC_FAULTS_SLOWQP_MS:-15000}
echo "$slow_ms" >"$F/slowqp_ms"
i0=$(smc_fault_injected slowqp)
broken_xfer "post slowqp" -1
smc_fault_on slowqp 1 -1
smc_wait_objs sock 0 3
socks=$(smc_obj_live sock) links=$(smc_obj_live link)
n=$(( $(smc_fault_injected slowqp) - i0 ))
# the links still there are the broken ones, being destroyed (slowqp
# already fired for one at least): idle groups keep no link past a
# termination
[ $xrc_c != 124 ] && [ $xrc_s != 124 ] && [ "$socks" = 0 ] &&
	[ "$links" -gt 0 ] && [ $n -gt 0 ]
xfer_result $? "slow QP destroy" "sockets released within 3 s while QPs are destroyed" \
	"client $xrc_c, server $xrc_s after $took s, $links links left, $n slow destroys of $slow_ms ms" \
	"client $xrc_c, server $xrc_s after $took s, $socks sockets and $links links left, $n slow destroys of $slow_ms ms" \
	$((slow_ms * 4 / 1000 + 30))
fault_off

# 4c. send completions that never come (rxe may not flush a QP's
# sends; here 3 of a running transfer's): a connection may then fail (its
# close waits in vain for a CDC to complete), but both ends return, and
# the link's teardown fails the sends it never saw end, so that the
# sockets they hold are released (without that, one stays and the module
# cannot be unloaded)
i0=$(smc_fault_injected lostcqe)
smc_fault_on lostcqe 40 3
xfer lostcqe 2 4M
fault_off
n=$(( $(smc_fault_injected lostcqe) - i0 ))
[ $xrc_c != 124 ] && [ $xrc_s != 124 ] && [ $n -gt 0 ]
xfer_result $? "lost send completions" "both ends returned, then all released" \
	"client $xrc_c, server $xrc_s, $n lost" \
	"client $xrc_c, server $xrc_s (124: hung), $n lost" 60

# 5. the kernel's failslab/fail_page_alloc on the test programs' own
# allocations (process context: socket, connect, send, receive)
# Opt-in (SMC_FAULTS_FAILSLAB=1): the programs' own reads of the guest's
# 9p root fail as well, and a failed 9p request can break the guest's root
# file system for everything after (execve then fails with EINVAL).
K=/sys/kernel/debug
if [ "${SMC_FAULTS_FAILSLAB:-0}" != 1 ]; then
	tap_skip "failslab+fail_page_alloc on the programs" \
		"opt-in (SMC_FAULTS_FAILSLAB=1): it can break the guest's 9p root file system"
elif [ -d $K/failslab ] && [ -d $K/fail_page_alloc ]; then
	for k in failslab fail_page_alloc; do
		echo 1 >$K/$k/task-filter
		echo 5 >$K/$k/probability
		echo -1 >$K/$k/times
		echo 0 >$K/$k/interval
		echo 0 >$K/$k/verbose
		echo N >$K/$k/ignore-gfp-wait
	done
	hung=0
	for r in 1 2 3; do
		PORT=$((PORT + 1))
		bash -c "echo 1 >/proc/self/make-it-fail; exec timeout $DEADLINE \
			$SMC_XFER -s -q -f smc -p $PORT -c 3 -t 60" \
			>/dev/null 2>&1 &
		spid=$!
		smc_wait_port $PORT 10
		bash -c "echo 1 >/proc/self/make-it-fail; exec timeout $DEADLINE \
			$SMC_XFER -q -f smc -p $PORT -n 1M -c 3 -t 60 $ADDR" \
			>/dev/null 2>&1
		[ $? = 124 ] && hung=$((hung + 1))
		wait $spid
		[ $? = 124 ] && hung=$((hung + 1))
	done
	for k in failslab fail_page_alloc; do echo 0 >$K/$k/probability; done
	tap_check "failslab+fail_page_alloc (5%) on the programs: 3 runs, $hung hung" \
		[ $hung = 0 ]
	echo 1 >"$SMC_DBG/flush_idle"
	smc_check_released "failslab/fail_page_alloc" 60
else
	tap_skip "failslab+fail_page_alloc on the programs" \
		"kernel without CONFIG_FAILSLAB/CONFIG_FAIL_PAGE_ALLOC (the debug kernel has them)"
fi

# 6. afterwards: clean SMC-R again, and the module unloads
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
c0=$(smc_obj_created conn)
xfer after 2 1M
c=$(( $(smc_obj_created conn) - c0 ))
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
if [ $xrc_c = 0 ] && [ $xrc_s = 0 ] && [ $c = 4 ] && [ $fb = 0 ]; then
	tap_ok "after the faults: 2 x 1M verified over SMC-R, no fallback"
else
	tap_fail "after the faults: 2 x 1M verified over SMC-R (client $xrc_c, server $xrc_s, $c conns, $fb fallbacks)"
fi
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the faults scenario"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
tap_check "module unloads after the faults" smc_unload
smc_load
tap_done
