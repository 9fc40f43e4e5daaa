#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two hosts without a user EID (so SMC-R v2 cannot be negotiated): AF_SMC
# and TCP clients on guest 0 against AF_SMC and TCP servers on guest 1,
# checksummed data both ways over the TCP fallback, reasons on each side.
#
#   +---- guest 0 ----+   eth0 (UDP dgram netdev)   +---- guest 1 ----+
#   | 192.0.2.1       |<--------------------------->| 192.0.2.2       |
#   | 2001:db8::1     |        rxe0 on eth0         | 2001:db8::2     |
#   | smc_xfer client |                             | smc_xfer -s     |
#   +-----------------+                             +-----------------+
#
# Usage: smc_pair.sh GUEST   (0 runs the clients, 1 the servers)

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
tap_prefix="smc_pair[$guest]"
PEER4=192.0.2.2
PEER6=2001:db8::2

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

smc_is_ours_loaded || ksft_skip_all "smc.ko not loaded"
ip link show eth0 >/dev/null 2>&1 || ksft_skip_all "no eth0 in this guest"

# name  client-family server-family port ipver bytes conns
CASES="smc_smc_v4 smc smc 24001 4 4M 3
smc_tcp_v4 smc tcp 24002 4 1M 1
tcp_smc_v4 tcp smc 24003 4 1M 1
smc_smc_v6 smc smc 24004 6 1M 2
smc_smc_16M smc smc 24005 4 16M 1"

# no user EID: the client cannot propose SMC-R v2 and declines
python3 "$SMC_TESTDIR/smc_nl.py" ueid-flush

declare -A pid
fb_before_s=$(smc_stat fallback_server)
fb_before_c=$(smc_stat fallback_client)
nosmc_s=$(smc_fallback_count 0x03010000 server)
decl_s=$(smc_fallback_count 0x05000000 server)
nodev_c=$(smc_fallback_count 0x03030008 client)
nov6_c=$(smc_fallback_count 0x03030000 client)
nosmc_c=$(smc_fallback_count 0x03010000 client)
# (servers run side by side for the whole client sequence: -t bounds it all)

if [ "$guest" = 1 ]; then
	while read -r name cf sf port ver bytes conns; do
		v6=; [ "$ver" = 6 ] && v6=-6
		"$SMC_XFER" -s -q -f "$sf" $v6 -p "$port" -c "$conns" -t 600 &
		pid[$name]=$!
	done <<<"$CASES"
	while read -r name cf sf port ver bytes conns; do
		wait "${pid[$name]}" && tap_ok "$name: server verified $conns connection(s)" ||
			tap_fail "$name: server verified $conns connection(s)"
	done <<<"$CASES"
	# smc clients: 3+2+1 via decline, 1 from a TCP client
	[ $(($(smc_fallback_count 0x05000000 server) - decl_s)) = 6 ] &&
		tap_ok "server counted 6 fallbacks: peer declined (no user EID)" ||
		tap_fail "server counted 6 fallbacks: peer declined (no user EID)"
	[ $(($(smc_fallback_count 0x03010000 server) - nosmc_s)) = 1 ] &&
		tap_ok "server counted 1 fallback: TCP client without SMC" ||
		tap_fail "server counted 1 fallback: TCP client without SMC"
	smc_check_released "server side"
	tap_done
fi

# guest 0: wait for the peer to be reachable, then run the clients
for i in $(seq 120); do ping -c 1 -W 1 $PEER4 >/dev/null 2>&1 && break; done
while read -r name cf sf port ver bytes conns; do
	v6=; host=$PEER4
	[ "$ver" = 6 ] && { v6=-6; host=$PEER6; }
	tap_check "$name: $conns x $bytes each way, verified" \
		"$SMC_XFER" -q -f "$cf" $v6 -p "$port" -n "$bytes" -c "$conns" \
		-t 600 "$host"
done <<<"$CASES"
# IPv4: SMC-R v2 would be possible but needs a user EID; IPv6: SMC-R v2
# is IPv4 only and Soft-RoCE has no RoCE v1 GID, so no usable device
[ $(($(smc_fallback_count 0x03030008 client) - nodev_c)) = 4 ] &&
	tap_ok "client counted 4 IPv4 fallbacks: no user EID for SMC-R v2" ||
	tap_fail "client counted 4 IPv4 fallbacks: no user EID for SMC-R v2"
[ $(($(smc_fallback_count 0x03030000 client) - nov6_c)) = 2 ] &&
	tap_ok "client counted 2 IPv6 fallbacks: no SMC device for IPv6" ||
	tap_fail "client counted 2 IPv6 fallbacks: no SMC device for IPv6"
[ $(($(smc_fallback_count 0x03010000 client) - nosmc_c)) = 1 ] &&
	tap_ok "client counted 1 fallback: TCP server without SMC" ||
	tap_fail "client counted 1 fallback: TCP server without SMC"
smc_check_released "client side"
tap_done
