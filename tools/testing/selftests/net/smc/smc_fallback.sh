#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SMC capability detection and TCP fallback on one host: the SMC TCP option
# on SYN/SYN-ACK, which CLC messages appear on the wire, and the reasons.
#
#   +------------------------- guest --------------------------+
#   |   smc_xfer client  ---- lo (127.0.0.1 / ::1) ---->  smc_xfer -s |
#   |   (AF_SMC or TCP)        dumpcap -i lo      (AF_SMC or TCP)     |
#   +----------------------------------------------------------+
#
# Case            client  server  expect on the wire             reasons
# smc_to_tcp      AF_SMC  TCP     SYN has option, SYN-ACK not;   client 0x03010000
#                                 no CLC
# tcp_to_smc      TCP     AF_SMC  neither has the option; no CLC server 0x03010000
# smc_to_smc      AF_SMC  AF_SMC  both have it; one CLC Decline  client 0x03030000
#                                 client->server, 0x03030000     server 0x05000000
# (each for IPv4 and IPv6)

source "$(dirname "$0")/smc_lib.sh"

CAP=/tmp/smc_fallback.pcapng
DUMPCAP_PID=

cleanup() {
	[ -n "$DUMPCAP_PID" ] && kill "$DUMPCAP_PID" 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

command -v dumpcap >/dev/null && command -v tshark >/dev/null ||
	ksft_skip_all "dumpcap/tshark not installed"
smc_is_ours_loaded || smc_load || ksft_skip_all "cannot load smc.ko"

# name client server port ipver
CASES="smc_to_tcp:smc:tcp:20001:4 tcp_to_smc:tcp:smc:20002:4
smc_to_smc:smc:smc:20003:4 smc_to_tcp6:smc:tcp:20004:6
tcp_to_smc6:tcp:smc:20005:6 smc_to_smc6:smc:smc:20006:6"

rm -f "$CAP"
t_cap=0 t_now=0
smc_clock t_cap
# dumpcap's counts (received/dropped) on stderr at the end
dumpcap -i lo -f 'tcp portrange 20001-20006' -w "$CAP" >/dev/null 2>"$CAP.err" &
DUMPCAP_PID=$!
# dumpcap writes its file once its filter is set; starting takes seconds
# in a busy TCG guest (more than the 5 s it had once: the first case ran
# before it, and its SYNs were missing)
if smc_within 60 test -s "$CAP"; then
	smc_clock t_now
	echo "# dumpcap capturing after $((t_now - t_cap)) ms"
else
	echo "# dumpcap wrote no file within 60 s"
fi

for c in $CASES; do
	IFS=: read -r name cl sv port ver <<<"$c"
	v6=; host=127.0.0.1
	[ "$ver" = 6 ] && { v6=-6; host=::1; }
	before_c=$(smc_stat fallback_client)
	before_s=$(smc_stat fallback_server)
	declare -A cnt_c cnt_s
	for r in 0x03010000 0x03030000 0x05000000; do
		cnt_c[$r]=$(smc_fallback_count $r client)
		cnt_s[$r]=$(smc_fallback_count $r server)
	done

	"$SMC_XFER" -s -q -f "$sv" $v6 -p "$port" -c 1 -t 20 &
	spid=$!
	smc_wait_port "$port" 10
	if "$SMC_XFER" -q -f "$cl" $v6 -p "$port" -n 256K -t 20 "$host" &&
	   wait "$spid"; then
		tap_ok "$name: data verified both ways"
	else
		tap_fail "$name: data verified both ways"
	fi

	# which side counted which fallback reason
	d() { echo $(($(smc_fallback_count "$1" "$2") - $3)); }
	case "$name" in
	smc_to_tcp*)
		[ "$(d 0x03010000 client "${cnt_c[0x03010000]}")" = 1 ] &&
		[ "$(($(smc_stat fallback_server) - before_s))" = 0 ] &&
			tap_ok "$name: client fell back, reason peer without SMC" ||
			tap_fail "$name: client fell back, reason peer without SMC"
		;;
	tcp_to_smc*)
		[ "$(d 0x03010000 server "${cnt_s[0x03010000]}")" = 1 ] &&
		[ "$(($(smc_stat fallback_client) - before_c))" = 0 ] &&
			tap_ok "$name: server fell back, reason peer without SMC" ||
			tap_fail "$name: server fell back, reason peer without SMC"
		;;
	smc_to_smc*)
		[ "$(d 0x03030000 client "${cnt_c[0x03030000]}")" = 1 ] &&
			tap_ok "$name: client fell back, reason no SMC device" ||
			tap_fail "$name: client fell back, reason no SMC device"
		[ "$(d 0x05000000 server "${cnt_s[0x05000000]}")" = 1 ] &&
			tap_ok "$name: server fell back, reason peer declined" ||
			tap_fail "$name: server fell back, reason peer declined"
		;;
	esac
	smc_check_released "$name"
done

