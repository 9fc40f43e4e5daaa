#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The generic netlink families SMC_GEN_NETLINK and SMC_PNETID: every command,
# its values and dumps, errors for bad input, permissions and namespaces.
#
#   +----------------------------------- guest -----------------------------------+
#   |  init netns                                   netns smcnl_a                  |
#   |   eth0 ---- rxe0 (Soft-RoCE, port 1)           lo                            |
#   |   smcnl0, smcnl1 (dummy) ----- moved -------->  smcnl2                       |
#   |                                                                              |
#   |   smc_nl.py as root ----+                  +---- smc_nl.py (ip netns exec)  |
#   |   smc_nl.py as nobody --+--> genl: smc.ko <+---- nobody in its own          |
#   |   smc_xfer (AF_SMC) -> TCP server (lo)          user+net namespace (unshare)|
#   +------------------------------------------------------------------------------+
#
# Expected errors: invalid EID/PNET ID text, bad attributes, bad port: EINVAL
# (string attribute longer than its maximum after the NUL: ERANGE); duplicate EID or device that has
# a PNET ID already: EEXIST; 5th user EID: ERANGE; unknown net/RDMA device:
# ENODEV; unknown EID/PNET ID: ENOENT; system EID commands (none on x86):
# EOPNOTSUPP; unknown command: EOPNOTSUPP; change without CAP_NET_ADMIN: EPERM.

source "$(dirname "$0")/smc_lib.sh"

NS=smcnl_a
NLPY=$SMC_TESTDIR/smc_nl.py
NLCOPY=

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	for d in smcnl0 smcnl1 smcnl2; do ip link del "$d" 2>/dev/null; done
	if [ -d "$SMC_DBG" ]; then
		nl ueid-flush 2>/dev/null
		nl pnet-flush 2>/dev/null
		nl hs-disable 2>/dev/null
	fi
	[ -n "$NLCOPY" ] && rm -f "$NLCOPY"
}
trap cleanup EXIT

# The client runs ~200 times: compiled once to a file everybody can read
# (also nobody), without site packages (-S): twice as fast in a TCG guest.
nl() { python3 -S "$NLCOPY" "$@"; }
nl_ns() { ip netns exec "$NS" python3 -S "$NLCOPY" "$@"; }
nl_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		python3 -S "$NLCOPY" "$@"
}

# expect_err NAME ERRNO CMD...: CMD fails, smc_nl reporting ERRNO
expect_err() {
	local name=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		tap_fail "$name: succeeded, wanted $want"
		printf '%s\n' "$out" | tap_diag
	elif grep -q "^smc_nl: $want:" <<<"$out"; then
		tap_ok "$name ($want)"
	else
		tap_fail "$name: wanted $want"
		printf '%s\n' "$out" | tap_diag
	fi
}

# expect_line NAME LINE CMD...: CMD succeeds and prints LINE
expect_line() {
	local name=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1) && grep -qxF -- "$want" <<<"$out"; then
		tap_ok "$name"
	else
		tap_fail "$name: no line '$want'"
		printf '%s\n' "$out" | tap_diag
	fi
}

# expect_out NAME EXPECTED CMD...: CMD succeeds and prints exactly EXPECTED
expect_out() {
	local name=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1) && [ "$out" = "$want" ]; then
		tap_ok "$name"
	else
		tap_fail "$name"
		{ echo "expected:"; printf '%s\n' "$want"; echo "got:"
		  printf '%s\n' "$out"; } | tap_diag
	fi
}

# expect_no NAME PATTERN CMD...: CMD succeeds and no line matches PATTERN
expect_no() {
	local name=$1 pat=$2 out
	shift 2
	if out=$("$@" 2>&1) && ! grep -qE -- "$pat" <<<"$out"; then
		tap_ok "$name"
	else
		tap_fail "$name"
		printf '%s\n' "$out" | tap_diag
	fi
}

eid() { printf '%-32s' "$1"; }	# blank padded to 32

smc_is_ours_loaded || smc_load || ksft_skip_all "cannot load smc.ko"
command -v python3 >/dev/null || ksft_skip_all "python3 not installed"
NLCOPY=$(mktemp /tmp/smc_nl.XXXXXX) &&
	python3 -c 'import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
		"$NLPY" "$NLCOPY" && chmod 0644 "$NLCOPY" ||
	ksft_skip_all "cannot compile smc_nl.py"
