#!/usr/bin/env bats
# --shared NAME --redis URL -a fixed / -a sliding: a window of N records
# kept in a real redis-server for every process and host of the name,
# measured at the commands' starts and at an API server that counts the
# same window (tests/tools/quotad.py).

load helpers
load redis

setup_file() {
	file_redis
}

teardown_file() {
	stop_redis
}

setup() {
	redis_test win
	[[ $(redis-cli -p "$RPORT" ping 2>/dev/null) == PONG ]] || start_redis
}

teardown() {
	quotad_stop
	stop_own_redis
}

# four ALG RATE N J: four processes of -a ALG -r RATE -j J through
# Redis, fed N records each, start a command a record, traced: the starts
# in $d/starts.  Through Redis a start is not told back (a file's is): the
# bound holds at the starts while each is less than the guard late, and
# a process that starts a bunch of commands at once starts the last of
# them late on a busy machine under strace, so the tests start one at a
# time (-j 1), or have windows long beside a start's delay.
four() {
	local cmd
	needs_strace
	cmd=$(type -P true)
	seq "$3" >"$d/in"
	run -0 traced execve "$d/log" bash -c 'for i in 1 2 3 4; do
	    "$0" --shared "$1" --redis "$2" -a "$3" -r "$4" -j "$7" "$5" \
	    --exec "$6" & done; wait' "$TB" "$P" "$URL" "$1" "$2" "$d/in" "$cmd" "$4"
	execs "$d/log" "$cmd" >"$d/starts"
	assert_eq "$(wc -l <"$d/starts")" $((4 * $3)) "commands started"
}

