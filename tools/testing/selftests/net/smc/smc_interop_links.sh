#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link redundancy against Linux's own net/smc (6.1; or the 6.12 kernel's own
# smc.ko in 6.12 guests, see build-intree-smc.sh): a group with a second
# link over the second path, built by either implementation as the server
# and joined by the other as the client. Phase A: ours serves on guest 1,
# Linux's smc connects from guest 0 and must take the link we offer over
# rxe1 (its group turns SYMMETRIC). Phase B: the roles swap; we take
# Linux's offer and connections spread over both links. Phases C and D
# do the same over SMC-R v1 (Linux's v1 build; the rkeys of the new link
# then go in ADD_LINK_CONT messages, not in the ADD_LINK). Phases E-H
# repeat A-D with a client that adds rxe1 only after the group was made:
# it asks for the link, the server offers it; in phase I we have no port
# reaching the one it names and answer Linux's client so that it goes on
# (its first offer, on our one port, it refused); in phase N (last) the
# same answer when our group, asymmetric as in L, has its two links and
# Linux's client asks for a third; in O our smcr_max_links_per_lgr 1
# keeps the group at one link. Phases J-M: asymmetric groups, one side with a
# second port on the first network (rxe2 on a macvlan of eth0), the other
# with one: the link shares the one port (J: ours serving with one port,
# Linux's client takes our offer on its rxe2; K: Linux serving from its
# rxe2, we take it on our rxe0; L and M the other way round). With
# SMC_INTEROP_LINKS_FAILOVER=1, guest 0's eth0 then goes down under the
# four transfers of B: they move to the link over eth1 and finish with
# verified data (2026-12-03: 4 x 48M verified). Opt-in, because Linux's smc
# then hangs: it waits without a timeout for sends on its lost link to
# complete, which rxe never completes (kworkers blocked, hung-task
# reports); its module cannot be unloaded nor rxe1 deleted, and the rest
# of the pair's tests could not run. Debian's 6.12 smc does the same
# (2026-12-06: the transfers verified, then its kworkers blocked).
#
# Linux 6.1 builds a second SMC-R v2 link only on a device whose network
# device has an address in the subnet of the group's first source address
# (and its rxe, like ours, sends out of the GID's own device): eth1 gets
# one, 192.0.2.(11+guest)/24, beside its 198.51.100.0/24.
#
#   +---- guest 0 ------+  link 1: rxe0 on eth0 (192.0.2.1 - .2)  +---- guest 1 ------+
#   | A, C: Linux, cl.  |==========================================| A, C: ours, srv.  |
#   | B, D: ours, cl.   |  link 2: rxe1 on eth1 (+192.0.2.11 - .12)| B, D: Linux, srv. |
#   | (B: eth0 down)    |==========================================|                   |
#   | J, M: rxe2 (mv0 on|  J-M: link 2 on eth0's network, rxe2 on  | K, L: rxe2 (mv0 on|
#   |  eth0, .101)      |  one side, rxe0 (again) on the other     |  eth0, .102)      |
#   +-------------------+                                          +-------------------+
#
# Usage: smc_interop_links.sh GUEST
# SMC_INTEROP_LINKS_SIZE: bytes each way of each of a phase's 4 transfers
# (default 8M; 48M in B with the failover; make check-debug: 6M).
# SMC_INTEROP_LINKS_FAILOVER=1: phase B takes eth0 down (see above).
# SMC_INTEROP_LINKS_CONNS: parallel connections after a phase's first
# (default 4; make check-debug: 2). Linux's smc gives a link up when the
# registration of a new RMB, queued behind its RDMA WRITEs, takes 5 s:
# on the debug kernel 4 bulk streams delayed it that long, and Linux's
# smc then hung on the lost link.

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_interop_links[$guest]"
PEER=192.0.2.2
ADDR1=192.0.2.$((11 + guest))
EID=SMC-INTEROP-LINKS
PORT=29900
INTREE=${SMC_INTREE_DIR:-/var/tmp/smc-vm/intree-smc/$(uname -r)}
INTREE_V1=${SMC_INTREE_V1_DIR:-$INTREE-v1}
FAILOVER=${SMC_INTEROP_LINKS_FAILOVER:-0}
CONNS=${SMC_INTEROP_LINKS_CONNS:-4}
if [ "$FAILOVER" = 1 ]; then
	SIZE=${SMC_INTEROP_LINKS_SIZE:-48M}
