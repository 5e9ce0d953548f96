#!/usr/bin/env bash
# bench/order.sh: what --order key costs beside input order over many
# keys held at once; a Markdown table.
#
# usage: bash bench/order.sh [--quick]
#
#   --quick   10^5 records, one run each (else 10^5 and 10^6, the median
#             of three runs)
#
# Environment: TB (the tbthrottle binary, default bench/../tbthrottle),
# RECV as for bench/run.sh, which runs this too.  The input is a file of
# N records "kI I" of N keys, each within its burst (-k 1 -r 1/s), so
# none waits: with --order input (plain -k) and --order key they go out
# in input order.  "One waits": the same behind two records of key w,
# whose tier gives it 1/min, so that its second waits at the head while
# all the others go past it, each from behind it (--order input would
# hold them all back).  Wall s is from the start until the last of the N
# is written (the output file polled every 10 ms); CPU s (user + sys)
# is tbthrottle's by then, from /usr/bin/time; a run that still holds
# w's record is stopped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args order.sh "$@"
command -v /usr/bin/time >/dev/null ||
	{ echo "order.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'w 1/min\n* 1/s\n' >"$work/tiers"

sizes=(100000 1000000)
reps=3
((quick)) && sizes=(100000) reps=1

# run FILE BYTES ARG...: tbthrottle ARG... FILE until BYTES are out; sets
# wall and cpu (seconds).
run() {
	local file=$1 want=$2 t0 tpid tb got
	shift 2
	t0=${EPOCHREALTIME/[.,]/}
	/usr/bin/time -f '%U %S' -o "$work/time" \
		"$TB" "$@" "$file" >"$work/out" &
	tpid=$!
	got=0
	while ((got < want)) && kill -0 "$tpid" 2>/dev/null; do
		sleep 0.01
		got=$(stat -c %s "$work/out")
	done
	wall=$(awk -v a="$t0" -v b="${EPOCHREALTIME/[.,]/}" \
		'BEGIN { printf "%.2f", (b - a) / 1e6 }')
	# What still runs holds w's record: it is stopped.
	tb=$(pgrep -P "$tpid" || true)
	[[ -z $tb ]] || kill -TERM "$tb" 2>/dev/null || true
	wait "$tpid" || true
	got=$(stat -c %s "$work/out")
	((got >= want)) || { echo "order.sh: $* wrote $got of $want bytes" >&2; exit 1; }
	cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%.2f", $1 + $2 }' "$work/time")
}

# median A [B C]: the median of one or three numbers.
median() {
	printf '%s\n' "$@" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# ratio A B: A / B to two places, or n/a.
ratio() {
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'
}

# measure NAME FILE BYTES ARG...: the median of $reps runs as a row,
# with its ratios to base_wall and base_cpu.
rows=()
measure() {
	local name=$1 file=$2 want=$3 walls=() cpus=() i
	shift 3
	for ((i = 0; i < reps; i++)); do
		run "$file" "$want" "$@"
		walls+=("$wall")
		cpus+=("$cpu")
	done
	m_wall=$(median "${walls[@]}")
	m_cpu=$(median "${cpus[@]}")
	rows+=("| $name | $m_wall | $m_cpu | $(ratio "$m_wall" "${base_wall:-$m_wall}") | $(ratio "$m_cpu" "${base_cpu:-$m_cpu}") |")
}

for n in "${sizes[@]}"; do
	awk -v n="$n" \
		'BEGIN { for (i = 0; i < n; i++) printf "k%d %d\n", i, i }' \
		>"$work/fresh"
	{ printf 'w 0\nw 1\n'; cat "$work/fresh"; } >"$work/waits"
	bytes=$(stat -c %s "$work/fresh")
	unset base_wall base_cpu
	measure "$n fresh, --order input" "$work/fresh" "$bytes" -k 1 -r 1/s
	base_wall=$m_wall base_cpu=$m_cpu
	for q in 1000 100000; do
		measure "$n fresh, --order key --queue $q" "$work/fresh" \
			"$bytes" -k 1 -r 1/s --order key --queue "$q"
		measure "$n, one waits, --order key --queue $q" "$work/waits" \
			$((bytes + 4)) -k 1 --tiers "$work/tiers" --order key \
			--queue "$q"
	done
done

echo "## --order key over many keys"
echo
echo "| input, order | wall s | CPU s | wall ratio | CPU ratio |"
echo "|---|--:|--:|--:|--:|"
printf '%s\n' "${rows[@]}"
echo
echo "Records \`kI I\` of as many keys, all within their bursts (\`-k 1 -r 1/s\`),"
echo "from a file; ratios against \`--order input\` over the same records."
echo "\"One waits\": two records of key w (1/min) before them, the second"
echo "waiting at the head while the rest go past it.  Median of $reps run(s)."