@test "--redis -a fixed: four processes fed faster than the quota never put more than N starts in a calendar window, and fill the windows" {
	local n
	four fixed 5/2s 5 5
	# Windows of 2 s from the epoch, as -a fixed counts them in UTC.
	assert_le "$(awk '{ n[int($1 / 2)]++ } END { for (k in n) if (n[k] > m) m = n[k]; print m + 0 }' \
	    "$d/starts")" 5 "most starts in a calendar window of 2 s"
	# The windows between the first and the last, empty ones too: most
	# of their room.  A run that waited a whole window more than it must
	# would leave every other one empty, under 50 %; a busy machine's
	# late bookings cost a start or two of a window, which 60 % leaves.
	n=$(awk '{ w = int($1 / 2) } NR == 1 { first = w }
	    { last = w; n[w]++ }
	    END { for (i = first + 1; i < last; i++) s += n[i]
	        room = 5 * (last - first - 1)
	        print (room > 0 ? int(100 * s / room) : 100) }' "$d/starts")
	echo "# fill: $n %" >&3
	assert_ge "$n" 60 "per cent of the room of the windows between used"
}

@test "--redis -a sliding: four processes fed faster than the quota never put more than N starts in any interval of the window's length, and fill it" {
	local first last n
	# Stamped by each command itself, not under strace: a start through
	# Redis is not told back, and strace on a busy machine delays starts
	# by more than the guard (the file's window is measured so, above).
	seq 5 >"$d/in"
	run -0 bash -c 'for i in 1 2 3 4; do
	    "$0" --shared "$1" --redis "$2" -a sliding -r 5/2s -j 1 "$3" \
	    --exec sh -c "date +%s.%N >>\"\$0\"" "$4" & done; wait' \
	    "$TB" "$P" "$URL" "$d/in" "$d/raw"
	sort -n "$d/raw" | awk '{ print $1, 1 }' >"$d/starts"
	assert_eq "$(wc -l <"$d/starts")" 20 "commands started"
	# The bookings are 2 s and the guard of 100 ms apart, N apart; the
	# stamps are each a command's start, some time after its booking:
	# one late by more than the guard brings two stamps N apart under
	# 2 s.  So the span is 1.5 s, for starts up to 600 ms late.  A window
	# that let N + 1 through would start them together (the quota is
	# spent at once, here), far within it; one too short by a quarter or
	# more would too.
	assert_le "$(most_in_span 1500000000 <"$d/starts")" 5 \
	    "most starts in any 1.5 s"
	# 20 starts at 5 a 2 s: 6 s from the first to the first of the last
	# five at best (6.3 s with the guard of 100 ms a window).  A run
	# that waited a window more than it must would take 12.6 s, under
	# 50 %; 60 % leaves a busy machine 3.7 s of late starts.
	first=$(head -n 1 "$d/starts" | cut -d' ' -f1)
	last=$(sed -n 16p "$d/starts" | cut -d' ' -f1)
	n=$(awk -v a="$first" -v b="$last" 'BEGIN { print int(100 * 6 / (b - a)) }')
	echo "# fill: $n %" >&3
	assert_ge "$n" 60 "per cent of the room used"
}

@test "--redis -a fixed and -a sliding --take --drop: runs one after another are granted N in all, then refused" {
	local alg granted i
	for alg in fixed sliding; do
		granted=0
		for i in 1 2 3 4 5; do
			if tb --shared "$P$alg" --redis "$URL" -a "$alg" -r 3/1h \
			    --take --drop; then
				granted=$((granted + 1))
			fi
		done
		assert_eq "$granted" 3 "runs granted, -a $alg -r 3/1h"
	done
	# The window's state: a count, or a list of the last N times.
	assert_eq "$(redis-cli -p "$RPORT" hget "tbthrottle:${P}fixed" c)" 3 "count"
	assert_eq "$(redis-cli -p "$RPORT" llen "tbthrottle:${P}sliding")" 3 "times kept"
}

@test "--redis: a window and a bucket of one name, or two widths, are refused with the settings kept" {
	run -0 tb --shared "$P" --redis "$URL" -a fixed -r 3/1h --take
	run -1 --separate-stderr tb --shared "$P" --redis "$URL" -r 3/1h --take
	assert_msg "$stderr" "$URL/0: shared bucket '$P' is -a fixed -r 3/1h; this run asks for -r 3/1h, burst 1 (give the same, or wait until no process uses it and it is full)"
	run -1 --separate-stderr tb --shared "$P" --redis "$URL" -a sliding -r 3/1h --take
	assert_msg "$stderr" "$URL/0: shared bucket '$P' is -a fixed -r 3/1h; this run asks for -a sliding -r 3/1h (give the same, or wait until no process uses it and it is full)"
	run -1 --separate-stderr tb --shared "$P" --redis "$URL" -a fixed -r 3/2h --take
	assert_msg "$stderr" "$URL/0: shared bucket '$P' is -a fixed -r 3/1h; this run asks for -a fixed -r 3/2h (give the same, or wait until no process uses it and it is full)"
}

@test "--redis -a fixed -k: each key its own calendar window, N each, in one round trip a batch" {
	run -0 --separate-stderr bash -c 'printf "a 1\nb 1\na 2\nb 2\na 3\nb 3\n" |
	    tb --shared "$0" --redis "$1" -a fixed -r 2/1h -k 1 --drop' "$P" "$URL"
	assert_eq "$output" $'a 1\nb 1\na 2\nb 2' "kept"
	run -0 --separate-stderr bash -c 'printf "a 4\nc 1\n" |
	    tb --shared "$0" --redis "$1" -a sliding -r 2/1h -k 1 --drop' "$P-s" "$URL"
	assert_eq "$output" $'a 4\nc 1' "kept"
}

@test "--redis -a fixed, -a sliding: a batch whose answer was lost is asked again and not booked twice" {
	local alg
	own_redis
	for alg in fixed sliding; do
		rm -f "$d/fifo"
		hung_batch $'1\n2\n3' --shared "$P$alg" -a "$alg" -r 5/1h --drop
		assert_eq "$(cat "$d/out")" $'1\n2\n3' "kept, -a $alg"
		grep -q 'waiting for it' "$d/err"
		# Three of the five were taken, not six.
		run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
		    -a "$1" -r 5/1h --drop --redis "$2"' "$P$alg" "$alg" \
		    "redis://127.0.0.1:$OPORT"
		assert_eq "$output" $'1\n2' "left in the window, -a $alg"
	done
}

@test "--redis -a sliding: the list of a key holds its last N times, and expires a window after the last" {
	local ttl
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" --redis "$1" \
	    -a sliding -r 3/10s --drop' "$P" "$URL"
	assert_eq "$output" $'1\n2\n3' "kept"
	assert_eq "$(redis-cli -p "$RPORT" llen "tbthrottle:$P")" 3 "times"
	ttl=$(redis-cli -p "$RPORT" pttl "tbthrottle:$P")
	assert_le "$ttl" 10100 "ms the list lives"
	assert_ge "$ttl" 9000 "ms the list lives"
}

@test "--redis -a fixed: three processes at an API server's calendar window never get a 429" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	local rurl=$URL
	quotad --window 4/1s
	seq 12 | sed "s|^|$URL?|" >"$d/in"
	# From just after a second starts: a first start at a window's very
	# end could reach the server in the next.
	sleep "$(awk -v n="$(date +%N)" 'BEGIN { printf "%.3f", 1.05 - n / 1e9 }')"
	# Each request carries the time its command started (t=).
	run -0 bash -c 'for i in 1 2 3; do
	    "$0" --shared "$1" --redis "$2" -a fixed -r 4/1s -j 4 "$3" \
	    --exec bash -c "exec curl -sS -o /dev/null \"\$0&t=\$EPOCHREALTIME\"" &
	    done; wait' "$TB" "$P" "$rurl" "$d/in"
	assert_eq "$(wc -l <"$d/requests")" 36 "requests"
	# The server counts a request when it arrives.  A stalled machine
	# can carry one started in a window into the next (CI saw four 429s
	# once): a 429 is tbthrottle's only in a window that no request
	# started before it reached.
	awk '{ at = int($2 / 1e9); t = $3; sub(/.*t=/, "", t)
	    if (int(t) < at) carried[at]++
	    if ($4 == 429) refused[at]++ }
	    END { for (w in refused) { if (!(w in carried)) bad += refused[w]
	        else late += refused[w] }
	        printf "# 429 after a window carried into the next: %d\n", late > "/dev/stderr"
	        exit bad > 0 }' "$d/requests" 2>&3 ||
	    { cat "$d/requests" >&2; false; }
}

