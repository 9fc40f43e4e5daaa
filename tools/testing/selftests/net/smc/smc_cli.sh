#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The smc(8) command (tools/smc/smc) against the python netlink clients
# (smc_nl.py, smc_diag.py) and against what really happened: every -j output
# is JSON and matches their dumps, changes round-trip, errors carry the
# kernel's errno and message, nobody can dump but not change, a second
# namespace has its own tables, live SMC-R connections and a fallback show
# up, and the statistics move by what a workload did.
#
#   +---------------------------------- guest -----------------------------------+
#   |  init netns                                          netns smccli_ns       |
#   |   smc (root, nobody) --+                       +--- smc -n smccli_ns      |
#   |   smc_nl.py ----------+--> genl: smc.ko  <-----+    (own UEID/PNET tables)  |
#   |   smc_diag.py --------+--> sock_diag: smc_diag.ko                            |
#   |                                                                            |
#   |   smc_xfer -c 2 -P (AF_SMC) --> 192.0.2.1:29901 smc_xfer -s (AF_SMC)       |
#   |                  \__ eth0 192.0.2.1 -- rxe0 loopback (SMC-R v2) __/        |
#   |   smc_xfer (AF_SMC) --> 192.0.2.1:29902 smc_xfer -s -f tcp (fallback)      |
#   |   smc_xfer (AF_SMC) --> 192.0.2.1:29900 smc_xfer -s (stats workload)       |
#   +----------------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
SMC_BIN=${SMC_BIN:-$SMC_SRC/tools/smc/smc}
NLPY=$SMC_TESTDIR/smc_nl.py
DIAGPY=$SMC_TESTDIR/smc_diag.py
DIAG_KO=${SMC_DIAG_KO:-$(dirname "$SMC_KO")/smc_diag.ko}
EID=SMC-CLI-TEST
NS=smccli_ns
P_STATS=29900
P_LIVE=29901
P_FB=29902
XFER_N=100000
TMP=
loaded_diag=

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	if [ -n "$TMP" ] && [ -x "$TMP/smc" ]; then
		"$TMP/smc" ueid flush 2>/dev/null
		"$TMP/smc" pnet flush 2>/dev/null
		"$TMP/smc" hslimit disable 2>/dev/null
	fi
	[ -n "$loaded_diag" ] && rmmod smc_diag 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -x "$SMC_BIN" ] || ksft_skip_all "$SMC_BIN not built (make tools)"
command -v python3 >/dev/null || ksft_skip_all "python3 not installed"

# A copy everybody can run (also nobody, whatever the checkout's modes)
TMP=$(mktemp -d /tmp/smc_cli.XXXXXX)
chmod 755 "$TMP"
cp "$SMC_BIN" "$NLPY" "$DIAGPY" "$TMP/"
chmod 755 "$TMP/smc"
chmod 644 "$TMP/smc_nl.py" "$TMP/smc_diag.py"
SMC=$TMP/smc

smc() { "$SMC" "$@"; }
nl() { python3 -S "$TMP/smc_nl.py" "$@"; }
diag() { python3 -S "$TMP/smc_diag.py" "$@"; }
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

# The comparisons: cmp.py WHAT JSON-FILE REFERENCE-FILE [ARGS]
cat >"$TMP/cmp.py" <<'PY'
import json, sys

what, jf, rf = sys.argv[1:4]
args = sys.argv[4:]
j = json.load(open(jf))
ref = open(rf).read().splitlines() if rf != "-" else []


