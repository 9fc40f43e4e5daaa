#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# smc_run and libsmc-preload.so on one host: which sockets become AF_SMC and
# with which protocol and flags, threads, fork+exec, buffer sizes, setuid,
# unmodified programs over SMC-R (one with SO_REUSEPORT listeners), and TCP
# when smc.ko is not loaded.
#
#   +------------------------------- guest --------------------------------+
#   |  smc_run smc_preload_probe KIND...   socket() -> AF_SMC or untouched  |
#   |  smc_run smc_preload_probe -l        127.0.0.1 (lo): TCP fallback     |
#   |                                                                       |
#   |  smc_run curl ---- 192.0.2.1 (eth0) + rxe0 loopback ----> smc_run     |
#   |  (SMC-R v2, UEID SMC-PRELOAD-TEST)              python3 -m http.server |
#   |                                                                       |
#   |  smc.ko unloaded, modprobe disabled: the same, over plain TCP (lo)    |
#   +-----------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

PROBE=$SMC_TESTDIR/smc_preload_probe
SMC_RUN=$SMC_SRC/tools/smc_run/smc_run
# as smc_run finds it: the physical path
LIB=$(readlink -f "$SMC_SRC/tools/smc_run/libsmc-preload.so")
ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-PRELOAD-TEST
PORT_SMCR=28101
PORT_TCP=28102
PORT_REUSE=28103
TMP=$(mktemp -d /tmp/smc_preload.XXXXXX)
modprobe_saved=
srv_pid=

cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	[ -n "$modprobe_saved" ] && echo "$modprobe_saved" >/proc/sys/kernel/modprobe
	# leave the module loaded, as the runner expects
	smc_is_ours_loaded || smc_load
	[ -d /sys/module/smc ] &&
		python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

[ -x "$PROBE" ] || ksft_skip_all "smc_preload_probe not built"
[ -x "$SMC_RUN" ] && [ -f "$LIB" ] ||
	ksft_skip_all "tools/smc_run not built (make -C tools/smc_run)"
smc_is_ours_loaded || smc_load || ksft_skip_all "cannot load smc.ko"

# field LINE KEY: value of KEY=VALUE in a probe output line
field() { sed -n "s/.*[ ]$2=\([^ ]*\).*/\1/p" <<<"$1"; }

# expect NAME LINE KEY=VALUE...: one result, all pairs must match
expect() {
	local name=$1 line=$2 kv bad=
	shift 2
	for kv in "$@"; do
		[ "$(field "$line" "${kv%%=*}")" = "${kv#*=}" ] || bad="$bad ${kv%%=*}"
	done
	if [ -z "$bad" ]; then
		tap_ok "$name"
	else
		tap_fail "$name (wrong:$bad)"
		echo "$line" | tap_diag
	fi
}

# probe [SMC_RUN_OPTIONS... --] PROBE_ARGS...: what the probe prints when
# run through smc_run
probe() {
	local opts=()
	if [[ " $* " == *" -- "* ]]; then
		while [ "$1" != -- ]; do opts+=("$1"); shift; done
		shift
	fi
	"$SMC_RUN" "${opts[@]}" "$PROBE" "$@" 2>/dev/null
}

# smcr_conns ROLE: SMC-R connections (v1 + v2) counted for server|client
smcr_conns() {
	awk -v k="smcr_conn_$1" '$1 == k { print $3 + $5 }' "$SMC_DBG/stats"
}
fallbacks() { echo $(( $(smc_stat fallback_client) + $(smc_stat fallback_server) )); }

# http_fetch NAME ADDR PORT: python3 http.server and curl, both under
# smc_run, serve and fetch a 2 MiB file of random data; one result
http_fetch() {
	local name=$1 addr=$2 port=$3 want got
	mkdir -p "$TMP/www" && head -c 2M /dev/urandom >"$TMP/www/data.bin"
	want=$(sha256sum <"$TMP/www/data.bin")
	"$SMC_RUN" python3 -m http.server --bind "$addr" \
		--directory "$TMP/www" "$port" >"$TMP/http.log" 2>&1 &
	srv_pid=$!
	if ! smc_wait_port "$port" 60; then
		tap_fail "$name: http.server did not start"
		tap_diag <"$TMP/http.log"
		return 1
	fi
	rm -f "$TMP/out.bin"
	timeout 120 "$SMC_RUN" curl -sS --noproxy '*' --max-time 110 \
		-o "$TMP/out.bin" "http://$addr:$port/data.bin" 2>"$TMP/curl.err"
	got=$(sha256sum <"$TMP/out.bin" 2>/dev/null)
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
	if [ -n "$got" ] && [ "$got" = "$want" ]; then
		tap_ok "$name: curl fetched 2 MiB from http.server, sha256 matches"
	else
		tap_fail "$name: curl fetched 2 MiB from http.server, sha256 matches"
		tap_diag <"$TMP/curl.err"
		tail -n 5 "$TMP/http.log" | tap_diag
	fi
}