have_rxe=
[ -e /sys/class/infiniband/rxe0 ] && have_rxe=1
ip netns del "$NS" 2>/dev/null
for d in smcnl0 smcnl1 smcnl2; do ip link del "$d" 2>/dev/null; done
nl ueid-flush; nl pnet-flush; nl hs-disable

# ---- families --------------------------------------------------------------
out=$(nl family SMC_GEN_NETLINK 2>&1)
grep -q " version=1 " <<<"$out" &&
	tap_ok "SMC_GEN_NETLINK registered, version 1" ||
	{ tap_fail "SMC_GEN_NETLINK registered, version 1"
	  echo "$out" | tap_diag; }
out=$(nl family SMC_PNETID 2>&1)
grep -q " version=1 maxattr=4$" <<<"$out" &&
	tap_ok "SMC_PNETID registered, version 1, 4 attributes" ||
	{ tap_fail "SMC_PNETID registered, version 1, 4 attributes"
	  echo "$out" | tap_diag; }

# ---- system info -------------------------------------------------------------
host=$(uname -n | cut -c1-32)
expect_out "sysinfo: version 2.1, no ISM v2, SMC-R v2, hostname, no SEID" \
	"ver=2
rel=1
is_ism_v2=0
local_host=$host
is_smcr_v2=1" nl sysinfo
long=h234567890123456789012345678901234567890
expect_line "sysinfo: hostname of the caller's UTS namespace, cut to 32" \
	"local_host=${long:0:32}" \
	unshare -u sh -c "hostname $long && python3 -S '$NLCOPY' sysinfo"

# ---- object dumps (with connections: smc_nl_objects.sh) ----------------------
echo 1 >"$SMC_DBG/flush_idle"
for o in lgr-smcr link-smcr lgr-smcd dev-smcd; do
	expect_out "$o: empty dump without connections" "count=0" nl "$o"
done
if rdma link 2>/dev/null | grep -q rxe0; then
	expect_line "dev-smcr: rxe0 listed" "count=1" nl dev-smcr
else
	expect_out "dev-smcr: no RDMA device, empty dump" "count=0" nl dev-smcr
fi

# ---- statistics ----------------------------------------------------------------
out=$(nl stats 2>&1)
n=$(grep -c '=' <<<"$out")
nd=$(grep -c '^smcd\..*=0$' <<<"$out")
[ "$n" = 128 ] && [ "$nd" = 63 ] &&
	tap_ok "stats: 2 x 63 technology counters + 2 handshake errors, SMC-D all 0" ||
	{ tap_fail "stats: 2 x 63 technology counters + 2 handshake errors, SMC-D all 0 ($n, $nd)"
	  echo "$out" | tap_diag; }
missing=
for k in smcr.tx_rmb_size.8k smcr.rx_pload_size.g_1024k \
	 smcr.tx_rmb_stats.dgrade_cnt smcr.clnt_v2_succ smcr.srv_v1_succ \
	 smcr.sendpage_cnt smcr.urg_data_cnt smcr.rx_bytes smcr.tx_cnt; do
	grep -q "^$k=[0-9][0-9]*$" <<<"$out" || missing="$missing $k"
done
[ -z "$missing" ] && tap_ok "stats: SMC-R counter set present" ||
	tap_fail "stats: SMC-R counter set present (missing$missing)"
[ "$(sed -n 's/^clnt_hs_err_cnt=//p' <<<"$out")" = "$(smc_stat hs_err_client)" ] &&
[ "$(sed -n 's/^srv_hs_err_cnt=//p' <<<"$out")" = "$(smc_stat hs_err_server)" ] &&
	tap_ok "stats: handshake errors as in debugfs" ||
	tap_fail "stats: handshake errors as in debugfs"