else
	SIZE=${SMC_INTEROP_LINKS_SIZE:-8M}
fi
NO_FAILOVER="opt-in (SMC_INTEROP_LINKS_FAILOVER=1): Linux's smc (6.1, 6.12) then waits forever for sends rxe never completes on its lost link and cannot be unloaded"
NL="python3 $SMC_TESTDIR/smc_nl.py"

[ -f "$INTREE/smc.ko" ] || ksft_skip_all "in-tree smc not built ($INTREE)"
[ -e /sys/class/net/eth1 ] || ksft_skip_all "no second path (eth1) between the guests"
smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"

cleanup() {
	ip link set eth0 up 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	[ -e "/results/gave_up.$guest" ] || use_ours >/dev/null 2>&1
	smc_is_ours_loaded && sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1 \
		net.smc.smcr_max_links_per_lgr=2
	ip addr del "$ADDR1/24" dev eth1 2>/dev/null
	smc_rxe1_del 2>/dev/null
	smc_rxe2_del 2>/dev/null
	$NL ueid-del "$EID" >/dev/null 2>&1
}
trap cleanup EXIT

# use_intree v1|v2: Linux's smc (its v1 build for v1), with both RoCE
# ports on the PNET ID of both interfaces
use_intree() {
	local dir=$INTREE

	[ "$1" = v1 ] && dir=$INTREE_V1
	smc_unload_any 40 || return 1
	insmod "$dir/smc.ko" || return 1
	$NL pnet-add PNETIOP eth0 rxe0 1 && $NL pnet-add PNETIOP eth1 rxe1 1 &&
		$NL ueid-add "$EID"
}

use_ours() {
	smc_is_ours_loaded && return 0
	smc_reload_ours 40 && $NL ueid-add "$EID"
}

# nl_two_links SECS [TYPE]: within SECS the module's netlink shows one
# SMC-R group of TYPE (default 2, SYMMETRIC; 3 ASYMMETRIC_PEER, 4
# ASYMMETRIC_LOCAL) with two active links (state 3; either module: same
# uapi)
nl_two_links() {
	local i out
	for i in $(seq $(($1 * 5))); do
		out=$($NL link-smcr 2>/dev/null)
		[ "$(grep -c "lgr.*type=${2:-2}" <<<"$out")" = 1 ] &&
			[ "$(grep -c 'link\.id=.*link\.state=3' <<<"$out")" = 2 ] &&
			return 0
		sleep 0.2
	done
	{
		printf '%s\n' "$out"
		$NL fback-stats
		$NL dev-smcr
		ip route
		rdma link
	} 2>&1 | tap_diag
	return 1
}

# serve PORT CONNS: our or Linux's server for CONNS connections, verified
serve() {
	"$SMC_XFER" -s -q -P -f smc -p "$1" -c "$2" -t 300 2>/tmp/il.srv &
	spid=$!
	smc_wait_port "$1" 10
}

# served NAME: the server of serve is done, its CONNS + 1 connections
# verified
served() {
	local rc
	wait $spid
	rc=$?
	tap_diag </tmp/il.srv
	tap_check "$1: server: $((CONNS + 1)) connections verified" [ $rc = 0 ]
}

# Linux's own rxe defect (smc_intree_defect, see smc-testing.rst) can hit
# any phase: a check that fails in a phase where the guest running Linux's
# smc logged it is TODO. A phase's failed checks wait for its end
# (il_done), by when that guest has said so (/results/ildefect.NAME).
il_t0=
il_failed=()
il_fail() { il_failed+=("$1"); echo "# failed, decided at the phase's end: $1"; }

# il_start NAME: phase NAME begins (called by load)
il_start() {
	il_t0=$(cut -d' ' -f1 /proc/uptime)
	il_failed=()
	rm -f "/results/ildefect.$1"
	TAP_FAIL=il_fail
}

