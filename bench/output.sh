#!/usr/bin/env bash
# bench/output.sh: the output of many commands passed on.  Four commands
# at once (-j 4), each writing LINES lines of 100 bytes as yes(1) writes
# them (in blocks that end mid-line), to /dev/null through tbthrottle's
# --ungroup (the commands write themselves), --line-buffer, --group and
# --tag, beside GNU parallel's --ungroup, --line-buffer, --group and
# --tag; the best wall time of three runs, the rate of bytes it makes, and
# the lines not whole in a run of 10 KB lines (--ungroup's are torn).  A
# Markdown table.
#
# usage: bash bench/output.sh [--quick]
#
#   --quick   250 000 lines a command (else 1 000 000)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args output.sh "$@"

lines=1000000
((quick)) && lines=250000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# gen BYTES LINES: a script writing LINES lines of BYTES of its argument.
gen() {
	# shellcheck disable=SC2016 # the script's own expansions
	printf '#!/bin/sh\nyes "$(head -c %d /dev/zero | tr "\\0" "$1")" | head -n %d\n' \
		"$1" "$2"
}
gen 99 "$lines" >"$work/small"
gen 10239 1000 >"$work/big"
chmod +x "$work/small" "$work/big"
printf 'a\nb\nc\nd\n' >"$work/in"

# best CMD...: the least wall time of three runs of CMD, in s.
best() {
	local t0 t1 b=""
	for _ in 1 2 3; do
		t0=$EPOCHREALTIME
		"$@" >/dev/null
		t1=$EPOCHREALTIME
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" \
			'BEGIN { t = z - a; if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$b"
}

# torn CMD...: the lines of CMD's output not 10239 of one letter (after
# a tag and its tab).
torn() {
	"$@" | LC_ALL=C awk '{ sub(/^[a-d]\t/, "") }
	    length($0) != 10239 || $0 !~ /^(a+|b+|c+|d+)$/ { n++ }
	    END { print n + 0 }'
}

# row NAME CMD...: a row of the table; CMD runs the script last named.
row() {
	local name=$1 t
	shift
	t=$(best "$@" "$work/small")
	printf '| %s | %s | %s | %s |\n' "$name" "$t" \
		"$(awk -v t="$t" -v n="$lines" 'BEGIN { printf "%.0f", 4 * n * 100 / t / 1e6 }')" \
		"$(torn "$@" "$work/big")"
}

echo "| four commands, -j 4 | s (best of 3) | MB/s | lines torn of 4000 |"
echo "| --- | ---: | ---: | ---: |"
for m in --ungroup --line-buffer --group --tag; do
	row "tbthrottle $m" "$TB" -r inf -j 4 "$m" "$work/in" --exec
done
if command -v parallel >/dev/null; then
	for m in --ungroup --line-buffer --group --tag; do
		row "parallel $m" parallel -j 4 "$m" -a "$work/in"
	done
fi
