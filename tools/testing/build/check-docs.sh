#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The reStructuredText documents parse cleanly (docutils, as the kernel's
# Sphinx build would read them): a malformed table or list renders as an
# error block in the built documentation. TAP, one result per document.
set -u
cd "$(dirname "$0")/../../.."
docs=(Documentation/networking/*.rst)

echo "TAP version 13"
echo "1..${#docs[@]}"
# Debian's python3-docutils serves /usr/bin/python3; a python3 earlier in
# PATH may have its own
py=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import docutils' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
	for i in "${!docs[@]}"; do
		echo "ok $((i + 1)) - docs: ${docs[$i]} # SKIP no python3-docutils"
	done
	exit 0
fi
rc=0
for i in "${!docs[@]}"; do
	# Sphinx-only roles and directives (:ref:, .. toctree::) are not
	# docutils' own: those messages are not defects of the text
	out=$("$py" - "${docs[$i]}" <<'PY' 2>&1
import sys
import docutils.core
import docutils.utils

src = open(sys.argv[1], encoding="utf-8").read()
docutils.core.publish_doctree(src, source_path=sys.argv[1], settings_overrides={
    "report_level": docutils.utils.Reporter.WARNING_LEVEL,
    "halt_level": docutils.utils.Reporter.SEVERE_LEVEL + 1,
    "warning_stream": sys.stdout,
})
PY
	)
	out=$(grep -E "\((WARNING|ERROR|SEVERE)/" <<<"$out" |
		grep -vE 'Unknown interpreted text role|Unknown directive type|No (role|directive) entry')
	if [ -z "$out" ]; then
		echo "ok $((i + 1)) - docs: ${docs[$i]} parses cleanly"
	else
		echo "not ok $((i + 1)) - docs: ${docs[$i]} parses cleanly"
		sed 's/^/# /' <<<"$out"
		rc=1
	fi
done
exit $rc
