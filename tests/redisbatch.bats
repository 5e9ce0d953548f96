#!/usr/bin/env bats
# --redis books many records in one round trip: in order, each key on its
# own schedule, a record waiting behind the one before it as when each was
# booked alone, through a restart of the server, a lost answer and a stop;
# against a real redis-server on a loopback port (skipped, saying so,
# without redis-server or hiredis).
# shellcheck disable=SC2016 # bash -c scripts read their arguments as $1

load helpers
load redis

setup_file() {
	build_stamp
	file_redis
}

teardown_file() {
	stop_redis
}

teardown() {
	stop_own_redis
}

setup() {
	redis_test b
}

# keyed_input FILE KEYS PER: PER records of each of KEYS keys, "kI N",
# the keys in turn.
keyed_input() {
	awk -v k="$2" -v per="$3" 'BEGIN {
		for (i = 0; i < k * per; i++) printf "k%d %d\n", i % k, i }' >"$1"
}

# evalsha PORT: the calls of EVALSHA the server on PORT has answered.
evalsha() {
	redis-cli -p "$1" info commandstats |
	    sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p'
}

# assert_key_schedule BURST INTERVAL_MS: in stamp's $output, the k-th
# record of each key (its first field) arrives no earlier than
# (k - BURST) x INTERVAL_MS after the input did.
assert_key_schedule() {
	local bad
	bad=$(awk -v b="$1" -v s="$2" -v t0="$(stamp_in)" '
	    $1 ~ /^[0-9]/ {
		due = t0 + (++n[$2] - b) * s
		if (n[$2] > b && $1 < due) {
			printf "%s %s at %s ms, due %s\n", $2, $3, $1, due
			exit
		}
	    }' <<<"$output")
	assert_eq "$bad" "" "a record early"
}

@test "--redis -k in batches: every key on its schedule, in input order, far fewer round trips than records" {
	local calls
	keyed_input "$d/in" 100 30
	calls=$(evalsha "$RPORT")
	run -0 --separate-stderr "$STAMP" -i "$d/in" -- "$TB" -k 1 -r 20/s \
	    -b 5 --shared "$P" --redis "$URL" -s
	assert_eq "$(stamp_texts)" "$(cat "$d/in")" "records, in order"
	# Each key: 5 at once, then one each 50 ms; 30 of them by 1250 ms.
	assert_key_schedule 5 50
	assert_le "$(stamp_field 3000)" "$(plus "$(stamp_in)" 6250)" "last (ms)"
	# About one round trip for each 50 ms of the schedule.
	assert_le "$(($(evalsha "$RPORT") - calls))" 300 "round trips"
	[[ $stderr == *"units 3000 in, 3000 out, 0 dropped, 0 waiting"* ]]
}

@test "--redis -k: a batch of keys within their bursts and a spent one; each as if booked alone" {
	# x 0 spends x's bucket (one each 2 s, burst 1) just before the run
	# that books y 1, z 1 and x 1 in one batch: x 1 waits for x, and
	# y 2 and w 1 wait behind it, y 2 two seconds after y 1.
	printf 'y 1\nz 1\nx 1\ny 2\nw 1\n' >"$d/in"
	run -0 --separate-stderr "$STAMP" -i "$d/in" -I 300 -- bash -c '
	    echo "x 0" | "$0" -k 1 -r 30/min --shared "$1" --redis "$2" &&
	    exec "$0" -k 1 -r 30/min --shared "$1" --redis "$2"' \
	    "$TB" "$P" "$URL"
	assert_eq "$(stamp_texts)" $'x 0\ny 1\nz 1\nx 1\ny 2\nw 1' "order"
	assert_ge "$(stamp_field 2)" "$(stamp_in)" "y 1 (ms)"
	assert_le "$(stamp_field 3)" "$(plus "$(stamp_in)" 1500)" "z 1, at once (ms)"
	assert_ge "$(stamp_field 4)" 2000 "x 1, 2 s after x 0 (ms)"
	assert_ge "$(stamp_field 5)" "$(plus "$(stamp_in)" 2000)" "y 2 (ms)"
	assert_ge "$(stamp_field 6)" "$(stamp_field 5)" "w 1, behind y 2 (ms)"
	assert_le "$(stamp_field 6)" "$(plus "$(stamp_in)" 8000)" "w 1 (ms)"
}

@test "--redis -k --drop in batches: 50000 records over 1000 keys, the first 3 of each kept in order, the counts of -s exact" {
	keyed_input "$d/in" 1000 50
	awk '++n[$1] <= 3' "$d/in" >"$d/want"
	run -0 --separate-stderr tb -k 1 -r 1/min -b 3 --drop --stats=json \
	    --shared "$P" --redis "$URL" "$d/in"
	assert_eq "$output" "$(cat "$d/want")" "kept"
	assert_eq "$(json_field units_in)" 50000 "in"
	assert_eq "$(json_field units_out)" 3000 "out"
	assert_eq "$(json_field units_dropped)" 47000 "dropped"
	assert_eq "$(json_field units_waiting)" 0 "waiting"
}

@test "--redis -k: a stop releases the booked records that are due, and counts the rest as waiting" {
	# a, b, c: two each at once (burst 2), the third in a minute.
	printf 'a 1\nb 1\nc 1\na 2\nb 2\nc 2\na 3\nb 3\nc 3\na 4\n' >"$d/in"
	stop_after 1 "$d/out" "$d/err" "$TB" -k 1 -r 1/min -b 2 \
	    --stats=json --shared "$P" --redis "$URL" "$d/in"
	assert_eq "$stopped_status" 143 "exit status"
	assert_eq "$(cat "$d/out")" "$(head -n 6 "$d/in")" "released"
	assert_eq "$(json_field units_out)" 6 "out"
	assert_eq "$(json_field units_waiting)" 4 "waiting"
}

# straddle FALLBACK: 3000 records over 100 keys, 5 at once and 10/s each
# (2.5 s), through a server of their own that is killed once the first
# are out, and started again, empty, once the run has met the outage and
# held (block) or gone on (local) for a while.
straddle() {
	local pid n1 n2 st=0 met
	own_redis
	keyed_input "$d/in" 100 30
	"$TB" -k 1 -r 10/s -b 5 --stats --shared "$P" \
	    --redis "redis://127.0.0.1:$OPORT" --redis-fallback "$1" "$d/in" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	wait_for "the first records out" test -s "$d/out"
	stop_redis "$OPORT"
	# From when the run has met the outage, nothing booked before it is
	# still to come.
	if [[ $1 == local ]]; then met="limiting locally"; else met="waiting for it"; fi
	wait_for "the outage met" has_text "$d/err" "$met"
	n1=$(wc -l <"$d/out")
	if [[ $1 == local ]]; then
		wait_for "a line released while Redis is down" \
		    has_lines "$d/out" $((n1 + 1))
	else
		sleep 0.4
	fi
	n2=$(wc -l <"$d/out")
	start_redis "$OPORT"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status: $(cat "$d/err")"
	cmp "$d/in" "$d/out"
	stderr=$(cat "$d/err")
	[[ $stderr == *"units 3000 in, 3000 out, 0 dropped, 0 waiting"* ]]
	down_lines=$((n2 - n1))
}

@test "--redis -k: batches straddling a restart of the server: nothing released while it is down, nothing lost or twice" {
	straddle block
	assert_eq "$down_lines" 0 "lines released while Redis was down"
	[[ $(grep -c 'waiting for it' "$d/err") == 1 ]]
	[[ $(grep -c 'reached again' "$d/err") == 1 ]]
}

@test "--redis -k --redis-fallback local: batches straddling a restart go on by the local buckets, nothing lost or twice" {
	straddle local
	assert_ge "$down_lines" 1 "lines released while Redis was down"
	[[ $(grep -c 'limiting locally' "$d/err") == 1 ]]
}

@test "--redis: a batch whose answer was lost is asked again and not booked twice" {
	own_redis
	hung_batch $'1\n2\n3' --shared "$P" -r 1/min -b 5 --drop
	assert_eq "$(cat "$d/out")" $'1\n2\n3' "kept"
	grep -q 'waiting for it' "$d/err"
	# Three of the five were taken, not six.
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" -r 1/min \
	    -b 5 --drop --redis "$1"' "$P" "redis://127.0.0.1:$OPORT"
	assert_eq "$output" $'1\n2' "left in the bucket"
}

@test "--redis --tiers: a batch of keys of no limit goes at once without Redis, which stays down" {
	printf 'vip* inf\n' >"$d/tiers"
	run -0 --separate-stderr bash -c 'printf "vip1 a\nvip2 b\nvip1 c\n" |
	    tb -k 1 -r 1/min --tiers "$0" --shared "$1" \
	    --redis redis://127.0.0.1:1' "$d/tiers" "$P"
	assert_eq "$output" $'vip1 a\nvip2 b\nvip1 c' "out"
	assert_one_stderr_line
	[[ $stderr == *"waiting for it"* ]]
}
