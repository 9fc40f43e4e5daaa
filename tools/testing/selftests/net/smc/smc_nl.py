#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Generic-netlink client for the SMC families (SMC_GEN_NETLINK, SMC_PNETID)
# of <linux/smc.h>: every command, dumps printed as key=value lines.
"""usage: smc_nl.py [-b BYTES] COMMAND [ARGS]

  -b BYTES                     receive buffer per recv() (default 1 MiB);
                               the kernel fills at most that much per call,
                               so a small one (4096) makes a dump continue
                               over many calls; object dumps then also print
                               recvs=R (recv() calls that carried objects)

  family NAME                  id= version= maxattr= of a genl family
  sysinfo                      SMC_NETLINK_GET_SYS_INFO
  lgr-smcr | link-smcr | lgr-smcd | dev-smcd | dev-smcr
                               object dumps: one line per object, count=N
  stats                        SMC_NETLINK_GET_STATS, one counter per line
  fback-stats                  reasons (one line each), srv_cnt=, clnt_cnt=
  ueid-dump                    ueid=EID per entry (trailing blanks cut), count=
  ueid-add EID | ueid-del EID  EID upper-cased, blank padded to 32
  ueid-add --raw TEXT | ueid-del --raw TEXT   TEXT sent as it is (+ NUL)
  ueid-flush
  seid-dump | seid-enable | seid-disable
  hs-dump | hs-enable | hs-disable           handshake limitation
  pnet-dump [PNETID]           pnetid= eth= ib= port= per entry, count=
  pnet-show PNETID             the same through a GET request (no dump)
  pnet-add PNETID [-I ETH] [-D IBDEV] [-P PORT]
  pnet-add PNETID ETH IBDEV PORT             (older form)
  pnet-del PNETID | pnet-flush
  raw FAMILY CMD [--dump] [--version V] [TYPE:KIND:VALUE ...]
        KIND: str (with NUL), strn (without), u8 u16 u32 u64, hex, nest
        (VALUE of a nest: inner specs joined by '+'); prints replies

Errors go to stderr as "smc_nl: ENAME: text[: kernel message]", exit 1;
a reply cut by a too small -b buffer is EMSGSIZE.
"""
import errno
import os
import struct
import sys
try:
    import _socket as socket    # starts faster: tests run it many times
except ImportError:
    import socket

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_MAXATTR = 5
NLM_F_REQUEST = 1
NLM_F_MULTI = 2
NLM_F_ACK = 4
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
MSG_TRUNC = 0x20

# <linux/smc.h>
SMC_GEN = "SMC_GEN_NETLINK"
SMC_PNET = "SMC_PNETID"
(SMC_NETLINK_GET_SYS_INFO, SMC_NETLINK_GET_LGR_SMCR, SMC_NETLINK_GET_LINK_SMCR,
 SMC_NETLINK_GET_LGR_SMCD, SMC_NETLINK_GET_DEV_SMCD, SMC_NETLINK_GET_DEV_SMCR,
 SMC_NETLINK_GET_STATS, SMC_NETLINK_GET_FBACK_STATS, SMC_NETLINK_DUMP_UEID,
 SMC_NETLINK_ADD_UEID, SMC_NETLINK_REMOVE_UEID, SMC_NETLINK_FLUSH_UEID,
 SMC_NETLINK_DUMP_SEID, SMC_NETLINK_ENABLE_SEID, SMC_NETLINK_DISABLE_SEID,
 SMC_NETLINK_DUMP_HS_LIMITATION, SMC_NETLINK_ENABLE_HS_LIMITATION,
 SMC_NETLINK_DISABLE_HS_LIMITATION) = range(1, 19)
SMC_GEN_SYS_INFO, SMC_GEN_LGR_SMCR, SMC_GEN_LINK_SMCR, SMC_GEN_LGR_SMCD, \
    SMC_GEN_DEV_SMCD, SMC_GEN_DEV_SMCR, SMC_GEN_STATS, \
    SMC_GEN_FBACK_STATS = range(1, 9)
SMC_NLA_EID_TABLE_ENTRY = 1
SMC_NLA_SEID_ENTRY = 1
SMC_NLA_SEID_ENABLED = 2
SMC_NLA_HS_LIMITATION_ENABLED = 1
SMC_PNETID_GET, SMC_PNETID_ADD, SMC_PNETID_DEL, SMC_PNETID_FLUSH = range(1, 5)
SMC_PNETID_NAME, SMC_PNETID_ETHNAME, SMC_PNETID_IBNAME, \
    SMC_PNETID_IBPORT = range(1, 5)
