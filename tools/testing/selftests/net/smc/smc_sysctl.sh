#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The net.smc sysctls: defaults after load, ranges (EINVAL, value kept),
# per network namespace values, permissions, limit_smc_hs shared with the
# netlink handshake-limitation commands, effects on new SMC-R connections
# (buffer sizes, work requests, connections per link group, handshake
# limitation, SMC-R versions), and the tables going away with the module.
#
#   +-------------------------------- guest --------------------------------+
#   |  init netns                                 netns smcsys_ns            |
#   |   /proc/sys/net/smc/*  <-- sysctl, echo      /proc/sys/net/smc/* (own) |
#   |   .../buf_limit (host-wide, init netns only)                           |
#   |   smc_nl.py hs-*       <-- same limit_smc_hs value                     |
#   |   nobody: read only          nobody in its own user+net ns: writes    |
#   |                                                                        |
#   |   smc_xfer / python client --SMC-R (rxe0 loopback)--> server          |
#   |            192.0.2.1 (eth0)             debugfs smc/sockets, smc/lgrs  |
#   +------------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-SYSCTL-TEST
NS=smcsys_ns
D=/proc/sys/net/smc
NLPY=$SMC_TESTDIR/smc_nl.py
TMP=

DEFAULTS="autocorking_size=65536
limit_smc_hs=0
rmem=524288
smcr_buf_type=0
smcr_max_conns_per_lgr=255
smcr_max_links_per_lgr=2
smcr_max_recv_wr=48
smcr_max_send_wr=16
smcr_testlink_time=30
smcr_v1=1
smcr_v2=1
wmem=524288"
# init_net also has the host-wide budget of all buffers: 1/16 of the RAM
# (inserted where its name sorts, after autocorking_size)
LIMIT=$(( $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) * 1024 / 16 ))
DEFAULTS_INIT=$(sed "1a buf_limit=$LIMIT" <<<"$DEFAULTS")

restore_defaults() {
	local kv
	for kv in $DEFAULTS_INIT; do
		echo "${kv#*=}" > "$D/${kv%%=*}" 2>/dev/null
	done
}

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	if [ -d "$D" ]; then
		restore_defaults
		python3 "$NLPY" ueid-del "$EID" >/dev/null 2>&1
	fi
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT

# values [CMD-PREFIX...]: NAME=VALUE per sysctl file, sorted by name
values() {
	"$@" sh -c 'cd /proc/sys/net/smc && for f in *; do
		echo "$f=$(cat "$f")"; done'
}

# sc_write FILE VALUE: write VALUE, print "ok" or the errno name
sc_write() {
	python3 -S -c '
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    try:
        os.write(fd, sys.argv[2].encode() + b"\n")
    finally:
        os.close(fd)
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))' "$@"
}