@test "--redis -a sliding: three processes at an API server's sliding window never get a 429" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	local rurl=$URL
	# The server's window is 200 ms shorter: on a busy machine, the way
	# from a start of curl to the server's count differs by up to that
	# much between two requests, beyond the guard of 100 ms that a start
	# through Redis has.
	quotad --sliding 4/0.8s
	seq 8 | sed "s|^|$URL?|" >"$d/in"
	# Each request carries the time its command started (t=).
	run -0 bash -c 'for i in 1 2 3; do
	    "$0" --shared "$1" --redis "$2" -a sliding -r 4/1s -j 1 "$3" \
	    --exec bash -c "exec curl -sS -o /dev/null \"\$0&t=\$EPOCHREALTIME\"" &
	    done; wait' "$TB" "$P" "$rurl" "$d/in"
	assert_eq "$(wc -l <"$d/requests")" 24 "requests"
	# The server counts a request when it arrives, and a stalled machine
	# can bring two closer on the way than they started (CI saw one 429
	# so).  The starts are tbthrottle's: no five of them in 0.8 s, the
	# server's own rule.  A 429 beside that is the way's, and is counted.
	awk '{ t = $3; sub(/.*t=/, "", t); print t, $4 }' "$d/requests" |
	    sort -n | awk '{ t[NR] = $1; if ($2 == 429) late++ }
	    END { for (i = 5; i <= NR; i++)
	        if (t[i] - t[i - 4] < 0.8) { printf "# five starts in %.3f s, from %s\n",
	            t[i] - t[i - 4], t[i - 4] > "/dev/stderr"; bad++ }
	        if (!bad) printf "# 429 after starts that kept the window: %d\n",
	            late > "/dev/stderr"
	        exit bad > 0 }' 2>&3 ||
	    { cat "$d/requests" >&2; false; }
}