# --- which sockets are converted
line=$("$PROBE" tcp4)
expect "without smc_run: TCP stays AF_INET" "$line" domain=2 protocol=6
expect "tcp4 (AF_INET, 0) -> AF_SMC, SMCPROTO_SMC" "$(probe tcp4)" \
	domain=43 type=1 protocol=0 nonblock=0 cloexec=0
expect "tcp4p (AF_INET, IPPROTO_TCP) -> AF_SMC, SMCPROTO_SMC" \
	"$(probe tcp4p)" domain=43 type=1 protocol=0
expect "tcp6 (AF_INET6, 0) -> AF_SMC, SMCPROTO_SMC6" "$(probe tcp6)" \
	domain=43 type=1 protocol=1 nonblock=0 cloexec=0
expect "tcp6p (AF_INET6, IPPROTO_TCP) -> AF_SMC, SMCPROTO_SMC6" \
	"$(probe tcp6p)" domain=43 type=1 protocol=1
expect "SOCK_NONBLOCK kept" "$(probe tcp4nb)" \
	domain=43 protocol=0 nonblock=1 cloexec=0
expect "SOCK_CLOEXEC kept" "$(probe tcp4ce)" \
	domain=43 protocol=0 nonblock=0 cloexec=1
expect "SOCK_NONBLOCK|SOCK_CLOEXEC kept (AF_INET6, IPPROTO_TCP)" \
	"$(probe tcp6nbce)" domain=43 protocol=1 nonblock=1 cloexec=1
expect "UDP (AF_INET) untouched" "$(probe udp4)" domain=2 type=2 protocol=17
expect "UDP (AF_INET6) untouched" "$(probe udp6)" domain=10 type=2 protocol=17
expect "AF_UNIX stream untouched" "$(probe unix)" domain=1 type=1
expect "AF_UNIX datagram untouched" "$(probe unixdg)" domain=1 type=2
expect "raw ICMP socket untouched" "$(probe raw4)" domain=2 type=3 protocol=1
line=$(probe mptcp4)
if [ -n "$(field "$line" error)" ]; then
	tap_ok "MPTCP stream untouched (not available: $line)"
else
	expect "MPTCP stream (IPPROTO_MPTCP) untouched" "$line" \
		domain=2 type=1 protocol=262
fi
# SOCK_SEQPACKET over AF_INET: TCP gives an error, and so must the preload
[ "$(probe seqp4)" = "$("$PROBE" seqp4)" ] &&
	tap_ok "AF_INET SOCK_SEQPACKET untouched (same answer as without)" ||
	tap_fail "AF_INET SOCK_SEQPACKET untouched (same answer as without)"
expect "explicit AF_SMC socket unchanged" "$(probe smc)" domain=43 protocol=0

# --- threads, fork+exec
line=$(probe -T 16)
[ -n "$line" ] && [ "$(field " $line" sockets)" = "$(field " $line" smc)" ] &&
	tap_ok "16 threads x 50 sockets at once: all AF_SMC ($line)" ||
	tap_fail "16 threads x 50 sockets at once: all AF_SMC ($line)"
expect "fork+exec child converted too" "$(probe -x tcp6)" domain=43 protocol=1
expect "child of a shell converted too" \
	"$("$SMC_RUN" sh -c "exec 2>/dev/null; \"$PROBE\" tcp4")" domain=43 protocol=0

# --- buffer sizes: Linux doubles the value, capped by [rw]mem_max
rmax=$(cat /proc/sys/net/core/rmem_max)
wmax=$(cat /proc/sys/net/core/wmem_max)
dbl() { local v=$1 max=$2; [ "$v" -gt "$max" ] && v=$max; echo $((2 * v)); }
expect "-r 96k -t 80k: SO_RCVBUF/SO_SNDBUF set" \
	"$(probe -r 96k -t 80k -- tcp6)" domain=43 \
	rcvbuf="$(dbl 98304 "$rmax")" sndbuf="$(dbl 81920 "$wmax")"
expect "-r 1M -t 1m: M suffix (capped by rmem_max/wmem_max)" \
	"$(probe -r 1M -t 1m -- tcp4)" domain=43 \
	rcvbuf="$(dbl 1048576 "$rmax")" sndbuf="$(dbl 1048576 "$wmax")"
expect "-r 70000: plain bytes" "$(probe -r 70000 -- tcp4)" \
	rcvbuf="$(dbl 70000 "$rmax")"
