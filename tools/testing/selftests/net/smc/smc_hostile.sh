#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Malformed messages: the next Proposal, Accept or Confirm this host sends
# is altered on purpose (debugfs smc/clc_inject), and the receiving side,
# this same module over the rxe0 loopback, must answer with a reset or a
# Decline as the protocol wants, count it, and stay healthy: a good SMC-R
# connection works right after each case, and nothing leaks. Then the same
# for CDC and LLC messages on the link (debugfs smc/wr_inject): a CDC with
# cursors out of range aborts its connection only, one for no connection
# is dropped, a CONFIRM_RKEY exchange gone wrong ends in a Decline.
#
#   +------------------------------ guest ------------------------------+
#   |  smc_xfer client --(altered CLC)--> smc_xfer -s    on 192.0.2.1     |
#   |  AF_SMC, SMC-R over rxe0 loopback      AF_SMC                       |
#   |                  <-(altered CDC/LLC)->                              |
#   +--------------------------------------------------------------------+

source "$(dirname "$0")/smc_lib.sh"

ADDR=${SMC_TEST_ADDR4:-192.0.2.1}
EID=SMC-HOSTILE-TEST
PORT=29000

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-del "$EID" >/dev/null 2>&1
	sysctl -qw net.smc.smcr_v1=1 net.smc.smcr_v2=1 2>/dev/null
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
[ -w "$SMC_DBG/clc_inject" ] || ksft_skip_all "no clc_inject in debugfs"
[ -w "$SMC_DBG/wr_inject" ] || ksft_skip_all "no wr_inject in debugfs"
ip -4 addr show | grep -q "inet $ADDR/" || ksft_skip_all "no interface with $ADDR"
python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" || ksft_skip_all "no UEID"

# one connection of SIZE bytes (64K): "ok" when the data went through,
# "fail" otherwise
xfer() {
	local s rc
	PORT=$((PORT + 1))
	"$SMC_XFER" -s -q -f smc -p $PORT -c 1 -t 30 2>/dev/null &
	s=$!
	smc_wait_port $PORT 10
	"$SMC_XFER" -q -f smc -p $PORT -n "${1:-64K}" -t 30 "$ADDR" 2>/dev/null
	rc=$?
	# a reset connection never reaches the server: do not wait out its -t
	[ $rc = 0 ] || kill $s 2>/dev/null
	wait $s
	[ $rc = 0 ] && echo ok || echo fail
}

healthy() { # NAME: a good SMC-R connection right after a case
	local c0 fb0 got conns fbs
	c0=$(smc_obj_created conn)
	fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	got=$(xfer)
	conns=$(( $(smc_obj_created conn) - c0 ))
	fbs=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
	if [ "$got" = ok ] && [ $conns = 2 ] && [ $fbs = 0 ]; then
		tap_ok "$1: next connection works over SMC-R"
		return
	fi
	tap_fail "$1: next connection works over SMC-R"
	{
		echo "transfer $got, $conns connections created, $fbs fallbacks"
		grep -E '^(fallback_reason|hs_err)' "$SMC_DBG/stats"
		cat "$SMC_DBG/lgrs" 2>/dev/null
		dmesg | tail -n 15
	} | tap_diag
}

tap_check "baseline SMC-R connection" test "$(xfer)" = ok

# name | injection | expected | fc: reset (connect fails, handshake error
# counted on the receiving side), fallback:REASON[:ROLE] (data over TCP,
# ROLE, the client unless named, counts the reason) or smcr (the altered
# message is still valid: data over SMC-R); "fc" frees the idle link
# groups first, for a first contact. Offsets of our messages: Proposal v2
# extension at 80 (release: high nibble of 83; v2.1 max connections 104,
# max links 105); Accept/Confirm first contact: release low nibble of 105,
# max connections 140, max links 141.
CASES="proposal_bad_eyecatcher|1 0=0x00|reset:server
proposal_version_0|1 7=0x02|reset:server
proposal_unknown_type|1 4=0x09|reset:server
proposal_length_2000|1 5=0x07 6=0xd0|reset:server
proposal_9_ueids|1 80=9|reset:server
proposal_bad_trailer|1 152=0x00|reset:server
proposal_truncated|1 trunc=100|reset:server
accept_bad_eyecatcher|2 0=0x00|reset:client
accept_absurd_rmb_size|2 50=0xf3|reset:client
accept_rmbe_index_0|2 45=0x00|reset:client
accept_unknown_qp|2 40=0x99|fallback:0x04000000
confirm_truncated|3 trunc=60|reset:server
confirm_bad_trailer|3 104=0x00|reset:server
proposal_release_7|1 83=0x70|smcr|fc
proposal_max_conns_15|1 104=15|fallback:0x0303000a:server
proposal_max_links_0|1 105=0|fallback:0x0303000b:server
accept_release_2|2 105=0x22|fallback:0x03030009|fc
accept_max_conns_15|2 140=15|fallback:0x0303000a|fc
accept_max_links_3|2 141=3|fallback:0x0303000b|fc
confirm_release_0|3 105=0x20|fallback:0x03030009:server|fc
confirm_max_conns_254|3 140=254|fallback:0x0303000a:server|fc"

