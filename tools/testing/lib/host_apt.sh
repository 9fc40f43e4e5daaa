# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Host side of the test tools (bench, debug kernel): install the Debian
# packages a script needs when they are missing, quietly. Sourced.
# (.ci/run keeps its own copy: it runs before anything of the checkout.)

# host_apt_install LOG PKG...: installs those PKGs that are not installed
# yet, retrying once after `apt-get update`; apt's output is appended to
# LOG. Non-zero when something is still missing or we cannot install
# (not root, no apt-get).
host_apt_install() {
	local log=$1 p missing=()

	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	{
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" ||
		{ apt-get update -qq &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"; }
	} >>"$log" 2>&1
}
