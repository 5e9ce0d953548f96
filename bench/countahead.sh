#!/usr/bin/env bash
# bench/countahead.sh: what -P's count of records ahead costs.  A file of
# SIZE MiB of 100-byte lines, in the page cache, is passed at -r inf to
# /dev/null with and without -P (which reads the file once before the
# run to count its records, for its share and ETA); the best wall time
# of five runs each, and the difference.  -P draws only on a terminal,
# and counts only then: both runs have one, from script(1).  A Markdown
# table.
#
# usage: bash bench/countahead.sh [--quick]
#
#   --quick   64 MiB (else 256 MiB, the most -P counts ahead)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args countahead.sh "$@"
command -v script >/dev/null ||
    { echo "countahead.sh: script(1) is missing (bsdutils)" >&2; exit 1; }

mib=256
((quick)) && mib=64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ yes "$(head -c 99 /dev/zero | tr '\0' x)" || true; } | head -c $((mib << 20)) >"$work/in"
cat "$work/in" >/dev/null # into the page cache

# best ARG...: the least wall time of five runs of tbthrottle ARG..., in s.
best() {
	local t0 t1 b=""
	for _ in 1 2 3 4 5; do
		t0=$(date +%s.%N)
		script -qec "$TB $* $work/in >/dev/null" /dev/null \
		    >/dev/null 2>&1
		t1=$(date +%s.%N)
		b=$(awk -v b="$b" -v t="$(awk -v a="$t0" -v z="$t1" \
		    'BEGIN { print z - a }')" \
		    'BEGIN { print (b == "" || t < b) ? t : b }')
	done
	echo "$b"
}

plain=$(best -r inf)
counted=$(best -r inf -P)
echo "| input | -r inf | -r inf -P | counting ahead |"
echo "| --- | --- | --- | --- |"
awk -v m="$mib" -v p="$plain" -v c="$counted" 'BEGIN {
	printf "| %d MiB of 100-byte lines, page cache | %.3f s | %.3f s | %.3f s |\n",
	    m, p, c, c - p }'