# fallback statistics: one AF_SMC client against a TCP server
fb_field() { sed -n "s/^$1=//p" <<<"$2"; }
fb_count() { # OUTPUT ROLE CODE
	awk -v r="role=$2" -v c="code=$3" '
		$1 == "rsn" && $2 == r && $3 == c { sub("count=", "", $4); n = $4 }
		END { print n + 0 }' <<<"$1"
}
if [ -x "$SMC_XFER" ]; then
	before=$(nl fback-stats 2>&1)
	"$SMC_XFER" -s -q -f tcp -p 20101 -c 1 -t 20 &
	spid=$!
	smc_wait_port 20101 10
	"$SMC_XFER" -q -f smc -p 20101 -n 1K -t 20 127.0.0.1 && wait "$spid"
	after=$(nl fback-stats 2>&1)
	c0=$(fb_count "$before" client 0x03010000)
	c1=$(fb_count "$after" client 0x03010000)
	[ "$c1" = $((c0 + 1)) ] &&
	[ "$(fb_field clnt_cnt "$after")" = $(($(fb_field clnt_cnt "$before") + 1)) ] &&
	[ "$(fb_field srv_cnt "$after")" = "$(fb_field srv_cnt "$before")" ] &&
		tap_ok "fback-stats: client fallback 0x03010000 counted, totals follow" ||
		{ tap_fail "fback-stats: client fallback 0x03010000 counted, totals follow"
		  { echo "$before"; echo "--"; echo "$after"; } | tap_diag; }
	[ "$(fb_field clnt_cnt "$after")" = "$(smc_stat fallback_client)" ] &&
	[ "$(fb_field srv_cnt "$after")" = "$(smc_stat fallback_server)" ] &&
		tap_ok "fback-stats: totals as in debugfs" ||
		tap_fail "fback-stats: totals as in debugfs"
	n=$(grep -c '^rsn ' <<<"$after")
	[ "$(fb_field count "$after")" = "$n" ] && [ "$n" -ge 1 ] &&
		tap_ok "fback-stats: one message per role and reason" ||
		tap_fail "fback-stats: one message per role and reason"
else
	tap_skip "fback-stats after a fallback" "smc_xfer not built"
fi

# ---- user EIDs -------------------------------------------------------------------
expect_out "ueid: empty table" "count=0" nl ueid-dump
tap_check "ueid: add TEST-EID.1" nl ueid-add TEST-EID.1
expect_out "ueid: dump shows it, blank padded to 32" \
	"ueid=TEST-EID.1 len=32
count=1" nl ueid-dump
expect_err "ueid: add duplicate" EEXIST nl ueid-add TEST-EID.1
expect_err "ueid: lower case" EINVAL nl ueid-add --raw "$(eid abc)"
expect_err "ueid: first character '.'" EINVAL nl ueid-add --raw "$(eid .ABC)"
expect_err "ueid: first character '-'" EINVAL nl ueid-add --raw "$(eid -ABC)"
expect_err "ueid: character '_'" EINVAL nl ueid-add --raw "$(eid A_B)"
expect_err "ueid: blank inside" EINVAL nl ueid-add --raw "$(eid 'A B')"
expect_err "ueid: consecutive dots" EINVAL nl ueid-add --raw "$(eid A..B)"
expect_err "ueid: all blanks" EINVAL nl ueid-add --raw "$(eid '')"
expect_err "ueid: not padded (3 characters)" EINVAL nl ueid-add --raw ABC
expect_err "ueid: 33 characters" EINVAL \
	nl ueid-add --raw ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456
expect_err "ueid: string without NUL" EINVAL \
	nl raw SMC_GEN_NETLINK 10 "1:strn:$(eid NONUL)"
expect_err "ueid: u32 instead of a string" EINVAL \
	nl raw SMC_GEN_NETLINK 10 1:u32:0x41414141
expect_err "ueid: attribute missing" EINVAL nl raw SMC_GEN_NETLINK 10
expect_err "ueid: unknown attribute type" EINVAL \
	nl raw SMC_GEN_NETLINK 10 "1:str:$(eid GOOD)" "2:str:$(eid GOOD)"
tap_check "ueid: 32 characters, unpadded" \
	nl ueid-add --raw ABCDEFGHIJKLMNOPQRSTUVWXYZ012345
tap_check "ueid: digit first, dot and dash inside" nl ueid-add 1A.B-C
tap_check "ueid: 4th entry" nl ueid-add FOURTH
expect_err "ueid: 5th entry" ERANGE nl ueid-add FIFTH
expect_err "ueid: duplicate in a full table" EEXIST nl ueid-add FOURTH
expect_out "ueid: 4 entries in the order added" \
	"ueid=TEST-EID.1 len=32
ueid=ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 len=32
ueid=1A.B-C len=32
ueid=FOURTH len=32
count=4" nl ueid-dump
tap_check "ueid: remove one" nl ueid-del 1A.B-C
expect_err "ueid: remove it again" ENOENT nl ueid-del 1A.B-C
expect_err "ueid: remove without attribute" EINVAL nl raw SMC_GEN_NETLINK 11
expect_out "ueid: dump after remove" \
	"ueid=TEST-EID.1 len=32
