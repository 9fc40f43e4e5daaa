#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Dump continuation with many objects: N RDMA devices (a dummy interface
# with an rxe device each) carry 2N link groups at once, each with K open
# connections. A dump that does not fit into one skb continues over several
# recvmsg() calls; the link group, link and device dumps (smc_nl.py with a
# 4 KiB receive buffer, so 4 KiB skbs; the smc CLI, whose 64 KiB buffer
# gets 32 KiB skbs) and the socket diag dumps (smc_diag.py with 4 KiB,
# `smc socket show`) must hold every object exactly once: compared as lists
# against debugfs, the devices created and the TCP connections `ss` sees.
#
#   +------------------------------- guest --------------------------------+
#   |  smc_xfer -s -P -p 29950 (all addresses)                             |
#   |  smc_xfer -c K 10.77.1.1 --> 10.77.1.1/24 dnlm1 <-- rxe-...-1 (loop) |
#   |  smc_xfer -c K 10.77.2.1 --> 10.77.2.1/24 dnlm2 <-- rxe-...-2 (loop) |
#   |       ...                        ...                  ...            |
#   |  smc_xfer -c K 10.77.N.1 --> 10.77.N.1/24 dnlmN <-- rxe-...-N (loop) |
#   |  (rxe0 on eth0 stays, unused)                                        |
#   |  smc_nl.py [-b 4096] lgr-smcr | link-smcr | dev-smcr, smc -j ...     |
#   |  smc_diag.py [-b 4096] -e lgrinfo, smc -j socket show                |
#   +----------------------------------------------------------------------+
#
# A connection from 10.77.i.1 to itself leaves through lo; the module takes
# the RDMA device of the interface owning the source address (the rxe device
# on dnlm<i>, RoCE v2 GID ::ffff:10.77.i.1), whose loopback carries it: one
# client and one server link group per device.

source "$(dirname "$0")/smc_lib.sh"

# N >= 27: the device dump (N long names) must not fit into one 4 KiB skb
N=${SMC_NL_MANY_DEVS:-28}	# RDMA devices of our own
K=${SMC_NL_MANY_CONNS:-2}	# connections held per device
PORT=29950
EID=SMC-NL-MANY-OBJECTS-DUMP-TEST-32	# 32 chars: longest messages
SMALL=4096	# receive buffer: the smallest skb a dump can use
NL="python3 -S $SMC_TESTDIR/smc_nl.py"
DIAGPY="python3 -S $SMC_TESTDIR/smc_diag.py"
SMC=${SMC_CLI:-$SMC_SRC/tools/smc/smc}
DIAG_KO=${SMC_DIAG_KO:-$(dirname "$SMC_KO")/smc_diag.ko}
TMP=
loaded_diag=
made=0		# devices created (cleanup removes 1..made)
pids=

# the RDMA device on dnlm<i>: long names (61 of at most 63 characters)
# make bigger messages
ibname() { echo "rxe-smc-nl-many-long-device-names-for-bigger-dump-messages-$1"; }

cleanup() {
	local i
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
	for i in $(seq "$made"); do
		rdma link delete "$(ibname $i)" 2>/dev/null
		ip link del dnlm$i 2>/dev/null
	done
	$NL ueid-del "$EID" >/dev/null 2>&1
	[ -n "$loaded_diag" ] && rmmod smc_diag 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT

gid_of() { # 10.77.i.1 -> its IPv4-mapped GID as the dumps print it
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }
}

# same NAME EXPECTED GOT: a result that the two files hold the same lines
# the same number of times (order aside): nothing lost, nothing repeated
same() {
	local d
	sort "$2" >"$TMP/same.exp"
	sort "$3" >"$TMP/same.got"
	d=$(diff "$TMP/same.exp" "$TMP/same.got")
	if [ -z "$d" ] && [ -s "$2" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		echo "expected $(wc -l <"$2"), got $(wc -l <"$3") lines; twice: $(uniq -d "$TMP/same.got" | head -n 3 | tr '\n' ' ')" | tap_diag
		head -n 12 <<<"$d" | tap_diag
	fi
}

# kv FIELD...: per key=value line on stdin that has the first FIELD, the
# values of the FIELDs
kv() {
	awk -v f="$*" 'BEGIN { n = split(f, k, " ") }
		{ delete v
		  for (i = 1; i <= NF; i++) {
			e = index($i, "="); v[substr($i, 1, e - 1)] = substr($i, e + 1)
		  }
		  if (!(k[1] in v)) next
		  s = v[k[1]]
		  for (i = 2; i <= n; i++) s = s " " v[k[i]]
		  print s }'
}

# links_of: link dump lines -> "LGR_ID IBDEV GID PEER_GID CONNS" per link
# (the group of a link: the group message before it)
links_of() {
	awk '{ delete v
	       for (i = 1; i <= NF; i++) {
		       e = index($i, "="); v[substr($i, 1, e - 1)] = substr($i, e + 1)
	       } }
	     "lgr.id" in v { g = v["lgr.id"] }
	     "link.id" in v { print g, v["link.ib_dev"], v["link.gid"],
			      v["link.peer_gid"], v["link.conn_cnt"] }'
}