SMC_MAX_EID_LEN = 32

# Attribute layouts: {type: (name, kind or nested layout)}; attributes
# not listed are printed as attrN=hex.
U8, U16, U32, U64, STR, FLAG = "u8", "u16", "u32", "u64", "str", "flag"
SYS_INFO = {1: ("ver", U8), 2: ("rel", U8), 3: ("is_ism_v2", U8),
            4: ("local_host", STR), 5: ("seid", STR), 6: ("is_smcr_v2", U8)}
V2_COMMON = {0: ("ver", U8), 1: ("rel", U8), 2: ("os", U8),
             3: ("neg_eid", STR), 4: ("peer_host", STR)}
LGR_R = {1: ("id", U32), 2: ("role", U8), 3: ("type", U8),
         4: ("pnetid", STR), 5: ("vlan_id", U8), 6: ("conns_num", U32),
         7: ("v2_common", V2_COMMON), 8: ("v2", {1: ("direct", U8), 2: ("max_conns", U8),
                                  3: ("max_links", U8)}),
         9: ("net_cookie", U64), 11: ("buf_type", U8)}
LINK = {1: ("id", U8), 2: ("ib_dev", STR), 3: ("ib_port", U8),
        4: ("gid", STR), 5: ("peer_gid", STR), 6: ("conn_cnt", U32),
        7: ("net_dev", U32), 8: ("uid", U32), 9: ("peer_uid", U32),
        10: ("state", U32)}
LGR_D = {1: ("id", U32), 2: ("gid", U64), 3: ("peer_gid", U64),
         4: ("vlan_id", U8), 5: ("conns_num", U32), 6: ("pnetid", STR),
         7: ("chid", U16), 9: ("v2_common", V2_COMMON)}
DEV_PORT = {1: ("pnet_usr", U8), 2: ("pnetid", STR), 3: ("netdev", U32),
            4: ("state", U8), 5: ("valid", U8), 6: ("lnk_cnt", U32)}
DEV = {1: ("use_cnt", U32), 2: ("is_crit", U8), 3: ("pci_fid", U32),
       4: ("pci_chid", U16), 5: ("pci_vendor", U16), 6: ("pci_device", U16),
       7: ("pci_id", STR), 8: ("port", DEV_PORT), 9: ("port2", DEV_PORT),
       10: ("ib_name", STR)}
BUCKETS = ["8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k",
           "g_1024k"]
PLOAD = {i + 1: (b, U64) for i, b in enumerate(BUCKETS)}
RMB = {1: ("size_sm_peer_cnt", U64), 2: ("size_sm_cnt", U64),
       3: ("full_peer_cnt", U64), 4: ("full_cnt", U64), 5: ("reuse_cnt", U64),
       6: ("alloc_cnt", U64), 7: ("dgrade_cnt", U64)}
TECH = {1: ("tx_rmb_size", PLOAD), 2: ("rx_rmb_size", PLOAD),
        3: ("tx_pload_size", PLOAD), 4: ("rx_pload_size", PLOAD),
        5: ("tx_rmb_stats", RMB), 6: ("rx_rmb_stats", RMB),
        7: ("clnt_v1_succ", U64), 8: ("clnt_v2_succ", U64),
        9: ("srv_v1_succ", U64), 10: ("srv_v2_succ", U64),
        11: ("sendpage_cnt", U64), 12: ("splice_cnt", U64),
        13: ("cork_cnt", U64), 14: ("ndly_cnt", U64),
        15: ("urg_data_cnt", U64), 16: ("rx_bytes", U64),
        17: ("tx_bytes", U64), 18: ("rx_cnt", U64), 19: ("tx_cnt", U64)}
STATS = {1: ("smcd", TECH), 2: ("smcr", TECH), 3: ("clnt_hs_err_cnt", U64),
         4: ("srv_hs_err_cnt", U64)}
FBACK = {1: ("type", U8), 2: ("srv_cnt", U64), 3: ("clnt_cnt", U64),
         4: ("rsn_code", U32), 5: ("rsn_cnt", U16)}
PNET = {1: ("pnetid", STR), 2: ("eth", STR), 3: ("ib", STR), 4: ("port", U8)}