# SMC-R v1 only (net.smc.smcr_v1=2 takes rxe's RoCE v2 GID, smcr_v2=0):
# our v1 Proposal is 92 bytes with the IPv4 prefix area at 80 (subnet
# 80..83, prefix length 84, IPv6 prefix count 87); the v1 Accept and
# Confirm are 68 bytes (byte 50: RMBE size << 4 | MTU).
CASES_V1="v1_proposal_other_subnet|1 82=0x09|fallback:0x03070000:server
v1_proposal_prefix_len_25|1 84=25|fallback:0x03070000:server
v1_proposal_prefix_len_33|1 84=33|reset:server
v1_proposal_9_ipv6_prefixes|1 87=9|reset:server
v1_proposal_truncated|1 trunc=88|reset:server
v1_accept_says_v2|2 7=0x28|reset:client|fc
v1_accept_mtu_0|2 50=0x10|fallback:0x09990002|fc
v1_accept_rmbe_index_0|2 45=0x00|reset:client
v1_confirm_says_v2|3 7=0x28|reset:server|fc
v1_confirm_bad_trailer|3 64=0x00|reset:server"

# run_cases FN <<<CASES: FN for each case (name, inj, want, fc set);
# SMC_HOSTILE_ONLY=REGEX: only the cases whose name matches, each run
# SMC_HOSTILE_REPEAT times (default once), to chase a rare failure
run_cases() {
local r
while IFS='|' read -r name inj want fc; do
	[[ $name =~ ${SMC_HOSTILE_ONLY:-.} ]] || continue
	for r in $(seq 1 "${SMC_HOSTILE_REPEAT:-1}"); do
		"$1"
	done
done
}

run_case() {
	[ "$fc" = fc ] && { smc_no_lgrs || echo "# $name: link groups still live"; }
	hs_s=$(smc_stat hs_err_server)
	hs_c=$(smc_stat hs_err_client)
	rsn=${want#fallback:}
	role=client
	case $rsn in *:*) role=${rsn#*:}; rsn=${rsn%%:*} ;; esac
	fb=$(smc_fallback_count "$rsn" "$role")
	fball=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
	c0=$(smc_obj_created conn)
	q0=$(quarantined)
	echo "$inj" > "$SMC_DBG/clc_inject"
	t0=$(date +%s%N)
	got=$(xfer)
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# $name: transfer $got in $ms ms; hs_err server $(smc_stat hs_err_server) client $(smc_stat hs_err_client); $(grep smcr_close "$SMC_DBG/stats")"
	# a reset: the client learns of it well within the transfer's 30 s,
	# also when it had already gone to SMC-R (a Confirm the server then
	# rejected: its TCP FIN or reset is all the client gets)
	case $want in
	reset:server)
		[ "$got" = fail ] && [ "$(smc_stat hs_err_server)" -gt "$hs_s" ] &&
		[ "$ms" -lt 20000 ] &&
			tap_ok "$name: connection reset within 20 s, server counted a handshake error" ||
			tap_fail "$name: connection reset within 20 s, server counted a handshake error"
		;;
	reset:client)
		[ "$got" = fail ] && [ "$(smc_stat hs_err_client)" -gt "$hs_c" ] &&
		[ "$ms" -lt 20000 ] &&
			tap_ok "$name: connection reset within 20 s, client counted a handshake error" ||
			tap_fail "$name: connection reset within 20 s, client counted a handshake error"
		;;
	fallback:*)
		[ "$got" = ok ] && [ "$(smc_fallback_count "$rsn" "$role")" -gt "$fb" ] &&
			tap_ok "$name: Decline $rsn ($role), data over TCP" ||
			tap_fail "$name: Decline $rsn ($role), data over TCP"
		;;
	smcr)
		[ "$got" = ok ] && [ $(( $(smc_obj_created conn) - c0 )) = 2 ] &&
		[ $(( $(smc_stat fallback_client) + $(smc_stat fallback_server) )) = "$fball" ] &&
			tap_ok "$name: still valid, data over SMC-R" ||
			tap_fail "$name: still valid, data over SMC-R"
		;;
	esac
	# the server's Accept went out, then the handshake broke off: the
	# client may be writing into that RMB (our client, once its Confirm
	# is out), so no later connection gets it. A first contact's group
	# ends instead.
	q=$(( $(quarantined) - q0 ))
	case $want/$inj/$fc in
	reset:client/*/ | reset:server/3\ */)
		tap_check "$name: the server keeps that RMB from later connections ($q quarantined)" \
			[ "$q" = 1 ] ;;
	*)
		[ "$q" = 0 ] || tap_fail "$name: $q RMBs quarantined, none expected" ;;
	esac
	healthy "$name"
}

