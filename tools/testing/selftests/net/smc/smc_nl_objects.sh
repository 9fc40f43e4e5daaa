#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SMC_GEN_NETLINK object dumps against what really exists: while two SMC-R
# connections over the loopback link are open, the link group, link and
# device dumps must show them (both roles, their GIDs, the connection
# count, eth0 behind rxe0); another namespace sees no group; when the
# connections are gone and the groups freed, the dumps are empty again.
#
#   +----------------------------- guest ------------------------------+
#   |  smc_xfer -P (2 conns) --\                /-- smc_xfer -s        |
#   |               192.0.2.1 (eth0) --> rxe0 loopback (SMC-R)          |
#   |  smc_nl.py lgr-smcr | link-smcr | dev-smcr   (init netns, "nlo")  |
#   +-------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-NLOBJ-TEST
PORT=29800
NS=smc-nlo
NL="python3 $SMC_TESTDIR/smc_nl.py"

cleanup() {
	kill "$spid" "$cpid" 2>/dev/null
	ip netns del $NS 2>/dev/null
	$NL ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# field KEY: the values of KEY=... in the dump lines on stdin
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
rdma link 2>/dev/null | grep -q ACTIVE || ksft_skip_all "no active RDMA device"
$NL ueid-add "$EID" || ksft_skip_all "cannot add a user EID"
ifindex=$(cat /sys/class/net/eth0/ifindex)
gid=0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' ${ADDR//./ })

echo 1 >"$SMC_DBG/flush_idle"
tap_check "no link group before" bash -c "$NL lgr-smcr | grep -qx count=0"

"$SMC_XFER" -s -q -f smc -p $PORT -c 2 -P -t 300 -H 240 &
spid=$!
smc_wait_port $PORT 10
"$SMC_XFER" -q -f smc -p $PORT -n 64K -c 2 -P -t 300 -H 240 "$ADDR" &
cpid=$!
smc_wait_objs_min conn 4 60
sleep 1

lgrs=$($NL lgr-smcr)
links=$($NL link-smcr)
devs=$($NL dev-smcr)
echo "$lgrs$(printf '\n')$links$(printf '\n')$devs" | tap_diag

tap_check "two link groups (one per role)" bash -c "grep -qx count=2 <<<'$lgrs'"
tap_check "roles client and server" \
	[ "$(field lgr.role <<<"$lgrs" | sort | tr '\n' ' ')" = "0 1 " ]
tap_check "each group has both connections of its side" \
	[ "$(field lgr.conns_num <<<"$lgrs" | tr '\n' ' ')" = "2 2 " ]
tap_check "type SINGLE, SMC-R v2" \
	[ "$(field lgr.type <<<"$lgrs" | sort -u)$(field lgr.v2_common.ver <<<"$lgrs" | sort -u)" = 12 ]
tap_check "negotiated EID" \
	[ "$(field lgr.v2_common.neg_eid <<<"$lgrs" | sort -u)" = "$EID" ]
tap_check "peer host name is this guest's" \
	[ "$(field lgr.v2_common.peer_host <<<"$lgrs" | sort -u)" = "$(hostname)" ]
tap_check "direct route (v2 without gateway)" \
	[ "$(field lgr.v2.direct <<<"$lgrs" | sort -u)" = 1 ]
tap_check "distinct group IDs" \
	[ "$(field lgr.id <<<"$lgrs" | sort -u | wc -l)" = 2 ]

tap_check "link dump: a group message and a link message per group" \
	bash -c "grep -qx count=4 <<<'$links'"
tap_check "links active on rxe0 port 1" \
	[ "$(field link.state <<<"$links" | sort -u)/$(field link.ib_dev <<<"$links" | sort -u)/$(field link.ib_port <<<"$links" | sort -u)" = 3/rxe0/1 ]
tap_check "link GIDs are $ADDR's RoCE v2 GID, both ends" \
	[ "$(field link.gid <<<"$links" | sort -u)" = "$gid" ]
tap_check "peer GIDs too" \
	[ "$(field link.peer_gid <<<"$links" | sort -u)" = "$gid" ]
tap_check "the links' net device is eth0 (ifindex $ifindex)" \
	[ "$(field link.net_dev <<<"$links" | sort -u)" = "$ifindex" ]
tap_check "link connection counts" \
	[ "$(field link.conn_cnt <<<"$links" | tr '\n' ' ')" = "2 2 " ]
tap_check "local and peer link UIDs cross-match" \
	[ "$(field link.uid <<<"$links" | sort | tr '\n' ' ')" = "$(field link.peer_uid <<<"$links" | sort | tr '\n' ' ')" ]

tap_check "device dump: rxe0" bash -c "grep -q 'dev.ib_name=rxe0' <<<'$devs'"
tap_check "rxe0 port 1: active, eth0, 2 links, critical" \
	[ "$(field dev.port.state <<<"$devs")/$(field dev.port.netdev <<<"$devs")/$(field dev.port.lnk_cnt <<<"$devs")/$(field dev.is_crit <<<"$devs")" = "1/$ifindex/2/1" ]
tap_check "SMC-D dumps answer empty" \
	bash -c "$NL lgr-smcd | grep -qx count=0 && $NL dev-smcd | grep -qx count=0"

ip netns add $NS
tap_check "another namespace sees no link group" \
	bash -c "ip netns exec $NS $NL lgr-smcr | grep -qx count=0 &&
		 ip netns exec $NS $NL link-smcr | grep -qx count=0"

kill "$spid" "$cpid" 2>/dev/null
wait "$spid" "$cpid" 2>/dev/null
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "the dumped connections"
tap_check "no link group after" bash -c "$NL lgr-smcr | grep -qx count=0"
tap_check "rxe0 has no link any more" \
	[ "$($NL dev-smcr | field dev.port.lnk_cnt)/$($NL dev-smcr | field dev.is_crit)" = 0/0 ]
tap_done
