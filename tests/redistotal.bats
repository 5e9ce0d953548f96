#!/usr/bin/env bats
# --total-rate with --redis: one total for every process of the name, a
# bucket in Redis booked with each record's key, against a real
# redis-server on a loopback port (skipped, saying so, without
# redis-server or hiredis).
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
	redis_test tt
}

# tbr [-n NAME] ARG...: tb with the shared name NAME (default the
# test's own) on the file's server.
tbr() {
	local name=$P
	if [[ $1 == -n ]]; then
		name=$2
		shift 2
	fi
	tb --shared "$name" --redis "$URL" "$@"
}

@test "--redis --total-rate --drop: two processes over many keys pass exactly the total's burst in all" {
	local pa pb
	keyed 60 10 >"$d/in"
	# Alone, the keys' bursts would pass 50 of each run's 60; together
	# the fleet's total lets 20 through, whichever process takes them.
	tbr -k 1 -r 1/h -b 5 --total-rate 1/h --total-burst 20 --drop \
	    "$d/in" >"$d/outa" 2>"$d/erra" &
	pa=$!
	tbr -k 1 -r 1/h -b 5 --total-rate 1/h --total-burst 20 --drop \
	    "$d/in" >"$d/outb" 2>"$d/errb" &
	pb=$!
	wait "$pa"
	wait "$pb"
	assert_eq "$(cat "$d/outa" "$d/outb" | wc -l)" 20 "lines out in all"
	# No key passed more than its own burst over both.
	assert_eq "$(cat "$d/outa" "$d/outb" | cut -d' ' -f1 | sort | uniq -c |
	    awk '$1 > 5' | wc -l)" 0 "keys over their burst"
	# A third run finds the total spent.
	run -0 --separate-stderr tbr -k 1 -r 1/h -b 5 --total-rate 1/h \
	    --total-burst 20 --drop "$d/in"
	assert_eq "$output" "" "a third run"
}

@test "--redis --total-rate --drop: a record the total refuses takes nothing from its key, and one its key refuses nothing from the total" {
	# a takes the total's only token; b, refused by the total, leaves
	# its own bucket untouched: no bucket of b in Redis.
	printf 'a 1\nb 2\n' >"$d/in"
	run -0 --separate-stderr tbr -k 1 -r 1/h -b 1 --total-rate 1/h \
	    --total-burst 1 --drop "$d/in"
	assert_eq "$output" "a 1" "out"
	assert_eq "$(redis-cli -p "$RPORT" exists "tbthrottle:$P:a")" 1 \
	    "a bucket of a in Redis"
	assert_eq "$(redis-cli -p "$RPORT" exists "tbthrottle:$P:b")" 0 \
	    "a bucket of b in Redis"
	# Here a's second record is refused by a, not by the total: of a
	# total of 3, two are left for c, d and e.
	printf 'a 1\na 2\nb 3\n' >"$d/in"
	run -0 --separate-stderr tbr -n "${P}x" -k 1 -r 1/h -b 1 \
	    --total-rate 1/h --total-burst 3 --drop "$d/in"
	assert_eq "$output" $'a 1\nb 3' "out"
	printf 'c 1\nd 2\ne 3\n' >"$d/in"
	run -0 --separate-stderr tbr -n "${P}x" -k 1 -r 1/h -b 1 \
	    --total-rate 1/h --total-burst 3 --drop "$d/in"
	assert_eq "$output" 'c 1' "what the total has left"
}

@test "--redis --total-rate shaping: keys each under their rate wait for the total, never early" {
	assert_total_shapes --shared "$P" --redis "$URL"
}

@test "--redis --total-rate shaping: a key the total held back is charged from when it went" {
	printf 'x1 1\nx2 2\nx3 3\na 4\na 5\n' >"$d/in"
	# The total (2/s) holds a back to 1.5 s; a's own bucket (1/s,
	# burst 1) is charged from then, so its second waits until 2.5 s.
	run -0 "$STAMP" -i "$d/in" -- "$TB" --shared "$P" --redis "$URL" \
	    -k 1 -r 1/s --total-rate 2/s
	assert_eq "$(stamp_count)" 5 "records out"
	local in
	in=$(stamp_in)
	assert_ge "$(stamp_field 4)" "$(plus "$in" 1500)" "a's first (ms)"
	assert_ge "$(stamp_field 5)" "$(plus "$in" 2500)" "a's second (ms)"
	assert_le "$(stamp_field 5)" "$(plus "$in" 7000)" "a's second, late (ms)"
}