# RMBs kept from reuse since the module was loaded (debugfs stats)
quarantined() {
	awk '$1 == "smcr_rmb" { print $3 }' "$SMC_DBG/stats"
}

run_cases run_case <<<"$CASES"

# A group with ASMC_QUARANTINE_MAX (16) RMBs kept from reuse ends, which
# frees them: 16 Accepts the client rejects, in the server group that
# serves the next connection
xfer >/dev/null
srv=$(awk '$1 == "lgr" && $4 == "server" { print $2 }' "$SMC_DBG/lgrs" | xargs)
q0=$(quarantined)
for i in $(seq 16); do
	echo "2 0=0x00" > "$SMC_DBG/clc_inject"
	xfer >/dev/null
done
# srv_gone: no group of $srv left (those left in $left)
srv_gone() {
	left=$(awk -v ids=" $srv " '$1 == "lgr" && index(ids, " " $2 " ") { print $2 }' \
		"$SMC_DBG/lgrs" | xargs)
	[ -z "$left" ]
}
smc_within 30 srv_gone
q=$(( $(quarantined) - q0 ))
tap_check "16 rejected Accepts: $q RMBs quarantined, their server group ($srv) ended (left: ${left:-none})" \
	[ -n "$srv" -a -z "$left" -a "$q" = 16 ]
healthy "quarantine_limit"

# SMC v2.1 limits from the sysctl: the client offers 100, both ends of
# the new link group keep to it; then an Accept that raises it again
old_conns=$(sysctl -n net.smc.smcr_max_conns_per_lgr)
sysctl -qw net.smc.smcr_max_conns_per_lgr=100
smc_no_lgrs
got=$(xfer)
lgrs=$(python3 "$SMC_TESTDIR/smc_nl.py" lgr-smcr)
printf '%s\n' "$lgrs" | tap_diag
[ "$got" = ok ] &&
[ "$(grep -c "v2_common.rel=1 .*v2.max_conns=100 .*v2.max_links=2" <<<"$lgrs")" = 2 ]
tap_check "v2.1: smcr_max_conns_per_lgr 100 agreed by both link groups" [ $? = 0 ]
smc_no_lgrs
fb=$(smc_fallback_count 0x0303000a client)
echo "2 140=0xff" > "$SMC_DBG/clc_inject"
got=$(xfer)
[ "$got" = ok ] && [ "$(smc_fallback_count 0x0303000a client)" -gt "$fb" ]
tap_check "accept_max_conns_above_proposed: Decline 0x0303000a (client), data over TCP" \
	[ $? = 0 ]
sysctl -qw net.smc.smcr_max_conns_per_lgr="$old_conns"
healthy "accept_max_conns_above_proposed"

smc_no_lgrs
sysctl -qw net.smc.smcr_v1=2 net.smc.smcr_v2=0
got=$(xfer)
[ "$got" = ok ] && smc_lgrs_v1
tap_check "v1: smcr_v1=2 smcr_v2=0 gives an SMC-R v1 connection" [ $? = 0 ]
run_cases run_case <<<"$CASES_V1"
sysctl -qw net.smc.smcr_v1=1 net.smc.smcr_v2=1

