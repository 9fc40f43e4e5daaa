#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# sock_diag client for AF_SMC (<linux/smc_diag.h>): dumps every AF_SMC socket
# of the caller's network namespace, one key=value line per socket.
"""usage: smc_diag.py [OPTIONS]

  -e EXT[,EXT..]   extensions to ask for: conninfo lgrinfo shutdown dmbinfo
                   fallback, or all (default: none)
  --smcss          flags as smcss sends them (NLM_F_ROOT alone, not
                   NLM_F_DUMP)
  --nodump         a plain request without NLM_F_DUMP (refused)
  -b BYTES         receive buffer per recv() (default 32768); the kernel
                   fills at most that much per call, so a small one makes
                   the dump continue over many calls
  --pause SECS     print "paused", sleep that long after the first recv()
  --abandon        close the socket after the first recv()
  --while PID      dump again and again, output discarded, as long as
                   process PID lives; then print "dumps=N"

Per socket: "sock family= state= mode= shut= src=ADDR:PORT dst=ADDR:PORT
if= cookie= uid= ino=", then for each extension received
  fallback: "fb=0xREASON peer_diag=0xCODE"
  conninfo: "token= sndbuf= rmbe= peer_rmbe= rx_prod=WRAP:COUNT rx_cons=
             tx_prod= tx_cons= rx_flags=PROD:CONN tx_flags= tx_prep=
             tx_sent= tx_fin=" (flags in hex)
  lgrinfo:  "role=client|server ib= port= link= gid= peer_gid="
  shutdown: "shut_attr="
  other:    "attrN=LEN"
and at the end "count=N recvs=R" (R: recv() calls that carried sockets).
Errors go to stderr as "smc_diag: ENAME: text", exit 1.
"""
import errno
import os
import struct
import sys
import time
try:
    import _socket as socket    # starts faster in a TCG guest
except ImportError:
    import socket

AF_INET = 2
AF_INET6 = 10
AF_NETLINK = 16
AF_SMC = 43
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLM_F_MULTI = 2
NLM_F_ROOT = 0x100
NLM_F_DUMP = 0x300
NLM_F_DUMP_INTR = 0x10
NLMSG_ERROR = 2
NLMSG_DONE = 3

# enum of <linux/smc_diag.h>: attribute type N is asked for by bit N - 1
EXTS = {"conninfo": 1, "lgrinfo": 2, "shutdown": 3, "dmbinfo": 4,
        "fallback": 5}
SMC_DIAG_CONNINFO, SMC_DIAG_LGRINFO, SMC_DIAG_SHUTDOWN, SMC_DIAG_DMBINFO, \
    SMC_DIAG_FALLBACK = 1, 2, 3, 4, 5

NLMSGHDR = struct.Struct("=IHHII")
DIAG_REQ = struct.Struct("=BBBB48s")           # family, pad[2], ext, id
# family state mode shutdown | sport dport (big endian) src dst | if
# cookie[2] | uid inode
DIAG_MSG = struct.Struct("=BBBB2s2s16s16sIIIIQ")
CURSOR = struct.Struct("=HHI")                 # reserved, wrap, count
CONNINFO_HEAD = struct.Struct("=IIII")
LINKINFO = struct.Struct("=B64sB40s40s")


def die(err, text):
    # ENOTSUP and EOPNOTSUPP are one number; the kernel's name is this
    name = "EOPNOTSUPP" if err == errno.EOPNOTSUPP else \
        errno.errorcode.get(err, str(err))
    print("smc_diag: %s: %s" % (name, text), file=sys.stderr)
    sys.exit(1)


def cstr(b):
    return b.split(b"\0", 1)[0].decode("ascii", "replace")


def addr(family, raw, port):
    if family == AF_INET6:
        a = "[" + socket.inet_ntop(AF_INET6, raw) + "]"
    else:
        a = socket.inet_ntop(AF_INET, raw[:4])
    return "%s:%d" % (a, struct.unpack(">H", port)[0])


def cursors(data, off, n):
    out = []
    for i in range(n):
        _, wrap, count = CURSOR.unpack_from(data, off + 8 * i)
        out.append("%d:%d" % (wrap, count))
    return out


def conninfo(d):
    token, sndbuf, rmbe, peer_rmbe = CONNINFO_HEAD.unpack_from(d, 0)
    rx_prod, rx_cons, tx_prod, tx_cons = cursors(d, 16, 4)
    rpf, rcf, tpf, tcf = struct.unpack_from("=BBBB", d, 48)
    prep, sent, fin = cursors(d, 52, 3)
    return ("token=0x%08x sndbuf=%d rmbe=%d peer_rmbe=%d rx_prod=%s "
            "rx_cons=%s tx_prod=%s tx_cons=%s rx_flags=%02x:%02x "
            "tx_flags=%02x:%02x tx_prep=%s tx_sent=%s tx_fin=%s" %
            (token, sndbuf, rmbe, peer_rmbe, rx_prod, rx_cons, tx_prod,
             tx_cons, rpf, rcf, tpf, tcf, prep, sent, fin))


