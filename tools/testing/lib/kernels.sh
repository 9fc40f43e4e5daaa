# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Host side of the test tools: the kernels the module can be built for.
# Sourced. (scripts/dkms-install.sh keeps its own copy: it is a user tool
# and does not reach into tools/testing.)

# kernels_with_headers: every kernel release with /lib/modules/KREL/build,
# oldest first (sort -V), one per line
kernels_with_headers() {
	local d

	for d in /lib/modules/*/build/Makefile; do
		[ -e "$d" ] && basename "$(dirname "$(dirname "$d")")"
	done | sort -V
}