@test "--redis --show: the tokens of a bucket, the records of a fixed and a sliding window, as a test counts them; --reset renews each" {
	local today
	today=$(date -u +%Y-%m-%d)
	run -0 tb --shared "$P-b" --redis "$URL" -r 1/h -b 5 --take 3
	run -0 --separate-stderr tb --shared "$P-b" --redis "$URL" --show
	assert_eq "${lines[0]}" "shared bucket '$P-b' ($URL/0): -r 1/h, burst 5" "settings"
	[[ ${lines[1]} == "2 of 5 tokens now; the next token in "*" s; full in "*" s" ]]
	run -0 --separate-stderr tb --shared "$P-b" --redis "$URL" --show --json
	[[ $output == '{"name":"'"$P"'-b","url":"'"$URL"'/0","kind":"bucket","limit":"1/h","burst":5,"unit":"records","tokens":2,"next_s":'*',"full_s":'*'}' ]]
	# Three tokens owed: full in about 3 h, the next in about 1 h.
	awk -v j="$output" 'BEGIN { match(j, /"next_s":[0-9.]+/); n = substr(j, RSTART + 9, RLENGTH - 9)
	    match(j, /"full_s":[0-9.]+/); f = substr(j, RSTART + 9, RLENGTH - 9)
	    exit !(n > 3500 && n <= 3600 && f > 10700 && f <= 10800) }' ||
	    { echo "$output" >&2; false; }
	run -0 tb --shared "$P-f" --redis "$URL" -a fixed -r 3/1d --take 2
	run -0 --separate-stderr tb --shared "$P-f" --redis "$URL" --show
	assert_eq "${lines[1]%; the next window in *}" "window from ${today}T00:00:00Z: 2 of 3 used, 1 left" "fixed"
	run -0 --separate-stderr tb --shared "$P-f" --redis "$URL" --show --json
	[[ $output == *'"kind":"fixed","limit":"3/1d","window_start":"'"$today"'T00:00:00Z","used":2,"left":1,'* ]]
	run -0 --separate-stderr bash -c 'seq 2 | tb --shared "$0" --redis "$1" \
	    -a sliding -r 3/1h --drop' "$P-s" "$URL"
	run -0 --separate-stderr tb --shared "$P-s" --redis "$URL" --show
	assert_eq "${lines[1]}" "2 of 3 in the last 3600.000 s, 1 left; the next may go in 0.000 s" "sliding"
	for k in b f s; do run -0 tb --shared "$P-$k" --redis "$URL" --reset; done
	run -0 --separate-stderr tb --shared "$P-b" --redis "$URL" --show
	assert_eq "${lines[1]}" "5 of 5 tokens now; full; the next token in 0.000 s; full in 0.000 s" "bucket reset"
	run -0 --separate-stderr tb --shared "$P-f" --redis "$URL" --show
	assert_eq "${lines[1]%; the next window in *}" "window from ${today}T00:00:00Z: 0 of 3 used, 3 left" "fixed reset"
	run -0 --separate-stderr tb --shared "$P-s" --redis "$URL" --show
	assert_eq "${lines[1]}" "0 of 3 in the last 3600.000 s, 3 left; the next may go in 0.000 s" "sliding reset"
	# The full budget again, for a process that books it.
	run -0 tb --shared "$P-b" --redis "$URL" -r 1/h -b 5 --take 5
}

