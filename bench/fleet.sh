#!/usr/bin/env bash
# bench/fleet.sh: 1, 2 and 4 tbthrottle processes sharing buckets through
# one local redis-server, as hosts of a fleet would; a Markdown table.
#
# usage: bash bench/fleet.sh [--quick]
#
#   --quick   20 000 records a process with -k and 2 s of the shared
#             bucket (else 50 000 records, three runs each, and 5 s)
#
# Environment: TB (the tbthrottle binary, default bench/../tbthrottle),
# RECV (bench/recv, built by make bench), as for bench/run.sh, which runs
# this too.  Needs redis-server and a tbthrottle built with hiredis; says
# so and prints no table otherwise.
#
# -k: each process copies its records (over 1000 keys, all within their
# bursts: no record waits) through -k 1 -r 1000/s -b 1000 --redis; its
# records a second are its records over its own wall time, from just
# before it starts to its exit.  The shared bucket: each process copies
# more records than the bucket allows through -r 20000/s -b 100 --redis
# into a recv of its own that timestamps each read from one t0, taken
# before any starts, and each is stopped after the run's seconds.  Their
# arrivals together are held against the bucket's one limit: the count
# by t0 + S against burst + rate x S, the most any arrival is ahead of
# that schedule (above 0: a record early), and the most the arrivals in
# any window exceed burst + rate x its width (late wake-ups and pipes
# that deliver late bunch records; 0 would be a perfect clock).  Round
# trips are the server's count of EVALSHA (commandstats) over records.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args fleet.sh "$@"

echo "## Fleet: processes sharing buckets through one Redis"
echo
if ! command -v redis-server >/dev/null ||
	! "$TB" -V | grep -q 'Redis support: yes'; then
	echo "Not measured: needs redis-server and a tbthrottle built with hiredis."
	exit 0
fi

work=$(mktemp -d)
redis_pid=''
stop_server() {
	if [[ -n $redis_pid ]]; then
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap stop_server EXIT

# start_server: a redis-server of our own on a free loopback port, in port
# and redis_pid; false when none starts.  The answer must come from our
# process: another server may hold the port we were handed.
start_server() {
	local i tries
	for ((tries = 0; tries < 5; tries++)); do
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
			echo $((20000 + RANDOM % 20000)))
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
			--appendonly no >"$work/redis.log" 2>&1 &
		redis_pid=$!
		for ((i = 0; i < 500; i++)); do
			kill -0 "$redis_pid" 2>/dev/null || break
			redis-cli -p "$port" info server 2>/dev/null |
				grep -q "^process_id:$redis_pid" && return 0
			sleep 0.01
		done
		kill "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
		redis_pid=''
	done
	return 1
}
if ! start_server; then
	echo "Not measured: redis-server did not start: $(tail -n 1 "$work/redis.log")"
	exit 1
fi
url=redis://127.0.0.1:$port
# Run directories of our own: the processes' control sockets.
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"

if ((quick)); then
	k_lines=20000 reps=1 share_s=2
else
	k_lines=50000 reps=3 share_s=5
fi
rate=20000 burst=100
awk -v n="$k_lines" 'BEGIN { for (i = 0; i < n; i++) printf "k%d %d\n", i % 1000, i }' \
	>"$work/keys.txt"
seq $((rate * share_s * 3 / 2)) >"$work/lines.txt"
run=0

evalsha() {
	redis-cli -p "$port" info commandstats |
		sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p'
}

# min_max FILE: "min..max" of the numbers in FILE, one a line.
min_max() {
	sort -n "$1" | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f..%.0f", a, b }'
}

# keyed PROCS: one run of PROCS processes at once through -k; appends a
# line "per-process-min per-process-max total round-trips" to keyed.txt.
keyed() {
	local procs=$1 i calls first last pids=()
	run=$((run + 1))
	calls=$(evalsha)
	for ((i = 0; i < procs; i++)); do
		(
			s=$("$RECV" --now)
			"$TB" -k 1 -r 1000/s -b 1000 --shared "keys$run" --redis "$url" \
				"$work/keys.txt" >/dev/null
			e=$("$RECV" --now)
			echo "$s $e"
		) >"$work/kp.$i" &
		pids+=($!)
	done
	wait "${pids[@]}" || echo "fleet.sh: a run through -k failed" >&2
	cat "$work"/kp.* >"$work/k.all"
	rm -f "$work"/kp.*
	awk -v n="$k_lines" '{ print n / (($2 - $1) / 1e9) }' "$work/k.all" \
		>"$work/k.rates"
	first=$(sort -n "$work/k.all" | head -n 1 | cut -d ' ' -f 1)
	last=$(sort -k 2 -n "$work/k.all" | tail -n 1 | cut -d ' ' -f 2)
	echo "$(min_max "$work/k.rates") $(awk -v n="$((k_lines * procs))" \
		-v s="$first" -v e="$last" 'BEGIN { printf "%.0f", n / ((e - s) / 1e9) }') \
		$(awk -v c="$(($(evalsha) - calls))" -v n="$((k_lines * procs))" \
			'BEGIN { printf "%.4f", c / n }')" >>"$work/keyed.$procs"
}