ueid=ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 len=32
ueid=FOURTH len=32
count=3" nl ueid-dump
tap_check "ueid: room again after a remove" nl ueid-add FIFTH
tap_check "ueid: flush" nl ueid-flush
expect_out "ueid: empty after flush" "count=0" nl ueid-dump
tap_check "ueid: flush of an empty table" nl ueid-flush

# ---- system EID (none on this machine) ---------------------------------------------
expect_out "seid: dump says n/a, disabled" "seid=n/a enabled=0
count=1" nl seid-dump
expect_err "seid: enable" EOPNOTSUPP nl seid-enable
expect_err "seid: disable" EOPNOTSUPP nl seid-disable
expect_no "sysinfo: no SEID" '^seid=' nl sysinfo

# ---- handshake limitation ------------------------------------------------------------
expect_out "hs limitation: off by default" "enabled=0" nl hs-dump
tap_check "hs limitation: enable" nl hs-enable
expect_out "hs limitation: on" "enabled=1" nl hs-dump
tap_check "hs limitation: enable twice" nl hs-enable
tap_check "hs limitation: disable" nl hs-disable
expect_out "hs limitation: off" "enabled=0" nl hs-dump
expect_err "hs limitation: enable with an attribute" EINVAL \
	nl raw SMC_GEN_NETLINK 17 1:u8:1

# ---- commands and flags --------------------------------------------------------------
expect_err "unknown command 19" EOPNOTSUPP nl raw SMC_GEN_NETLINK 19
expect_err "unknown command 0" EOPNOTSUPP nl raw SMC_GEN_NETLINK 0
expect_err "unknown pnet command 5" EOPNOTSUPP nl raw SMC_PNETID 5
expect_err "dump of a change command" EOPNOTSUPP \
	nl raw SMC_GEN_NETLINK 12 --dump
expect_err "dump command without NLM_F_DUMP" EOPNOTSUPP \
	nl raw SMC_GEN_NETLINK 1
expect_err "attribute on a dump without input" EINVAL \
	nl raw SMC_GEN_NETLINK 9 --dump 1:u8:1

# ---- pnet table ------------------------------------------------------------------------
expect_out "pnet: empty table" "count=0" nl pnet-dump
tap_check "pnet: add NET1 eth0" nl pnet-add NET1 -I eth0
expect_out "pnet: net device entry shows n/a and port 255" \
	"pnetid=NET1 eth=eth0 ib=n/a port=255
count=1" nl pnet-dump
expect_err "pnet: eth0 again, same PNET ID" EEXIST nl pnet-add NET1 -I eth0
expect_err "pnet: eth0 again, other PNET ID" EEXIST nl pnet-add NET3 -I eth0
expect_err "pnet: unknown net device" ENODEV nl pnet-add NET3 -I nosuchdev0
expect_err "pnet: unknown RDMA device" ENODEV nl pnet-add NET3 -D nosuchib0
expect_err "pnet: PNET ID of 17 characters" EINVAL \
	nl pnet-add NET456789ABCDEFGH -I lo
tap_check "pnet: PNET ID of 16 characters" nl pnet-add NET456789ABCDEFG -I lo
expect_err "pnet: PNET ID with '_'" EINVAL nl pnet-add NET_1 -I lo
expect_err "pnet: empty PNET ID" EINVAL nl pnet-add "" -I lo
expect_err "pnet: PNET ID missing" EINVAL nl raw SMC_PNETID 2 2:str:lo
expect_err "pnet: no device" EINVAL nl pnet-add NET3
expect_err "pnet: net device name of 16 characters" EINVAL \
	nl pnet-add NET3 -I abcdefghijklmnop
expect_err "pnet: port as u32" EINVAL \
	nl raw SMC_PNETID 2 1:str:NET3 3:str:rxe0 4:u32:1
expect_err "pnet: port without payload" EINVAL \
	nl raw SMC_PNETID 2 1:str:NET3 3:str:rxe0 4:hex:
expect_err "pnet: PNET ID attribute longer than 16 + NUL" ERANGE \
	nl raw SMC_PNETID 2 1:hex:4e45543100000000000000000000000000000000 2:str:lo
expect_err "pnet: unknown attribute" EINVAL \
	nl raw SMC_PNETID 2 1:str:NET3 2:str:lo 5:u8:1
tap_check "pnet: delete NET456789ABCDEFG" nl pnet-del NET456789ABCDEFG