# CDC and LLC messages on the link, SMC-R v2 over rxe0 (offsets: CDC
# token 4..7, producer cursor wrap 10..11 count 12..15, consumer cursor
# wrap 18..19 count 20..23; v2 CONFIRM_RKEY 0x26: flags 3, entries 4, rkey
# 5..8). name | injection | expected: bad (the receiver aborts the
# connection, counts cdc_rx_bad, its link group stays), abort (the peer
# claims an abort: both ends learn it within 20 s, the group stays), drop
# (the CDC is dropped and counted, later ones carry the cursors: data
# arrives), ok (ignored: data arrives; all producer flags include the
# failover one, whose CDC moves no cursor), rtok (the CONFIRM_RKEY of a
# new RMB fails: Decline 0x09990001, data over TCP). The rtok cases run on
# a new group with net.smc.rmem raised, so that the RMBs are new.
CASES_WR="cdc_prod_count_beyond_rmbe|0xfe data 12=0xff 13=0xff 14=0xff 15=0xff|bad
cdc_prod_wrap_ahead|0xfe data 10=0x40|bad
cdc_cons_wrap_ahead|0xfe ctrl 18=0x40|bad
cdc_cons_count_beyond_rmbe|0xfe ctrl 20=0xff 21=0xff 22=0xff 23=0xff|bad
cdc_unknown_token|0xfe data 4=0xde 5=0xad 6=0xbe 7=0xef|drop
cdc_length_field_20|0xfe data 1=20|drop
cdc_truncated|0xfe data trunc=20|ok
cdc_all_prod_flags|0xfe data 24=0xff|ok
cdc_all_conn_flags|0xfe data 25=0xff|abort
llc_confirm_rkey_3_entries|0x26 req 4=3|rtok
llc_confirm_rkey_unknown_type|0x26 req 0=0x2d|rtok
llc_confirm_rkey_answer_negative|0x26 resp 3=0xa0|rtok
llc_confirm_rkey_answer_other_rkey|0x26 resp 5=0 6=0 7=0 8=0|rtok"

groups() { awk '$1 == "lgr" { print $2 }' "$SMC_DBG/lgrs" | sort | xargs; }
rtok_declines() { # handshakes that fell back for a failed CONFIRM_RKEY
	echo $(( $(smc_fallback_count 0x09990001 server) +
		 $(smc_fallback_count 0x09990001 client) ))
}

run_wr_case() {
	local f0 bad0 drop0 rt0 g0 rmem0 got ms n bad drop rt
	rmem0=$(cat /proc/sys/net/smc/rmem)
	if [ "$want" = rtok ]; then
		smc_no_lgrs || echo "# $name: link groups still live"
		xfer >/dev/null
		echo 262144 >/proc/sys/net/smc/rmem
	fi
	g0=$(groups)
	f0=$(smc_inject_fired)
	bad0=$(smc_wire cdc_rx_bad) drop0=$(smc_wire cdc_rx_drop)
	rt0=$(rtok_declines)
	echo "$inj" > "$SMC_DBG/wr_inject"
	t0=$(date +%s%N)
	got=$(xfer 1M)
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "$rmem0" >/proc/sys/net/smc/rmem
	n=$(( $(smc_inject_fired) - f0 ))
	bad=$(( $(smc_wire cdc_rx_bad) - bad0 ))
	drop=$(( $(smc_wire cdc_rx_drop) - drop0 ))
	rt=$(( $(rtok_declines) - rt0 ))
	echo "# $name: transfer $got in $ms ms, $n altered, cdc_rx_bad +$bad, cdc_rx_drop +$drop, Declines 0x09990001 +$rt; groups before: $g0, after: $(groups)"
	case $want in
	bad)
		tap_check "$name: only that connection aborted within 20 s, cdc_rx_bad counted, link groups kept" \
			[ "$got" = fail -a "$n" = 1 -a "$bad" = 1 -a "$ms" -lt 20000 \
			  -a "$(groups)" = "$g0" ] ;;
	abort)
		tap_check "$name: that connection ends within 20 s, link groups kept" \
			[ "$got" = fail -a "$n" = 1 -a "$bad" = 0 -a "$ms" -lt 20000 \
			  -a "$(groups)" = "$g0" ] ;;
	drop)
		tap_check "$name: dropped and counted, the data still arrives" \
			[ "$got" = ok -a "$n" = 1 -a "$drop" -ge 1 -a "$bad" = 0 ] ;;
	ok)
		tap_check "$name: dropped, the data still arrives" \
			[ "$got" = ok -a "$n" = 1 -a "$bad" = 0 ] ;;
	rtok)
		tap_check "$name: Decline 0x09990001 within 20 s, data over TCP" \
			[ "$got" = ok -a "$n" = 1 -a "$rt" -ge 1 -a "$ms" -lt 20000 ] ;;
	esac
	smc_inject_idle ||
		{ tap_fail "$name: injection left armed"; echo none > "$SMC_DBG/wr_inject"; }
	healthy "$name"
}

# the v2 groups of the CDC cases exist before the first (the v1 cases
# above left v1 groups)
xfer >/dev/null
run_cases run_wr_case <<<"$CASES_WR"

echo 1 > "$SMC_DBG/flush_idle"
smc_check_released "malformed CLC, CDC and LLC messages"
tap_done