expect "SMC_RCVBUF/SMC_SNDBUF with LD_PRELOAD alone (no smc_run)" \
	"$(SMC_RCVBUF=72k SMC_SNDBUF=40K LD_PRELOAD=$LIB "$PROBE" tcp4)" \
	domain=43 rcvbuf="$(dbl 73728 "$rmax")" sndbuf="$(dbl 40960 "$wmax")"
base=$("$PROBE" udp4)
expect "-r/-t leave untouched sockets alone" "$(probe -r 96k -t 80k -- udp4)" \
	rcvbuf="$(field "$base" rcvbuf)" sndbuf="$(field "$base" sndbuf)"

# --- smc_run itself
"$SMC_RUN" -h | grep -q "^Usage: smc_run" &&
	tap_ok "smc_run -h prints usage, exit 0" || tap_fail "smc_run -h prints usage, exit 0"
"$SMC_RUN" -r 12x true 2>/dev/null; rc=$?
[ "$rc" = 1 ] && tap_ok "smc_run -r 12x: invalid size, exit 1" ||
	tap_fail "smc_run -r 12x: invalid size, exit 1 (got $rc)"
"$SMC_RUN" 2>/dev/null; rc=$?
[ "$rc" = 1 ] && tap_ok "smc_run without program: exit 1" ||
	tap_fail "smc_run without program: exit 1 (got $rc)"
"$SMC_RUN" sh -c 'exit 7'; rc=$?
[ "$rc" = 7 ] && tap_ok "smc_run passes the program's exit status" ||
	tap_fail "smc_run passes the program's exit status (got $rc)"
"$SMC_RUN" /nonexistent/program 2>/dev/null; rc=$?
[ "$rc" = 127 ] && tap_ok "smc_run: program not found, exit 127" ||
	tap_fail "smc_run: program not found, exit 127 (got $rc)"
other=$(ldd /bin/sh | awk '$1 ~ /^libc\.so/ { print $3 }')
got=$(LD_PRELOAD=$other "$SMC_RUN" sh -c 'echo "$LD_PRELOAD"')
[ "$got" = "$LIB $other" ] && tap_ok "LD_PRELOAD prepended to an existing one" ||
	tap_fail "LD_PRELOAD prepended to an existing one (got '$got')"
got=$("$SMC_RUN" "$SMC_RUN" sh -c 'echo "$LD_PRELOAD"')
[ "$got" = "$LIB" ] && tap_ok "nested smc_run preloads once" ||
	tap_fail "nested smc_run preloads once (got '$got')"
err=$("$SMC_RUN" -d "$PROBE" tcp4 2>&1 >/dev/null)
grep -q "socket(AF_INET, 0x1, 0): AF_SMC fd" <<<"$err" &&
	tap_ok "-d: debug lines on stderr" ||
	{ tap_fail "-d: debug lines on stderr"; tap_diag <<<"$err"; }
err=$("$SMC_RUN" "$PROBE" tcp4 udp4 unix 2>&1 >/dev/null)
[ -z "$err" ] && tap_ok "without -d: nothing on stderr" ||
	{ tap_fail "without -d: nothing on stderr"; tap_diag <<<"$err"; }

# --- setuid programs: ld.so ignores LD_PRELOAD paths in secure mode
cp "$PROBE" "$TMP/probe_suid" && cp "$PROBE" "$TMP/probe_plain" &&
	chmod 0755 "$TMP" "$TMP/probe_plain" && chown root: "$TMP/probe_suid" &&
	chmod 4755 "$TMP/probe_suid"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
plain=$(as_nobody "$SMC_RUN" "$TMP/probe_plain" tcp4 2>/dev/null)
if ! command -v setpriv >/dev/null || [ "$(field "$plain" domain)" != 43 ]; then
	tap_skip "setuid program not converted" "cannot run the probe as nobody with the preload ($plain)"
else
	expect "setuid-root program run by nobody: LD_PRELOAD ignored, TCP" \
		"$(as_nobody "$SMC_RUN" "$TMP/probe_suid" tcp4 2>/dev/null)" \
		domain=2 protocol=6
fi

# --- unmodified programs over SMC-R (this host's eth0, rxe0 loops back)
line=$(probe -l)
expect "127.0.0.1 connection: all AF_SMC, data intact both ways" "$line" \
	listen=43 client=43 accepted=43 data=ok
if ! ip -4 addr show | grep -q "inet $ADDR/" ||
   ! rdma link 2>/dev/null | grep -q "rxe0.*ACTIVE"; then
	tap_skip "http.server/curl over SMC-R" "no $ADDR or no active rxe0"
