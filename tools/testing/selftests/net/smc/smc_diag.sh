#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# smc_diag.ko: sock_diag dumps of AF_SMC sockets (what smcss shows) for a
# listener, an SMC-R connection over the RDMA loopback, fallbacks, 300
# sockets over many reads, another namespace, and module references.
#
#   +-------------------------------- guest --------------------------------+
#   |  init netns                                   netns smcdiag_ns        |
#   |   smc_diag.py --(NETLINK_SOCK_DIAG)--+         lo 127.0.0.1           |
#   |                                      v         AF_SMC listener        |
#   |                 smc_diag.ko -> smc.ko (asmc_diag_collect/_snapshot)   |
#   |   AF_SMC listener 192.0.2.1:20401 <-- AF_SMC client (SMC-R, rxe0)     |
#   |   AF_SMC server   192.0.2.1:20406 <-- AF_SMC clients (smc_xfer, 16)   |
#   |   TCP listener    192.0.2.1:20402 <-- AF_SMC client (fallback)        |
#   |   AF_SMC listener 192.0.2.1:20403 <-- TCP client   (fallback)         |
#   |   AF_SMC listener [::1]:20404;  300 unconnected AF_SMC sockets        |
#   +-----------------------------------------------------------------------+
#
# Cursor checks: after the client sent C2S bytes and the server read them,
# and the server sent S2C bytes back, the client's tx_prep/tx_sent/tx_fin
# (send buffer) and tx_prod (peer RMBE) and the server's rx_prod stand for
# C2S bytes, the other direction for S2C; a cursor WRAP:COUNT in a ring of
# SIZE bytes stands for WRAP * SIZE + COUNT bytes.

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-DIAG-TEST
NS=smcdiag_ns
DIAGPY=$SMC_TESTDIR/smc_diag.py
DIAG_KO=${SMC_DIAG_KO:-$(dirname "$SMC_KO")/smc_diag.ko}
C2S=100000
S2C=70000
MANY=300
TMP=
loaded_diag=
pid_conns='' pid_many='' pid_churn='' pid_nobody='' pid_ns='' pid_blocked=''	# set by holder()

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
	[ -n "$loaded_diag" ] && rmmod smc_diag 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT

diag() { python3 -S "$DIAGPY" "$@"; }

