#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Malformed link-management messages between two hosts with two RoCE ports
# each: one guest alters one message of the flow that adds the group's
# second link (debugfs smc/wr_inject: ADD_LINK offer or answer, v1
# ADD_LINK_CONT, the client's v2 REQUEST_ADD_LINK), or turns a keepalive
# TEST_LINK into a DELETE_LINK or a type nobody knows. The peer must
# reject or drop the new link (never oops, never hang), keep the group with
# its first link and serve new connections over SMC-R; a link the peer
# deletes unasked fails over and comes back; a wrong rkey on the new link
# breaks it (and with no other link, the group) at its first RDMA WRITE,
# on both sides at once; a request for a link the server cannot read is
# dropped and counted, one that names no usable GID still gets the link.
#
#   +---- guest 0 (client) ---+   link 1: rxe0 on eth0   +---- guest 1 (server) ---+
#   | smc_xfer                |==========================| smc_xfer -s             |
#   | alters ADD_LINK answers,|   link 2: rxe1 on eth1   | offers link 2, alters   |
#   | TEST_LINK->DELETE_LINK, |==========================| ADD_LINK, ADD_LINK_CONT |
#   | eth0 down (rkey cases), |                          | (their rkeys too)       |
#   | rxe1 late: asks for it  |                          |                         |
#   +-------------------------+                          +-------------------------+
#
# Usage: smc_hostile_links.sh GUEST
# SMC_HOSTILE_ONLY=REGEX: only the cases whose name matches.

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_hostile_links[$guest]"
EID=SMC-HOSTILE-LINKS-TEST
PORT=29900
PEER=192.0.2.2

cleanup() {
	echo none >"$SMC_DBG/wr_inject" 2>/dev/null
	ip link set eth0 up 2>/dev/null
	[ -z "${tl0:-}" ] || sysctl -q -w net.smc.smcr_testlink_time="$tl0"
	[ -z "${rmem0:-}" ] || echo "$rmem0" >/proc/sys/net/smc/rmem
	smc_links_cleanup smc_rxe1_del
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -e "$SMC_DBG/wr_inject" ] || ksft_skip_all "no debugfs smc/wr_inject"
[ -e /sys/class/net/eth1 ] || ksft_skip_all "no second path (eth1) between the guests"
smc_rxe1_add || ksft_skip_all "no rxe1 on eth1"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"
tl0=$(sysctl -n net.smc.smcr_testlink_time)
rmem0=$(cat /proc/sys/net/smc/rmem)

# Cases: name | guest that alters | SMC-R version | wr_inject spec | outcome.
# ADD_LINK bytes: 28-30 QPN, 31 link ID, 32 MTU, v2: 1-2 length (LE), 70-71
# rkey count (LE), 72-87 first rkey entry (its rkey on the new link at
# 76); ADD_LINK_CONT 4 link ID, 8-23 first rkey entry (new-link rkey at
# 12); DELETE_LINK 4 link ID, 5-8 reason; REQUEST_ADD_LINK 24 GID count,
# 28-43 and 44-59 the client's GIDs (the second one's IPv4 at 56-59).
# Outcomes: rej = the client
# rejects the offer (counted on both sides), gone = the new link is
# dropped on both sides, nolink = a DELETE_LINK for a link that does not
# exist changes nothing, moved = link 2 deleted unasked: its connections
# move, the server adds it again, ended = the peer ends the group
# (DELETE_LINK "all"): its connections fail at once, a new one makes a
# new group; lied = the server gave a wrong rkey on link 2 for the first
# connection's RMB: the link comes up, and once that connection moves
# there (eth0 down on the client) its first RDMA WRITE fails (remote
# access error): the client loses link 2, the server learns it from its
# QP's flushed receives; with no link left both end the group; dropped =
# a TEST_LINK turned into an unknown type is dropped and counted
# (llc_rx_bad), both links stay. The client has no rxe1 while the group is
# made in these two (it asks for link 2 once rxe1 is back): asked = the
# server makes the link although the request names no GID it can use;
# unasked = the request is malformed: the server drops it (llc_rx_bad),
# the group keeps its one link.
CASES="add_link_qpn_0|1|2|0x22 req 28=0 29=0 30=0|rej
add_link_mtu_0|1|2|0x22 req 32=0|rej
add_link_id_0|1|2|0x22 req 31=0|rej
add_link_id_in_use|1|2|0x22 req 31=1|rej
add_link_rkeys_beyond_length|1|2|0x22 req 70=0xff 71=0x0f|rej
add_link_length_short|1|2|0x22 req 1=60 2=0|rej
add_link_no_such_qp|1|2|0x22 req 28=0x7f|gone
answer_other_link_id|0|2|0x22 resp 31=9|gone
answer_qpn_0|0|2|0x22 resp 28=0 29=0 30=0|gone
answer_without_rkeys_ext|0|2|0x22 resp 1=44 2=0 trunc=44|gone
v1_add_link_mtu_0|1|1|0x02 req 32=0|rej
v1_add_link_cont_other_link|1|1|0x03 req 4=9|gone
v1_answer_cont_other_link|0|1|0x03 resp 4=9|gone
delete_link_unknown_id|0|2|0x27 req 0=0x24 4=9 5=0 6=0 7=0 8=0|nolink
delete_link_2_unasked|0|2|0x27 req 0=0x24 4=2 5=0 6=1 7=0 8=0|moved
delete_link_all|0|2|0x27 req 0=0x24 3=0x40 4=0 5=0 6=2 7=0 8=0|ended
add_link_rkey_lie|1|2|0x22 req 76=0xff 77=0xff 78=0xff|lied
v1_add_link_cont_rkey_lie|1|1|0x03 req 12=0xff 13=0xff 14=0xff|lied
llc_unknown_type|0|2|0x27 req 0=0x2d|dropped
req_add_link_no_gids|0|2|0x25 req 24=0|asked
req_add_link_gid_unknown|0|2|0x25 req 56=203 57=0 58=113 59=9|asked
req_add_link_gids_beyond_length|0|2|0x25 req 24=0xff|unasked
req_add_link_length_short|0|2|0x25 req 1=44 2=0 trunc=44|unasked"

