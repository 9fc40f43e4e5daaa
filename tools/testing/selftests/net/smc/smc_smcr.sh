#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SMC-R between two hosts running this module: checksummed transfers of 1 B
# to 64 MiB both ways, 100 sequential connections over one link group, 32
# concurrent ones, a slow reader; every one over SMC-R (no fallback, the
# RDMA device's packet counters move), everything freed afterwards. Guest 0
# keeps its link alive with TEST_LINK after 2 s without a receive
# (net.smc.smcr_testlink_time=2, 30 by default) throughout: none may go
# unanswered, and the slow reader's silence draws one.
#
#   +---- guest 0 ----+  eth0 + rxe0 (RoCE v2)   +---- guest 1 ----+
#   | 192.0.2.1       |<------------------------>| 192.0.2.2       |
#   | smc_xfer client |  UEID SMC-PAIR-TEST      | smc_xfer -s     |
#   +-----------------+                          +-----------------+
#
# Usage: smc_smcr.sh GUEST   (0 runs the clients, 1 the servers)

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_smcr[$guest]"
PEER=192.0.2.2
EID=SMC-PAIR-TEST

cleanup() {
	[ "${tl_set:-}" ] && echo 30 > /proc/sys/net/smc/smcr_testlink_time
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
rdma link 2>/dev/null | grep -q "rxe0.*ACTIVE" || ksft_skip_all "no active rxe0"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"

# the slow reader's server sleeps SLOW s before it reads: the client's
# link, its data stopped at the peer's full window (512 KiB), hears nothing
# and probes after smcr_testlink_time (2 s here). A debug kernel takes
# seconds to fill that window: check-debug sets SMC_SMCR_SLOW to 8.
SLOW=${SMC_SMCR_SLOW:-3}
# name port bytes conns client-opts server-opts
# (par_32: 32 handshakes at once on one link group, each with a CONFIRM_RKEY
# round trip, while the first connections' RDMA writes fill the link)
CASES="size_1B 27001 1 1 - -
size_1000B 27002 1000 1 - -
size_64K 27003 64K 1 - -
size_1M 27004 1M 1 - -
size_16M 27005 16M 1 - -
size_64M 27006 64M 1 - -
seq_100 27007 4K 100 - -
par_32 27008 256K 32 -P -P
slow_reader 27009 4M 1 - -S$SLOW"

# A debug kernel (KASAN, lockdep, kmemleak under TCG) moves data about ten
# times slower: SMC_SMCR_SKIP names cases to leave out (check-debug: the
# 64 MiB one, whose paths the 16 MiB case covers) and SMC_SMCR_TIMEOUT
# bounds each client run (default 300 s).
if [ -n "${SMC_SMCR_SKIP:-}" ]; then
	CASES=$(awk -v skip=" $SMC_SMCR_SKIP " 'index(skip, " " $1 " ") == 0' <<<"$CASES")
	echo "# left out: $SMC_SMCR_SKIP"
fi
CLIENT_T=${SMC_SMCR_TIMEOUT:-300}

if [ "$guest" = 0 ]; then
	# a link takes the keepalive time as it comes up: no old group
	echo 2 > /proc/sys/net/smc/smcr_testlink_time && tl_set=1
	echo 1 > "$SMC_DBG/flush_idle"
	read -r tl0 tle0 tll0 <<<"$(smc_llc test_link test_link_early test_link_lost)"
fi
fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
read -r aln0 alr0 <<<"$(smc_llc add_link_none add_link_rej)"
ref0=$(smc_counters smcr_links refused)
conn0=$(smc_obj_created conn)
pkts0=$(smc_rxe_pkts)
declare -A pid

if [ "$guest" = 1 ]; then
	# servers run side by side for the whole client sequence: -t bounds it all
	while read -r name port bytes conns copt sopt; do
		[ "$sopt" = - ] && sopt=
		"$SMC_XFER" -s -q -f smc -p "$port" -c "$conns" \
			-t $((CLIENT_T * 5)) $sopt &
		pid[$name]=$!
	done <<<"$CASES"
	smc_barrier servers 60
	# a client case that failed leaves its server waiting for connections
	# that never come: once the clients are through, the servers get 30 s
	# to finish and are then stopped (and reported failed)
	(
		smc_barrier clients $((CLIENT_T * 5)) >/dev/null
		sleep 30
		kill "${pid[@]}" 2>/dev/null
	) &
	watcher=$!
	while read -r name port bytes conns copt sopt; do
		if wait "${pid[$name]}"; then
			tap_ok "$name: server verified $conns connection(s)"
		else
			tap_fail "$name: server verified $conns connection(s)"
		fi
	done <<<"$CASES"
	kill $watcher 2>/dev/null
	wait $watcher 2>/dev/null
else
	smc_barrier servers 60
	while read -r name port bytes conns copt sopt; do
		[ "$copt" = - ] && copt=
		lgr0=$(smc_obj_created lgr)
		buf0=$(smc_obj_created buf)
		read -r crk0 drk0 tl1 <<<"$(smc_llc confirm_rkey delete_rkey test_link)"
		tap_check "$name: $conns x $bytes each way, verified" \
			"$SMC_XFER" -q -f smc -p "$port" -n "$bytes" \
			-c "$conns" -t "$CLIENT_T" $copt "$PEER"
		if [ "$name" = slow_reader ]; then
			# the server is silent for SLOW s: a TEST_LINK after 2
			tl=$(( $(smc_llc test_link) - tl1 ))
			[ "$tl" -gt 0 ] &&
				tap_ok "slow_reader: $SLOW s of silence drew a TEST_LINK ($tl)" ||
				tap_fail "slow_reader: $SLOW s of silence drew a TEST_LINK"
		fi
		if [ "$name" = seq_100 ]; then
			[ "$(smc_obj_created lgr)" = "$lgr0" ] &&
				tap_ok "seq_100: all reused the existing link group" ||
				tap_fail "seq_100: all reused the existing link group"
			# an RMB reused from the pool is still known to the
			# peer: CONFIRM_RKEY only for new ones, no DELETE_RKEY
			read -r crk drk <<<"$(smc_llc confirm_rkey delete_rkey)"
			crk=$((crk - crk0)) drk=$((drk - drk0))
			bufs=$(( $(smc_obj_created buf) - buf0 ))
			[ "$crk" -le "$bufs" ] && [ "$drk" = 0 ] &&
				tap_ok "seq_100: $crk CONFIRM_RKEY for $bufs new buffers, no DELETE_RKEY" ||
				tap_fail "seq_100: CONFIRM_RKEY only for new RMBs, no DELETE_RKEY (got $crk for $bufs new buffers, $drk DELETE_RKEY)"
		fi
	done <<<"$CASES"
	smc_barrier clients 60
fi
smc_barrier done 600

# the client side counts the connections: one uses SMC-R at both ends or at
# neither
if [ "$guest" = 1 ]; then
	is_server=1
fi
want=$(awk '{ n += $4 } END { print n }' <<<"$CASES")
conns=$(( $(smc_obj_created conn) - conn0 ))
fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
pkts=$(( $(smc_rxe_pkts) - pkts0 ))
echo "# $conns SMC-R connections, $fb fallbacks, $pkts RoCE packets"
if [ -n "${is_server:-}" ]; then
	:
elif [ "$conns" = "$want" ]; then
	tap_ok "all $want connections used SMC-R"
else
	tap_fail "all $want connections used SMC-R (got $conns)"
fi
if [ "$fb" = 0 ]; then
	tap_ok "no fallback to TCP"
else
	tap_fail "no fallback to TCP ($fb)"
	grep '^fallback_reason\|hs_err' "$SMC_DBG/stats" | tap_diag
fi
# 2 x (64+16+...) MiB went over the RDMA device: far more than 30000 packets
[ "$pkts" -gt 30000 ] && tap_ok "the RDMA device carried the data ($pkts packets)" ||
	tap_fail "the RDMA device carried the data ($pkts packets)"
# both ends run this module: SMC v2.1 agreed (release 1, 255 connections
# and, as this module builds one link per group, 1 link)
smc_lgrs_all "v2_common.rel=1 .*v2.max_conns=255 .*v2.max_links=2"
tap_check "v2.1 agreed by every link group" [ $? = 0 ]
# a new group's server, with one port, offers a second link on it (for a
# client with two); the client, with one port too, rejects the offer at
# once: no path of its own (no client waits 2 s for an ADD_LINK)
read -r aln alr <<<"$(smc_llc add_link_none add_link_rej)"
ref=$(smc_counters smcr_links refused)
if [ "$guest" = 1 ]; then
	tap_check "server: a link offered on our one port per new group, refused ($((ref - ref0)))" \
		[ $((ref - ref0)) -gt 0 -a $((alr - alr0)) = 0 -a $((aln - aln0)) = 0 ]
else
	tap_check "client: the server's ADD_LINK rejected ($((alr - alr0)))" \
		[ $((alr - alr0)) -gt 0 -a $((aln - aln0)) = 0 ]
fi
if [ "$guest" = 0 ]; then
	read -r tl tle tll <<<"$(smc_llc test_link test_link_early test_link_lost)"
	tl=$((tl - tl0)) tle=$((tle - tle0)) tll=$((tll - tll0))
	[ "$tl" -gt 0 ] && [ "$tll" = 0 ] &&
		tap_ok "keepalive: $tl TEST_LINK ($tle early), every one answered" ||
		tap_fail "keepalive: TEST_LINK sent and answered ($tl sent, $tll links failed for no answer)"
fi
smc_barrier freed 120
echo 1 > "$SMC_DBG/flush_idle"
smc_check_released "SMC-R transfers"
tap_done