# il_done NAME: phase NAME ends on both guests; its failed checks reported
il_done() {
	local n
	[ "$mine" != intree ] || ! smc_intree_defect "$il_t0" ||
		echo "$guest" >"/results/ildefect.$1"
	smc_barrier "il.$1.done" 300
	TAP_FAIL=
	for n in "${il_failed[@]}"; do
		if [ -e "/results/ildefect.$1" ]; then
			tap_todo "$n" "$SMC_INTREE_DEFECT in guest $(cat "/results/ildefect.$1")"
		else
			tap_fail "$n"
		fi
	done
	il_failed=()
}

smc_rxe1_add || ksft_skip_all "no rxe1 on eth1"
ip addr add "$ADDR1/24" dev eth1 || ksft_skip_all "cannot add $ADDR1 to eth1"
echo 1 >"$SMC_DBG/flush_idle"
smc_wait_objs lgr 0 30
smc_barrier il.ready 60

# phase NAME SERVER VER: SERVER (ours or intree) serves on guest 1, the
# other module connects from guest 0, over SMC-R VER (v1: ADD_LINK, then
# the rkeys in ADD_LINK_CONT; v2: ADD_LINK with them). A first connection
# builds the group, its server adds the link over rxe1, then 4 connections
# spread over both links with verified data (phase B: across the failover
# with SMC_INTEROP_LINKS_FAILOVER=1).
# load NAME SERVER VER: this guest's module for the phase; sets mine (ours
# or intree) and, with ours, the counters before it
load() {
	local name=$1 srv=$2 ver=$3

	il_start "$name"
	if { [ "$srv" = ours ] && [ "$guest" = 1 ]; } ||
	   { [ "$srv" = intree ] && [ "$guest" = 0 ]; }; then
		mine=ours
		use_ours || tap_fail "$name: our smc.ko back"
		$NL ueid-add "$EID" >/dev/null 2>&1	# when it stayed loaded
		echo 1 >"$SMC_DBG/flush_idle"
		if [ "$ver" = v1 ]; then
			sysctl -q -w net.smc.smcr_v1=2 net.smc.smcr_v2=0
		else
			sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
		fi
		added0=$(smc_counters smcr_links added)
		moved0=$(smc_counters smcr_links conns_moved)
		lost0=$(smc_counters smcr_links lost)
		asked0=$(smc_counters smcr_links asked)
		peer0=$(smc_counters smcr_links peer_asked)
		asym0=$(smc_counters smcr_links asym)
		refused0=$(smc_counters smcr_links refused)
		unknown0=$(smc_counters smcr_links rkeys_unknown)
	else
		mine=intree
		use_intree "$ver" || tap_fail "$name: Linux's smc ($ver build) loaded"
	fi
}

# Linux lists the RMBs it uses on a new link, each one we hold the rkey of
known_rkeys() {
	tap_check "$1: Linux's rkeys for the new link all name RMBs we know" \
		[ "$(smc_counters smcr_links rkeys_unknown)" = "$unknown0" ]
}

# the port of phase NAME (a capital letter)
phase_port() { echo $((PORT + $(printf '%d' "'$1") - 64)); }