check() { # NAME CONDITION-EXIT-STATUS [DIAG-TEXT]
	if [ "$2" = 0 ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		[ -n "$3" ] && printf '%s\n' "$3" | tap_diag
	fi
}

# expect_out NAME EXPECTED CMD...: CMD prints exactly EXPECTED
expect_out() {
	local name=$1 want=$2 out
	shift 2
	out=$("$@" 2>&1)
	[ "$out" = "$want" ]
	check "$name" $? "expected:
$want
got:
$out"
}

# smcr_ends: SMC-R connection ends in debugfs smc/sockets
smcr_ends() { grep -c ' mode SMCR ' "$SMC_DBG/sockets"; }
# both_grown: two SMC-R ends with a 32 KiB send buffer and a 128 KiB RMB
# (the caller's socks: the SMC-R sockets)
both_grown() {
	socks=$(grep ' mode SMCR ' "$SMC_DBG/sockets")
	[ "$(grep -c ' sndbuf 32768 rmb 131072$' <<<"$socks")" -ge 2 ]
}
# ends_or_gone N PID: N SMC-R sockets, or PID ended
ends_or_gone() { [ "$(smcr_ends)" -ge "$1" ] || ! kill -0 "$2" 2>/dev/null; }

# lgr_conns ROLE: the link groups' connection counts of ROLE, sorted
lgr_conns() {
	awk -v r="$1" '$4 == r { print $7 }' "$SMC_DBG/lgrs" | sort -n | xargs
}

# dgrades: the netlink statistics' RMB and send buffer downgrades
dgrades() {
	python3 "$SMC_TESTDIR/smc_nl.py" stats |
		awk -F= '$1 == "smcr.rx_rmb_stats.dgrade_cnt" { r = $2 }
			 $1 == "smcr.tx_rmb_stats.dgrade_cnt" { t = $2 }
			 END { print r + 0, t + 0 }'
}

# no_lgrs: wait until every link group is freed. Idle ones are freed at
# once, but only once no connection is left in any group: a flush waits
# for all queued work, which closing connections can keep busy for long.
no_lgrs() {
	local lgrs _smc_flush=0

	smc_within 90 lgrs_gone && return 0
	tap_diag <<<"$lgrs"
	return 1
}
# lgrs_gone: no link group left (the caller's lgrs: the groups); if every
# one is idle, they are flushed at most every 2 s
lgrs_gone() {
	lgrs=$(cat "$SMC_DBG/lgrs")
	[ -z "$lgrs" ] && return 0
	grep -qv ' conns 0 ' <<<"$lgrs" || smc_flush_idle_every 2000
	return 1
}

smc_is_ours_loaded || smc_load || ksft_skip_all "cannot load smc.ko"
[ -d "$D" ] || { tap_fail "$D exists after load"; tap_done; }
command -v python3 >/dev/null || ksft_skip_all "python3 not installed"
TMP=$(mktemp -d /tmp/smc_sysctl.XXXXXX)
restore_defaults

# ---- defaults ------------------------------------------------------------------
expect_out "sysctl -a lists the 13 net.smc values with their defaults (buf_limit 1/16 of MemTotal)" \
	"$(sed 's/^/net.smc./; s/=/ = /' <<<"$DEFAULTS_INIT")" \
	sh -c "sysctl -a 2>/dev/null | grep '^net\.smc\.' | sort"
out=$(stat -c '%a %U' "$D"/* | sort -u)
[ "$out" = "644 root" ]
check "every file is 0644 root" $? "$out"

# ---- ranges: out of range is EINVAL and changes nothing ------------------------
bad="autocorking_size:-1 autocorking_size:4294967296 autocorking_size:abc
smcr_buf_type:-1 smcr_buf_type:3
smcr_testlink_time:-1 smcr_testlink_time:2147483647
wmem:16383 wmem:1073741824 wmem:-16384 rmem:16383 rmem:1073741824 rmem:0
smcr_max_links_per_lgr:0 smcr_max_links_per_lgr:3
smcr_max_conns_per_lgr:15 smcr_max_conns_per_lgr:256
limit_smc_hs:-1 limit_smc_hs:2
smcr_max_send_wr:1 smcr_max_send_wr:2049 smcr_max_recv_wr:1
smcr_max_recv_wr:2049 smcr_v1:-1 smcr_v1:3 smcr_v2:-1 smcr_v2:2
buf_limit:-1 buf_limit:abc"
for nv in $bad; do
	n=${nv%%:*} v=${nv#*:}
	before=$(cat "$D/$n")
	r=$(sc_write "$D/$n" "$v")
	after=$(cat "$D/$n")
	[ "$r" = EINVAL ] && [ "$after" = "$before" ]
	check "$n = $v rejected with EINVAL, value kept" $? \
		"write: $r, value $before -> $after"
done

# ---- valid values stick (range ends) ----------------------------------------------
good="autocorking_size:0 autocorking_size:4294967295 smcr_buf_type:1
smcr_buf_type:2 smcr_testlink_time:0 smcr_testlink_time:3600 wmem:16384
wmem:1073741823 rmem:16384 rmem:1073741823 smcr_max_links_per_lgr:1
smcr_max_conns_per_lgr:16 limit_smc_hs:1 smcr_max_send_wr:2
smcr_max_send_wr:2048 smcr_max_recv_wr:2 smcr_max_recv_wr:2048 smcr_v1:0
smcr_v1:2 smcr_v2:0 buf_limit:0 buf_limit:18446744073709551615"
for nv in $good; do
	n=${nv%%:*} v=${nv#*:}
	r=$(sc_write "$D/$n" "$v")
	after=$(cat "$D/$n")
	[ "$r" = ok ] && [ "$after" = "$v" ]
	check "$n = $v accepted and kept" $? "write: $r, value $after"
done
out=$(sysctl -w net.smc.wmem=32768 2>&1) && [ "$(sysctl -n net.smc.wmem)" = 32768 ]
check "sysctl -w net.smc.wmem=32768" $? "$out"
restore_defaults
expect_out "back to the defaults" "$DEFAULTS_INIT" values

# ---- permissions ------------------------------------------------------------------
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
expect_out "nobody reads the values" "$DEFAULTS_INIT" values $NOBODY
r=$($NOBODY python3 -S -c '
import errno, os
try:
    os.open("/proc/sys/net/smc/wmem", os.O_WRONLY); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' 2>&1)
[ "$r" = EACCES ] && [ "$(cat $D/wmem)" = 524288 ]
check "nobody cannot write init_net's values (EACCES)" $? "$r"
if $NOBODY unshare -Urn true 2>/dev/null; then
	out=$($NOBODY unshare -Urn sh -c "echo 32768 > $D/wmem &&
		echo 1 > $D/limit_smc_hs && cat $D/wmem $D/limit_smc_hs" 2>&1)
	[ "$out" = "32768
1" ] && [ "$(cat $D/wmem)" = 524288 ] && [ "$(cat $D/limit_smc_hs)" = 0 ]
	check "nobody's own user+net namespace: root there writes its values" \
		$? "$out"
else
	tap_skip "nobody in its own user+net namespace" "unshare -U not permitted"
fi

# ---- network namespaces --------------------------------------------------------------
ip netns del "$NS" 2>/dev/null
echo 32768 > $D/wmem; echo 20 > $D/smcr_max_conns_per_lgr; echo 1 > $D/limit_smc_hs
if ip netns add "$NS"; then
	expect_out "netns: a new namespace starts from the defaults, without the host-wide buf_limit" \
		"$DEFAULTS" values ip netns exec "$NS"
	ip netns exec "$NS" sh -c "echo 131072 > $D/rmem; echo 7 > $D/smcr_testlink_time"
	expect_out "netns: its own values change" "131072 7" \
		ip netns exec "$NS" sh -c "echo \$(cat $D/rmem $D/smcr_testlink_time)"
	expect_out "netns: init_net keeps its own" "32768 524288 30 20 1" \
		sh -c "echo \$(cat $D/wmem $D/rmem $D/smcr_testlink_time $D/smcr_max_conns_per_lgr $D/limit_smc_hs)"
	r=$(ip netns exec "$NS" python3 -S -c '
import errno, os
try:
    fd = os.open("/proc/sys/net/smc/smcr_max_send_wr", os.O_WRONLY)
    os.write(fd, b"4096\n"); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' 2>&1)
	check "netns: ranges apply there too (EINVAL)" "$([ "$r" = EINVAL ]; echo $?)" "$r"
	expect_out "netns: limit_smc_hs is the namespace's netlink flag" \
		"enabled=0" ip netns exec "$NS" python3 "$NLPY" hs-dump
	ip netns del "$NS"
else
	tap_skip "network namespaces" "ip netns add failed"
fi
restore_defaults

# ---- limit_smc_hs and the netlink handshake limitation --------------------------
expect_out "limit_smc_hs 0: netlink dump says disabled" "enabled=0" \
	python3 "$NLPY" hs-dump
echo 1 > $D/limit_smc_hs
expect_out "limit_smc_hs 1: netlink dump says enabled" "enabled=1" \
	python3 "$NLPY" hs-dump
python3 "$NLPY" hs-disable
expect_out "netlink disable: limit_smc_hs reads 0" "0" cat $D/limit_smc_hs
python3 "$NLPY" hs-enable
expect_out "netlink enable: limit_smc_hs reads 1" "1" cat $D/limit_smc_hs
restore_defaults

# ---- effects on new SMC-R connections ---------------------------------------------------
smcr=1
ip -4 addr show | grep -q "inet $ADDR/" || smcr="no interface with $ADDR"
[ "$smcr" = 1 ] && { rdma link 2>/dev/null | grep -q ACTIVE ||
	smcr="no active RDMA device"; }
[ "$smcr" = 1 ] && { [ -x "$SMC_XFER" ] || smcr="smc_xfer not built"; }
[ "$smcr" = 1 ] && { python3 "$NLPY" ueid-add "$EID" ||
	smcr="cannot add a user EID"; }

if [ "$smcr" != 1 ]; then
	tap_skip "effects on SMC-R connections" "$smcr"
else
	# buffer sizes and work requests; no autocorking on the way
	no_lgrs
	check "no link group left before the buffer test" $?
	echo 32768 > $D/wmem; echo 131072 > $D/rmem
	echo 2048 > $D/smcr_max_send_wr; echo 1024 > $D/smcr_max_recv_wr
	echo 0 > $D/autocorking_size
	"$SMC_XFER" -s -q -p 20501 -c 1 -H 4 -t 60 >"$TMP/srv" 2>&1 &
	spid=$!
	smc_wait_port 20501 10
	"$SMC_XFER" -q -p 20501 -n 1M -H 4 -t 60 "$ADDR" >"$TMP/cli" 2>&1 &
	cpid=$!
	# the send buffers grow to wmem with the first large write: wait
	# for both (the ends stay open 4 s after the transfer, -H 4)
	smc_within 30 both_grown
	lgrs=$(cat "$SMC_DBG/lgrs")
	wait $cpid; crc=$?
	wait $spid; src=$?
	[ $crc = 0 ] && [ $src = 0 ]
	check "1 MiB each way over SMC-R with autocorking_size 0, 2048/1024 WRs" \
		$? "$(cat "$TMP/cli" "$TMP/srv")"
	n=$(grep -c ' sndbuf 32768 rmb 131072$' <<<"$socks")
	[ "$n" = 2 ]
	check "wmem 32768, rmem 131072: both ends got a 32 KiB send buffer and a 128 KiB RMB" \
		$? "$socks"
	n=$(grep -c ' link active wr 2048/1024 ' <<<"$lgrs")
	[ "$n" = 2 ]
	check "smcr_max_send_wr 2048, smcr_max_recv_wr 1024: both links sized so" \
		$? "$lgrs"

	# an application's SO_RCVBUF/SO_SNDBUF still wins over rmem/wmem
	restore_defaults
	python3 - "$ADDR" >"$TMP/opt" 2>&1 <<'PY'
import ctypes, os, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
addr = sys.argv[1]
def sa(port):
    return (struct.pack("=H", socket.AF_INET) + struct.pack(">H", port)
            + socket.inet_aton(addr) + bytes(8))
def call(fn, s, port):
    a = sa(port)
    if fn(s.fileno(), a, len(a)):
        raise OSError(ctypes.get_errno(), "bind/connect")
lst = socket.socket(43, socket.SOCK_STREAM, 0)
lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
call(libc.bind, lst, 20502); lst.listen(8)
cli = socket.socket(43, socket.SOCK_STREAM, 0)
cli.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 262144)
cli.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
call(libc.connect, cli, 20502)
srv = libc.accept(lst.fileno(), None, None)	# Python cannot parse AF_SMC
# writes both ways larger than 16 KiB, so that each end grows its send
# buffer, and small enough for the sender's buffer (no reader runs yet)
cli.sendall(b"x" * 200000)
n = 0
while n < 200000:
    n += len(os.read(srv, 65536))
n = 0
while n < 40000:
    n += os.write(srv, b"y" * (40000 - n))
while n > 0:
    n -= len(cli.recv(65536))
print(open("/sys/kernel/debug/smc/sockets").read(), flush=True)
PY
	grep -q ' role client mode SMCR .* sndbuf 262144 rmb 16384$' "$TMP/opt" &&
	grep -q ' role server mode SMCR .* sndbuf 524288 rmb 524288$' "$TMP/opt"
	check "SO_SNDBUF/SO_RCVBUF win over wmem/rmem; the other end gets the defaults" \
		$? "$(cat "$TMP/opt")"

	# the buffers' budget (net.smc.buf_limit, bytes; 1/16 of the RAM after
	# load): from it on, a connection that set no SO_RCVBUF/SO_SNDBUF gets
	# 64 KiB buffers instead of rmem/wmem (512 KiB), one that did gets its
	# size. Connection 1 is open (its buffers count) when the budget drops
	# to 1 KiB; 2 has default buffers, 3 SO_RCVBUF 128 KiB on both ends (a
	# 128 KiB RMB) and no SO_SNDBUF; 2 and 3 write 100 KB each way, so that
	# each end's send buffer grows. Then 1 closes, which pools its 512 KiB
	# RMBs, and 4, default, takes them (a pooled buffer costs nothing more)
	# while 5 after it gets 64 KiB again.
	# The groups of the tests before go first: their pooled buffers.
	no_lgrs
	check "no link group left before the budget test" $?
	cut0=$(awk '{ print $8 }' "$SMC_DBG/bufs")
	dg0=$(dgrades)
	python3 -S - "$ADDR" "$SMC_DBG" "$LIMIT" >"$TMP/tight" 2>&1 <<'PY'
import socket, sys, time
addr, dbg, default = sys.argv[1], sys.argv[2], int(sys.argv[3])
def smc(rcvbuf=0):	# an AF_SMC socket that python addresses as AF_INET
    fd = socket.socket(43, socket.SOCK_STREAM, 0).detach()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0, fd)
    s.settimeout(30)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    return s
def pair(lst, rcvbuf=0, n=0):
    c = smc(rcvbuf)
    c.connect(lst.getsockname())
    a, _ = lst.accept()
    for x, y in ((c, a), (a, c)):
        x.sendall(b"x" * max(n, 1))
        got = 0
        while got < max(n, 1):
            got += len(y.recv(65536))
    return c, a
def limit(n):
    with open("/proc/sys/net/smc/buf_limit", "w") as f:
        f.write(str(n))
l1 = smc(); l1.bind((addr, 0)); l1.listen(4)
one = pair(l1)
limit(1024)
two = pair(l1, n=100000)
l3 = smc(131072); l3.bind((addr, 0)); l3.listen(4)
three = pair(l3, 131072, 100000)
print(open(dbg + "/bufs").read(), end="")
print(open(dbg + "/sockets").read(), flush=True)
n = open(dbg + "/sockets").read().count(" mode SMCR ")
for s in one:
    s.close()
for i in range(300):	# both ends freed: their buffers pooled
    if open(dbg + "/sockets").read().count(" mode SMCR ") <= n - 2:
        break
    time.sleep(0.1)
four = pair(l1)
five = pair(l1)
print("after 1 closed:")
print(open(dbg + "/sockets").read(), flush=True)
limit(default)
print(open(dbg + "/bufs").read(), end="")
PY
	socks=$(sed '/^after 1 closed:/,$d' "$TMP/tight" | grep ' mode SMCR ')
	[ "$(grep -c ' sndbuf 16384 rmb 524288$' <<<"$socks")" = 2 ] &&
		[ "$(grep -c ' sndbuf 65536 rmb 65536$' <<<"$socks")" = 2 ] &&
		[ "$(grep -c ' sndbuf 65536 rmb 131072$' <<<"$socks")" = 2 ]
	check "over the buffers' budget: default buffers 64 KiB, SO_RCVBUF kept, open connections untouched" \
		$? "$(cat "$TMP/tight")"
	socks=$(sed '1,/^after 1 closed:/d' "$TMP/tight" | grep ' mode SMCR ')
	[ "$(grep -c ' sndbuf 16384 rmb 524288$' <<<"$socks")" = 2 ] &&
		[ "$(grep -c ' sndbuf 16384 rmb 65536$' <<<"$socks")" = 2 ]
	check "over budget: a pooled 512 KiB RMB is taken before a new 64 KiB one" \
		$? "$(cat "$TMP/tight")"
	cut1=$(awk '{ print $8 }' "$SMC_DBG/bufs")
	# each cut buffer is a downgrade in the netlink statistics: the
	# RMBs of 2 and 5, the grown send buffers of 2 and 3, both ends each
	dg1=$(dgrades)
	[ "$dg1" = "$(( ${dg0% *} + 4 )) $(( ${dg0#* } + 4 ))" ]
	check "netlink stats: the cut buffers counted as downgrades (RMBs, send buffers: $dg0 -> $dg1)" $?
	t=$(awk '$1 == "bytes" { print $6 }' "$TMP/tight" | xargs)
	# the RMBs of 2, 4 and 5 at setup, the send buffers of 2 and 3 when
	# they grew, both ends each: 10 cuts
	[ "$t" = "yes no" ] && [ $((cut1 - cut0)) = 10 ]
	check "debugfs bufs: tight while over budget, not after; $((cut1 - cut0)) cut" \
		$? "$(grep '^bytes' "$TMP/tight")"

	# connections per link group: the 17th opens a second group
	no_lgrs
	check "no link group left before the connections-per-group test" $?
	echo 16 > $D/smcr_max_conns_per_lgr
	"$SMC_XFER" -s -q -P -p 20503 -c 17 -H 120 -t 120 >"$TMP/srv" 2>&1 &
	spid=$!
	smc_wait_port 20503 10
	# one after the other, each held open: the 17th finds the group full.
	# The first one that does not get there stops the round (each of the
	# rest would wait its 30 s in vain) and its state is shown.
	cpids=() ok=0 late=
	for c in $(seq 1 17); do
		"$SMC_XFER" -q -p 20503 -n 4K -H 120 -t 60 "$ADDR" \
			>"$TMP/cli$c" 2>&1 &
		cpids+=($!)
		t0=$SECONDS
		smc_within 30 ends_or_gone $((2 * c)) $!
		if [ "$(smcr_ends)" -lt $((2 * c)) ]; then
			late="connection $c not on SMC-R after $((SECONDS - t0)) s:
$(cat "$SMC_DBG/sockets")
"
			smc_dump_state
			break
		fi
		ok=$((ok + 1))
	done
	sconns=$(lgr_conns server) cconns=$(lgr_conns client)
	lgrs=$(cat "$SMC_DBG/lgrs")
	kill "${cpids[@]}" $spid 2>/dev/null
	wait "${cpids[@]}" $spid 2>/dev/null
	[ $ok = 17 ]
	check "17 SMC-R connections held open at once" $? \
		"$late$(cat "$TMP"/cli* "$TMP/srv")"
	[ "$sconns" = "1 16" ] && [ "$cconns" = "1 16" ]
	check "smcr_max_conns_per_lgr 16: 16 + 1 connections in two link groups per side" \
		$? "$lgrs"
	restore_defaults

	# rkeys: an RMB back in the pool stays known to the peer (reuse costs
	# no CONFIRM_RKEY), but a group keeps no more known rkeys than its
	# connection limit: a new RMB past it first deletes an idle one's.
	# Round A: 16 connections at once with 16 KiB RMBs; B: 16 with
	# 64 KiB RMBs (new ones: 16 CONFIRM_RKEY and 16 DELETE_RKEY of A's,
	# per side); C: 16 KiB again (A's RMBs, no longer known: the same).
	no_lgrs
	check "no link group left before the rkey test" $?
	echo 16 > $D/smcr_max_conns_per_lgr
	rk_round() { # RMEM PORT: 16 connections held open together
		local spid rc
		echo "$1" > $D/rmem
		"$SMC_XFER" -s -q -P -p "$2" -c 16 -t 90 >"$TMP/rk_srv" 2>&1 &
		spid=$!
		smc_wait_port "$2" 10
		"$SMC_XFER" -q -P -p "$2" -n 64K -c 16 -H 6 -t 60 "$ADDR" \
			>"$TMP/rk_cli" 2>&1
		rc=$?
		wait $spid || rc=1
		return $rc
	}
	rk_keys() {
		awk '$1 == "lgr" { for (i = 1; i < NF; i++)
			if ($i == "rkeys") print $4, $(i + 1) }' "$SMC_DBG/lgrs" |
			sort | xargs
	}
	for r in "A 16384 20505" "B 65536 20506" "C 16384 20507"; do
		set -- $r
		read -r crk0 drk0 <<<"$(smc_llc confirm_rkey delete_rkey)"
		rk_round "$2" "$3"
		check "rkeys $1: 16 connections at once, RMBs of $2 bytes, data verified" \
			$? "$(cat "$TMP/rk_cli" "$TMP/rk_srv")"
		read -r crk drk <<<"$(smc_llc confirm_rkey delete_rkey)"
		crk=$((crk - crk0)) drk=$((drk - drk0))
		keys=$(rk_keys)
		case $1 in
		A) want_c=30 want_d=0 ;;	# 15 per side: the first went by CLC
		*) want_c=32 want_d=32 ;;
		esac
		[ "$keys" = "client 16 server 16" ] &&
			[ "$crk" = "$want_c" ] && [ "$drk" = "$want_d" ]
		check "rkeys $1: 16 known per group, $crk CONFIRM_RKEY, $drk DELETE_RKEY" \
			$? "groups: $keys; want CONFIRM_RKEY $want_c, DELETE_RKEY $want_d"
	done
	restore_defaults

	# two send slots per link and 8 connections writing at once: pushes
	# find every slot busy, wait on the link (never in a work item) and
	# go when a completion frees one; no byte is lost or reordered
	no_lgrs
	check "no link group left before the send slot test" $?
	echo 2 > $D/smcr_max_send_wr; echo 0 > $D/autocorking_size
	ns0=$(smc_wire tx_noslot)
	"$SMC_XFER" -s -q -P -p 20508 -c 8 -t 120 >"$TMP/ns_srv" 2>&1 &
	spid=$!
	smc_wait_port 20508 10
	"$SMC_XFER" -q -P -p 20508 -n 2M -w 4K -c 8 -t 120 "$ADDR" \
		>"$TMP/ns_cli" 2>&1
	rc=$?
	wait $spid || rc=1
	ns=$(( $(smc_wire tx_noslot) - ns0 ))
	lgrs=$(cat "$SMC_DBG/lgrs")
	check "smcr_max_send_wr 2: 8 connections at once, 2 MiB each way in 4 KiB writes, data verified" \
		$rc "$(cat "$TMP/ns_cli" "$TMP/ns_srv")"
	[ "$(grep -c ' link active wr 2/' <<<"$lgrs")" = 2 ] && [ "$ns" -gt 0 ]
	check "smcr_max_send_wr 2: both links have 2 send slots; $ns pushes found none free and went later" \
		$? "$lgrs"
	restore_defaults

	# handshake limitation: a listener with backlog 0 counts as congested
	hs_try() { # LIMIT [SMC_LIMIT_HS of the listener] -> the client's mode
		echo "$1" > $D/limit_smc_hs
		python3 - "$ADDR" "${2:-}" 2>&1 <<'PY'
import ctypes, os, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
addr, opt = sys.argv[1], sys.argv[2]
def call(fn, s, port):
    a = (struct.pack("=H", socket.AF_INET) + struct.pack(">H", port)
         + socket.inet_aton(addr) + bytes(8))
    if fn(s.fileno(), a, len(a)):
        raise OSError(ctypes.get_errno(), "bind/connect")
lst = socket.socket(43, socket.SOCK_STREAM, 0)
lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if opt:	# SOL_SMC, SMC_LIMIT_HS
    lst.setsockopt(286, 1, int(opt))
    assert lst.getsockopt(286, 1) == int(opt)
call(libc.bind, lst, 20504); lst.listen(0)
cli = socket.socket(43, socket.SOCK_STREAM, 0)
call(libc.connect, cli, 20504)
srv = libc.accept(lst.fileno(), None, None)	# Python cannot parse AF_SMC
cli.sendall(b"hello"); assert os.read(srv, 5) == b"hello"
for l in open("/sys/kernel/debug/smc/sockets"):
    if " role client " in l and " state ACTIVE " in l:
        print(l.split(" mode ")[1].split()[0], l.split()[8])
PY
	}
	# the killed connections are still closing: start from no link group
	no_lgrs
	check "no link group left before the handshake limitation test" $?
	out=$(hs_try 0)
	[ "$out" = "SMCR 0x00000000" ]
	check "limit_smc_hs 0, listen(0): the connection uses SMC-R" $? "$out"
	fb0=$(smc_fallback_count 0x03010000 client)
	out=$(hs_try 1)
	fb1=$(smc_fallback_count 0x03010000 client)
	[ "$out" = "TCP 0x03010000" ] && [ "$fb1" = $((fb0 + 1)) ]
	check "limit_smc_hs 1, listen(0): SMC not offered, the client falls back (0x03010000)" \
		$? "$out ($fb0 -> $fb1)"
	# the listener's own SMC_LIMIT_HS overrides the sysctl, both ways
	fb0=$(smc_fallback_count 0x03010000 client)
	out=$(hs_try 0 1)
	fb1=$(smc_fallback_count 0x03010000 client)
	[ "$out" = "TCP 0x03010000" ] && [ "$fb1" = $((fb0 + 1)) ]
	check "limit_smc_hs 0, listener's SMC_LIMIT_HS 1, listen(0): the client falls back (0x03010000)" \
		$? "$out ($fb0 -> $fb1)"
	out=$(hs_try 1 0)
	[ "$out" = "SMCR 0x00000000" ]
	check "limit_smc_hs 1, listener's SMC_LIMIT_HS 0, listen(0): the connection uses SMC-R" \
		$? "$out"
	restore_defaults

	# SMC-R versions (Soft-RoCE has RoCE v2 GIDs only)
	ver_xfer() { # PORT [-6 ADDR6]: one connection, 64 KiB each way
		"$SMC_XFER" -s -q $2 -p "$1" -c 1 -t 60 >/dev/null 2>&1 &
		local spid=$! rc
		smc_wait_port "$1" 10
		"$SMC_XFER" -q $2 -p "$1" -n 64K -t 60 "${3:-$ADDR}" >/dev/null 2>&1
		rc=$?
		wait $spid || rc=1
		return $rc
	}
	no_lgrs
	echo 0 > $D/smcr_v2
	info=$(python3 "$NLPY" sysinfo)
	fb0=$(smc_fallback_count 0x03030000 client)
	ver_xfer 20509
	rc=$?
	fb1=$(smc_fallback_count 0x03030000 client)
	[ $rc = 0 ] && [ "$fb1" = $((fb0 + 1)) ] && grep -q "is_smcr_v2=0" <<<"$info"
	check "smcr_v2 0, smcr_v1 1: no RoCE v1 GID here, the client falls back (0x03030000); netlink reports no SMC-R v2" \
		$? "rc $rc, fallbacks $fb0 -> $fb1, $info"
	echo 2 > $D/smcr_v1
	ver_xfer 20510 && smc_lgrs_v1
	check "smcr_v1 2, smcr_v2 0: the connection runs over SMC-R v1 on the RoCE v2 GID" $?
	# SMC-R v1 is not limited to IPv4 (v2 is): the IPv6 address's GID
	echo 1 > $D/smcr_v2
	ADDR6=${SMC_TEST_ADDR6:-2001:db8::1}
	if ip -6 addr show | grep -q "inet6 $ADDR6/"; then
		no_lgrs
		ver_xfer 20511 -6 "$ADDR6" && smc_lgrs_v1
		check "smcr_v1 2: an IPv6 connection runs over SMC-R v1" $?
	else
		tap_skip "smcr_v1 2: an IPv6 connection runs over SMC-R v1" "no $ADDR6"
	fi
	restore_defaults
	python3 "$NLPY" ueid-del "$EID" >/dev/null 2>&1
	echo 1 > "$SMC_DBG/flush_idle"
	smc_check_released "the SMC-R cases"
fi

# ---- the tables go with the module ----------------------------------------------------------
ip netns add "$NS" 2>/dev/null
echo 32768 > $D/wmem
if [ -d /sys/module/smc_diag ]; then
	tap_skip "tables removed on rmmod" "smc_diag holds smc.ko"
elif ! smc_objs_balanced; then
	tap_skip "tables removed on rmmod" "objects still live"
elif rmmod smc; then
	[ ! -e "$D" ] && ! ip netns exec "$NS" test -e "$D"
	check "rmmod: net.smc gone in init_net and in $NS" $?
	out=$(sysctl -a 2>/dev/null | grep -c '^net\.smc\.')
	check "rmmod: sysctl -a lists no net.smc value" "$([ "$out" = 0 ]; echo $?)" "$out"
	if smc_load; then
		expect_out "reload: defaults again in init_net" "$DEFAULTS_INIT" values
		expect_out "reload: defaults in the namespace that existed" \
			"$DEFAULTS" values ip netns exec "$NS"
	else
		tap_fail "reload smc.ko"
	fi
else
	tap_fail "rmmod smc"
fi
ip netns del "$NS" 2>/dev/null

tap_done