@test "--redis --show and --reset: a name no process used, Redis out of reach, --state-dir, are refused with one line" {
	run -1 --separate-stderr tb --shared "$P-none" --redis "$URL" --show
	assert_msg "$stderr" "no shared bucket '$P-none' at $URL/0: no process has used it in the last 10 s, or ever"
	run -1 --separate-stderr tb --shared "$P-none" --redis "$URL" --reset
	assert_msg "$stderr" "no shared bucket '$P-none' at $URL/0: no process has used it in the last 10 s, or ever"
	# The check made no settings.
	assert_eq "$(redis-cli -p "$RPORT" exists "tbthrottle-settings:$P-none")" 0 "settings made"
	run -1 --separate-stderr tb --shared "$P" --redis redis://127.0.0.1:1 --show
	assert_msg "$stderr" "redis://127.0.0.1:1/0: Connection refused"
	run -2 --separate-stderr tb --shared "$P" --redis "$URL" --show --state-dir "$d"
	assert_msg "$stderr" "--state-dir does not combine with --redis: the bucket is kept in Redis"
	run -2 --separate-stderr tb --shared "$P" --redis "$URL" --show -r 1/s
	assert_msg "$stderr" "--show takes only --shared NAME, --state-dir or --redis URL, and --json"
}

@test "--redis -a fixed --tz: windows of the zone's calendar, the zone in the settings that every process must give, and in --show" {
	local hour
	hour=$(TZ=Asia/Kolkata date +%Y-%m-%dT%H:00:00+05:30)
	run -0 tb --shared "$P" --redis "$URL" -a fixed -r 2/1h --tz Asia/Kolkata --take
	run -0 tb --shared "$P" --redis "$URL" -a fixed -r 2/1h --tz Asia/Kolkata --take
	run -1 tb --shared "$P" --redis "$URL" -a fixed -r 2/1h --tz Asia/Kolkata --take --drop
	run -0 --separate-stderr tb --shared "$P" --redis "$URL" --show --json
	[[ $output == *'"limit":"2/1h","window_start":"'"$hour"'","used":2,"left":0,'*'"zone":"Asia/Kolkata"}' ]] ||
	    [[ $hour != "$(TZ=Asia/Kolkata date +%Y-%m-%dT%H:00:00+05:30)" ]] ||
	    { echo "$output" >&2; false; }
	run -0 --separate-stderr tb --shared "$P" --redis "$URL" --show
	assert_eq "${lines[0]}" "shared bucket '$P' ($URL/0): -a fixed -r 2/1h --tz Asia/Kolkata" "settings"
	run -1 --separate-stderr tb --shared "$P" --redis "$URL" -a fixed -r 2/1h --take
	assert_msg "$stderr" "$URL/0: shared bucket '$P' is -a fixed -r 2/1h --tz Asia/Kolkata; this run asks for -a fixed -r 2/1h (give the same, or wait until no process uses it and it is full)"
	# The window's index counts hours of Kolkata's time, not UTC's.
	assert_eq "$(redis-cli -p "$RPORT" hget "tbthrottle:$P" x)" \
	    "$((($(date +%s) + 19800) / 3600))" "window"
}

@test "--redis -a fixed and -a sliding --tiers: each key the window of its tier; --show names the tiers" {
	local alg
	printf 'vip* 3/1h\nbig* inf\n' >"$d/tiers"
	for alg in fixed sliding; do
		run -0 --separate-stderr bash -c 'printf "vip1 a\nvip1 b\nvip1 c\nvip1 d\nx e\nx f\nbig1 g\nbig1 h\n" |
		    tb --shared "$0" --redis "$1" -a "$2" -k 1 -r 1/1h \
		    --tiers "$3" --drop' "$P$alg" "$URL" "$alg" "$d/tiers"
		assert_eq "$output" $'vip1 a\nvip1 b\nvip1 c\nx e\nbig1 g\nbig1 h' "kept, -a $alg"
	done
	run -0 --separate-stderr tb --shared "${P}fixed" --redis "$URL" --show
	[[ $output == "shared bucket '${P}fixed': tiers "*" (--tiers: each key has the limit of its tier; -k's keys are not shown)" ]]
	run -2 --separate-stderr tb --shared "$P" --redis "$URL" -a fixed -k 1 \
	    -r 1/1h --tiers "$d/tiers" --tz UTC </dev/null
	assert_msg "$stderr" "--tz with --tiers through Redis: give the zone's windows without tiers, or keep the tiers in one process"
}