phase() {
	local name=$1 srv=$2 ver=$3 port
	local size=8M fo=0 rc ok i

	port=$(phase_port "$name")
	load "$name" "$srv" "$ver"
	[ "$name" = B ] && [ "$FAILOVER" = 1 ] && fo=1 && size=$SIZE
	[ -n "${SMC_INTEROP_LINKS_SIZE:-}" ] && size=$SIZE
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
		if [ "$mine" = ours ]; then
			tap_check "$name: we added a second $ver link to Linux's client over rxe1" \
				smc_two_links 20
			tap_check "$name: connections on both links" \
				smc_conns_on_both 60 $spid
		else
			tap_check "$name: Linux's netlink: the group is SYMMETRIC, two links" \
				nl_two_links 30
		fi
		served "$name"
		[ "$mine" = intree ] ||
			tap_check "$name: the added link is counted" \
				[ "$(smc_counters smcr_links added)" -gt "$added0" ]
		[ "$mine" = intree ] || known_rkeys "$name"
		il_done "$name"
		return
	fi
	smc_barrier "il.$name.listening" 60
	tap_check "$name: first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p $port -n 1M -t 60 $PEER
	if [ "$mine" = intree ]; then
		tap_check "$name: Linux's netlink: the group is SYMMETRIC, two links" \
			nl_two_links 20
		tap_check "$name: $CONNS more connections, $size each way, verified" \
			"$SMC_XFER" -q -P -f smc -p $port -c $CONNS -n $size -t 240 $PEER
		il_done "$name"
		return
	fi
	tap_check "$name: we took Linux's $ver link over rxe1" smc_two_links 20
	tap_check "$name: the added link is counted" \
		[ "$(smc_counters smcr_links added)" -gt "$added0" ]
	known_rkeys "$name"
	"$SMC_XFER" -q -P -f smc -p $port -c $CONNS -n $size -t 300 $PEER \
		2>/tmp/il.cli &
	cpid=$!
	tap_check "$name: connections on both links" smc_conns_on_both 10
	if [ $fo = 1 ]; then
		sleep 1
		echo "smc_interop_links: eth0 down" >/dev/kmsg
		ip link set eth0 down
		tap_check "$name: eth0 down: the link over rxe0 is lost" \
			smc_link_lost_since "$lost0" 30
	fi
	wait $cpid
	rc=$?
	tap_diag </tmp/il.cli
	if [ $fo = 1 ]; then
		tap_check "$name: $CONNS x $size each way verified across the failover" [ $rc = 0 ]
		tap_check "$name: connections moved to the link over rxe1" \
			[ "$(smc_counters smcr_links conns_moved)" -gt "$moved0" ]
		dmesg | sed -n '/smc_interop_links: eth0 down/,$p' | grep smc |
			tail -n 20 | tap_diag
		ip link set eth0 up
		tap_check "$name: eth0 back: rxe0 active and the peer reachable" \
			smc_eth0_back $PEER
	else
		tap_check "$name: $CONNS x $size each way verified" [ $rc = 0 ]
		[ "$name" = B ] &&
			tap_skip "$name: eth0 down under the transfers: they move to the link over rxe1" \
				"$NO_FAILOVER"
	fi
	il_done "$name"
}

# late NAME SERVER VER: as phase, but the client (guest 0) has no rxe1
# while the group is made: once it adds rxe1 it asks for a link (v2
# REQUEST_ADD_LINK, v1 an ADD_LINK "invite"; ours and Linux's alike) and
# the server offers one; then connections on the group, verified
late() {
	local name=$1 srv=$2 ver=$3 port

	port=$(phase_port "$name")
	load "$name" "$srv" "$ver"
	[ "$guest" = 1 ] || smc_rxe1_del
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
	else
		smc_barrier "il.$name.listening" 60
		tap_check "$name: first connection while we have no rxe1, verified" \
			"$SMC_XFER" -q -f smc -p $port -n 1M -t 60 $PEER
		smc_rxe1_add || tap_fail "$name: rxe1 back"
	fi
	if [ "$mine" = ours ]; then
		tap_check "$name: a second $ver link once the client's rxe1 is there" \
			smc_two_links 20
		smc_check_asked "$name" "$asked0" "$peer0"
	else
		tap_check "$name: Linux's netlink: the group is SYMMETRIC, two links" \
			nl_two_links 20
	fi
	if [ "$guest" = 1 ]; then
		served "$name"
	else
		tap_check "$name: $CONNS more connections, 1M each way, verified" \
			"$SMC_XFER" -q -P -f smc -p $port -c $CONNS -n 1M -t 240 $PEER
	fi
	il_done "$name"
}

# asking_client NAME PORT [TYPE]: Linux's client of no_offer and full: the
# group's first connection (its group then of TYPE with two links, where
# given), then rxe1, with which it asks for a link, and CONNS connections
# at once (new RMBs), which must not wait for the answer
asking_client() {
	smc_barrier "il.$1.listening" 60
	tap_check "$1: first connection, 1M each way, verified" \
		"$SMC_XFER" -q -f smc -p "$2" -n 1M -t 60 $PEER
	[ -z "${3:-}" ] ||
		tap_check "$1: Linux's netlink: two links, asymmetric (type $3)" \
			nl_two_links 20 "$3"
	smc_barrier "il.$1.made" 60
	smc_rxe1_add || tap_fail "$1: rxe1 back"
	smc_barrier "il.$1.asked" 60
	tap_check "$1: $CONNS connections at once (new RMBs) within 15 s, verified" \
		"$SMC_XFER" -q -P -f smc -p "$2" -c $CONNS -n 1M -t 15 $PEER
}

