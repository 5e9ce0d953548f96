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
url=redis://127.0.0.1:$port ports=$port cli_args=() tag=one
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

# evalsha [usec]: the calls of EVALSHA the servers of $ports have
# answered, or with usec the microseconds they spent in it.
evalsha() {
	local p field=${1:-calls}
	# Whole names: failed_calls and usec_per_call end the same.
	for p in $ports; do
		redis-cli "${cli_args[@]}" -p "$p" info commandstats |
			sed -n "s/^cmdstat_evalsha:\(.*,\)*$field=\([0-9]*\).*/\2/p"
	done | awk '{ n += $1 } END { print n + 0 }'
}

# The limit of keyed's runs: a bucket per key, or (the window rows) a
# window per key.
limit=(-r 1000/s -b 1000)

# min_max FILE: "min..max" of the numbers in FILE, one a line.
min_max() {
	sort -n "$1" | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f..%.0f", a, b }'
}

# keyed PROCS [ARG...]: one run of PROCS processes at once through -k,
# with ARG... (TLS); appends a line "per-process-min..max total
# round-trips" to keyed.$tag.PROCS.
keyed() {
	local procs=$1 i calls first last pids=()
	shift
	run=$((run + 1))
	calls=$(evalsha) us=$(evalsha usec)
	for ((i = 0; i < procs; i++)); do
		(
			s=$("$RECV" --now)
			"$TB" -k 1 "${limit[@]}" --shared "keys$run" --redis "$url" \
				"$@" "$work/keys.txt" >/dev/null
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
			'BEGIN { printf "%.4f", c / n }') \
		$(awk -v u="$(($(evalsha usec) - us))" -v n="$((k_lines * procs))" \
			'BEGIN { printf "%.2f", u / n }')" >>"$work/keyed.$tag.$procs"
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
# keyed_rows PROCS... [-- ARG...]: the rows of keyed's table for each
# PROCS, the median of reps runs, in rows.
keyed_rows() {
	local procs counts=() mm total rt us r
	rows=()
	while (($# > 0)) && [[ $1 != -- ]]; do
		counts+=("$1")
		shift
	done
	shift || true
	for procs in "${counts[@]}"; do
		echo "fleet.sh: $procs process(es) of $k_lines records through -k ($tag)" >&2
		for ((r = 0; r < reps; r++)); do
			keyed "$procs" "$@"
		done
		# The run of the median total.
		read -r mm total rt us < <(sort -k 2 -n "$work/keyed.$tag.$procs" |
			awk -v m="$(((reps + 1) / 2))" 'NR == m { print $1, $2, $3, $4 }')
		rows+=("| $procs | $((k_lines * procs)) | $mm | $total | $rt |")
		wrows+=("| $procs | $((k_lines * procs)) | $mm | $total | $rt | $us |")
	done
}
keyed_rows 1 2 4
keyed_table=("${rows[@]}")
# The same keys through a window each, --drop (every record within its
# window's N): a fixed window's count, a sliding window's list of times.
wrows=()
tag=fixed limit=(-a fixed -r 100/1s)
keyed_rows 1 2 4 -- --drop
fixed_table=("${wrows[@]}")
wrows=()
tag=sliding limit=(-a sliding -r 100/1s)
keyed_rows 1 2 4 -- --drop
sliding_table=("${wrows[@]}")
limit=(-r 1000/s -b 1000)
wrows=()
tag=bucket-drop
keyed_rows 1 2 4 -- --drop
drop_table=("${wrows[@]}")

echo "$(nproc) CPUs, shared with the redis-server; $(redis-server --version |
	sed 's/ sha=.*//')."
echo
echo "-k through Redis, 1000 keys within their bursts" \
	"(\`-k 1 -r 1000/s -b 1000\`), $k_lines records a process;" \
	"the median of $reps run(s):"
echo
echo "| processes | records | records/s a process (min..max) | records/s in all | round trips a record |"
echo "|--:|--:|--:|--:|--:|"
printf '%s\n' "${keyed_table[@]}"
echo
echo "The same keys with --drop, each key a bucket, a fixed window or a sliding"
echo "window (\`-k 1 -r 1000/s -b 1000\`, \`-a fixed -r 100/1s\`,"
echo "\`-a sliding -r 100/1s\`; every record within its key's limit); the server's cost is its time in EVALSHA"
echo "(commandstats) over the records:"
echo
echo "| limit a key | processes | records | records/s a process (min..max) | records/s in all | round trips a record | server µs a record |"
echo "|:--|--:|--:|--:|--:|--:|--:|"
printf '| bucket | %s\n' "${drop_table[@]#| }"
printf '| fixed | %s\n' "${fixed_table[@]#| }"
printf '| sliding | %s\n' "${sliding_table[@]#| }"
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

# ------------------------------------------------------------ TLS beside TCP
# One process through -k to a server that speaks TLS on one port and TCP
# on another: what TLS costs, on the same server.
tls_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tcp_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tls_pid=''
if "$TB" -V | grep -q 'TLS: yes' && command -v openssl >/dev/null &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$work/tls.key" \
		-out "$work/tls.pem" 2>/dev/null; then
	redis-server --port "$tcp_port" --tls-port "$tls_port" --bind 127.0.0.1 \
		--tls-cert-file "$work/tls.pem" --tls-key-file "$work/tls.key" \
		--tls-auth-clients no --save '' --appendonly no \
		>"$work/tls.log" 2>&1 &
	tls_pid=$!
	for ((i = 0; i < 500; i++)); do
		redis-cli -p "$tcp_port" ping 2>/dev/null | grep -q PONG && break
		sleep 0.01
	done
fi
if [[ -n $tls_pid ]] && redis-cli -p "$tcp_port" ping 2>/dev/null | grep -q PONG; then
	ports=$tcp_port url=redis://127.0.0.1:$tcp_port
	tag=tcp
	keyed_rows 1
	tcp_row=${rows[0]}
	url=rediss://127.0.0.1:$tls_port tag=tls
	keyed_rows 1 -- --redis-cacert "$work/tls.pem"
	echo
	echo "TLS beside TCP, one process through -k, the same server" \
		"(the median of $reps run(s)):"
	echo
	echo "| link | records | records/s | records/s in all | round trips a record |"
	echo "|--|--:|--:|--:|--:|"
	echo "| TCP ${tcp_row#| 1 }"
	echo "| TLS ${rows[0]#| 1 }"
	kill "$tls_pid"
	wait "$tls_pid" 2>/dev/null || true
else
	echo
	echo "TLS not measured: needs a tbthrottle built with TLS, openssl," \
		"and a redis-server built with TLS."
fi

# ------------------------------------------------------------- Cluster
# A Redis Cluster of three masters on this host: -k spreads each name's
# buckets over 16 slots, and a process books a call a slot of its batch.
cluster_pids=()
stop_cluster() {
	kill "${cluster_pids[@]}" 2>/dev/null || true
	wait "${cluster_pids[@]}" 2>/dev/null || true
	stop_server
}
trap stop_cluster EXIT
nodes=() ports=''
for i in 1 2 3; do
	p=$(python3 -c '
import random, socket
for _ in range(1000):
    p = random.randint(20000, 50000)
    try:
        for q in (p, p + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
    except OSError:
        continue
    print(p); break')
	mkdir -p "$work/node-$p"
	(cd "$work/node-$p" && exec redis-server --port "$p" --bind 127.0.0.1 \
		--cluster-enabled yes --cluster-config-file nodes.conf --save '' \
		--appendonly no >"$work/node-$p.log" 2>&1) &
	cluster_pids+=($!)
	nodes+=("127.0.0.1:$p")
	ports="$ports $p"
done
sleep 0.5
if redis-cli --cluster create "${nodes[@]}" --cluster-yes >"$work/create.log" 2>&1; then
	for ((i = 0; i < 100; i++)); do
		redis-cli -p "${nodes[0]#*:}" cluster info | grep -q cluster_state:ok && break
		sleep 0.1
	done
	url=redis://${nodes[0]} tag=cluster
	keyed_rows 1 2 4 -- --drop
	echo
	echo "-k --drop through a Redis Cluster of 3 masters on this host (the same" \
		"keys; round trips summed over the masters; the median of $reps run(s)):"
	echo
	echo "| processes | records | records/s a process (min..max) | records/s in all | round trips a record |"
	echo "|--:|--:|--:|--:|--:|"
	printf '%s\n' "${rows[@]}"
	tag=cluster-shape
	keyed_rows 1
	echo
	echo "The same keys shaped (no --drop), one process (the shards asked" \
		"at once, as nothing waits):"
	echo
	echo "| processes | records | records/s a process (min..max) | records/s in all | round trips a record |"
	echo "|--:|--:|--:|--:|--:|"
	printf '%s\n' "${rows[@]}"
else
	echo
	echo "Cluster not measured: redis-cli --cluster create failed: $(tail -n 1 "$work/create.log")"
fi