# shared PROCS: PROCS processes on one bucket for share_s seconds; one
# table row.
shared() {
	local procs=$1 i calls t0 pids=() recvs=()
	rm -f "$work"/tr.*
	calls=$(evalsha)
	t0=$("$RECV" --now)
	for ((i = 0; i < procs; i++)); do
		rm -f "$work/fifo.$i"
		mkfifo "$work/fifo.$i"
		"$RECV" --t0 "$t0" --trace "$work/tr.$i" <"$work/fifo.$i" \
			>/dev/null &
		recvs+=($!)
		"$TB" -r "$rate/s" -b "$burst" --shared "share$procs" --redis "$url" \
			"$work/lines.txt" >"$work/fifo.$i" &
		pids+=($!)
	done
	sleep "$share_s.3"
	kill -TERM "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	wait "${recvs[@]}"
	for ((i = 0; i < procs; i++)); do
		awk -v s="$share_s" '$1 / 1e9 <= s { n += $3 } END { print n / s }' \
			"$work/tr.$i"
	done >"$work/s.rates"
	sort -n -m "$work"/tr.* | awk -v r="$rate" -v b="$burst" -v s="$share_s" \
		-v p="$procs" -v mm="$(min_max "$work/s.rates")" \
		-v c="$(($(evalsha) - calls))" '
		{
			t = $1 / 1e9
			before = n
			n += $3
			if (t <= s)
				by = n
			ahead = n - (b + r * t)
			if (NR == 1 || ahead > most) most = ahead
			low = before - r * t
			if (NR == 1 || low < least) least = low
			excess = n - r * t - least - b
			if (NR == 1 || excess > worst) worst = excess
		}
		END {
			ideal = b + r * s
			printf "| %d | %d | %d | %+.2f | %s | %.0f | %.3f | %.0f | %.0f |\n",
			    p, by, ideal, (by - ideal) / ideal * 100, mm, by / s,
			    c / n, most, worst
		}'
}

share_rows=()
for procs in 1 2 4; do
	echo "fleet.sh: $procs process(es) on one bucket of $rate/s" >&2
	share_rows+=("$(shared "$procs")")
done
keyed_rows=()
for procs in 1 2 4; do
	echo "fleet.sh: $procs process(es) of $k_lines records through -k" >&2
	for ((r = 0; r < reps; r++)); do
		keyed "$procs"
	done
	# The run of the median total.
	read -r mm total rt < <(sort -k 2 -n "$work/keyed.$procs" |
		awk -v m="$(((reps + 1) / 2))" 'NR == m { print $1, $2, $3 }')
	keyed_rows+=("| $procs | $((k_lines * procs)) | $mm | $total | $rt |")
done

echo "$(nproc) CPUs, shared with the redis-server; $(redis-server --version |
	sed 's/ sha=.*//')."
echo
echo "-k through Redis, 1000 keys within their bursts" \
	"(\`-k 1 -r 1000/s -b 1000\`), $k_lines records a process;" \
	"the median of $reps run(s):"
echo
echo "| processes | records | records/s a process (min..max) | records/s in all | round trips a record |"
echo "|--:|--:|--:|--:|--:|"
printf '%s\n' "${keyed_rows[@]}"
echo
echo "One bucket of $rate/s, burst $burst, shared for $share_s s:"
echo
echo "| processes | records by ${share_s} s | burst + rate x time | err % | records/s a process (min..max) | records/s in all | round trips a record | most ahead of the schedule | window excess |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${share_rows[@]}"
echo
echo "Ahead: the most the arrivals were ahead of burst + rate x (t - t0),"
echo "t0 before any process started (above 0: a record early).  Window"
echo "excess: the most the arrivals in any window exceeded burst + rate x"
echo "its width: late wake-ups and late pipe reads bunch records."