# no_offer NAME: as late with ours serving v2, but we have no second
# device: Linux's client, single-ported, refuses our offer on our one
# port; with rxe1 it asks (REQUEST_ADD_LINK, naming its GID of
# 198.51.100.1, eth1's first address, which our rxe0 does not reach) and
# we answer with its echo, no link. That ends its
# request: without it its LLC flow stays open, and each new RMB of its
# next connections waits 20 s for it, then the connection falls back to
# TCP. Its next connections need new RMBs.
no_offer() {
	local name=$1 port c1

	port=$(phase_port "$name")
	load "$name" ours v2
	smc_rxe1_del
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		c1=$(smc_obj_created conn)
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
		# the group made, our offer on our one port is refused by
		# Linux's client (no second port yet)
		smc_barrier "il.$name.made" 60
		tap_check "$name: Linux's one-port client refused our offer on our one port" \
			smc_links_above refused "$refused0" 10
		tap_check "$name: Linux's client asked us for a link" \
			smc_links_above peer_asked "$peer0" 20
		smc_barrier "il.$name.asked" 60
		served "$name"
		tap_check "$name: all of them over SMC-R" \
			[ $(( $(smc_obj_created conn) - c1 )) = $((CONNS + 1)) ]
		tap_check "$name: the group keeps one link" \
			grep -qE "links [0-9]+:rxe0:active:[0-9]+ retired" "$SMC_DBG/lgrs"
	else
		asking_client "$name" "$port"
	fi
	il_done "$name"
	smc_rxe1_add || tap_fail "$name: rxe1 back"
}

# full NAME: ours serving v2 from two ports on eth0's network (rxe0 and
# rxe2 on mv0) to Linux's one-port client: the group has its two links
# (asymmetric, as in L) when the client adds rxe1 and asks for a link
# (Linux's client asks from an ASYMMETRIC_LOCAL group). Ours builds two
# at most: it answers with the echo, 200 ms later, as it would offer
# one. Linux's next connections (new RMBs) must not wait for an answer.
full() {
	local name=$1 port c1

	port=$(phase_port "$name")
	load "$name" ours v2
	smc_rxe1_del
	[ "$guest" = 0 ] || tap_check "$name: rxe2 on a macvlan of eth0" smc_rxe2_add
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		c1=$(smc_obj_created conn)
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
		tap_check "$name: our netlink: two links, asymmetric (type 3)" \
			nl_two_links 20 3
		smc_barrier "il.$name.made" 60
		tap_check "$name: Linux's client asked us for a third link" \
			smc_links_above peer_asked "$peer0" 20
		smc_barrier "il.$name.asked" 60
		served "$name"
		tap_check "$name: all of them over SMC-R" \
			[ $(( $(smc_obj_created conn) - c1 )) = $((CONNS + 1)) ]
		tap_check "$name: the group keeps its two links" nl_two_links 1 3
	else
		asking_client "$name" "$port" 4
	fi
	il_done "$name"
	smc_rxe2_del
}