# The reason is recorded on each socket (debugfs smc/sockets) while the
# connection lives: client side against TCP, server side against TCP.
sockets_during() { # client-family server-family port
	local s c
	"$SMC_XFER" -s -q -f "$2" -p "$3" -c 1 -t 20 -H 3 &
	s=$!
	smc_wait_port "$3" 10
	"$SMC_XFER" -q -f "$1" -p "$3" -n 1K -t 20 -H 3 127.0.0.1 &
	c=$!
	sleep 1.5	# the 1 KiB exchange is done, both hold for 3 s
	cat "$SMC_DBG/sockets"
	wait "$s" "$c"
}
out=$(sockets_during smc tcp 20007)
echo "$out" | tap_diag
echo "$out" | grep -q "role client mode TCP fallback_rsn 0x03010000" &&
	tap_ok "client socket records reason 0x03010000 while connected" ||
	tap_fail "client socket records reason 0x03010000 while connected"
out=$(sockets_during tcp smc 20008)
echo "$out" | tap_diag
echo "$out" | grep -q "state ACTIVE role server mode TCP fallback_rsn 0x03010000" &&
	tap_ok "accepted socket records reason 0x03010000 while connected" ||
	tap_fail "accepted socket records reason 0x03010000 while connected"
out=$(sockets_during smc smc 20009)
echo "$out" | tap_diag
echo "$out" | grep -q "role server mode TCP fallback_rsn 0x05000000 peer_diag 0x03030000" &&
	tap_ok "accepted socket records the peer's decline reason" ||
	tap_fail "accepted socket records the peer's decline reason"
smc_check_released "recorded reasons"

sleep 1
kill "$DUMPCAP_PID"
wait "$DUMPCAP_PID" 2>/dev/null
DUMPCAP_PID=

# SYN and SYN-ACK per port: does the segment carry the SMC option?
# (kind 254, experiment id 0xe2d4, data c3:d9 = magic E2D4C3D9)
syns=$(tshark -r "$CAP" -Y 'tcp.flags.syn == 1' -T fields \
	-e tcp.srcport -e tcp.dstport -e tcp.flags.ack \
	-e tcp.options.experimental.exid -e tcp.options.experimental.data \
	2>/dev/null)
# CLC messages as the receiver reads the stream (smc_tshark). One CI run
# found no Decline for smc_to_smc6 while data and reasons were right;
# port_frames shows that connection's segments should it happen again.
clcs=$(smc_tshark -r "$CAP" -Y 'smc.clc_msg' -T fields -e tcp.srcport \
	-e tcp.dstport -e smc.clc_msg -e smc.peer.diag.info 2>/dev/null)
echo "$syns" | sed 's/^/# syn: /'
echo "$clcs" | sed 's/^/# clc: /'

has_opt() { # port ack(0|1)
	echo "$syns" | awk -v p="$1" -v a="$2" '
		(a == 0 && $2 == p && $3 == 0) || (a == 1 && $1 == p && $3 == 1) {
			seen = 1
			if ($4 ~ /0xe2d4|e2d4/ && $5 ~ /c3:?d9/) opt = 1
		}
		END { if (!seen) exit 2; exit !opt }'
}

# port_frames PORT: what the capture holds of that connection, and
# dumpcap's count of packets received and dropped
port_frames() {
	tail -n 1 "$CAP.err"
	tshark -r "$CAP" -Y "tcp.port == $1" -T fields -e frame.number \
		-e frame.time_relative -e tcp.srcport -e tcp.dstport \
		-e tcp.flags.str -e tcp.seq -e tcp.len -e _ws.col.Protocol \
		2>/dev/null | head -n 40
}

for c in $CASES; do
	IFS=: read -r name cl sv port ver <<<"$c"
	has_opt "$port" 0; syn=$?
	has_opt "$port" 1; synack=$?
	nclc=$(echo "$clcs" | awk -v p="$port" '$1 == p || $2 == p' | grep -c .)
	case "$name" in
	smc_to_tcp*)
		[ $syn = 0 ] && tap_ok "$name: SYN carries the SMC option" ||
			tap_fail "$name: SYN carries the SMC option"
		[ $synack = 1 ] && tap_ok "$name: plain SYN-ACK" ||
			tap_fail "$name: plain SYN-ACK"
		[ "$nclc" = 0 ] && tap_ok "$name: no CLC message on the wire" ||
			tap_fail "$name: no CLC message on the wire"
		;;
	tcp_to_smc*)
		[ $syn = 1 ] && [ $synack = 1 ] &&
			tap_ok "$name: SMC listener does not echo the option to a TCP client" ||
			tap_fail "$name: SMC listener does not echo the option to a TCP client"
		[ "$nclc" = 0 ] && tap_ok "$name: no CLC message on the wire" ||
			tap_fail "$name: no CLC message on the wire"
		;;
	smc_to_smc*)
		[ $syn = 0 ] && [ $synack = 0 ] &&
			tap_ok "$name: SYN and SYN-ACK carry the SMC option" ||
			tap_fail "$name: SYN and SYN-ACK carry the SMC option"
		# exactly one CLC message: client -> server, Decline (4),
		# reason 0x03030000 (no SMC device)
		echo "$clcs" | awk -v p="$port" '
			$1 == p || $2 == p { n++; if ($2 == p && $3 == 4 &&
				$4 ~ /^0x0*3030000$/) ok++ }
			END { exit !(n == 1 && ok == 1) }' &&
			tap_ok "$name: one CLC Decline (no SMC device) client to server" ||
		{
			tap_fail "$name: one CLC Decline (no SMC device) client to server"
			port_frames "$port" | tap_diag
		}
		;;
	esac
done

tap_done