# conns_sum: connections of all link groups (debugfs)
conns_sum() {
	awk '$1 == "lgr" && $6 == "conns" { n += $7 } END { print n + 0 }' \
		"$SMC_DBG/lgrs"
}

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
modprobe -q rdma_rxe 2>/dev/null
modprobe -q dummy numdummies=0 2>/dev/null
ip link add dnlm0 type dummy 2>/dev/null && ip link del dnlm0 ||
	ksft_skip_all "no dummy interfaces"
[ -x "$SMC" ] || ksft_skip_all "no $SMC (make -C tools/smc)"
if [ ! -d /sys/module/smc_diag ]; then
	insmod "$DIAG_KO" || ksft_skip_all "cannot load $DIAG_KO"
	loaded_diag=1
fi
$NL ueid-add "$EID" || ksft_skip_all "cannot add a user EID"
TMP=$(mktemp -d /tmp/smc_nl_many.XXXXXX)

echo 1 >"$SMC_DBG/flush_idle"
sleep 0.5
tap_check "no link group before" bash -c "$NL lgr-smcr | grep -qx count=0"
"$SMC" -j device show >"$TMP/cli.dev.base"

# ---- N dummy interfaces with an rxe device each -------------------------
t0=$SECONDS
made=$N
for i in $(seq "$N"); do
	echo "link add dnlm$i type dummy"
	echo "addr add 10.77.$i.1/24 dev dnlm$i"
	echo "link set dnlm$i up"
done >"$TMP/ip.batch"
for i in $(seq "$N"); do
	echo "link add $(ibname $i) type rxe netdev dnlm$i"