# fired_since F0: the hook fired more than F0 times and is disarmed
fired_since() { [ "$(smc_inject_fired)" -gt "$1" ] && smc_inject_idle; }
# wc_errors_since W0 L0: failed completions counted (smcr_links wc_errors)
# beyond W0, and logged ("link L of group G on DEV/PORT: WHAT failed:
# STATUS") beyond L0 lines
wc_errors_since() {
	[ "$(smc_counters smcr_links wc_errors)" -gt "$1" ] &&
		[ "$(wc_logged)" -gt "$2" ]
}
wc_logged() { dmesg | grep -cE "$(smc_link_log ".*").* failed: "; }
rae_logged() { dmesg | grep -c "rdma write failed: remote access error"; }
# has_group: we have a link group
has_group() { [ "$(smc_obj_live lgr)" -ge 1 ]; }
# our one group has only its first link, on rxe0
one_link() { grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"; }
# within SECS CMD...: smc_within, showing the groups when it fails
within() {
	smc_within "$@" && return 0
	cat "$SMC_DBG/lgrs" "$SMC_DBG/wr_inject"
	return 1
}

# conn_smcr: one client connection, 1M each way, verified, over SMC-R
conn_smcr() {
	local c0=$(smc_obj_created conn)
	"$SMC_XFER" -q -f smc -p "$1" -n 1M -t 60 $PEER &&
		[ $(( $(smc_obj_created conn) - c0 )) = 1 ]
}

# hcase: one case (name who ver spec want from the table) on port $port
hcase() {
	local f0 rej0 refused0 lost0 moved0 wc0 log0 rae0 lgrs spid cpid rc t0
	local asked0 peer0 bad0
	local server_conns=2 slow=
	# the server reads 6 s late, into 16 KiB RMBs: the client's data
	# soon waits on idle links (lied: the first connection's, until
	# link 2 is up and the connection moved there)
	case $want in
	nolink|dropped|moved|ended) server_conns=6 slow="-S 6" ;;
	lied) slow="-S 20" ;;
	esac
	smc_barrier "hl.$name" 120 || return
	echo 1 >"$SMC_DBG/flush_idle"
	smc_wait_objs lgr 0 30 || echo "# $name: link groups still live"
	if [ "$ver" = 1 ]; then
		sysctl -q -w net.smc.smcr_v1=2 net.smc.smcr_v2=0
	else
		sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
	fi
	# an idle link sends its TEST_LINK after 1 s (read as links come up);
	# dropped: the client's request goes unanswered, its link lives on
	# what it receives within 4 s: the server's own TEST_LINK after 2 s
	# (the data, stalled until the server reads 6 s late, came too late
	# for it once in PREEMPT_RT guests)
	case $want in
	nolink|moved|ended) sysctl -q -w net.smc.smcr_testlink_time=$([ "$guest" = 0 ] && echo 1 || echo "$tl0") ;;
	dropped) sysctl -q -w net.smc.smcr_testlink_time=$([ "$guest" = 0 ] && echo 1 || echo 2) ;;
	*) sysctl -q -w net.smc.smcr_testlink_time="$tl0" ;;
	esac
	if [ -n "$slow" ] && [ "$guest" = 1 ]; then
		echo 16384 >/proc/sys/net/smc/rmem
	else
		echo "$rmem0" >/proc/sys/net/smc/rmem
	fi
	f0=$(smc_inject_fired)
	rej0=$(smc_llc add_link_rej)
	read -r refused0 lost0 moved0 wc0 asked0 peer0 <<<"$(smc_counters smcr_links refused lost conns_moved wc_errors asked peer_asked)"
	bad0=$(smc_llc llc_rx_bad)
	log0=$(wc_logged)
	rae0=$(rae_logged)
	# the client's group starts without rxe1 where it is to ask for link 2
	case $want in
	asked|unasked) [ "$guest" = 1 ] || smc_rxe1_del ;;
	*) smc_rxe1_add >/dev/null || echo "# $name: no rxe1" ;;
	esac
	# a TEST_LINK is altered once the group has both links
	case $want in
	nolink|dropped|moved|ended) ;;
	*) [ "$guest" = "$who" ] && echo "$spec" >"$SMC_DBG/wr_inject" ;;
	esac
	smc_barrier "hl.$name.ready" 60 || return
	if [ "$guest" = 1 ]; then
		"$SMC_XFER" -s -q -P -f smc -p "$port" -c $server_conns $slow -t 120 &
		spid=$!
		smc_wait_port "$port" 10
		smc_barrier "hl.$name.listening" 60
		# the client's first connection makes the group
		within 30 has_group
	elif [ "$want" = lied ]; then
		smc_barrier "hl.$name.listening" 60
		"$SMC_XFER" -q -f smc -p "$port" -n 1M -t 120 $PEER &
		cpid=$!
	else
		smc_barrier "hl.$name.listening" 60
		tap_check "$name: first connection, 1M each way, SMC-R, verified" \
			conn_smcr "$port"
	fi
	# (group IDs are reused: a group made anew shows as a creation)
	lgrs=$(smc_obj_created lgr)
	case $want in
	rej|gone)
		if [ "$guest" = "$who" ]; then
			tap_check "$name: the altered message went out once" \
				within 20 fired_since "$f0"
		fi
		# the longest wait of a link's setup is the client's 5 s
		# for the new link's CONFIRM_LINK; the server's DELETE_LINK
		# or its own waits end it within some more
		sleep 6
		tap_check "$name: the group keeps only its first link" within 30 one_link
		;;&
	rej)
		smc_check_refused "$name" "$rej0" "$refused0"
		;;
	nolink|dropped|moved|ended)
		tap_check "$name: a second link" smc_two_links 20
		smc_barrier "hl.$name.two" 60
		if [ "$guest" = 0 ]; then
			# 4 connections on both links, stalled until the server
			# reads: an idle link's TEST_LINK goes out as the
			# DELETE_LINK, the data moves after it
			"$SMC_XFER" -q -P -f smc -p "$port" -c 4 -n 1M -t 120 $PEER &
			local cpid=$!
			smc_conns_on_both 10 "$cpid" | tap_diag
			echo "$spec" >"$SMC_DBG/wr_inject"
			t0=$SECONDS
			tap_check "$name: the altered message went out once" \
				within 10 fired_since "$f0"
			wait $cpid
			rc=$?
			echo "# $name: transfers ended after $((SECONDS - t0)) s, status $rc"
			if [ "$want" = ended ]; then
				tap_check "$name: the 4 connections end with an error within 20 s" \
					[ $rc != 0 -a $((SECONDS - t0)) -le 20 ]
			else
				tap_check "$name: 4 connections across it, verified" [ $rc = 0 ]
			fi
		fi
		smc_barrier "hl.$name.sent" 120
		;;
	esac
	case $want in
	lied)
		tap_check "$name: a second link" smc_two_links 30
		if [ "$guest" = 1 ]; then
			tap_check "$name: the altered message went out once" \
				within 20 fired_since "$f0"
		fi
		smc_barrier "hl.$name.two" 60
		if [ "$guest" = 0 ]; then
			ip link set eth0 down
			t0=$SECONDS
			tap_check "$name: eth0 down: link 1 lost, the connection moved" \
				eval 'smc_link_lost_since "$lost0" 10 &&
				[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]'
			wait $cpid
			rc=$?
			echo "# $name: transfer ended after $((SECONDS - t0)) s, status $rc"
			tap_check "$name: the connection fails at its write on link 2 (within 30 s)" \
				[ $rc != 0 -a $((SECONDS - t0)) -le 30 ]
			tap_check "$name: our RDMA WRITE failed, logged and counted" \
				eval 'wc_errors_since "$wc0" "$log0" &&
				[ "$(rae_logged)" -gt "$rae0" ]'
			# link 1's QP goes once its port is back (rxe holds it
			# while its packets wait in eth0's queue): the group
			# ends after that
			ip link set eth0 up
		fi
		smc_barrier "hl.$name.failed" 60
		# the peer's write put our QP in error: its flushed receives
		# end link 2 at once, not the keepalive 30 s later
		if [ "$guest" = 1 ]; then
			tap_check "$name: our QP's error seen within 10 s (flushed receives), logged and counted" \
				within 10 wc_errors_since "$wc0" "$log0"
		fi
		tap_check "$name: the group ends within 30 s" smc_wait_objs lgr 0 30
		if [ "$guest" = 0 ]; then
			tap_check "$name: eth0 back: rxe0 active, the peer reachable" \
				smc_eth0_back $PEER
		fi
		smc_barrier "hl.$name.back" 60
		;;
	nolink|dropped)
		tap_check "$name: both links stay, none lost" \
			eval 'smc_two_links 1 && [ "$(smc_counters smcr_links lost)" = "$lost0" ]'
		;;&
	dropped)
		if [ "$guest" = 1 ]; then
			tap_check "$name: the message dropped, counted (llc_rx_bad)" \
				[ "$(smc_llc llc_rx_bad)" -gt "$bad0" ]
		fi
		;;
	asked|unasked)
		tap_check "$name: the group has one link, on rxe0" within 10 one_link
		smc_barrier "hl.$name.one" 60
		if [ "$guest" = 0 ]; then
			tap_check "$name: rxe1 back" smc_rxe1_add
			tap_check "$name: we asked for link 2, the altered message went out once" \
				within 20 eval 'fired_since "$f0" &&
				[ "$(smc_counters smcr_links asked)" -gt "$asked0" ]'
		fi
		;;&
	asked)
		tap_check "$name: a second link within 20 s" smc_two_links 20
		if [ "$guest" = 1 ]; then
			tap_check "$name: the client's request heard" \
				[ "$(smc_counters smcr_links peer_asked)" -gt "$peer0" ]
		fi
		;;
	unasked)
		if [ "$guest" = 1 ]; then
			tap_check "$name: the request dropped, counted (llc_rx_bad)" \
				within 20 eval '[ "$(smc_llc llc_rx_bad)" -gt "$bad0" ]'
		fi
		smc_barrier "hl.$name.asked" 60
		sleep 5
		tap_check "$name: no link offered for it, the group keeps its first" \
			eval 'one_link && [ "$(smc_counters smcr_links peer_asked)" = "$peer0" ]'
		;;
	moved)
		tap_check "$name: link 2 lost" smc_link_lost_since "$lost0" 30
		if [ "$guest" = 1 ]; then
			tap_check "$name: its connections moved to link 1" \
				[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]
		fi
		tap_check "$name: the server adds it again within 75 s" \
			smc_two_links 75
		;;
	ended)
		tap_check "$name: the link group ends within 20 s" \
			smc_wait_objs lgr 0 20
		smc_barrier "hl.$name.ended" 60
		;;
	esac
	if [ "$guest" = 0 ]; then
		tap_check "$name: another connection, 1M each way, SMC-R, verified" \
			conn_smcr "$port"
	else
		wait $spid
		rc=$?
		if [ "$want" = ended ] || [ "$want" = lied ]; then
			tap_check "$name: server: the group's connections failed, it went on" [ $rc = 1 ]
		else
			tap_check "$name: server: $server_conns connections verified" [ $rc = 0 ]
		fi
	fi
	[ "$want" = ended ] || [ "$want" = lied ] ||
		tap_check "$name: the same link group throughout" \
			[ "$(smc_obj_created lgr)" = "$lgrs" -a "$(smc_obj_live lgr)" = 1 ]
	echo none >"$SMC_DBG/wr_inject"
}

echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
n=0
while IFS='|' read -r name who ver spec want; do
	n=$((n + 1))
	[[ $name =~ ${SMC_HOSTILE_ONLY:-.} ]] || continue
	port=$((PORT + n))
	hcase
done <<<"$CASES"

sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
sysctl -q -w net.smc.smcr_testlink_time="$tl0"
echo "$rmem0" >/proc/sys/net/smc/rmem
smc_barrier hl.done 120
smc_rxe1_del
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "malformed link messages" 60
tap_done