OBJECTS = {
    "lgr-smcr": (SMC_NETLINK_GET_LGR_SMCR,
                 {SMC_GEN_LGR_SMCR: ("lgr", LGR_R),
                  SMC_GEN_LINK_SMCR: ("link", LINK)}),
    "link-smcr": (SMC_NETLINK_GET_LINK_SMCR,
                  {SMC_GEN_LGR_SMCR: ("lgr", LGR_R),
                   SMC_GEN_LINK_SMCR: ("link", LINK)}),
    "lgr-smcd": (SMC_NETLINK_GET_LGR_SMCD, {SMC_GEN_LGR_SMCD: ("lgr", LGR_D)}),
    "dev-smcd": (SMC_NETLINK_GET_DEV_SMCD, {SMC_GEN_DEV_SMCD: ("dev", DEV)}),
    "dev-smcr": (SMC_NETLINK_GET_DEV_SMCR, {SMC_GEN_DEV_SMCR: ("dev", DEV)}),
}


class NlError(OSError):
    def __init__(self, err, msg=None):
        super().__init__(err, os.strerror(err))
        self.kmsg = msg


def nla(atype, payload):
    ln = 4 + len(payload)
    return struct.pack("=HH", ln, atype) + payload + b"\0" * ((4 - ln % 4) % 4)


def nla_str(atype, s, size=None):
    b = s.encode() if isinstance(s, str) else s
    if size is not None:
        b = b.ljust(size, b" ")
    return nla(atype, b + b"\0")


def attrs_of(buf):
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        yield typ & 0x3fff, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


class Genl:
    def __init__(self, bufsize=1 << 20):
        self.bufsize = bufsize
        self.recvs = 0      # recv() calls that carried replies
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                NETLINK_GENERIC)
        for opt in (NETLINK_CAP_ACK, NETLINK_EXT_ACK):
            try:
                self.sk.setsockopt(SOL_NETLINK, opt, 1)
            except OSError:
                pass
        self.sk.bind((0, 0))
        self.seq = 1
        self.fams = {}

    @staticmethod
    def _err(body, fl):
        err = struct.unpack_from("=i", body)[0]
        msg = None
        if fl & NLM_F_ACK_TLVS and len(body) >= 20:
            olen = struct.unpack_from("=I", body, 4)[0]
            # NLM_F_CAPPED: only the request's header is echoed
            skip = 4 + (16 if fl & NLM_F_CAPPED else olen)
            for t, v in attrs_of(body[(skip + 3) & ~3:]):
                if t == NLMSGERR_ATTR_MSG:
                    msg = v.rstrip(b"\0").decode(errors="replace")
        return err, msg

    def request(self, family, cmd, attrs=b"", flags=NLM_F_ACK, version=1):
        msg = struct.pack("=IHHII", 20 + len(attrs), family,
                          NLM_F_REQUEST | flags, self.seq, 0)
        msg += struct.pack("=BBH", cmd, version, 0) + attrs
        seq = self.seq
        self.seq += 1
        self.sk.send(msg)
        replies = []
        while True:
            data, _, mflags, _ = self.sk.recvmsg(self.bufsize)
            if mflags & MSG_TRUNC:
                raise NlError(errno.EMSGSIZE, "reply cut by the -b buffer")
            n = len(replies)
            off = 0
            while off + 16 <= len(data):
                ln, typ, fl, rseq, _ = struct.unpack_from("=IHHII", data, off)
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if rseq != seq:
                    continue
                if typ == NLMSG_ERROR:
                    err, kmsg = self._err(body, fl)
                    if err:
                        raise NlError(-err, kmsg)
                    return replies
                if typ == NLMSG_DONE:
                    err = struct.unpack_from("=i", body)[0] if body else 0
                    if err < 0:
                        raise NlError(-err, self._err(body, fl)[1])
                    return replies
                replies.append(body)
            if flags & NLM_F_DUMP:
                self.recvs += len(replies) > n
            if not flags & (NLM_F_DUMP | NLM_F_ACK):
                return replies

    def family(self, name):
        if name not in self.fams:
            rep = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                               nla_str(CTRL_ATTR_FAMILY_NAME, name), flags=0)
            info = {}
            for a_type, a_val in attrs_of(rep[0][4:]):
                if a_type == CTRL_ATTR_FAMILY_ID:
                    info["id"] = struct.unpack("=H", a_val[:2])[0]
                elif a_type == CTRL_ATTR_VERSION:
                    info["version"] = struct.unpack("=I", a_val[:4])[0]
                elif a_type == CTRL_ATTR_MAXATTR:
                    info["maxattr"] = struct.unpack("=I", a_val[:4])[0]
            if "id" not in info:
                raise NlError(errno.ENOENT, "no family " + name)
            self.fams[name] = info
        return self.fams[name]

    def call(self, fam, cmd, attrs=b"", dump=False):
        """Attribute payloads of the replies (genl header cut off)."""
        fid = self.family(fam)["id"]
        flags = NLM_F_DUMP if dump else NLM_F_ACK
        return [r[4:] for r in self.request(fid, cmd, attrs, flags)]