@test "--tz: a spring forward that skips whole windows never lets 2N into the window after it, in a file and in Redis" {
	local t at n pids=()
	command -v zic >/dev/null || skip "zic is not installed"
	# A minute's window must not end within the run: start early in one.
	while (($(date +%S | sed 's/^0//') > 40)); do sleep 1; done
	at=$(($(date +%s) + 5))
	printf 'Zone Test/Gap 0:00 - AAA %s\n              1:00 - BBB\n' \
	    "$(date -u -d "@$at" '+%Y %b %d %H:%M:%Su')" >"$d/gap.zi"
	zic -d "$d/zi" "$d/gap.zi"
	for t in file redis; do
		bash -c 'for i in 1 2 3 4; do
		    if [[ $3 == redis ]]; then set -- "$@" --redis "$4"; fi
		    seq 10 | timeout 9 "$0" --shared "$1$3" -a fixed -r 3/1min \
		    --tz "$2" "${@:5}" | while read -r l; do date +%s.%N; done &
		    done; wait' "$TB" "$P" "$d/zi/Test/Gap" "$t" "$URL" >"$d/$t" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for t in file redis; do
		n=$(awk -v at="$at" '$1 >= at' "$d/$t" | wc -l)
		assert_eq "$n" 3 "after the change, in the window of BBB, $t"
		n=$(awk -v at="$at" '$1 < at' "$d/$t" | wc -l)
		assert_eq "$n" 3 "before it, in the window of AAA, $t"
	done
}

@test "--redis windows: a key or settings that are not tbthrottle's (NaN, far ahead, not a number) are one line and exit 1, never a grant or a hang" {
	local v
	for v in nan -20 1.5; do
		run -0 tb --shared "$P-f$v" --redis "$URL" -a fixed -r 3/1h --take --drop
		redis-cli -p "$RPORT" hset "tbthrottle:$P-f$v" c "$v" >/dev/null
		run -1 --separate-stderr tb --shared "$P-f$v" --redis "$URL" -a fixed -r 3/1h --take --drop
		assert_msg "$stderr" "$URL/0: WRONGTYPE tbthrottle:$P-f$v holds x $(redis-cli -p "$RPORT" hget "tbthrottle:$P-f$v" x), c $v, not a window of tbthrottle (another program uses the keys of tbthrottle)"
	done
	run -0 tb --shared "$P-x" --redis "$URL" -a fixed -r 3/1h --take --drop
	redis-cli -p "$RPORT" hset "tbthrottle:$P-x" x 9000000000000 >/dev/null
	run -1 --separate-stderr timeout 20 "$TB" --shared "$P-x" --redis "$URL" -a fixed -r 3/1h --take
	[[ $stderr == *"holds x 9000000000000, c 1, not a window of tbthrottle"* ]]
	for v in garbage nan 9000000000000000000; do
		run -0 tb --shared "$P-s$v" --redis "$URL" -a sliding -r 3/1h --take --drop
		redis-cli -p "$RPORT" rpush "tbthrottle:$P-s$v" "$v" >/dev/null
		run -1 --separate-stderr tb --shared "$P-s$v" --redis "$URL" -a sliding -r 3/1h --take --drop
		assert_msg "$stderr" "$URL/0: WRONGTYPE tbthrottle:$P-s$v holds a time $v, not a window of tbthrottle (another program uses the keys of tbthrottle)"
	done
	# Settings out of range: --show says so, and does not crash.
	for v in "hdel b" "hset i 1e300" "hset i 0.0001" "hset b 0"; do
		run -0 tb --shared "$P-z" --redis "$URL" -a fixed -r 3/1h --take --drop
		# shellcheck disable=SC2086 # the command and its field
		redis-cli -p "$RPORT" ${v%% *} "tbthrottle-settings:$P-z" ${v#* } >/dev/null
		run -1 --separate-stderr tb --shared "$P-z" --redis "$URL" --show
		assert_msg "$stderr" "$URL/0: shared bucket '$P-z': settings out of range"
		redis-cli -p "$RPORT" del "tbthrottle-settings:$P-z" "tbthrottle:$P-z" >/dev/null
	done
}