def kvs(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def objs(prefix):
    """dump lines with PREFIX.* keys, the prefix cut"""
    out = []
    for line in ref:
        d = kvs(line)
        d = {k[len(prefix) + 1:]: v for k, v in d.items()
             if k.startswith(prefix + ".")}
        if d:
            out.append(d)
    return out


def count():
    return [int(kvs(l)["count"]) for l in ref if l.startswith("count=")][0]


def fail(msg):
    print("mismatch:", msg)
    print("json:", json.dumps(j)[:1500])
    print("reference:", "\n".join(ref)[:1500])
    sys.exit(1)


ROLE = {"0": "client", "1": "server"}
if what == "info":
    r = dict(l.split("=", 1) for l in ref if "=" in l)
    got = (j["version"], j["release"], j["hostname"], int(j["smcr_v2"]),
           int(j["ism_v2"]), j["seid"] or "")
    want = (int(r["ver"]), int(r["rel"]), r["local_host"],
            int(r.get("is_smcr_v2", 0)), int(r["is_ism_v2"]),
            r.get("seid", "").rstrip())
    if got != want:
        fail("%s != %s" % (got, want))
elif what == "ueid":
    want = [kvs(l)["ueid"] for l in ref if l.startswith("ueid=")]
    got = [e["ueid"] for e in j]
    if got != want or len(got) != count() or sorted(args) != sorted(got):
        fail("%s / %s / expected %s" % (got, want, args))
elif what == "seid":
    r = kvs(ref[0])
    want = (None if r["seid"] == "n/a" else r["seid"].rstrip(),
            r["enabled"] == "1")
    if (j["seid"], j["enabled"]) != want:
        fail("%s" % (want,))
elif what == "hs":
    if int(j["enabled"]) != int(kvs(ref[0])["enabled"]) or \
       int(j["enabled"]) != int(args[0]):
        fail("want %s" % args[0])
elif what == "pnet":
    want = sorted((d["pnetid"], None if d["eth"] == "n/a" else d["eth"],
                   None if d["ib"] == "n/a" else d["ib"],
                   None if d["ib"] == "n/a" else int(d["port"]))
                  for d in map(kvs, ref) if "pnetid" in d)
    got = sorted((e["pnetid"], e["dev"], e["ibdev"], e["ibport"]) for e in j)
    if got != want or len(got) != count():
        fail("%s != %s" % (got, want))
    if args and len(got) != int(args[0]):
        fail("%d entries, expected %s" % (len(got), args[0]))
elif what == "lgr":
    want = sorted((int(d["id"]), ROLE[d["role"]], int(d["type"]),
                   int(d["conns_num"]), d.get("v2_common.neg_eid", ""),
                   d.get("v2_common.peer_host", ""),
                   int(d.get("v2.direct", 0)), int(d["v2_common.rel"]),
                   int(d["v2.max_conns"]), int(d["v2.max_links"]))
                  for d in objs("lgr"))
    TYPES = ["NONE", "SINGLE", "SYMMETRIC", "ASYMMETRIC_PEER",
             "ASYMMETRIC_LOCAL"]
    got = sorted((g["id"], g["role"], TYPES.index(g["type"]), g["conns"],
                  g["v2"]["negotiated_eid"] or "", g["v2"]["peer_host"] or "",
                  int(g["v2"].get("direct", 0)), g["v2"]["release"],
                  g["v2"]["max_conns"], g["v2"]["max_links"]) for g in j)
    if got != want or len(got) != count():
        fail("%s != %s" % (got, want))
    if args and len(got) != int(args[0]):
        fail("%d groups, expected %s" % (len(got), args[0]))
elif what == "link":
    STATES = ["UNUSED", "INACTIVE", "ACTIVATING", "ACTIVE"]
    want = sorted((int(d["id"]), d["ib_dev"], int(d["ib_port"]), d["gid"],
                   d["peer_gid"], int(d["conn_cnt"]), int(d["net_dev"]),
                   int(d["uid"]), int(d["peer_uid"]), int(d["state"]))
                  for d in objs("link"))
    got = sorted((k["id"], k["ibdev"], k["ibport"], k["gid"], k["peer_gid"],
                  k["conns"], k["netdev_ifindex"], k["uid"], k["peer_uid"],
                  STATES.index(k["state"])) for k in j)
    if got != want:
        fail("%s != %s" % (got, want))
    # the link dump carries each group's message too
    if len(got) + len(objs("lgr")) != count():
        fail("message count")
    if args and len(got) != int(args[0]):
        fail("%d links, expected %s" % (len(got), args[0]))
elif what == "dev":
    want = sorted((d["ib_name"], int(d["use_cnt"]) if "use_cnt" in d else None,
                   int(d["is_crit"]),
                   int(d.get("port.state", -1)), int(d.get("port.netdev", -1)),
                   int(d.get("port.lnk_cnt", -1)), d.get("port.pnetid", ""))
                  for d in objs("dev"))
    got = []
    for d in j:
        p = d["ports"][0] if d["ports"] else None
        got.append((d["ibdev"], d["use_cnt"], int(d["critical"]),
                    int(p["state"] == "ACTIVE") if p else -1,
                    p["netdev_ifindex"] if p else -1,
                    p["links"] if p else -1, (p["pnetid"] or "") if p else ""))
    got.sort()
    if got != want or len(got) != count():
        fail("%s != %s" % (got, want))
elif what == "stats":
    r = {k: int(v) for k, v in (l.split("=", 1) for l in ref if "=" in l)}
    f = flat({k: v for k, v in j.items() if k != "fallback"})
    if f != r:
        fail("keys differ: %s" % sorted(set(f.items()) ^ set(r.items()))[:20])
elif what == "fback":
    fb = j["fallback"] if "fallback" in j else j
    want = sorted((kvs(l)["role"], int(kvs(l)["code"], 16),
                   int(kvs(l)["count"])) for l in ref if l.startswith("rsn "))
    got = sorted((r["role"], r["code"], r["count"]) for r in fb["reasons"])
    tot = {k: int(v) for k, v in (l.split("=", 1) for l in ref
                                  if l.startswith(("srv_cnt", "clnt_cnt")))}
    if got != want or fb["server_total"] != tot["srv_cnt"] or \
       fb["client_total"] != tot["clnt_cnt"]:
        fail("%s != %s" % (got, want))
    if any(r["reason"] in ("", "unknown reason") for r in fb["reasons"]):
        fail("a reason without words")
elif what == "sock":
    # sockets with a local or peer port among ARGS
    ports = set(int(p) for p in args)
    want = {}
    for l in ref:
        if not l.startswith("sock "):
            continue
        d = kvs(l)
        sp, dp = int(d["src"].rsplit(":", 1)[1]), int(d["dst"].rsplit(":", 1)[1])
        if sp in ports or dp in ports:
            want[int(d["ino"])] = (int(d["state"]), int(d["mode"]), d["src"],
                                   d["dst"], int(d.get("fb", "0x0"), 16),
                                   int(d.get("token", "0x0"), 16))
    def ap(a, p):
        return ("[%s]:%d" if ":" in a else "%s:%d") % (a, p)
    got = {}
    for s in j:
        if s["local_port"] in ports or s["peer_port"] in ports:
            got[s["inode"]] = (s["state_code"], s["mode_code"],
                               ap(s["local_addr"], s["local_port"]),
                               ap(s["peer_addr"], s["peer_port"]),
                               s["fallback"]["reason_code"] if s["fallback"] else 0,
                               s["conn"]["token"] if s["conn"] else 0)
    if got != want:
        fail("%s != %s" % (got, want))
else:
    fail("unknown comparison " + what)
PY
cmpj() { python3 -S "$TMP/cmp.py" "$@"; }
# json_ok < FILE: the file is one JSON document (jq is faster in a guest)
if command -v jq >/dev/null; then
	json_ok() { jq -e . >/dev/null 2>&1; }
else
	json_ok() { python3 -S -c 'import json,sys; json.load(sys.stdin)' >/dev/null 2>&1; }
fi

# sj NAME ARGS...: smc -j ARGS into $TMP/NAME.json, a TAP result that it
# succeeded and is JSON
sj() {
	local name=$1 out
	shift
	if ! out=$(smc -j "$@" 2>&1 >"$TMP/$name.json"); then
		tap_fail "smc -j $*: exit status"
		printf '%s\n' "$out" | tap_diag
		return 1
	fi
	if ! json_ok <"$TMP/$name.json"; then
		tap_fail "smc -j $*: not JSON"
		head -c 2000 "$TMP/$name.json" | tap_diag
		return 1
	fi
	return 0
}

# cmp_check NAME WHAT JSONNAME REF-CMD...: sj already ran; compares with
# the reference command's output
cmp_check() {
	local name=$1 what=$2 jn=$3 out
	shift 3
	"$@" >"$TMP/$jn.ref" 2>&1
	if out=$(cmpj "$what" "$TMP/$jn.json" "$TMP/$jn.ref" $CMP_ARGS 2>&1); then
		tap_ok "$name"
	else
		tap_fail "$name"
		printf '%s\n' "$out" | tap_diag
	fi
}
CMP_ARGS=

# expect_err NAME RC ERRNAME PATTERN CMD...: CMD exits with RC, stderr
# names ERRNAME (empty: any) and matches PATTERN
expect_err() {
	local name=$1 rc=$2 ename=$3 pat=$4 out got
	shift 4
	out=$("$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" = "$rc" ] && { [ -z "$ename" ] || grep -q "($ename)" <<<"$out"; } &&
		grep -qE -- "$pat" <<<"$out"; then
		tap_ok "$name"
	else
		tap_fail "$name (exit $got, wanted $rc $ename)"
		printf '%s\n' "$out" | tap_diag
	fi
}

# jq_py EXPR < JSON: prints EXPR evaluated with d = the document
jq_py() { python3 -S -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# pycheck NAME ARGS... <<'PY': a TAP result from a python program that
# asserts (ARGS are its sys.argv[1:]); its output shown when it fails
pycheck() {
	local name=$1 prog out
	shift
	prog=$(cat)
	if out=$(python3 -S -c "$prog" "$@" 2>&1); then
		tap_ok "$name"
	else
		tap_fail "$name"
		printf '%s\n' "$out" | tail -n 20 | tap_diag
	fi
}

smc ueid flush && smc pnet flush && smc hslimit disable
[ $? = 0 ] || ksft_skip_all "smc cannot reset the tables: $(smc ueid flush 2>&1)"

echo "# command line (at ${SECONDS}s)"
# ---- command line ------------------------------------------------------------
out=$(smc help) && grep -q "Usage: smc" <<<"$out"
tap_check "smc help: usage, exit 0" [ $? = 0 ]
tap_check "smc --help and smc pnet help exit 0" \
	bash -c "'$SMC' --help | grep -q OBJECT && '$SMC' pnet help | grep -q 'pnet add'"
expect_err "unknown object: usage error" 2 "" 'unknown object "frobnicate"' \
	smc frobnicate
expect_err "unknown command: usage error" 2 "" 'unknown ueid command "zap"' \
	smc ueid zap
expect_err "unknown option: usage error" 2 "" 'unknown option "-Q"' smc -Q info
expect_err "pnet add without device: usage error" 2 "" "dev ETH" \
	smc pnet add NETX
expect_err "unknown namespace: error naming ENOENT" 1 ENOENT "nosuchns" \
	smc -n nosuchns info
out=$(smc -j fallback explain 0x03030008 | jq_py 'd["name"], "ueid add" in d["fix"]')
tap_check "fallback explain 0x03030008: NOUEID, fix names smc ueid add" \
	[ "$out" = "NOUEID True" ]
out=$(smc fallback explain NOSMCDEV)
grep -q "smc pnet add" <<<"$out" && grep -q "rdma link add rxe0 type rxe netdev eth0" <<<"$out"
tap_check "fallback explain NOSMCDEV: pnet entry or rxe device as fix" [ $? = 0 ]
n=$(smc -j fallback explain | jq_py 'len([r for r in d if r["reason"] and r["cause"] and r["fix"]])')
tap_check "every reason in the table has words, cause and fix ($n)" [ "${n:-0}" -ge 30 ]

echo "# info, EIDs, handshake limitation (at ${SECONDS}s)"
# ---- info ------------------------------------------------------------------------
sj info info && cmp_check "info: matches smc_nl.py sysinfo" info info nl sysinfo
out=$(smc info)
grep -qE "^SMC version: +2\.1$" <<<"$out" && grep -q "Host name: *$(hostname)\$" <<<"$out"
tap_check "info: human output (version, host name)" [ $? = 0 ]

# ---- ueid ----------------------------------------------------------------------------
sj ueid0 ueid show && CMP_ARGS= cmp_check "ueid: empty after flush" ueid ueid0 nl ueid-dump
tap_check "ueid add (lower case)" smc ueid add "${EID,,}"
sj ueid1 ueid show && CMP_ARGS="$EID" cmp_check "ueid: one entry, upper case" ueid ueid1 nl ueid-dump
expect_err "ueid add again: EEXIST with the kernel's message" 1 EEXIST \
	"ueid add: .*already defined" smc ueid add "$EID"
expect_err "ueid add of 33 characters refused" 1 "" \
	"ueid add: .*\((EINVAL|ERANGE)\)" smc ueid add "$(printf 'A%.0s' $(seq 33))"
expect_err "ueid add with '_': EINVAL, kernel says why" 1 EINVAL \
	"user EID must be" smc ueid add BAD_EID
tap_check "ueid add 3 more" bash -c "'$SMC' ueid add E2 && '$SMC' ueid add E3 && '$SMC' ueid add E4"
expect_err "fifth ueid: table full (ERANGE)" 1 ERANGE "table is full" \
	smc ueid add E5
sj ueid4 ueid show && CMP_ARGS="$EID E2 E3 E4" cmp_check "ueid: four entries" ueid ueid4 nl ueid-dump
tap_check "ueid del E3" smc ueid del E3
expect_err "ueid del E3 again: ENOENT" 1 ENOENT "not defined" smc ueid del E3
sj ueid3 ueid show && CMP_ARGS="$EID E2 E4" cmp_check "ueid: E3 gone" ueid ueid3 nl ueid-dump
out=$(smc ueid show)
[ "$(head -n 1 <<<"$out")" = UEID ] && [ "$(wc -l <<<"$out")" = 4 ]
tap_check "ueid show: header and three lines" [ $? = 0 ]
tap_check "ueid flush" smc ueid flush
sj ueidf ueid show && CMP_ARGS= cmp_check "ueid: empty after flush" ueid ueidf nl ueid-dump
sj info2 info && [ "$(jq_py 'd["ueids"]' <"$TMP/info2.json")" = "[]" ]
tap_check "info: no user EID listed" [ $? = 0 ]

# ---- seid ------------------------------------------------------------------------------
sj seid seid show && cmp_check "seid: matches smc_nl.py seid-dump" seid seid nl seid-dump
for c in enable disable; do
	nl "seid-$c" >/dev/null 2>"$TMP/seid.err"
	nrc=$? nerr=$(sed -n 's/^smc_nl: \([A-Z]*\):.*/\1/p' "$TMP/seid.err")
	out=$(smc seid "$c" 2>&1)
	rc=$?
	if [ "$nrc" = 0 ]; then
		[ "$rc" = 0 ]
	else
		[ "$rc" = 1 ] && grep -q "seid $c: .*($nerr)" <<<"$out"
	fi
	tap_check "seid $c: same answer as smc_nl.py (${nerr:-success})" [ $? = 0 ]
done
sj seid2 seid show && cmp_check "seid: unchanged state matches" seid seid2 nl seid-dump

# ---- handshake limitation ----------------------------------------------------------------
tap_check "hslimit enable" smc hslimit enable
sj hs1 hslimit show && CMP_ARGS=1 cmp_check "hslimit: enabled, as smc_nl.py sees" hs hs1 nl hs-dump
sj info3 info && [ "$(jq_py 'd["handshake_limitation"]' <"$TMP/info3.json")" = True ]
tap_check "info: handshake limitation enabled" [ $? = 0 ]
tap_check "hslimit disable" smc hslimit disable
sj hs0 hslimit show && CMP_ARGS=0 cmp_check "hslimit: disabled" hs hs0 nl hs-dump

echo "# pnet (at ${SECONDS}s)"
# ---- pnet -------------------------------------------------------------------------------
sj pnet0 pnet show && CMP_ARGS=0 cmp_check "pnet: empty after flush" pnet pnet0 nl pnet-dump
tap_check "pnet add clinet1 dev lo" smc pnet add clinet1 dev lo
sj pnet1 pnet show && CMP_ARGS=1 cmp_check "pnet: CLINET1 lo" pnet pnet1 nl pnet-dump
[ "$(jq_py 'd[0]["pnetid"], d[0]["dev"], d[0]["ibdev"]' <"$TMP/pnet1.json")" = "CLINET1 lo None" ]
tap_check "pnet JSON: PNET ID upper case, dev lo, no ibdev (null)" [ $? = 0 ]
if [ -d /sys/class/infiniband/rxe0 ]; then
	tap_check "pnet add clinet2 ibdev rxe0 port 1" smc pnet add clinet2 ibdev rxe0 port 1
	sj pnet2 pnet show && CMP_ARGS=2 cmp_check "pnet: two entries" pnet pnet2 nl pnet-dump
	sj pnet2f pnet show CLINET2 && CMP_ARGS=1 cmp_check "pnet show CLINET2: the filter" \
		pnet pnet2f nl pnet-dump CLINET2
	out=$(smc pnet show)
	grep -qE "^CLINET2 +- +rxe0 +1$" <<<"$out" && grep -qE "^CLINET1 +lo +- +-$" <<<"$out"
	tap_check "pnet show: aligned table" [ $? = 0 ] 
	printf '%s\n' "$out" | tap_diag
	expect_err "pnet add rxe0 port 1 again: EEXIST" 1 EEXIST "" \
		smc pnet add clinet3 ibdev rxe0 port 1
	tap_check "pnet del clinet2" smc pnet del clinet2
else
	tap_skip "pnet: RDMA device entries" "no rxe0"
fi
expect_err "pnet add unknown net device: ENODEV, kernel message" 1 ENODEV \
	"pnet add: .*no such net device" smc pnet add clinet3 dev nosuchdev0
expect_err "pnet add unknown RDMA device: ENODEV" 1 ENODEV \
	"no such RDMA device" smc pnet add clinet3 ibdev nosuchib0
expect_err "pnet add PNET ID of 17 characters: EINVAL" 1 EINVAL "" \
	smc pnet add CLINET456789ABCDE dev lo
expect_err "pnet del unknown: ENOENT" 1 ENOENT "not defined" smc pnet del clinet9
sj pnetn pnet show CLINET9 && CMP_ARGS=0 cmp_check "pnet show of an unknown PNET ID: empty" \
	pnet pnetn nl pnet-dump CLINET9
tap_check "pnet flush" smc pnet flush
sj pnetf pnet show && CMP_ARGS=0 cmp_check "pnet: empty after flush" pnet pnetf nl pnet-dump

echo "# unprivileged caller (at ${SECONDS}s)"
# ---- nobody ------------------------------------------------------------------------------
if as_nobody true 2>/dev/null; then
	smc ueid add "$EID"
	expect_err "nobody: ueid add gets EPERM" 1 EPERM "ueid add: " \
		as_nobody "$SMC" ueid add NOBODY
	expect_err "nobody: ueid flush gets EPERM" 1 EPERM "" \
		as_nobody "$SMC" ueid flush
	expect_err "nobody: pnet add gets EPERM" 1 EPERM "pnet add: " \
		as_nobody "$SMC" pnet add NOBODY dev lo
	expect_err "nobody: hslimit enable gets EPERM" 1 EPERM "" \
		as_nobody "$SMC" hslimit enable
	out=$(as_nobody "$SMC" -j ueid show 2>&1)
	[ "$(jq_py '[e["ueid"] for e in d]' <<<"$out")" = "['$EID']" ]
	tap_check "nobody: ueid show works (the table unchanged)" [ $? = 0 ]
	as_nobody "$SMC" -j info >/dev/null && as_nobody "$SMC" -j stats >/dev/null &&
		as_nobody "$SMC" -j pnet show >/dev/null &&
		as_nobody "$SMC" -j linkgroup show >/dev/null
	tap_check "nobody: info, stats, pnet and linkgroup dumps work" [ $? = 0 ]
	smc ueid flush
else
	tap_skip "unprivileged caller" "setpriv cannot switch to nobody"
fi

echo "# network namespace (at ${SECONDS}s)"
# ---- netns --------------------------------------------------------------------------------
if ip netns add "$NS" && ip -n "$NS" link set lo up; then
	smc ueid add "$EID"
	smc pnet add CLIINIT dev lo
	tap_check "netns: ueid add NSEID there (smc -n)" smc -n "$NS" ueid add NSEID
	tap_check "netns: pnet add CLINS dev lo there" smc -n "$NS" pnet add CLINS dev lo
	sj nsueid -n "$NS" ueid show &&
		CMP_ARGS=NSEID cmp_check "netns: its ueid table has NSEID only" ueid nsueid \
		ip netns exec "$NS" python3 -S "$TMP/smc_nl.py" ueid-dump
	sj initueid ueid show &&
		CMP_ARGS=$EID cmp_check "netns: init namespace's table unchanged" ueid initueid nl ueid-dump
	sj nspnet -n "$NS" pnet show && [ "$(jq_py '[e["pnetid"] for e in d]' <"$TMP/nspnet.json")" = "['CLINS']" ]
	tap_check "netns: its pnet table has CLINS only" [ $? = 0 ]
	sj initpnet pnet show && [ "$(jq_py '[e["pnetid"] for e in d]' <"$TMP/initpnet.json")" = "['CLIINIT']" ]
	tap_check "netns: init pnet table has CLIINIT only" [ $? = 0 ]
	out=$(ip netns exec "$NS" "$SMC" -j ueid show | jq_py '[e["ueid"] for e in d]')
	tap_check "netns: ip netns exec smc sees the same as smc -n" [ "$out" = "['NSEID']" ]
	tap_check "netns: flush there" smc -n "$NS" ueid flush
	sj initueid2 ueid show &&
		CMP_ARGS=$EID cmp_check "netns: flush there leaves init's EID" ueid initueid2 nl ueid-dump
	smc pnet flush
	ip netns del "$NS"
else
	tap_skip "network namespace" "ip netns add failed"
fi

# ---- SMC-R: statistics, live connections, sockets ----------------------------------------
smcr=1
ip -4 addr show | grep -q "inet $ADDR/" || smcr="no interface with $ADDR"
[ "$smcr" = 1 ] && { rdma link 2>/dev/null | grep -q ACTIVE || smcr="no active RDMA device"; }
[ "$smcr" = 1 ] && { [ -x "$SMC_XFER" ] || smcr="smc_xfer not built"; }
if [ "$smcr" != 1 ]; then
	tap_skip "SMC-R statistics, link groups, links, devices, sockets" "$smcr"
	tap_done
fi
smc ueid flush
tap_check "ueid add $EID for SMC-R v2" smc ueid add "$EID"

echo "# statistics against a workload (at ${SECONDS}s)"
sj st0 stats && cmp_check "stats: every counter as smc_nl.py stats shows" stats st0 nl stats
sj st0 stats && cmp_check "stats: fallbacks as smc_nl.py fback-stats shows" fback st0 nl fback-stats
# one SMC-R connection: the client sends a 16-byte header and N bytes, the
# server N bytes and a status byte
"$SMC_XFER" -s -q -f smc -p $P_STATS -c 1 -t 60 &
spid=$!
smc_wait_port $P_STATS 10
"$SMC_XFER" -q -f smc -p $P_STATS -n $XFER_N -c 1 -t 60 "$ADDR"
crc=$?
wait $spid
src=$?
tap_check "stats workload: $XFER_N bytes each way over SMC-R" [ "$crc/$src" = 0/0 ]
# a fallback: AF_SMC client, plain TCP server
"$SMC_XFER" -s -q -f tcp -p $P_FB -c 1 -t 60 &
spid=$!
smc_wait_port $P_FB 10
"$SMC_XFER" -q -f smc -p $P_FB -n 1000 -c 1 -t 60 "$ADDR"
crc=$?
wait $spid
src=$?
tap_check "stats workload: AF_SMC client to a TCP server" [ "$crc/$src" = 0/0 ]
sj st1 stats
want=$((2 * XFER_N + 17))
d=$(python3 -S - "$TMP/st0.json" "$TMP/st1.json" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
r0, r1 = a["smcr"], b["smcr"]
def fb(d, role, code):
    return sum(r["count"] for r in d["fallback"]["reasons"]
               if r["role"] == role and r["code"] == code)
print(r1["tx_bytes"] - r0["tx_bytes"], r1["rx_bytes"] - r0["rx_bytes"],
      r1["clnt_v2_succ"] - r0["clnt_v2_succ"],
      r1["srv_v2_succ"] - r0["srv_v2_succ"],
      b["fallback"]["client_total"] - a["fallback"]["client_total"],
      fb(b, "client", 0x03010000) - fb(a, "client", 0x03010000),
      b["fallback"]["server_total"] - a["fallback"]["server_total"],
      *(sum(r1[d + "_rmb_stats"][k] - r0[d + "_rmb_stats"][k]
            for k in ("alloc_cnt", "reuse_cnt")) for d in ("tx", "rx")))
PY
)
set -- $d
# each end of the SMC-R connection got an RMB and a 16 KiB send buffer,
# new from the link group or reused from its pool, and a full-size send
# buffer with its first write of 64 KiB
tap_check "stats: 2+2 send buffers and 2 RMBs allocated or reused (${8}/${9})" \
	[ "${8}/${9}" = 4/2 ]
echo "# stats deltas: tx $1 rx $2 client v2 $3 server v2 $4 fallbacks client $5 (0x03010000: $6) server $7"
tap_check "stats: SMC-R tx bytes grew by the $want bytes both sides sent" [ "$1" = "$want" ]
tap_check "stats: SMC-R rx bytes grew by the $want bytes both sides read" [ "$2" = "$want" ]
tap_check "stats: one more SMC-R v2 connection as client and as server" [ "$3/$4" = 1/1 ]
tap_check "stats: one client fallback, reason 0x03010000, none as server" [ "$5/$6/$7" = 1/1/0 ]
sj st1 stats && cmp_check "stats: still as smc_nl.py shows" stats st1 nl stats
sj st1 stats && cmp_check "stats: fallbacks still as smc_nl.py shows" fback st1 nl fback-stats
out=$(smc stats)
grep -qE "^  bytes +[0-9]+ +[0-9]+$" <<<"$out" &&
	grep -qE "^  client +[0-9]+ +0x03010000 +peer did not offer SMC$" <<<"$out"
tap_check "stats: human output has the byte counts and the reason in words" [ $? = 0 ]
out=$(smc fallback show)
grep -q "fix:   run the peer with AF_SMC" <<<"$out"
tap_check "fallback show: the fallback with its fix" [ $? = 0 ]

echo "# live connections (at ${SECONDS}s)"
# smc_diag for "smc socket show"
if [ -d /sys/module/smc_diag ]; then
	:
elif [ -e "$DIAG_KO" ] && insmod "$DIAG_KO"; then
	loaded_diag=1
fi
out=$(smc socket show 2>&1)
if [ -d /sys/module/smc_diag ]; then
	tap_check "socket show: answers with smc_diag loaded" [ $? = 0 ]
else
	expect_err "socket show without smc_diag: ENOENT, says what to load" 1 "" "smc_diag" \
		smc socket show
fi

echo 1 >"$SMC_DBG/flush_idle"
# held open until killed below: the checks take minutes under TCG
"$SMC_XFER" -s -q -f smc -p $P_LIVE -c 2 -P -t 900 -H 800 &
lspid=$!
smc_wait_port $P_LIVE 10
"$SMC_XFER" -q -f smc -p $P_LIVE -n 64K -c 2 -P -t 900 -H 800 "$ADDR" &
lcpid=$!
"$SMC_XFER" -s -q -f tcp -p $P_FB -c 1 -t 900 -H 800 &
fspid=$!
smc_wait_port $P_FB 10
"$SMC_XFER" -q -f smc -p $P_FB -n 1K -c 1 -t 900 -H 800 "$ADDR" &
fcpid=$!
smc_wait_objs_min conn 4 60
sleep 1

sj lgr linkgroup show && CMP_ARGS=2 cmp_check "linkgroup: two groups, as smc_nl.py lgr-smcr" lgr lgr nl lgr-smcr
pycheck "linkgroup JSON: client and server, SINGLE, 2 connections, EID, peer host, v2.1 limits" \
	"$TMP/lgr.json" "$EID" "$(hostname)" <<'PY'
import json, sys
j, eid, host = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert sorted(g["role"] for g in j) == ["client", "server"], j
assert all(g["type"] == "SINGLE" and g["conns"] == 2 and g["smc"] == "smcr"
           and g["v2"]["negotiated_eid"] == eid and g["v2"]["peer_host"] == host
           and g["v2"]["version"] == 2 and g["v2"]["release"] == 1
           and g["v2"]["max_conns"] == 255 and g["v2"]["max_links"] == 2
           for g in j), j
PY
out=$(smc linkgroup show)
printf '%s\n' "$out" | tap_diag
[ "$(grep -cE "^[0-9a-f]{8} +SMC-R +(client|server) +SINGLE +2/255 .* v2\.1 " <<<"$out")" = 2 ]
tap_check "linkgroup show: two aligned rows (2/255 connections, v2.1)" [ $? = 0 ]
sj lgrd linkgroup show smcd && [ "$(cat "$TMP/lgrd.json")" = "[]" ]
tap_check "linkgroup show smcd: empty JSON array" [ $? = 0 ]

sj link link show && CMP_ARGS=2 cmp_check "link: two links, as smc_nl.py link-smcr" link link nl link-smcr
gid=0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' ${ADDR//./ })
[ "$(jq_py 'sorted(set((k["state"], k["ibdev"], k["ibport"], k["netdev"], k["gid"], k["peer_gid"]) for k in d))' <"$TMP/link.json")" = \
	"[('ACTIVE', 'rxe0', 1, 'eth0', '$gid', '$gid')]" ]
tap_check "link JSON: ACTIVE on rxe0 port 1, eth0, GIDs of $ADDR" [ $? = 0 ]
out=$(smc link show)
printf '%s\n' "$out" | tap_diag
[ "$(grep -cE " ACTIVE +rxe0 +1 +eth0 +2 +$gid +$gid\$" <<<"$out")" = 2 ]
tap_check "link show: two aligned rows" [ $? = 0 ]

sj dev device show && cmp_check "device: as smc_nl.py dev-smcr" dev dev nl dev-smcr
[ "$(jq_py '[(x["ibdev"], x["critical"], x["ports"][0]["links"], x["ports"][0]["netdev"]) for x in d if x["ibdev"] == "rxe0"]' <"$TMP/dev.json")" = \
	"[('rxe0', True, 2, 'eth0')]" ]
tap_check "device JSON: rxe0 critical, 2 links on port 1, eth0" [ $? = 0 ]
sj devd device show smcd && [ "$(cat "$TMP/devd.json")" = "[]" ]
tap_check "device show smcd: empty JSON array" [ $? = 0 ]

if [ -d /sys/module/smc_diag ]; then
	sj sock socket show && CMP_ARGS="$P_LIVE $P_FB" cmp_check \
		"socket: same sockets, states, modes, reasons, tokens as smc_diag.py" \
		sock sock diag -e all
	pycheck "socket JSON: 4 SMC-R sockets with buffers and rxe0, a listener, the fallback in words" \
		"$TMP/sock.json" "$P_LIVE" "$P_FB" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
live, fb = int(sys.argv[2]), int(sys.argv[3])
conn = [s for s in j if s["state"] == "ACTIVE" and live in (s["local_port"], s["peer_port"])]
assert len(conn) == 4, conn
assert all(s["mode"] == "SMCR" and s["conn"] and s["conn"]["sndbuf"] > 0
           and s["link"] and s["link"]["ibdev"] == "rxe0" and s["fallback"] is None
           for s in conn), conn
assert sorted(s["link"]["role"] for s in conn) == ["client"] * 2 + ["server"] * 2
lst = [s for s in j if s["state"] == "LISTEN" and s["local_port"] == live]
assert len(lst) == 1 and lst[0]["conn"] is None, lst
fbs = [s for s in j if s["peer_port"] == fb and s["state"] == "ACTIVE"]
assert len(fbs) == 1, fbs
f = fbs[0]
assert f["mode"] == "TCP" and f["fallback"]["reason_code"] == 0x03010000 \
    and f["fallback"]["reason"] == "peer did not offer SMC" and f["conn"] is None, f
PY
	out=$(smc socket show)
	printf '%s\n' "$out" | grep -E ":($P_LIVE|$P_FB) " | tap_diag
	[ "$(grep -cE "^ACTIVE +SMCR +[0-9.:]+ +[0-9.:]+ +0 +[0-9]+ +[0-9]+ +[0-9]+ +-$" <<<"$out")" -ge 4 ] &&
		grep -qE "^ACTIVE +TCP +[0-9.:]+ +$ADDR:$P_FB +.* 0x03010000 peer did not offer SMC$" <<<"$out" &&
		grep -qE "^LISTEN +- +\*:$P_LIVE +\*:\* " <<<"$out"
	tap_check "socket show: SMCR rows, the TCP fallback with its reason in words, the listener" [ $? = 0 ]
	out=$(smc -d socket show)
	grep -qE "^	tx_prep [0-9]+:[0-9]+ tx_sent" <<<"$out" && grep -q "^	link .* rxe0/1 gid" <<<"$out" &&
		grep -q "^	fix: run the peer with AF_SMC" <<<"$out"
	tap_check "socket show -d: cursors, link and the fallback's fix" [ $? = 0 ]
else
	tap_skip "socket show of live connections" "smc_diag.ko not loaded ($DIAG_KO)"
fi

kill $lspid $lcpid $fspid $fcpid 2>/dev/null
wait $lspid $lcpid $fspid $fcpid 2>/dev/null
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the smc_cli connections"
sj lgr0 linkgroup show && CMP_ARGS=0 cmp_check "linkgroup: none left" lgr lgr0 nl lgr-smcr
sj link0 link show && CMP_ARGS=0 cmp_check "link: none left" link link0 nl link-smcr
tap_done