elif ! python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID"; then
	tap_skip "http.server/curl over SMC-R" "cannot add a user EID"
else
	s0=$(smcr_conns server) c0=$(smcr_conns client) f0=$(fallbacks)
	http_fetch "SMC-R $ADDR" "$ADDR" "$PORT_SMCR"
	s=$(( $(smcr_conns server) - s0 )) c=$(( $(smcr_conns client) - c0 ))
	f=$(( $(fallbacks) - f0 ))
	[ "$s" -ge 1 ] && [ "$c" -ge 1 ] && [ "$f" = 0 ] &&
		tap_ok "curl <-> http.server used SMC-R ($c client, $s server connections, no fallback)" ||
		tap_fail "curl <-> http.server used SMC-R ($c client, $s server connections, $f fallbacks)"
	# SO_REUSEPORT (nginx's "reuseport"): the socket core refuses it
	# to AF_SMC since 6.1.124; the preload sets it at SOL_SMC instead
	s0=$(smcr_conns server) f0=$(fallbacks)
	line=$("$SMC_RUN" python3 - "$ADDR" "$PORT_REUSE" 2>&1 <<'PY'
import errno, select, socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
ls = []
for i in range(2):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind((addr, port))
    s.listen(16)
    ls.append(s)
dom = [s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN) for s in ls]
back = [s.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) for s in ls]
x = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    x.bind((addr, port))
    third = "bound"
except OSError as e:
    third = errno.errorcode[e.errno]
cs = [socket.create_connection((addr, port), timeout=60) for _ in range(8)]
got = [0, 0]
while sum(got) < 8:
    r = select.select(ls, [], [], 60)[0]
    if not r:
        break
    for s in r:
        a = s.accept()[0]
        a.sendall(b"x")
        a.close()
        got[ls.index(s)] += 1
data = all(c.recv(1) == b"x" for c in cs)
print("reuseport domains=%d,%d get=%d,%d third=%s accepted=%d data=%s"
      " (per listener %d,%d)" % (dom[0], dom[1], back[0], back[1], third,
                                 sum(got), data, got[0], got[1]))
PY
)
	expect "SO_REUSEPORT: two AF_SMC listeners on one port, a third without it EADDRINUSE, 8 connections" \
		"$line" domains=43,43 get=1,1 third=EADDRINUSE accepted=8 data=True
	s=$(( $(smcr_conns server) - s0 )) f=$(( $(fallbacks) - f0 ))
	[ "$s" = 8 ] && [ "$f" = 0 ] &&
		tap_ok "SO_REUSEPORT listeners: the 8 connections used SMC-R, no fallback" ||
		tap_fail "SO_REUSEPORT listeners: the 8 connections used SMC-R ($s server connections, $f fallbacks)"
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
fi
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "SMC-R transfers" 30

# --- smc.ko not loaded: everything stays TCP and works
# no module holds AF_SMC then: keep the kernel from loading the in-tree
# smc.ko on the first socket(AF_SMC) (request_module("net-pf-43"))
modprobe_saved=$(cat /proc/sys/kernel/modprobe)
echo /bin/true >/proc/sys/kernel/modprobe
[ -d /sys/module/smc_diag ] && rmmod smc_diag
if ! smc_unload; then
	tap_fail "rmmod smc"
	tap_done
fi
tap_ok "rmmod smc"
expect "no smc.ko: tcp4 stays TCP" "$(probe tcp4nb)" domain=2 protocol=6 nonblock=1
expect "no smc.ko: tcp6 stays TCP" "$(probe tcp6nbce)" \
	domain=10 protocol=6 nonblock=1 cloexec=1
err=$("$SMC_RUN" -d "$PROBE" tcp4 2>&1 >/dev/null)
grep -q "socket(AF_SMC) failed: .*using TCP" <<<"$err" &&
	tap_ok "no smc.ko: fallback reported by -d only" ||
	{ tap_fail "no smc.ko: fallback reported by -d only"; tap_diag <<<"$err"; }
expect "no smc.ko: 127.0.0.1 connection over TCP, data intact" "$(probe -l)" \
	listen=2 client=2 accepted=2 data=ok
http_fetch "no smc.ko, 127.0.0.1" 127.0.0.1 "$PORT_TCP"
[ ! -d /sys/module/smc ] && tap_ok "no smc module got loaded meanwhile" ||
	tap_fail "no smc module got loaded meanwhile"
echo "$modprobe_saved" >/proc/sys/kernel/modprobe
modprobe_saved=
tap_check "insmod smc.ko again" smc_load
expect "smc.ko back: TCP becomes AF_SMC again" "$(probe tcp4)" domain=43
smc_check_released "smc_preload"
tap_done