if [ -n "$have_rxe" ]; then
	tap_check "pnet: add net2 rxe0 port 1 (lower case)" \
		nl pnet-add net2 -D rxe0 -P 1
	expect_line "pnet: RDMA entry, PNET ID upper case" \
		"pnetid=NET2 eth=n/a ib=rxe0 port=1" nl pnet-dump
	expect_err "pnet: rxe0 port 1 again" EEXIST nl pnet-add NET3 -D rxe0 -P 1
	expect_err "pnet: rxe0 port 2" EINVAL nl pnet-add NET3 -D rxe0 -P 2
	expect_err "pnet: rxe0 port 0" EINVAL nl pnet-add NET3 -D rxe0 -P 0
	tap_check "pnet: delete net2" nl pnet-del net2
	tap_check "pnet: port defaults to 1" nl pnet-add NET4 -D rxe0
	expect_line "pnet: default port is 1" "pnetid=NET4 eth=n/a ib=rxe0 port=1" \
		nl pnet-dump
	tap_check "pnet: delete NET4" nl pnet-del NET4
else
	tap_skip "pnet: RDMA device entries" "no rxe0"
fi

expect_out "pnet: show NET1 (GET request)" \
	"pnetid=NET1 eth=eth0 ib=n/a port=255
count=1" nl pnet-show net1
expect_err "pnet: show unknown PNET ID" ENOENT nl pnet-show NOPE
expect_err "pnet: dump filtered by an invalid PNET ID" EINVAL nl pnet-dump NET_1
expect_out "pnet: dump filtered by an unknown PNET ID" "count=0" nl pnet-dump NOPE
expect_err "pnet: GET request without PNET ID" EINVAL nl raw SMC_PNETID 1
expect_err "pnet: delete unknown PNET ID" ENOENT nl pnet-del NOPE

if ip link add smcnl0 type dummy && ip link add smcnl1 type dummy; then
	if [ -n "$have_rxe" ]; then
		tap_check "pnet: add net device and RDMA port at once" \
			nl pnet-add NET5 -I smcnl0 -D rxe0 -P 1
		expect_out "pnet: one entry each" \
			"pnetid=NET5 eth=smcnl0 ib=n/a port=255
pnetid=NET5 eth=n/a ib=rxe0 port=1
count=2" nl pnet-dump NET5
		expect_err "pnet: add fails as a whole" EEXIST \
			nl pnet-add NET6 -I smcnl1 -D rxe0 -P 1
		expect_no "pnet: nothing added by the failed add" \
			'NET6|smcnl1' nl pnet-dump
	else
		tap_check "pnet: add NET5 smcnl0" nl pnet-add NET5 -I smcnl0
	fi
	tap_check "pnet: second net device for NET5" nl pnet-add NET5 -I smcnl1
	expect_line "pnet: filtered dump" "pnetid=NET5 eth=smcnl1 ib=n/a port=255" \
		nl pnet-dump NET5
	expect_no "pnet: filtered dump shows only NET5" 'NET1' nl pnet-dump NET5
	ip link set smcnl1 name smcnl2
	expect_line "pnet: entry follows a rename" \
		"pnetid=NET5 eth=smcnl2 ib=n/a port=255" nl pnet-dump
	ip link del smcnl0
	expect_no "pnet: entry gone with its net device" 'smcnl0' nl pnet-dump
	[ -n "$have_rxe" ] && expect_line "pnet: RDMA entry of NET5 stays" \
		"pnetid=NET5 eth=n/a ib=rxe0 port=1" nl pnet-dump
	tap_check "pnet: delete NET5 (all its entries)" nl pnet-del NET5
	expect_no "pnet: NET5 gone" 'NET5' nl pnet-dump
	expect_err "pnet: delete NET5 again" ENOENT nl pnet-del NET5
	tap_check "pnet: add NET7 smcnl2" nl pnet-add NET7 -I smcnl2
else
	tap_skip "pnet: dummy net devices" "cannot create dummy devices"
fi

# ---- permissions --------------------------------------------------------------------------
for c in sysinfo stats fback-stats ueid-dump seid-dump hs-dump pnet-dump \
	 lgr-smcr link-smcr dev-smcr; do
	tap_check "nobody: $c allowed" nl_nobody "$c"
