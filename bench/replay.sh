#!/usr/bin/env bash
# bench/replay.sh: how closely tbthrottle --replay keeps to its schedule,
# beside the `while read; sleep` loop a user would write; a Markdown table.
#
# usage: bash bench/replay.sh [--quick]
#
#   --quick   a 5 s log and a 10 min one (else 30 s and an hour)
#
# Environment: TB (the tbthrottle binary, default bench/../tbthrottle),
# RECV (bench/recv, built by make bench), as for bench/run.sh, which runs
# this too.
#
# Two logs of epoch timestamps with nanosecond fractions, from a fixed
# seed: one of 30 s with gaps drawn from 0 to 300 ms, replayed at speed 1,
# and one of an hour with gaps from 0 to 2 s, at speed 120 (30 s).  recv
# timestamps every read; record k is due at T0 + (ts_k - ts_0) / SPEED,
# T0 taken as the first record's arrival (which leaves out start-up and
# the pipe's own latency).  Lateness is arrival minus due: p50, p99 and
# max over all records; "min" below 0 would be a record early; "last" is
# the last record's lateness, the drift over the whole log.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args replay.sh "$@"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# make_log FILE SECONDS MAX_GAP_MS SEED: records "EPOCH.NNNNNNNNN rec K"
# with gaps drawn from 0 to MAX_GAP_MS; FILE.off gets their offsets in ns.
make_log() {
	awk -v secs="$2" -v gap="$3" -v seed="$4" -v off="$1.off" 'BEGIN {
		srand(seed)
		for (t = 0; t <= secs * 1e9; t += int(rand() * gap * 1e6)) {
			s = 1732370706 + int(t / 1e9)
			printf "%d.%09d rec %d\n", s, t % 1e9, k++
			printf "%.0f\n", t > off
		}
	}' >"$1"
}

# The loop a user would write: sleep the gap to the previous record, at
# speed $1, with a fork or two per record.
sleep_loop() {
	local speed=$1 prev='' ts rest
	while read -r ts rest; do
		if [[ -n $prev ]]; then
			sleep "$(awk -v a="$ts" -v b="$prev" -v s="$speed" \
			    'BEGIN { printf "%.9f", (a - b) / s }')"
		fi
		printf '%s %s\n' "$ts" "$rest"
		prev=$ts
	done
}
export -f sleep_loop

# lateness TRACE OFFSETS SPEED: "n p50 p99 max min last" in ms, from
# recv's trace (ns since t0, units before, units in the read).
lateness() {
	awk -v speed="$3" '
		NR == FNR { off[NR] = $1; next }
		{
			if (first == "") first = $1
			for (k = $2 + 1; k <= $2 + $3; k++)
				late[++n] = ($1 - first - off[k] / speed) / 1e6
		}
		END {
			last = late[n]
			for (i = 2; i <= n; i++) {  # insertion sort: a few thousand
				v = late[i]
				for (j = i - 1; j >= 1 && late[j] > v; j--)
					late[j + 1] = late[j]
				late[j + 1] = v
			}
			p50 = late[int((n + 1) * 0.50)]
			p99 = late[int(n * 0.99 + 0.999999)]
			printf "%d %.3f %.3f %.3f %.3f %.3f\n", n, p50, p99, late[n],
			    late[1], last
		}' "$2" "$1"
}

rows=()
# run_one LABEL LOG SPEED CMD...: replay LOG under recv, one table row.
run_one() {
	local label=$1 log=$2 speed=$3 n p50 p99 max min last
	shift 3
	echo "replay.sh: $label" >&2
	"$RECV" --trace "$work/trace" -- "$@" <"$log" >/dev/null
	read -r n p50 p99 max min last < <(lateness "$work/trace" "$log.off" \
	    "$speed")
	rows+=("| $label | $n | $p50 | $p99 | $max | $min | $last |")
}

if ((quick)); then
	short=5 long=600
else
	short=30 long=3600
fi
make_log "$work/short.log" "$short" 300 14
make_log "$work/long.log" "$long" 2000 15

run_one "${short} s log, gaps 0-300 ms, speed 1: tbthrottle --replay" \
    "$work/short.log" 1 "$TB" --replay
run_one "the same: while read; sleep" "$work/short.log" 1 \
    bash -c 'sleep_loop 1'
run_one "${long} s log, gaps 0-2 s, speed 120: tbthrottle --replay --speed 120" \
    "$work/long.log" 120 "$TB" --replay --speed 120
run_one "the same: while read; sleep" "$work/long.log" 120 \
    bash -c 'sleep_loop 120'

echo "## Replay (--replay)"
echo
echo "| log, speed, tool | records | p50 ms | p99 ms | max ms | min ms | last ms |"
echo "|---|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${rows[@]}"
echo
echo "Lateness of each record against T0 + (ts_k - ts_0) / SPEED, T0 the"
echo "first record's arrival; min below 0 would be a record early; last is"
echo "the drift of the last record over the whole log."
