#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interoperability with Linux's own net/smc (6.1, built from linux-source-6.1
# with the two Soft-RoCE fixes by tools/testing/interop/build-intree-smc.sh):
# phase A, the kernel's smc serves on guest 1 and ours connects from guest 0;
# phase B, the roles of the modules swap. Phases C and D do the same over
# SMC-R v1 (ours with net.smc.smcr_v1=2, smcr_v2=0; the kernel's smc from
# its --v1 build, which takes a RoCE v2 GID for v1 as rxe has no other).
# Data is checksummed both ways and our side proves SMC-R was used.
#
#   +---- guest 0 ----+        RoCE v2 (rxe0)        +---- guest 1 ----+
#   | A: ours, client |<---------------------------->| A: in-tree, srv |
#   | B: in-tree, cl. |                              | B: ours, server |
#   | C: ours v1, cl. |                              | C: in-tree v1   |
#   | D: in-tree v1   |                              | D: ours v1, srv |
#   +-----------------+                              +-----------------+
#
# Usage: smc_interop.sh GUEST

source "$(dirname "$0")/smc_lib.sh"
guest=${1:-$GUEST}
GUEST=$guest
tap_prefix="smc_interop[$guest]"
PEER=192.0.2.2
EID=SMC-INTEROP-TEST
INTREE=${SMC_INTREE_DIR:-/var/tmp/smc-vm/intree-smc/$(uname -r)}
INTREE_V1=${SMC_INTREE_V1_DIR:-$INTREE-v1}

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	use_ours >/dev/null 2>&1
	smc_versions 1 1
}
trap cleanup EXIT

use_intree() { # [DIR]
	smc_unload_any 40 || return 1
	insmod "${1:-$INTREE}/smc.ko" || return 1
	python3 "$SMC_TESTDIR/smc_nl.py" pnet-add PNETIOP eth0 rxe0 1 &&
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID"
}

use_ours() {
	smc_is_ours_loaded && return 0
	smc_unload_any 40 || return 1
	insmod "$SMC_KO" && python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID"
}

# smc_versions V1 V2: our net.smc.smcr_v1 / smcr_v2 (when ours is loaded)
smc_versions() {
	smc_is_ours_loaded || return 0
	sysctl -q -w net.smc.smcr_v1="$1" net.smc.smcr_v2="$2"
}

[ -f "$INTREE/smc.ko" ] || ksft_skip_all "in-tree smc not built ($INTREE)"
rdma link 2>/dev/null | grep -q "rxe0.*ACTIVE" || ksft_skip_all "no active rxe0"

# phase role: guest 1 serves in every phase
run_phase() { # phase ours|intree [v1]
	local phase=$1 mod=$2 ver=${3:-v2} conn0 fb0 n fb want=31
	# size port conns
	local cases="1 28001 1
1M 28002 1
16M 28003 1
64K 28004 20
512K 28005 8"
	if [ "$ver" = v1 ]; then
		want=22
		cases="1 28011 1
1M 28012 1
64K 28014 20"
	fi
	if [ "$mod" = intree ]; then
		if [ "$ver" = v1 ]; then
			tap_check "$phase: the kernel's smc (v1 build) loaded and configured" \
				use_intree "$INTREE_V1"
		else
			tap_check "$phase: the kernel's smc loaded and configured" use_intree
		fi
	else
		tap_check "$phase: our smc loaded and configured" use_ours
		python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" >/dev/null 2>&1
		if [ "$ver" = v1 ]; then
			tap_check "$phase: smcr_v1=2 smcr_v2=0 (SMC-R v1 only)" smc_versions 2 0
		else
			smc_versions 1 1
		fi
		conn0=$(smc_obj_created conn)
		fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
		read -r fw0 fl0 <<<"$(smc_fin)"
	fi
	smc_barrier "$phase.loaded" 120
	if [ "$guest" = 1 ]; then
		local pids=() p
		while read -r bytes p n; do
			"$SMC_XFER" -s -q -f smc -p "$p" -c "$n" -t 300 -P &
			pids+=($!)
		done <<<"$cases"
		smc_barrier "$phase.listening" 60
		for p in "${pids[@]}"; do
			wait "$p" && tap_ok "$phase: server side of a case verified" ||
				tap_fail "$phase: server side of a case verified"
		done
	else
		smc_barrier "$phase.listening" 60
		while read -r bytes p n; do
			tap_check "$phase: $n x $bytes each way, verified" \
				"$SMC_XFER" -q -f smc -p "$p" -n "$bytes" -c "$n" \
				-t 300 -P "$PEER"
		done <<<"$cases"
	fi
	smc_barrier "$phase.done" 600
	if [ "$mod" = ours ]; then
		n=$(( $(smc_obj_created conn) - conn0 ))
		fb=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) - fb0 ))
		[ "$n" = "$want" ] && [ "$fb" = 0 ] &&
			tap_ok "$phase: all $want connections used SMC-R with the kernel's smc" ||
			tap_fail "$phase: all $want connections used SMC-R with the kernel's smc ($n, $fb fallbacks)"
		if [ "$ver" = v1 ]; then
			# v1 groups have no v2 attributes in the netlink dump
			smc_lgrs_v1
			tap_check "$phase: every link group is SMC-R v1" [ $? = 0 ]
		else
			# our Proposal offers release 1 (v2.1), our Accept
			# answers a 6.1 Proposal with 0: every group agreed
			# on v2.0
			smc_lgrs_all "v2_common.rel=0 "
			tap_check "$phase: release 0 (v2.0) agreed with the 6.1 peer" [ $? = 0 ]
		fi
		# a closed socket waits up to 30 s (ASMC_CLOSE_WAIT) for the
		# peer's closing CDC; with Linux's smc as the peer some of them
		# wait the whole time (not understood yet, see issue notes)
		smc_check_released "$phase" 45
		# where ours closed after the peer, the kernel's smc (the first
		# closer) ended the TCP connection at once, as ours does
		read -r fw fl <<<"$(smc_fin)"
		tap_check "$phase: the kernel's smc sent its TCP FIN within 1 s of each of our closes after its own ($((fw - fw0)) closes, $((fl - fl0)) late)" \
			[ "$((fl - fl0))" = 0 ]
	fi
	smc_barrier "$phase.freed" 120
}

v1_ok=1
[ -f "$INTREE_V1/smc.ko" ] || v1_ok=
if [ "$guest" = 1 ]; then
	run_phase A intree
	run_phase B ours
	if [ -n "$v1_ok" ]; then
		run_phase C intree v1
		run_phase D ours v1
	fi
else
	run_phase A ours
	run_phase B intree
	if [ -n "$v1_ok" ]; then
		run_phase C ours v1
		run_phase D intree v1
	fi
fi
[ -n "$v1_ok" ] || tap_skip "C, D: SMC-R v1 with the kernel's smc" \
	"its v1 build is missing ($INTREE_V1)"
smc_versions 1 1
tap_check "our module back in place" use_ours
tap_done