def value(kind, v):
    if kind == U8:
        return v[0]
    if kind == U16:
        return struct.unpack("=H", v[:2])[0]
    if kind == U32:
        return struct.unpack("=I", v[:4])[0]
    if kind == U64:
        return struct.unpack("=Q", v[:8])[0]
    if kind == STR:
        return v.split(b"\0")[0].decode(errors="replace")
    if kind == FLAG:
        return 1
    return v.hex()


def decode(buf, layout, prefix=""):
    """(key, value) pairs of a set of attributes, nests flattened a.b.c."""
    out = []
    for t, v in attrs_of(buf):
        if t not in layout:
            if t == 0:      # the pad attribute of the stats nests
                continue
            out.append((prefix + "attr%d" % t, v.hex()))
            continue
        name, kind = layout[t]
        if isinstance(kind, dict):
            out += decode(v, kind, prefix + name + ".")
        else:
            out.append((prefix + name, value(kind, v)))
    return out


def line(pairs):
    return " ".join("%s=%s" % kv for kv in pairs)


def nested(rep, attr, layout):
    for t, v in attrs_of(rep):
        if t == attr:
            return decode(v, layout)
    return []


def eid_text(s, raw):
    return s.encode() if raw else s.upper().encode().ljust(SMC_MAX_EID_LEN,
                                                           b" ")


def raw_attr(spec):
    t, kind, val = spec.split(":", 2)
    t = int(t, 0)
    if kind == "str":
        return nla(t, val.encode() + b"\0")
    if kind == "strn":
        return nla(t, val.encode())
    if kind in ("u8", "u16", "u32", "u64"):
        fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[kind]
        return nla(t, struct.pack(fmt, int(val, 0)))
    if kind == "hex":
        return nla(t, bytes.fromhex(val))
    if kind == "nest":
        return nla(t, b"".join(raw_attr(s) for s in val.split("+") if s))
    raise ValueError("unknown attribute kind " + kind)


def raw_print(rep):
    pairs = []
    for t, v in attrs_of(rep):
        txt = v[:-1].decode("ascii", "replace")
        if v.endswith(b"\0") and len(v) > 1 and txt.isprintable():
            pairs.append(("attr%d" % t, txt))
        else:
            pairs.append(("attr%d" % t, v.hex()))
    print(line(pairs) if pairs else "msg")