def lgrinfo(d):
    link, ib, port, gid, peer = LINKINFO.unpack_from(d, 0)
    role = d[LINKINFO.size]
    return ("role=%s ib=%s port=%d link=%d gid=%s peer_gid=%s" %
            ("server" if role else "client", cstr(ib), port, link,
             cstr(gid), cstr(peer)))


def one_sock(data):
    (fam, state, mode, shut, sport, dport, src, dst, ifx, ck0, ck1, uid,
     ino) = DIAG_MSG.unpack_from(data, 0)
    words = ["sock family=%d state=%d mode=%d shut=%d" %
             (fam, state, mode, shut),
             "src=" + addr(fam, src, sport), "dst=" + addr(fam, dst, dport),
             "if=%d cookie=%d uid=%d ino=%d" %
             (ifx, ck0 | ck1 << 32, uid, ino)]
    off = DIAG_MSG.size
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4 or off + alen > len(data):
            die(errno.EPROTO, "bad attribute length %d" % alen)
        payload = data[off + 4:off + alen]
        if atype == SMC_DIAG_FALLBACK and len(payload) >= 8:
            words.append("fb=0x%08x peer_diag=0x%08x" %
                         struct.unpack_from("=II", payload))
        elif atype == SMC_DIAG_CONNINFO and len(payload) >= 76:
            words.append(conninfo(payload))
        elif atype == SMC_DIAG_LGRINFO and len(payload) >= 147:
            words.append(lgrinfo(payload))
        elif atype == SMC_DIAG_SHUTDOWN and len(payload) >= 1:
            words.append("shut_attr=%d" % payload[0])
        else:
            words.append("attr%d=%d" % (atype, len(payload)))
        off += (alen + 3) & ~3
    return " ".join(words)


def main(argv):
    ext, flags, bufsize, pause, abandon = 0, NLM_F_REQUEST | NLM_F_DUMP, \
        32768, 0.0, False
    watch = 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-e":
            i += 1
            for name in argv[i].split(","):
                if name == "all":
                    ext |= 0x1f
                elif name in EXTS:
                    ext |= 1 << (EXTS[name] - 1)
                else:
                    die(errno.EINVAL, "unknown extension " + name)
        elif a == "--smcss":
            flags = NLM_F_REQUEST | NLM_F_ROOT
        elif a == "--nodump":
            flags = NLM_F_REQUEST
        elif a == "-b":
            i += 1
            bufsize = int(argv[i])
        elif a == "--pause":
            i += 1
            pause = float(argv[i])
        elif a == "--abandon":
            abandon = True
        elif a == "--while":
            i += 1
            watch = int(argv[i])
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
        i += 1

    if watch:
        n = 0
        while os.path.exists("/proc/%d" % watch):
            dump(ext, flags, bufsize, 0, False, lambda line: None)
            n += 1
        print("dumps=%d" % n)
        return 0
    return dump(ext, flags, bufsize, pause, abandon, print)


def dump(ext, flags, bufsize, pause, abandon, out):
    s = socket.socket(AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    s.bind((0, 0))
    req = DIAG_REQ.pack(AF_SMC, 0, 0, ext, b"\0" * 48)
    seq = 4711
    s.send(NLMSGHDR.pack(NLMSGHDR.size + len(req), SOCK_DIAG_BY_FAMILY,
                         flags, seq, 0) + req)
    count = recvs = 0
    first = True
    while True:
        buf = s.recv(bufsize)
        if first:
            first = False
            if pause:
                print("paused", flush=True)
                time.sleep(pause)
            if abandon:
                s.close()
                print("abandoned")
                return 0
        off, got = 0, 0
        while off + NLMSGHDR.size <= len(buf):
            mlen, mtype, mflags, mseq, _ = NLMSGHDR.unpack_from(buf, off)
            if mlen < NLMSGHDR.size or off + mlen > len(buf):
                die(errno.EPROTO, "bad message length %d" % mlen)
            body = buf[off + NLMSGHDR.size:off + mlen]
            if mseq != seq:
                die(errno.EPROTO, "sequence %d, sent %d" % (mseq, seq))
            if mflags & NLM_F_DUMP_INTR:
                die(errno.EINTR, "dump interrupted")
            if mtype == NLMSG_DONE:
                s.close()
                out("count=%d recvs=%d" % (count, recvs))
                return 0
            if mtype == NLMSG_ERROR:
                err = -struct.unpack_from("=i", body)[0]
                die(err, os.strerror(err))
            if mtype != SOCK_DIAG_BY_FAMILY or not mflags & NLM_F_MULTI:
                die(errno.EPROTO, "message type %d flags 0x%x" %
                    (mtype, mflags))
            out(one_sock(body))
            count += 1
            got += 1
            off += (mlen + 3) & ~3
        if got:
            recvs += 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
