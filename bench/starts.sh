#!/usr/bin/env bash
# bench/starts.sh: commands started at a rate.  tbthrottle --exec -j 2
# beside GNU parallel -j 2 --delay, tbthrottle piped into xargs -P 2 (the
# limit where lines enter the pipe), and xargs -P 2 whose jobs each take
# a token with tbthrottle --take; a Markdown table.
#
# usage: bash bench/starts.sh [--quick]
#
#   --quick   20 jobs a run (else 60)
#
# Environment: TB, RECV as for bench/run.sh, which runs this too.  The
# rate is 10/s with a burst of 1, 2 jobs at most at once.  Each job logs
# the time it started (date +%s.%N, the same cost for every tool), then
# sleeps: "steady" jobs 50 ms, "slow, then fast" jobs 1 s for the first
# quarter, then 10 ms, as an API that slows down and recovers.  The first
# start is due when it came; each next one 1/rate after the one before
# was due, or when a slot freed if later (when the job two before it
# ended).  Lateness is each start after its due time, p50, p99 and max;
# "early" the most any start came before it (0: never).  The worst window
# is the most the starts in any window exceed burst + rate x its width.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args starts.sh "$@"

n=60
((quick)) && n=20
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"

cat >"$work/job" <<'SH'
#!/bin/sh
# job ID: log the start, then sleep as the scenario says.
t=$(date +%s.%N)
echo "$t $1" >>"$LOG"
if [ "$SLOW_FOR" -gt 0 ] && [ "$1" -le "$SLOW_FOR" ]; then
	sleep 1
else
	sleep "$FAST"
fi
echo "$(date +%s.%N) end $1" >>"$LOG.end"
SH
chmod +x "$work/job"
seq "$n" >"$work/ids"
export TB

# run TOOL: the jobs of $work/ids started by TOOL, logged to $LOG.
run() {
	case $1 in
	exec) "$TB" -r 10/s -j 2 "$work/ids" --exec "$work/job" ;;
	parallel) parallel -j 2 --delay 0.1 "$work/job" :::: "$work/ids" ;;
	pipe) "$TB" -r 10/s "$work/ids" | xargs -d '\n' -n 1 -P 2 "$work/job" ;;
	take)
		# shellcheck disable=SC2016 # expanded by the jobs' shells
		xargs -d '\n' -n 1 -P 2 sh -c \
		    '"$TB" --shared "$B" -r 10/s --take && "$0" "$1"' \
		    "$work/job" <"$work/ids"
		;;
	esac
}

# measure: of $LOG and $LOG.end, the row's figures.
measure() {
	local late worst
	sort -n "$LOG.end" | awk '{ print $1 }' >"$LOG.ends"
	# Each start's lateness, in ms, and the worst window on the last line.
	late=$(sort -n "$LOG" | awk -v r=10 -v b=1 -v ends="$LOG.ends" '
	    BEGIN { while ((getline x < ends) > 0) e[++ne] = x }
	    { t[NR] = $1 }
	    END {
		for (k = 1; k <= NR; k++) {
			# 1/rate after the one before was due, or when a slot
			# freed if later: two slots, so when the job two
			# before it ended (the ends in the order they came).
			due = k == 1 ? t[1] : due + 1 / r
			if (k > 2 && e[k - 2] > due)
				due = e[k - 2]
			printf "%.3f\n", (t[k] - due) * 1000
		}
		for (i = 1; i <= NR; i++)
			for (j = i; j <= NR; j++) {
				x = (j - i + 1) - (b + r * (t[j] - t[i]))
				if (x > worst)
					worst = x
			}
		printf "worst %.2f\n", worst
	    }')
	worst=$(sed -n 's/^worst //p' <<<"$late")
	grep -v '^worst' <<<"$late" | sort -g | awk -v w="$worst" '
	    { l[NR] = $1 }
	    END {
		p50 = int(NR * 0.5); if (p50 < 1) p50 = 1
		p99 = int(NR * 0.99); if (p99 < 1) p99 = 1
		early = l[1] < 0 ? -l[1] : 0
		printf "%d | %.1f | %.1f | %.1f | %.1f | %.2f", NR, l[p50],
		    l[p99], l[NR], early, w
	    }'
}

echo "## Commands started at a rate: 10/s, burst 1, 2 at once"
echo
if ! command -v parallel >/dev/null; then
	echo "(GNU parallel is not installed: its rows are missing.)"
	echo
fi
echo "| jobs | tool | started | p50 late ms | p99 late ms | max late ms | early ms | worst window (starts over burst + rate x t) |"
echo "|---|---|--:|--:|--:|--:|--:|--:|"
for scenario in steady slow; do
	for tool in exec parallel pipe take; do
		[[ $tool == parallel ]] && ! command -v parallel >/dev/null &&
		    continue
		export LOG=$work/$scenario-$tool B=b$scenario$tool
		if [[ $scenario == steady ]]; then
			export SLOW_FOR=0 FAST=0.05
		else
			export SLOW_FOR=$((n / 4)) FAST=0.01
		fi
		: >"$LOG"
		: >"$LOG.end"
		run "$tool" >/dev/null
		case $tool in
		exec) name="tbthrottle -j 2 --exec" ;;
		parallel) name="parallel -j 2 --delay 0.1" ;;
		pipe) name="tbthrottle \\| xargs -P 2" ;;
		take) name="xargs -P 2, each --take" ;;
		esac
		echo "| $([[ $scenario == steady ]] && echo "50 ms" || echo "1 s, then 10 ms") | $name | $(measure) |"
	done
done