@test "--redis --total-rate shaping: two processes together within the total's burst + rate x time, each getting some" {
	local t0 t1 total pa pb
	keyed 100000 50 a >"$d/ina"
	keyed 100000 50 b >"$d/inb"
	# The keys would let thousands a second through; the total, 50/s.
	t0=$(now_ms)
	"$TB" --shared "$P" --redis "$URL" -k 1 -r 1000/s -b 100 \
	    --total-rate 50/s --total-burst 5 "$d/ina" >"$d/outa" &
	pa=$!
	"$TB" --shared "$P" --redis "$URL" -k 1 -r 1000/s -b 100 \
	    --total-rate 50/s --total-burst 5 "$d/inb" >"$d/outb" &
	pb=$!
	sleep 2
	kill -TERM "$pa" "$pb"
	wait "$pa" "$pb" || true
	t1=$(now_ms)
	total=$(cat "$d/outa" "$d/outb" | wc -l)
	assert_le "$total" "$(awk -v a="$t0" -v b="$t1" \
	    'BEGIN { printf "%d", 5 + (b - a) * 50 / 1000 + 1 }')" "lines"
	assert_ge "$total" 40 "lines"
	assert_ge "$(wc -l <"$d/outa")" 1 "lines of the first"
	assert_ge "$(wc -l <"$d/outb")" 1 "lines of the second"
}

@test "--redis --total-rate: another total for the same name is refused, naming both" {
	# At 1/min the buckets live a minute: long enough for the second
	# run to find the settings however slow the machine.
	run -0 --separate-stderr bash -c 'echo "a 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/min --total-rate 1/min' "$P" "$URL"
	run -1 --separate-stderr bash -c 'echo "a 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/min --total-rate 2/min' "$P" "$URL"
	assert_one_stderr_line
	[[ $stderr == *"--total-rate 1/min, burst 1"* &&
	    $stderr == *"--total-rate 2/min, burst 1"* ]] ||
	    { echo "$stderr" >&2; false; }
	run -1 --separate-stderr bash -c 'echo "a 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/min --total-rate 1/min --total-burst 2' \
	    "$P" "$URL"
	assert_one_stderr_line
	[[ $stderr == *"--total-rate 1/min, burst 2"* ]]
	run -1 --separate-stderr bash -c 'echo "a 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/min' "$P" "$URL"
	assert_one_stderr_line
	[[ $stderr == *"no --total-rate"* ]] || { echo "$stderr" >&2; false; }
	# The same total, however written, is welcome, and found spent.
	run -0 --separate-stderr bash -c 'echo "b 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/min --total-rate 60/h --drop' "$P" "$URL"
	assert_eq "$output" "" "b, after a took the total's one"
	assert_eq "$stderr" "" "stderr"
}

@test "--redis -k --take KEY --total-rate: the key's bucket and the fleet's total, both" {
	local k st
	for k in a b c; do
		st=0
		tbr --take "$k" -k 1 -r 1/h -b 5 --total-rate 1/h \
		    --total-burst 2 --drop || st=$?
		echo "$k $st" >>"$d/st"
	done
	# Two of the total's, then none, though c's own bucket is full.
	assert_eq "$(cat "$d/st")" $'a 0\nb 0\nc 1' "exit statuses"
	# A run that books the keys' records with the same total finds it
	# spent.
	run -0 --separate-stderr bash -c 'echo "d 1" | tb --shared "$0" \
	    --redis "$1" -k 1 -r 1/h -b 5 --total-rate 1/h --total-burst 2 \
	    --drop' "$P" "$URL"
	assert_eq "$output" "" "d, the total spent by the takes"
}

@test "--redis --total-rate --tiers: keys of no limit of their own still pay the total" {
	printf 'vip* inf\n' >"$d/tiers"
	printf 'vip1 a\nvip2 b\nvip1 c\nfree d\n' >"$d/in"
	run -0 --separate-stderr tbr -k 1 -r 1/h --tiers "$d/tiers" \
	    --total-rate 1/h --total-burst 2 --drop "$d/in"
	assert_eq "$output" $'vip1 a\nvip2 b' "out"
	assert_eq "$(redis-cli -p "$RPORT" exists "tbthrottle:$P:vip1")" 0 \
	    "a bucket of vip1 in Redis"
}

@test "--redis --total-rate --redis-fallback local: while Redis is down the total holds in the process" {
	keyed 10 5 >"$d/in"
	run -0 --separate-stderr tb --shared "$P" --redis redis://127.0.0.1:1 \
	    --redis-fallback local -k 1 -r 1/h -b 5 --total-rate 1/h \
	    --total-burst 3 --drop "$d/in"
	assert_eq "$output" "$(head -n 3 "$d/in")" "kept by the local total"
	assert_one_stderr_line
	[[ $stderr == *"limiting locally"* ]]
}

@test "--redis --total-rate: a batch whose answer was lost is asked again, its total not charged twice" {
	own_redis
	hung_batch $'a 1\nb 2\nc 3' --shared "$P" -k 1 -r 1/min -b 5 \
	    --total-rate 1/min --total-burst 5 --drop
	assert_eq "$(cat "$d/out")" $'a 1\nb 2\nc 3' "kept"
	grep -q 'waiting for it' "$d/err"
	# Three of the total's five were taken, not six.
	keyed 5 5 x >"$d/in"
	run -0 --separate-stderr tb --shared "$P" -k 1 -r 1/min -b 5 \
	    --total-rate 1/min --total-burst 5 --drop \
	    --redis "redis://127.0.0.1:$OPORT" "$d/in"
	assert_eq "$output" "$(head -n 2 "$d/in")" "left in the total"
}