# asym NAME SERVER TWO: an asymmetric group: guest TWO has a second port
# on eth0's network (rxe2 on mv0; with Linux's smc in its PNET ID too),
# the other guest its rxe0 only; SERVER (ours or intree) serves on guest 1
# over v2. The second link shares the single port: the side with two
# ports sees ASYMMETRIC_PEER (type 3), the other ASYMMETRIC_LOCAL (4).
# Then connections, verified (on both links where ours serves: Linux's
# server puts none on its asymmetric link).
asym() {
	local name=$1 srv=$2 two=$3 port t=4

	port=$(phase_port "$name")
	load "$name" "$srv" v2
	smc_rxe1_del	# its port would make the group symmetric
	if [ "$guest" = "$two" ]; then
		t=3
		tap_check "$name: rxe2 on a macvlan of eth0" smc_rxe2_add
		[ "$mine" = ours ] || $NL pnet-add PNETIOP mv0 rxe2 1 ||
			tap_fail "$name: rxe2 and mv0 in Linux's PNET ID"
	fi
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
	else
		smc_barrier "il.$name.listening" 60
		tap_check "$name: first connection, 1M each way, verified" \
			"$SMC_XFER" -q -f smc -p $port -n 1M -t 60 $PEER
	fi
	tap_check "$name: netlink of $mine: the group is asymmetric (type $t), two links" \
		nl_two_links 20 $t
	[ "$mine" = intree ] || tap_check "$name: counted as an asymmetric link" \
		[ "$(smc_counters smcr_links asym)" -gt "$asym0" ]
	if [ "$guest" = 1 ]; then
		[ "$mine" = intree ] || tap_check "$name: connections on both links" \
			smc_conns_on_both 60 $spid
		served "$name"
	else
		# held open 3 s after the data, for the server to see them
		# on both links
		tap_check "$name: $CONNS more connections, 1M each way, verified" \
			"$SMC_XFER" -q -P -f smc -p $port -c $CONNS -n 1M -t 240 -H 3 $PEER
	fi
	il_done "$name"
	smc_rxe2_del
}

# capped NAME: ours serving v2 with net.smc.smcr_max_links_per_lgr 1,
# both guests with rxe1 from the start: Linux 6.1 (SMC v2.0) negotiates
# no limit, our own applies to the groups we serve: no offer, Linux's
# netlink shows the group SINGLE (type 1) with one link while
# connections run on it
capped() {
	local name=$1 port

	port=$(phase_port "$name")
	load "$name" ours v2
	[ "$guest" = 0 ] || sysctl -q -w net.smc.smcr_max_links_per_lgr=1
	smc_barrier "il.$name.loaded" 120
	if [ "$guest" = 1 ]; then
		serve $port $((CONNS + 1))
		smc_barrier "il.$name.listening" 60
		served "$name"
		tap_check "$name: no second link added, none offered" \
			[ "$(smc_counters smcr_links added)" = "$added0" -a \
			  "$(smc_counters smcr_links refused)" = "$refused0" ]
		sysctl -q -w net.smc.smcr_max_links_per_lgr=2
	else
		smc_barrier "il.$name.listening" 60
		tap_check "$name: first connection, 1M each way, verified" \
			"$SMC_XFER" -q -f smc -p $port -n 1M -t 60 $PEER
		sleep 3
		tap_check "$name: Linux's netlink: one link 3 s later, group SINGLE (type 1)" \
			eval 'out=$($NL link-smcr) &&
			[ "$(grep -c "lgr.*type=1" <<<"$out")" = 1 ] &&
			[ "$(grep -c "link\.id=" <<<"$out")" = 1 ] ||
			{ printf "%s\n" "$out"; false; }'
		tap_check "$name: $CONNS more connections, 1M each way, verified" \
			"$SMC_XFER" -q -P -f smc -p $port -c $CONNS -n 1M -t 240 $PEER
	fi
	il_done "$name"
}

# each_server FN N1 N2 N3 N4 WHAT: FN as phases N1 (ours serving v2), N2
# (Linux's serving v2), N3 and N4 (the same over v1, skipped as WHAT
# without Linux's v1 build)
each_server() {
	"$1" "$2" ours v2
	"$1" "$3" intree v2
	if [ -f "$INTREE_V1/smc.ko" ]; then
		"$1" "$4" ours v1
		"$1" "$5" intree v1
	else
		tap_skip "$4, $5: $6" "its v1 build is missing ($INTREE_V1)"
	fi
}

each_server phase A B C D "SMC-R v1 second links with Linux's smc"
each_server late E F G H "SMC-R v1 links asked for by the client"
no_offer I
asym J ours 0
asym K intree 1
asym L ours 1
asym M intree 0
full N
capped O
use_ours || tap_fail "our smc.ko back"
sysctl -q -w net.smc.smcr_v1=1 net.smc.smcr_v2=1
smc_barrier il.end 120
ip addr del "$ADDR1/24" dev eth1
smc_rxe1_del
echo 1 >"$SMC_DBG/flush_idle"
smc_check_released "interop links" 60
tap_done