def pnet_add_attrs(args):
    a = nla_str(SMC_PNETID_NAME, args[0])
    rest = args[1:]
    if rest and not rest[0].startswith("-"):
        if len(rest) != 3:
            raise SystemExit(__doc__)
        opts = {"-I": rest[0], "-D": rest[1], "-P": rest[2]}
    else:
        opts = dict(zip(rest[::2], rest[1::2]))
    if "-I" in opts:
        a += nla_str(SMC_PNETID_ETHNAME, opts["-I"])
    if "-D" in opts:
        a += nla_str(SMC_PNETID_IBNAME, opts["-D"])
    if "-P" in opts:
        a += nla(SMC_PNETID_IBPORT, struct.pack("=B", int(opts["-P"], 0)))
    return a


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    bufsize = None
    if argv[1] == "-b" and len(argv) > 3:
        bufsize = int(argv[2], 0)
        argv = argv[:1] + argv[3:]
    g = Genl(bufsize or 1 << 20)
    cmd, args = argv[1], argv[2:]

    if cmd == "family":
        f = g.family(args[0])
        print(line([(k, f.get(k)) for k in ("id", "version", "maxattr")]))
    elif cmd == "sysinfo":
        for r in g.call(SMC_GEN, SMC_NETLINK_GET_SYS_INFO, dump=True):
            for kv in nested(r, SMC_GEN_SYS_INFO, SYS_INFO):
                print("%s=%s" % kv)
    elif cmd in OBJECTS:
        c, layout = OBJECTS[cmd]
        reps = g.call(SMC_GEN, c, dump=True)
        for r in reps:
            print(line(decode(r, layout)))
        print("count=%d" % len(reps))
        if bufsize:
            print("recvs=%d" % g.recvs)
    elif cmd == "stats":
        for r in g.call(SMC_GEN, SMC_NETLINK_GET_STATS, dump=True):
            for kv in nested(r, SMC_GEN_STATS, STATS):
                print("%s=%s" % kv)
    elif cmd == "fback-stats":
        reps = g.call(SMC_GEN, SMC_NETLINK_GET_FBACK_STATS, dump=True)
        tot = {"srv_cnt": 0, "clnt_cnt": 0}
        for r in reps:
            d = dict(nested(r, SMC_GEN_FBACK_STATS, FBACK))
            tot = {k: d.get(k, 0) for k in tot}
            print("rsn role=%s code=0x%08x count=%d" %
                  ("server" if d.get("type") else "client",
                   d.get("rsn_code", 0), d.get("rsn_cnt", 0)))
        print("count=%d" % len(reps))
        for kv in tot.items():
            print("%s=%s" % kv)
    elif cmd == "ueid-dump":
        reps = g.call(SMC_GEN, SMC_NETLINK_DUMP_UEID, dump=True)
        for r in reps:
            for t, v in attrs_of(r):
                if t == SMC_NLA_EID_TABLE_ENTRY:
                    s = value(STR, v)
                    print("ueid=%s len=%d" % (s.rstrip(" "), len(s)))
        print("count=%d" % len(reps))
    elif cmd in ("ueid-add", "ueid-del"):
        raw = args[:1] == ["--raw"]
        text = eid_text(args[-1] if args else "", raw)
        c = SMC_NETLINK_ADD_UEID if cmd == "ueid-add" else \
            SMC_NETLINK_REMOVE_UEID
        g.call(SMC_GEN, c, nla_str(SMC_NLA_EID_TABLE_ENTRY, text))
    elif cmd == "ueid-flush":
        g.call(SMC_GEN, SMC_NETLINK_FLUSH_UEID)
    elif cmd == "seid-dump":
        reps = g.call(SMC_GEN, SMC_NETLINK_DUMP_SEID, dump=True)
        for r in reps:
            d = dict(decode(r, {SMC_NLA_SEID_ENTRY: ("seid", STR),
                                SMC_NLA_SEID_ENABLED: ("enabled", U8)}))
            print("seid=%s enabled=%s" % (d.get("seid", "n/a"),
                                          d.get("enabled", "n/a")))
        print("count=%d" % len(reps))
    elif cmd in ("seid-enable", "seid-disable"):
        g.call(SMC_GEN, SMC_NETLINK_ENABLE_SEID if cmd == "seid-enable"
               else SMC_NETLINK_DISABLE_SEID)
    elif cmd == "hs-dump":
        for r in g.call(SMC_GEN, SMC_NETLINK_DUMP_HS_LIMITATION, dump=True):
            print(line(decode(r, {SMC_NLA_HS_LIMITATION_ENABLED:
                                  ("enabled", U8)})))
    elif cmd in ("hs-enable", "hs-disable"):
        g.call(SMC_GEN, SMC_NETLINK_ENABLE_HS_LIMITATION
               if cmd == "hs-enable" else SMC_NETLINK_DISABLE_HS_LIMITATION)
    elif cmd in ("pnet-dump", "pnet-show"):
        a = nla_str(SMC_PNETID_NAME, args[0]) if args else b""
        reps = g.call(SMC_PNET, SMC_PNETID_GET, a, dump=cmd == "pnet-dump")
        for r in reps:
            print(line(decode(r, PNET)))
        print("count=%d" % len(reps))
    elif cmd == "pnet-add":
        g.call(SMC_PNET, SMC_PNETID_ADD, pnet_add_attrs(args))
    elif cmd == "pnet-del":
        g.call(SMC_PNET, SMC_PNETID_DEL, nla_str(SMC_PNETID_NAME, args[0]))
    elif cmd == "pnet-flush":
        g.call(SMC_PNET, SMC_PNETID_FLUSH)
    elif cmd == "raw":
        fam, c, rest = args[0], int(args[1], 0), args[2:]
        dump, ver, attrs = False, 1, b""
        while rest:
            a = rest.pop(0)
            if a == "--dump":
                dump = True
            elif a == "--version":
                ver = int(rest.pop(0), 0)
            else:
                attrs += raw_attr(a)
        fid = g.family(fam)["id"]
        reps = g.request(fid, c, attrs, NLM_F_DUMP if dump else NLM_F_ACK,
                         version=ver)
        for r in reps:
            raw_print(r[4:])
        print("count=%d" % len(reps))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:
        # ENOTSUP and EOPNOTSUPP are one number; the kernel's name is this
        name = "EOPNOTSUPP" if e.errno == errno.EOPNOTSUPP else \
            errno.errorcode.get(e.errno, str(e.errno))
        kmsg = getattr(e, "kmsg", None)
        print("smc_nl: %s: %s%s" % (name, e.strerror,
                                    ": " + kmsg if kmsg else ""),
              file=sys.stderr)
        sys.exit(1)
