#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The socket API cases of smc_sockapi once more, with both ends AF_SMC on
# this host's own eth0 address, so every connection runs over SMC-R (the
# RDMA device loops it back) instead of falling back to TCP.
#
#   +----------------------------- guest ------------------------------+
#   |  smc_sockapi -v smc_smc_v4: client --\      /-- listener          |
#   |                         192.0.2.1 (eth0) --> rxe0 loopback (SMC-R) |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-SOCKAPI-TEST

cleanup() {
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
rdma link 2>/dev/null | grep -q ACTIVE || ksft_skip_all "no active RDMA device"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" ||
	ksft_skip_all "cannot add a user EID"

conns0=$(awk '$1 == "conn" { print $3 }' "$SMC_DBG/objects")
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
read -r fw0 fl0 <<<"$(smc_fin)"

SMC_TEST_ADDR4=$ADDR "$SMC_TESTDIR/smc_sockapi" -v smc_smc_v4 |
	sed 's/sockapi\.smc_smc_v4\./sockapi_smcr./'

# SO_SNDBUF/SO_RCVBUF of an SMC-R socket report its buffers doubled (as
# the socket API does): 2 x net.smc.wmem / rmem when the application set
# none. The send buffer itself starts at 16 KiB (what an idle connection or
# one of small messages needs) and grows to wmem, once empty, after a write
# found it too small; only the writing end grows (smc debugfs "sockets").
bufs=$(python3 -S - "$ADDR" "$SMC_DBG/sockets" <<'PY'
import select, socket, sys
S = socket.SOL_SOCKET
def smc():	# an AF_SMC socket that python addresses as AF_INET
    fd = socket.socket(43, socket.SOCK_STREAM, 0).detach()
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0, fd)
def sndbufs():	# send buffer sizes of the open SMC-R connection ends
    d = {}
    for l in open(sys.argv[2]):
        f = l.split()
        if f[2] == "ACTIVE" and f[6] == "SMCR":
            d[f[4]] = d.get(f[4], "") + f[f.index("sndbuf") + 1]
    return "%s/%s" % (d.get("client"), d.get("server"))
l = smc()
l.bind((sys.argv[1], 0)); l.listen(1)
c = smc()
c.connect(l.getsockname()); a, _ = l.accept()
c.sendall(b"x"); a.recv(1)
first = sndbufs()
c.sendall(b"y" * 50000)	# > 16 KiB, fits the send buffer: no reader yet
n = 0
while n < 50000:
    n += len(a.recv(65536))
grown = sndbufs()
# the server writes 4 KiB pieces without blocking to a reader that waits:
# its 16 KiB buffer fills (outgrown) and stays small while data waits
a.setblocking(False)
q = 0
try:
    while q < 1 << 22:
        q += a.send(b"z" * 4096)
except BlockingIOError:
    pass
full = sndbufs()
n = 0
while n < q:
    n += len(c.recv(65536))
# once it is empty, poll says writable and the next small write grows it
p = select.poll()
p.register(a, select.POLLOUT)
ev = p.poll(5000)
a.setblocking(True)
a.sendall(b"z" * 4096)
n = 0
while n < 4096:
    n += len(c.recv(4096))
print(*(s.getsockopt(S, o) for s in (c, a)
        for o in (socket.SO_SNDBUF, socket.SO_RCVBUF)), first, grown, full,
      "pollout" if ev else "no-pollout", sndbufs())
PY
)
w=$(sysctl -n net.smc.wmem) r=$(sysctl -n net.smc.rmem)
set -- $bufs
tap_check "SO_SNDBUF/SO_RCVBUF show the SMC-R buffers x 2 ($1 $2 $3 $4)" \
	[ "$1 $2 $3 $4" = "$((2 * w)) $((2 * r)) $((2 * w)) $((2 * r))" ]
tap_check "send buffers start at 16 KiB, client/server ($5)" \
	[ "$5" = 16384/16384 ]
tap_check "a 50 KB write grows the client's send buffer to wmem $w, not the server's ($6)" \
	[ "$6" = "$w/16384" ]
tap_check "4 KiB writes without blocking fill the server's 16 KiB buffer; it stays while data waits ($7)" \
	[ "$7" = "$w/16384" ]
tap_check "then, once empty, poll says writable and the next 4 KiB write grows it ($8, $9)" \
	[ "$8 $9" = "pollout $w/$w" ]

conns=$(( $(awk '$1 == "conn" { print $3 }' "$SMC_DBG/objects") - conns0 ))
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
echo "# $conns SMC-R connection ends, $fb fallbacks"
[ "$conns" -ge 100 ] && tap_ok "cases ran over SMC-R ($conns connection ends)" ||
	tap_fail "cases ran over SMC-R ($conns connection ends)"
[ "$fb" = 0 ] && tap_ok "no connection fell back to TCP" ||
	tap_fail "no connection fell back to TCP ($fb did)"
echo 1 > "$SMC_DBG/flush_idle"
smc_check_released "SMC-R socket API cases"
# an end that closed after its peer waited for the peer's TCP FIN before
# sending its own (close_time_wait has one); none waited in vain
read -r fw fl <<<"$(smc_fin)"
tap_check "closes after the peer's waited for its TCP FIN ($((fw - fw0))), none in vain ($((fl - fl0)))" \
	[ "$((fw - fw0))" -ge 1 -a "$((fl - fl0))" = 0 ]
tap_done