# line_of DUMP INO: the dump's line for the socket with inode INO
line_of() { grep -E " ino=$2( |\$)" <<<"$1"; }
# kv LINE KEY: the value of KEY= in LINE
kv() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n 1; }
# bytes CURSOR SIZE: the byte total a WRAP:COUNT cursor stands for
bytes() { echo $(( ${1%%:*} * $2 + ${1##*:} )); }

# Conditions for smc_within; each leaves its last dump in d (and the lines
# of the SMC-R client c and server s in cl and sl, the client's send
# buffer size in sb).
# tx_finished: both ends' tx_fin cursors count all they sent (C2S, S2C)
tx_finished() {
	d=$(diag -e all 2>&1)
	cl=$(line_of "$d" "$c") sl=$(line_of "$d" "$s")
	sb=$(kv "$cl" sndbuf)
	[ -n "$sb" ] && [ "$(bytes "$(kv "$cl" tx_fin)" "$sb")" = "$C2S" ] &&
		[ "$(bytes "$(kv "$sl" tx_fin)" "$(kv "$sl" sndbuf)")" = "$S2C" ]
}
# pair_gone: neither c nor s is in the dump
pair_gone() {
	d=$(diag)
	[ -z "$(line_of "$d" "$c")" ] && [ -z "$(line_of "$d" "$s")" ]
}
# many_gone: none of the $MANY sockets is in the dump
many_gone() {
	d=$(diag)
	[ -z "$(mine "$d")" ]
}

# What every holder program starts with: Python's socket module does not
# know AF_SMC addresses, so bind() and connect() go through libc.
PYLIB='
import ctypes, os, socket, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)

def smc(v6=False):
    return socket.socket(43, socket.SOCK_STREAM, 1 if v6 else 0)

def _sa(host, port):
    if ":" in host:
        return (struct.pack("=H", socket.AF_INET6) + struct.pack(">HI", port, 0)
                + socket.inet_pton(socket.AF_INET6, host) + bytes(4))
    return (struct.pack("=H", socket.AF_INET) + struct.pack(">H", port)
            + socket.inet_aton(host) + bytes(8))

def _call(fn, s, host, port):
    a = _sa(host, port)
    if fn(s.fileno(), a, len(a)):
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))

def bind(s, host, port):
    _call(libc.bind, s, host, port)

def connect(s, host, port):
    _call(libc.connect, s, host, port)

def accept(s):
    fd = libc.accept(s.fileno(), None, None)
    if fd < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return socket.socket(s.family, s.type, s.proto, fileno=fd)

def show(key, s):
    print(key, os.fstat(s.fileno()).st_ino)
'

# holder NAME [ARGS]: run the python program on stdin (after PYLIB) in the
# background, ARGS as sys.argv[1:], until it prints "ready"; its output is
# in $TMP/NAME, its pid in pid_NAME. HOLD_AS: a command prefix (setpriv ...).
HOLD_AS=
holder() {
	local name=$1 prog _
	shift
	prog="$PYLIB$(cat)"
	$HOLD_AS python3 -c "$prog" "$@" >"$TMP/$name" 2>&1 &
	printf -v "pid_$name" %s "$!"
	for _ in $(seq 1 300); do
		grep -q '^ready' "$TMP/$name" && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	echo "# holder $name did not start:"
	tap_diag <"$TMP/$name"
	return 1
}
# ino_of NAME KEY: inode the holder NAME printed as "KEY INODE"
ino_of() { awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1"; }

check() { # NAME CONDITION-EXIT-STATUS [DIAG-TEXT]
	if [ "$2" = 0 ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		[ -n "$3" ] && printf '%s\n' "$3" | tap_diag
	fi
}

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
command -v python3 >/dev/null || ksft_skip_all "python3 not installed"
[ -e "$DIAG_KO" ] || ksft_skip_all "no $DIAG_KO (make builds it)"
TMP=$(mktemp -d /tmp/smc_diag.XXXXXX)

# ---- module ------------------------------------------------------------------
if [ -d /sys/module/smc_diag ]; then
	tap_ok "smc_diag already loaded"
elif insmod "$DIAG_KO"; then
	loaded_diag=1
	tap_ok "insmod smc_diag.ko"
else
	tap_fail "insmod smc_diag.ko"
	tap_done
fi
[ -e /sys/module/smc/holders/smc_diag ]
check "smc_diag holds smc.ko" $?
out=$(rmmod smc 2>&1)
[ $? != 0 ] && [ -d /sys/module/smc ]
check "smc.ko cannot go while smc_diag is loaded" $? "$out"
modinfo -F alias "$DIAG_KO" | grep -qx 'net-pf-16-proto-4-type-43'
check "autoload alias net-pf-16-proto-4-type-43" $?

out=$(diag 2>&1)
[ $? = 0 ] && grep -q '^count=' <<<"$out"
check "dump answers" $? "$out"
out=$(diag --nodump 2>&1)
grep -q '^smc_diag: EOPNOTSUPP:' <<<"$out"
check "request without NLM_F_DUMP refused (EOPNOTSUPP)" $? "$out"

echo "# listener, SMC-R connection, fallbacks (at ${SECONDS}s)"
# ---- listener, SMC-R connection, fallbacks ------------------------------------
smcr=1
ip -4 addr show | grep -q "inet $ADDR/" || smcr="no interface with $ADDR"
[ "$smcr" = 1 ] && { rdma link 2>/dev/null | grep -q ACTIVE ||
	smcr="no active RDMA device"; }
[ "$smcr" = 1 ] && { python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" ||
	smcr="cannot add a user EID"; }

if [ "$smcr" != 1 ]; then
	tap_skip "listener, SMC-R connection and fallbacks" "$smcr"
elif ! holder conns "$ADDR" "$C2S" "$S2C" <<'PY'
addr, c2s, s2c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
R = socket.SOL_SOCKET, socket.SO_REUSEADDR, 1

def recv_n(s, n):
    while n > 0:
        b = s.recv(min(n, 65536))
        if not b:
            sys.exit("early EOF")
        n -= len(b)

lst = smc(); lst.setsockopt(*R); bind(lst, addr, 20401); lst.listen(8)
cli = smc(); connect(cli, addr, 20401); srv = accept(lst)
cli.sendall(b"c" * c2s); recv_n(srv, c2s)
srv.sendall(b"s" * s2c); recv_n(cli, s2c)
tl = socket.socket(socket.AF_INET, socket.SOCK_STREAM); tl.setsockopt(*R)
tl.bind((addr, 20402)); tl.listen(1)
fbc = smc(); connect(fbc, addr, 20402); tc, _ = tl.accept()
fbl = smc(); fbl.setsockopt(*R); bind(fbl, addr, 20403); fbl.listen(1)
tcli = socket.create_connection((addr, 20403)); fbs = accept(fbl)
l6 = smc(True); l6.setsockopt(*R); bind(l6, "::1", 20404); l6.listen(1)
for k, s in (("listen", lst), ("client", cli), ("server", srv),
             ("fbclient", fbc), ("fblisten", fbl), ("fbserver", fbs),
             ("listen6", l6)):
    show(k, s)
print("ready", flush=True)
time.sleep(3600)
PY
then
	tap_fail "listener, SMC-R connection and fallbacks set up"
else
	tap_ok "listener, SMC-R connection and fallbacks set up"
	c=$(ino_of conns client) s=$(ino_of conns server)
	# completions of the last writes may trail the reader a little
	smc_within 5 tx_finished
	echo "$d" | grep -E " ino=($(ino_of conns listen)|$c|$s) " | tap_diag

	l=$(line_of "$d" "$(ino_of conns listen)")
	[ "$(kv "$l" state)" = 10 ] && [ "$(kv "$l" family)" = 2 ] &&
		[ "$(kv "$l" src)" = "$ADDR:20401" ] && ! grep -q token= <<<"$l"
	check "listener: LISTEN, AF_INET, $ADDR:20401, no connection info" $? "$l"
	l=$(line_of "$d" "$(ino_of conns listen6)")
	[ "$(kv "$l" state)" = 10 ] && [ "$(kv "$l" family)" = 10 ] &&
		[ "$(kv "$l" src)" = "[::1]:20404" ]
	check "IPv6 listener: LISTEN, AF_INET6, [::1]:20404" $? "$l"

	[ "$(kv "$cl" state)" = 1 ] && [ "$(kv "$cl" mode)" = 0 ] &&
		[ "$(kv "$sl" state)" = 1 ] && [ "$(kv "$sl" mode)" = 0 ]
	check "SMC-R client and server: ACTIVE, mode SMCR" $? "$cl
$sl"
	[ "$(kv "$cl" dst)" = "$ADDR:20401" ] &&
		[ "$(kv "$sl" src)" = "$ADDR:20401" ] &&
		[ "$(kv "$sl" dst)" = "$(kv "$cl" src)" ]
	check "SMC-R: internal TCP addresses and ports of both ends" $?
	[ "$(kv "$cl" uid)" = 0 ] && [ "$(kv "$cl" shut)" = 0 ] &&
		[ "$(kv "$cl" shut_attr)" = 0 ] &&
		[ "$(kv "$cl" cookie)" != "$(kv "$sl" cookie)" ]
	check "SMC-R: uid 0, no shutdown, cookies differ" $?
	ct=$(kv "$cl" token) st=$(kv "$sl" token)
	[ -n "$ct" ] && [ "$ct" != 0x00000000 ] && [ -n "$st" ] &&
		[ "$st" != 0x00000000 ] &&
		[ "$(kv "$cl" peer_rmbe)" = "$(kv "$sl" rmbe)" ] &&
		[ "$(kv "$sl" peer_rmbe)" = "$(kv "$cl" rmbe)" ]
	check "conninfo: tokens set, each side's peer RMBE is the other's RMBE" $?
	sb=$(kv "$cl" sndbuf) prmbe=$(kv "$cl" peer_rmbe)
	[ "$(bytes "$(kv "$cl" tx_prep)" "$sb")" = "$C2S" ] &&
		[ "$(bytes "$(kv "$cl" tx_sent)" "$sb")" = "$C2S" ] &&
		[ "$(bytes "$(kv "$cl" tx_fin)" "$sb")" = "$C2S" ]
	check "conninfo: client send buffer cursors = $C2S bytes (sndbuf $sb)" $?
	[ "$(bytes "$(kv "$cl" tx_prod)" "$prmbe")" = "$C2S" ] &&
		[ "$(bytes "$(kv "$sl" rx_prod)" "$(kv "$sl" rmbe)")" = "$C2S" ]
	check "conninfo: client tx_prod = server rx_prod = $C2S bytes" $?
	[ "$(bytes "$(kv "$cl" rx_cons)" "$prmbe")" = "$C2S" ]
	check "conninfo: client saw the server consume all $C2S bytes" $?
	sb=$(kv "$sl" sndbuf)
	[ "$(bytes "$(kv "$sl" tx_prep)" "$sb")" = "$S2C" ] &&
		[ "$(bytes "$(kv "$sl" tx_fin)" "$sb")" = "$S2C" ] &&
		[ "$(bytes "$(kv "$sl" tx_prod)" "$(kv "$sl" peer_rmbe)")" = "$S2C" ] &&
		[ "$(bytes "$(kv "$cl" rx_prod)" "$(kv "$cl" rmbe)")" = "$S2C" ]
	check "conninfo: server to client cursors = $S2C bytes" $?
	[ "$(kv "$cl" role)" = client ] && [ "$(kv "$sl" role)" = server ] &&
		[ "$(kv "$cl" ib)" = rxe0 ] && [ "$(kv "$cl" port)" = 1 ] &&
		[ "$(kv "$cl" gid)" = "$(kv "$sl" peer_gid)" ] &&
		[ "$(kv "$cl" peer_gid)" = "$(kv "$sl" gid)" ] &&
		[[ "$(kv "$cl" gid)" =~ ^([0-9a-f]{4}:){7}[0-9a-f]{4}$ ]]
	check "lgrinfo: roles, rxe0 port 1, GIDs of both ends" $? "$cl"
	[ "$(kv "$cl" fb)" = 0x00000000 ] && [ "$(kv "$cl" peer_diag)" = 0x00000000 ] &&
		! grep -q 'attr4=' <<<"$cl$sl"
	check "SMC-R: fallback info (asked for) says none, no DMB info" $?

	l=$(line_of "$d" "$(ino_of conns fbclient)")
	[ "$(kv "$l" mode)" = 1 ] && [ "$(kv "$l" state)" = 1 ] &&
		[ "$(kv "$l" fb)" = 0x03010000 ] &&
		[ "$(kv "$l" dst)" = "$ADDR:20402" ] && ! grep -q token= <<<"$l"
	check "fallback client: mode TCP, reason 0x03010000 (peer without SMC)" $? "$l"
	l=$(line_of "$d" "$(ino_of conns fbserver)")
	[ "$(kv "$l" mode)" = 1 ] && [ "$(kv "$l" fb)" = 0x03010000 ] &&
		[ "$(kv "$l" src)" = "$ADDR:20403" ]
	check "fallback server: mode TCP, reason 0x03010000" $? "$l"

	# what smcss asks for: NLM_F_ROOT only, conninfo (-e), lgrinfo (-R)
	d2=$(diag --smcss -e conninfo,lgrinfo 2>&1)
	l=$(line_of "$d2" "$c")
	grep -q ' token=' <<<"$l" && grep -q ' role=client' <<<"$l"
	check "smcss request flags: same sockets, conninfo and lgrinfo" $? "$d2"
	d2=$(diag 2>&1)
	l=$(line_of "$d2" "$c")
	[ -n "$l" ] && ! grep -qE 'token=|role=|fb=' <<<"$l" &&
		grep -q ' shut_attr=0' <<<"$l" &&
		grep -q ' fb=0x03010000' <<<"$(line_of "$d2" "$(ino_of conns fbclient)")"
	check "no extension asked: shutdown, fallback info of fallbacks only" $? "$l"

	kill "$pid_conns"
	wait "$pid_conns" 2>/dev/null
	# SMC-R sockets close asynchronously (CDC close flags)
	smc_within 10 pair_gone
	[ -z "$(line_of "$d" "$c")" ] && [ -z "$(line_of "$d" "$s")" ]
	check "closed SMC-R sockets leave the dump" $? "$d"

	# dumps with every extension while SMC-R connections open and close
	if [ -x "$SMC_XFER" ]; then
		"$SMC_XFER" -s -q -f smc -p 20406 -c 16 -t 120 &
		spid=$!
		smc_wait_port 20406 10
		# each connection held open 1 s: the transfer must outlast
		# the dumper's start (16 x 256 KiB alone can end before it)
		"$SMC_XFER" -q -f smc -p 20406 -n 256K -c 16 -H 1 -t 120 "$ADDR" &
		cpid=$!
		out=$(diag -b 4096 -e all --while "$cpid" 2>&1)
		drc=$?
		wait "$cpid"; crc=$?
		wait "$spid"; src=$?
		n=$(sed -n 's/^dumps=//p' <<<"$out")
		[ "$drc" = 0 ] && [ "${n:-0}" -ge 2 ] && [ "$crc" = 0 ] && [ "$src" = 0 ]
		check "${n:-no} dumps while 16 SMC-R connections come and go" $? \
			"$out (transfer: client $crc, server $src)"
	else
		tap_skip "dumps while SMC-R connections come and go" "smc_xfer not built"
	fi

	# A writer whose data waits for a full peer RMBE: each write ends at
	# a multiple of the 64 KiB RMBE (the default), so that one push fills
	# the window exactly with all that waited and the next write finds no
	# room. Its conninfo says "write blocked" (producer flags 0x80), and
	# the link's keepalive probes the silent peer early (5 s), not after
	# net.smc.smcr_testlink_time (30 s): how a dead peer is found while
	# data waits. (Over the loopback the data's own unanswered CDC draws
	# that probe too; smc_killpeer, where the peer's data keeps coming
	# until it dies, depends on the write-blocked state alone.)
	read -r tle0 <<<"$(smc_llc test_link_early)"
	if ! holder blocked "$ADDR" <<'PY'
import errno
lst = smc(); lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
bind(lst, sys.argv[1], 20407); lst.listen(1)
cli = smc(); connect(cli, sys.argv[1], 20407); srv = accept(lst)
cli.setblocking(False)
sent, idle = 0, 0
while idle < 10:
    try:
        sent += cli.send(b"w" * (65536 - sent % 65536))
        idle = 0
    except OSError as e:
        if e.errno != errno.EAGAIN:
            raise
        idle += 1
        time.sleep(0.1)
show("client", cli)
print("sent", sent)
print("ready", flush=True)
time.sleep(3600)
PY
	then
		tap_fail "a writer blocked on the peer's full RMBE set up"
	else
		c=$(ino_of blocked client) t0=$SECONDS
		l=$(line_of "$(diag -e all 2>&1)" "$c")
		[ "$(kv "$l" tx_flags)" = 80:00 ]
		rc=$?
		check "a writer blocked on the peer's full RMBE says write blocked (tx_flags 80:00, $(ino_of blocked sent) bytes sent)" $rc "$l"
		for _ in $(seq 1 40); do
			[ "$(smc_llc test_link_early)" != "$tle0" ] && break
			sleep 0.25
		done
		tle=$(( $(smc_llc test_link_early) - tle0 ))
		[ "$tle" -gt 0 ]
		rc=$?
		check "... and its link probes the silent peer early ($tle TEST_LINK within $((SECONDS - t0)) s)" $rc
		kill "$pid_blocked" 2>/dev/null
		wait "$pid_blocked" 2>/dev/null
	fi
fi

echo "# many sockets (at ${SECONDS}s)"
# ---- many sockets: the dump goes on over many reads ----------------------------
# Each dump must show each of them exactly once, also while other sockets
# come and go (-b 4096: about 12 reads for all of them with every extension).
# mine DUMP: the inodes of the dump that are among the $MANY, sorted
mine() {
	grep -oE ' ino=[0-9]+' <<<"$1" | sed 's/ ino=//' >"$TMP/seen"
	grep -xFf "$TMP/many.ino" "$TMP/seen" | sort
}
once() { # DUMP: 0 if each of the $MANY inodes is there exactly once
	local m
	m=$(mine "$1")
	[ "$(wc -l <<<"$m")" = "$MANY" ] && [ -z "$(uniq -d <<<"$m")" ] &&
		return 0
	echo "# $(wc -l <<<"$m") of $MANY found, twice: $(uniq -d <<<"$m" | head -n 5)"
	return 1
}
if holder many "$MANY" "$TMP/many.ino" <<'PY'
socks = [smc() for _ in range(int(sys.argv[1]))]
with open(sys.argv[2], "w") as f:
    for s in socks:
        f.write("%d\n" % os.fstat(s.fileno()).st_ino)
print("ready", flush=True)
time.sleep(3600)
PY
then
	d=$(diag -b 4096 -e all 2>&1)
	recvs=$(sed -n 's/^count=.* recvs=//p' <<<"$d")
	once "$d" && [ "${recvs:-0}" -ge 5 ]
	check "$MANY sockets, each exactly once, over $recvs reads" $? \
		"$(tail -n 3 <<<"$d")"
	l=$(line_of "$d" "$(head -n 1 "$TMP/many.ino")")
	[ "$(kv "$l" state)" = 2 ] && [ "$(kv "$l" mode)" = 0 ]
	check "unconnected socket: INIT" $? "$l"
	n=$(grep -oE ' cookie=[0-9]+' <<<"$d" | sort | uniq -d | wc -l)
	[ "$n" = 0 ]
	check "cookies unique" $?
	d=$(diag -b 32768 2>&1)
	once "$d"
	check "$MANY sockets with a large buffer" $?

	holder churn <<'PY'
print("ready", flush=True)
while True:
    socks = [smc() for _ in range(20)]
    for i, s in enumerate(socks):
        if i % 4 == 0:
            bind(s, "127.0.0.1", 0)
            s.listen(1)
    for s in socks:
        s.close()
PY
	bad=0
	for _ in 1 2 3; do
		d=$(diag -b 4096 -e all 2>&1)
		once "$d" || { bad=1; tail -n 3 <<<"$d" | tap_diag; }
	done
	kill "$pid_churn"
	wait "$pid_churn" 2>/dev/null
	check "3 dumps while sockets come and go: each of $MANY exactly once" $bad

	# a dump that waits between reads keeps smc_diag in use
	diag -b 4096 --pause 4 >"$TMP/paused" 2>&1 &
	dpid=$!
	for _ in $(seq 1 100); do
		grep -q '^paused' "$TMP/paused" && break
		sleep 0.1
	done
	out=$(rmmod smc_diag 2>&1)
	[ $? != 0 ] && [ -d /sys/module/smc_diag ]
	check "smc_diag cannot go while a dump is under way" $? "$out"
	wait "$dpid"
	once "$(cat "$TMP/paused")"
	check "the paused dump still lists each socket once" $?
	out=$(diag -b 4096 --abandon 2>&1)
	[ "$out" = abandoned ]
	check "a dump abandoned after one read" $? "$out"

	kill "$pid_many"
	wait "$pid_many" 2>/dev/null
	smc_within 5 many_gone
	[ -n "$d" ] && [ -z "$(mine "$d")" ]
	check "closed sockets leave the dump" $? "$(tail -n 2 <<<"$d")"
else
	tap_fail "$MANY sockets set up"
fi

echo "# owner (at ${SECONDS}s)"
# ---- owner ---------------------------------------------------------------------
HOLD_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
if holder nobody <<'PY'
s = smc()
show("sock", s)
print("ready", flush=True)
time.sleep(3600)
PY
then
	l=$(line_of "$(diag)" "$(ino_of nobody sock)")
	[ -n "$l" ] && [ "$(kv "$l" uid)" = "$(id -u nobody)" ]
	check "owner: a socket of nobody shows its uid" $? "$l"
	kill "$pid_nobody"
	wait "$pid_nobody" 2>/dev/null
else
	tap_skip "owner" "cannot run as nobody"
fi
HOLD_AS=

echo "# network namespaces (at ${SECONDS}s)"
# ---- network namespaces ----------------------------------------------------------
if ip netns add "$NS" && ip -n "$NS" link set lo up; then
	HOLD_AS="ip netns exec $NS"
	if holder ns <<'PY'
s = smc()
bind(s, "127.0.0.1", 20405)
s.listen(1)
show("listen", s)
print("ready", flush=True)
time.sleep(3600)
PY
	then
		ino=$(ino_of ns listen)
		d=$(diag 2>&1)
		[ -n "$ino" ] && [ -z "$(line_of "$d" "$ino")" ]
		check "netns: its socket is not in the init namespace's dump" $?
		d=$(ip netns exec "$NS" python3 -S "$DIAGPY" 2>&1)
		[ -n "$(line_of "$d" "$ino")" ] && grep -qx 'count=1 recvs=1' <<<"$d"
		check "netns: its own dump shows that socket alone" $? "$d"
		kill "$pid_ns"
		wait "$pid_ns" 2>/dev/null
	else
		tap_fail "netns: AF_SMC listener in $NS"
	fi
	HOLD_AS=
	ip netns del "$NS"
else
	tap_skip "network namespaces" "ip netns add failed"
fi

echo "# unload (at ${SECONDS}s)"
# ---- unload --------------------------------------------------------------------------
if [ -n "$loaded_diag" ]; then
	rmmod smc_diag
	check "rmmod smc_diag" $?
	loaded_diag=
	[ ! -e /sys/module/smc/holders/smc_diag ]
	check "smc.ko no longer held" $?
fi
smc_check_released "smc_diag dumps"
tap_done
