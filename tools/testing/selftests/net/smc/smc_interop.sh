#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interoperability with Linux's own net/smc (6.1, built from linux-source-6.1
# with the two Soft-RoCE fixes by tools/testing/interop/build-intree-smc.sh):
# phase A, the kernel's smc serves on guest 1 and ours connects from guest 0;
# phase B, the roles of the modules swap. Data is checksummed both ways and
# our side proves SMC-R was used.
#
#   +---- guest 0 ----+        RoCE v2 (rxe0)        +---- guest 1 ----+
#   | A: ours, client |<---------------------------->| A: in-tree, srv |
#   | B: in-tree, cl. |                              | B: ours, server |
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

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	use_ours >/dev/null 2>&1
}
trap cleanup EXIT

use_intree() {
	smc_unload_any 40 || return 1
	insmod "$INTREE/smc.ko" || return 1
	python3 "$SMC_TESTDIR/smc_nl.py" pnet-add PNETIOP eth0 rxe0 1 &&
	python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID"
}

use_ours() {
	smc_is_ours_loaded && return 0
	smc_unload_any 40 || return 1
	insmod "$SMC_KO" && python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID"
}

[ -f "$INTREE/smc.ko" ] || ksft_skip_all "in-tree smc not built ($INTREE)"
rdma link 2>/dev/null | grep -q "rxe0.*ACTIVE" || ksft_skip_all "no active rxe0"

# phase role: guest 1 serves in both phases
run_phase() { # phase ours|intree
	local phase=$1 mod=$2 conn0 fb0 n fb
	if [ "$mod" = intree ]; then
		tap_check "$phase: the kernel's smc loaded and configured" use_intree
	else
		tap_check "$phase: our smc loaded and configured" use_ours
		python3 "$SMC_TESTDIR/smc_nl.py" ueid-add "$EID" >/dev/null 2>&1
		conn0=$(smc_obj_created conn)
		fb0=$(( $(smc_stat fallback_client) + $(smc_stat fallback_server) ))
		read -r fw0 fl0 <<<"$(smc_fin)"
	fi
	smc_barrier "$phase.loaded" 120
	# size port conns
	local cases="1 28001 1
1M 28002 1
16M 28003 1
64K 28004 20
512K 28005 8"
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
		[ "$n" = 31 ] && [ "$fb" = 0 ] &&
			tap_ok "$phase: all 31 connections used SMC-R with the kernel's smc" ||
			tap_fail "$phase: all 31 connections used SMC-R with the kernel's smc ($n, $fb fallbacks)"
		# our Proposal offers release 1 (v2.1), our Accept answers a
		# 6.1 Proposal with 0: every group agreed on v2.0
		smc_lgrs_all "v2_common.rel=0 "
		tap_check "$phase: release 0 (v2.0) agreed with the 6.1 peer" [ $? = 0 ]
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

if [ "$guest" = 1 ]; then
	run_phase A intree
	run_phase B ours
else
	run_phase A ours
	run_phase B intree
fi
tap_check "our module back in place" use_ours
tap_done