done
expect_err "nobody: ueid-add" EPERM nl_nobody ueid-add NOBODY
expect_err "nobody: ueid-del" EPERM nl_nobody ueid-del NOBODY
expect_err "nobody: ueid-flush" EPERM nl_nobody ueid-flush
expect_err "nobody: seid-enable" EPERM nl_nobody seid-enable
expect_err "nobody: seid-disable" EPERM nl_nobody seid-disable
expect_err "nobody: hs-enable" EPERM nl_nobody hs-enable
expect_err "nobody: hs-disable" EPERM nl_nobody hs-disable
expect_err "nobody: pnet-add" EPERM nl_nobody pnet-add NOBODY -I lo
expect_err "nobody: pnet-del" EPERM nl_nobody pnet-del NET1
expect_err "nobody: pnet-flush" EPERM nl_nobody pnet-flush
expect_line "nobody: pnet table unchanged" \
	"pnetid=NET1 eth=eth0 ib=n/a port=255" nl pnet-dump
# CAP_NET_ADMIN of the user namespace owning the network namespace is enough
if setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	unshare -Urn true 2>/dev/null; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		unshare -Urn sh -c "python3 -S '$NLCOPY' ueid-add USERNS &&
			python3 -S '$NLCOPY' pnet-add USERNS -I lo &&
			python3 -S '$NLCOPY' ueid-dump &&
			python3 -S '$NLCOPY' pnet-dump" 2>&1)
	grep -qx "ueid=USERNS len=32" <<<"$out" &&
	grep -qx "pnetid=USERNS eth=lo ib=n/a port=255" <<<"$out" &&
		tap_ok "nobody: changes its own user+net namespace's tables" ||
		{ tap_fail "nobody: changes its own user+net namespace's tables"
		  echo "$out" | tap_diag; }
	expect_no "userns changes stay there" 'USERNS' nl ueid-dump
else
	tap_skip "nobody in its own user namespace" "unshare -U not permitted"
fi

# ---- network namespaces ---------------------------------------------------------------------
if ip netns add "$NS"; then
	tap_check "netns: add UEID in init ns" nl ueid-add INIT-NS
	nl hs-enable
	expect_out "netns: own empty UEID table" "count=0" nl_ns ueid-dump
	expect_out "netns: own empty pnet table" "count=0" nl_ns pnet-dump
	expect_out "netns: own handshake limitation" "enabled=0" nl_ns hs-dump
	expect_out "netns: own fallback statistics" "count=0
srv_cnt=0
clnt_cnt=0" nl_ns fback-stats
	tap_check "netns: add UEID" nl_ns ueid-add OTHER-NS
	expect_out "netns: sees only its UEID" "ueid=OTHER-NS len=32
count=1" nl_ns ueid-dump
	expect_no "netns: init ns does not see it" 'OTHER-NS' nl ueid-dump
	tap_check "netns: pnet add lo" nl_ns pnet-add NET9 -I lo
	expect_err "netns: eth0 is not in this namespace" ENODEV \
		nl_ns pnet-add NET9 -I eth0
	[ -n "$have_rxe" ] && tap_check "netns: RDMA device visible (shared mode)" \
		nl_ns pnet-add NET9 -D rxe0 -P 1
	expect_no "netns: init ns pnet table unchanged" 'NET9' nl pnet-dump
	if ip link show smcnl2 >/dev/null 2>&1; then
		ip link set smcnl2 netns "$NS"
		expect_no "netns: entry dropped when its device leaves" 'smcnl2' \
			nl pnet-dump
		expect_no "netns: entry does not follow the device" 'smcnl2' \
			nl_ns pnet-dump
	fi
	ip netns del "$NS"
	sleep 1	# netns cleanup is asynchronous
	ip netns add "$NS"
	expect_out "netns: new namespace starts with empty tables" \
		"count=0
count=0
enabled=0" sh -c "ip netns exec $NS python3 -S '$NLCOPY' ueid-dump &&
			ip netns exec $NS python3 -S '$NLCOPY' pnet-dump &&
			ip netns exec $NS python3 -S '$NLCOPY' hs-dump"
	ip netns del "$NS"
	expect_line "netns: init ns keeps its UEID" "ueid=INIT-NS len=32" \
		nl ueid-dump
	expect_out "netns: init ns keeps its handshake limitation" "enabled=1" \
		nl hs-dump
	nl hs-disable
else
	tap_skip "network namespaces" "ip netns add failed"
fi

# ---- flush ----------------------------------------------------------------------------------
tap_check "pnet: flush" nl pnet-flush
expect_out "pnet: empty after flush" "count=0" nl pnet-dump
tap_check "pnet: flush of an empty table" nl pnet-flush
nl ueid-flush

tap_done