done >"$TMP/rdma.batch"
ip -b "$TMP/ip.batch" && rdma -b "$TMP/rdma.batch"
# each port ACTIVE with the address's RoCE v2 GID
for t in $(seq 60); do
	ready=0
	for i in $(seq "$N"); do
		d=/sys/class/infiniband/$(ibname $i)/ports/1
		grep -qs ACTIVE $d/state &&
		grep -qs "$(gid_of 10.77.$i.1)" $d/gids/* &&
		ready=$((ready + 1))
	done
	[ $ready = "$N" ] && break
	sleep 0.5
done
tap_check "$N rxe devices on dummy interfaces, active with their GID ($ready ready, $((SECONDS - t0)) s)" \
	[ "$ready" = "$N" ]
[ "$ready" = "$N" ] || exit $KSFT_FAIL

# ---- K connections per device, held open ---------------------------------
# One connection after the other: the next starts when the previous one
# joined its link groups on both sides (a first contact needs its link up
# first). If one fails (a handshake timing out under a starved TCG guest),
# the groups it left are flushed and it is retried once: the retries are
# counted in the check's name. SMC_NL_MANY_BURST=1 starts them all at once.
# connect I: one held connection from 10.77.I.1 to itself, in the
# background; true when both of its ends joined their groups within 30 s
connect() {
	local target=$(( $(conns_sum) + 2 )) t1=$SECONDS pid
	"$SMC_XFER" -q -f smc -p $PORT -n 16K -H 600 -t 300 10.77.$1.1 &
	pid=$!
	pids="$pids $pid"
	[ -n "$SMC_NL_MANY_BURST" ] && return 0
	while [ "$(conns_sum)" -lt $target ]; do
		kill -0 $pid 2>/dev/null && [ $((SECONDS - t1)) -lt 30 ] ||
			return 1
		sleep 0.1
	done
}
t0=$SECONDS
conns0=$(smc_obj_created conn)
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
# (accepts more than needed: a failed attempt may have been accepted too)
"$SMC_XFER" -s -q -f smc -p $PORT -c $((2 * N * K)) -P -H 600 -t 600 &
pids="$pids $!"
smc_wait_port $PORT 10
retries=0
for i in $(seq "$N"); do
	for c in $(seq "$K"); do
		connect $i && continue
		echo "# connection $c over dnlm$i failed ($((SECONDS - t0)) s); retried"
		tap_diag <"$SMC_DBG/lgrs"
		retries=$((retries + 1))
		echo 1 >"$SMC_DBG/flush_idle"
		sleep 1
		connect $i
	done
done
want=$((2 * N * K))
while [ "$(conns_sum)" -lt $want ] && [ $((SECONDS - t0)) -lt 90 ]; do
	sleep 0.5
done
sleep 1
up=$(grep -c "conns $K .*link active" "$SMC_DBG/lgrs")
tap_check "$((N * K)) connections over $((2 * N)) link groups up ($up, $((SECONDS - t0)) s, $retries retried)" \
	[ "$up/$(awk '$1 == "lgr"' "$SMC_DBG/lgrs" | wc -l)" = $((2 * N))/$((2 * N)) ]
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
tap_check "all SMC-R, no fallback ($((fb - fb0)) fallbacks)" [ "$fb" = "$fb0" ]
if [ "$fb" != "$fb0" ] || [ "$up" != $((2 * N)) ]; then
	$NL fback-stats | tap_diag
	tap_diag <"$SMC_DBG/lgrs"
fi

# ---- the expected objects ------------------------------------------------
awk '$1 == "lgr" { print $2 }' "$SMC_DBG/lgrs" >"$TMP/lgr.exp"
tap_check "debugfs: $((2 * N)) link groups" \
	[ "$(sort -u "$TMP/lgr.exp" | wc -l)" = $((2 * N)) ]
for i in $(seq "$N"); do
	g=$(gid_of 10.77.$i.1)
	echo "$(ibname $i) $g $g $K" >>"$TMP/link.exp"
	echo "$(ibname $i) $g $g $K" >>"$TMP/link.exp"
	echo "0 $K $EID" >>"$TMP/lgrrow.exp"
	echo "1 $K $EID" >>"$TMP/lgrrow.exp"
	echo "$(ibname $i) 2 $(cat /sys/class/net/dnlm$i/ifindex)" >>"$TMP/dev.exp"
done
# the sockets: one per TCP connection of the port (its clcsock), on the
# device of its address
ss -Htn | awk -v p=":$PORT" '$1 == "ESTAB" && ($4 ~ p "$" || $5 ~ p "$") {
	split($4, a, "."); print $4, $5, a[3] }' |
	while read -r l p i; do echo "$l $p $(ibname $i)"; done >"$TMP/sock.exp"
tap_check "ss: $want TCP connections under the SMC ones" \
	[ "$(wc -l <"$TMP/sock.exp")" = $want ]

# ---- the smc CLI (32 KiB skbs) -------------------------------------------
for o in linkgroup link device socket; do
	"$SMC" -j $o show >"$TMP/cli.$o" || echo "# smc -j $o show failed"
done
python3 -S - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
def rows(name):
    try:
        with open("%s/cli.%s" % (d, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("# cli.%s: %s" % (name, e))
        return []
def port1(o):
    return [p for p in o["ports"] if p["port"] == 1][0]
out = {
    "lgr": ["%s" % o["id"] for o in rows("linkgroup")],
    "link": ["%s %s %s %s %s" % (o["lgr_id"], o["ibdev"], o["gid"],
                                 o["peer_gid"], o["conns"])
             for o in rows("link")],
    "dev": ["%s %s %s" % (o["ibdev"], port1(o)["links"],
                          port1(o)["netdev_ifindex"])
            for o in rows("device")],
    "devbase": ["%s %s %s" % (o["ibdev"], port1(o)["links"],
                              port1(o)["netdev_ifindex"])
                for o in rows("dev.base")],
    "sock": ["%s:%s %s:%s %s" % (o["local_addr"], o["local_port"],
                                 o["peer_addr"], o["peer_port"],
                                 (o.get("link") or {}).get("ibdev", "-"))
             for o in rows("socket")],
    "ino": ["%s" % o["inode"] for o in rows("socket")],
}
for k, v in out.items():
    with open("%s/cli.%s.rows" % (d, k), "w") as f:
        f.write("".join(x + "\n" for x in v))
PY
cat "$TMP/cli.devbase.rows" >>"$TMP/dev.exp"
same "smc -j linkgroup show: each group once" "$TMP/lgr.exp" "$TMP/cli.lgr.rows"
cut -d' ' -f1 "$TMP/cli.link.rows" >"$TMP/cli.link.ids"
same "smc -j link show: one link per group" "$TMP/lgr.exp" "$TMP/cli.link.ids"
cut -d' ' -f2- "$TMP/cli.link.rows" >"$TMP/cli.link.devs"
same "smc -j link show: 2 links per device, GIDs, conns" \
	"$TMP/link.exp" "$TMP/cli.link.devs"
same "smc -j device show: $(wc -l <"$TMP/dev.exp") devices, each once, 2 links on ours" \
	"$TMP/dev.exp" "$TMP/cli.dev.rows"
grep "^10\.77\." "$TMP/cli.sock.rows" >"$TMP/cli.sock.got"
same "smc -j socket show: each of $want sockets once, on its device" \
	"$TMP/sock.exp" "$TMP/cli.sock.got"
tap_check "smc -j socket show: the listener once, no inode twice" \
	[ "$(grep -c "^0.0.0.0:$PORT " "$TMP/cli.sock.rows")/$(sort "$TMP/cli.ino.rows" | uniq -d | wc -l)" = 1/0 ]

# ---- smc_nl.py with 4 KiB skbs -------------------------------------------
$NL -b $SMALL lgr-smcr >"$TMP/lgr.nl"
$NL -b $SMALL link-smcr >"$TMP/link.nl"
$NL -b $SMALL dev-smcr >"$TMP/dev.nl"
recvs=$(sed -n 's/^recvs=//p' "$TMP/lgr.nl" "$TMP/link.nl" "$TMP/dev.nl" | tr '\n' ' ')
kv lgr.id <"$TMP/lgr.nl" >"$TMP/nl.lgr"
same "smc_nl.py lgr-smcr: each group once" "$TMP/lgr.exp" "$TMP/nl.lgr"
kv lgr.role lgr.conns_num lgr.v2_common.neg_eid <"$TMP/lgr.nl" >"$TMP/nl.lgrrow"
same "smc_nl.py lgr-smcr: $N per role, $K conns each, EID" \
	"$TMP/lgrrow.exp" "$TMP/nl.lgrrow"
kv lgr.id <"$TMP/link.nl" >"$TMP/nl.link.lgrs"
same "smc_nl.py link-smcr: each group message once" \
	"$TMP/lgr.exp" "$TMP/nl.link.lgrs"
links_of <"$TMP/link.nl" >"$TMP/nl.link"
cut -d' ' -f1 "$TMP/nl.link" >"$TMP/nl.link.ids"
same "smc_nl.py link-smcr: one link per group, after it" \
	"$TMP/lgr.exp" "$TMP/nl.link.ids"
cut -d' ' -f2- "$TMP/nl.link" >"$TMP/nl.link.devs"
same "smc_nl.py link-smcr: 2 links per device, GIDs, conns" \
	"$TMP/link.exp" "$TMP/nl.link.devs"
kv dev.ib_name dev.port.lnk_cnt dev.port.netdev <"$TMP/dev.nl" >"$TMP/nl.dev"
same "smc_nl.py dev-smcr: each device once" "$TMP/dev.exp" "$TMP/nl.dev"
tap_check "smc_nl.py: count= lines agree" \
	[ "$(sed -n 's/^count=//p' "$TMP/lgr.nl" "$TMP/link.nl" "$TMP/dev.nl" | tr '\n' ' ')" = \
	  "$((2 * N)) $((4 * N)) $(wc -l <"$TMP/dev.exp") " ]
tap_check "smc_nl.py: every dump continued over several recvs ($recvs)" \
	[ "$(echo $recvs | tr ' ' '\n' | awk '$1 >= 2' | wc -l)" = 3 ]

# ---- smc_diag.py with 4 KiB skbs -----------------------------------------
$DIAGPY -b $SMALL -e lgrinfo >"$TMP/diag"
r=$(sed -n 's/^count=.* recvs=//p' "$TMP/diag")
kv src dst ib <"$TMP/diag" | grep "^10\.77\." >"$TMP/diag.got"
same "smc_diag.py: each of $want sockets once, on its device" \
	"$TMP/sock.exp" "$TMP/diag.got"
tap_check "smc_diag.py: the listener once, no inode twice, as many as the CLI" \
	[ "$(kv src dst <"$TMP/diag" | grep -c "^0.0.0.0:$PORT ")/$(kv ino <"$TMP/diag" | sort | uniq -d | wc -l)/$(sed -n 's/^count=\([0-9]*\) .*/\1/p' "$TMP/diag")" = \
	  "1/0/$(wc -l <"$TMP/cli.ino.rows")" ]
tap_check "smc_diag.py: continued over several recvs ($r)" [ "${r:-0}" -ge 5 ]

# ---- teardown ------------------------------------------------------------
kill $pids 2>/dev/null
wait $pids 2>/dev/null
pids=
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "$want connections over $N devices" 30
tap_check "no link group after" bash -c "$NL lgr-smcr | grep -qx count=0"
t0=$SECONDS
for i in $(seq "$made"); do
	echo "link delete $(ibname $i)"
done >"$TMP/rdma.batch"
rdma -b "$TMP/rdma.batch"
for i in $(seq "$made"); do
	echo "link del dnlm$i"
done >"$TMP/ip.batch"
ip -b "$TMP/ip.batch"
made=0
"$SMC" -j device show >"$TMP/cli.device"
python3 -S -c '
import json, sys
for o in json.load(open(sys.argv[1])):
    p = [x for x in o["ports"] if x["port"] == 1][0]
    print(o["ibdev"], p["links"], p["netdev_ifindex"])' "$TMP/cli.device" \
	>"$TMP/dev.after"
same "devices removed ($((SECONDS - t0)) s): the device dump as before" \
	"$TMP/cli.devbase.rows" "$TMP/dev.after"
tap_done
