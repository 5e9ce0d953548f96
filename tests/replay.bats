#!/usr/bin/env bats
# --replay: records leave at their own timestamps, relative to the first.
#
# The input is fed by stamp -i 100 ms after the start, so the first
# record cannot leave before IN, and record k not before IN plus its
# offset from the first at the speed asked: strict lower bounds, with no
# tolerance.  Upper bounds are generous (the machine is noisy, and CI
# runs the suite under ASan too): they only catch a record late by
# seconds.  Precision figures are for make bench.

load helpers

setup() {
	build_stamp
	d=$BATS_TEST_TMPDIR
}

# assert_offsets MS...: record k (1-based) arrived no earlier than IN
# plus the k-th MS.
assert_offsets() {
	local k=1 ms in
	in=$(stamp_in)
	assert_eq "$(stamp_count)" "$#" "number of records"
	for ms in "$@"; do
		assert_ge "$(stamp_field "$k")" \
		    "$(awk -v a="$in" -v b="$ms" 'BEGIN { print a + b }')" \
		    "record $k arrival (ms)"
		k=$((k + 1))
	done
}

@test "replay: RFC 3339 records leave at their own times from the first" {
	cat >"$d/log" <<'EOF'
2026-11-23T14:05:06.000Z one
2026-11-23T14:05:06.300Z two
2026-11-23T14:05:06.450+00:00 three
2026-11-23T15:05:07.000+01:00 four
EOF
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay
	assert_offsets 0 300 450 1000
	assert_eq "$(stamp_texts | cut -d ' ' -f 2)" $'one\ntwo\nthree\nfour' \
	    "records, in order"
	assert_le "$(stamp_field 4)" "$(($(stamp_in | cut -d . -f 1) + 6000))" \
	    "record 4 arrival (ms)"
}

@test "replay: --speed 4 plays a second of log in a quarter" {
	printf '1732370706.000 a\n1732370706.400 b\n1732370707.000 c\n' >"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    --speed 4
	assert_offsets 0 100 250
	assert_le "$(stamp_end)" 6000 "exit (ms)"
}

@test "replay: --speed 0.5 plays it at half speed" {
	printf '1732370706000 a\n1732370706250 b\n1732370706500 c\n' >"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    --speed 0.5
	assert_offsets 0 500 1000
}

@test "replay: --max-gap cuts a night of silence, and moves the rest earlier" {
	cat >"$d/log" <<'EOF'
Nov 23 22:00:00 host app: last of the evening
Nov 24 07:00:00 host app: first of the morning
Nov 24 07:00:00 host app: second
Nov 24 07:00:00.150 host app: third, 0.15 s later
EOF
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    --max-gap 200ms -s
	assert_offsets 0 200 200 350
	assert_le "$(stamp_end)" 8000 "exit (ms): the night was not waited"
	[[ $stderr == *"timestamps syslog"* ]]
}

@test "replay: no timestamp follows the record before; out of order goes at once" {
	cat >"$d/log" <<'EOF'
2026-11-23 14:05:06 start
  a continuation line
2026-11-23 14:05:07 second
2026-11-23 14:05:06.500 out of order
2026-11-23 14:05:99 unparsable, counted
2026-11-23 14:05:07.400 third
EOF
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay -s
	assert_offsets 0 0 1000 1000 1000 1400
	# Right after the one before: before the next one's time.
	assert_le "$(stamp_field 2)" "$(stamp_field 3)" "continuation"
	assert_eq "$(stamp_count)" 6 "records"
	[[ $stderr == *"4 records timed, 2 without a timestamp, 1 out of order"* ]] ||
	    { echo "stderr: $stderr" >&2; return 1; }
	[[ $stderr == *"behind schedule p50 "*" ms, p99 "*" ms, max "*" ms"* ]]
}

@test "--replay: records out of order go at once, counted and said once at the end" {
	printf '%s\n' '2024-01-01T00:00:00Z a' '2024-01-01T00:00:00.2Z b' \
	    '2024-01-01T00:00:00.1Z c' '2024-01-01T00:00:00.05Z d' \
	    '2024-01-01T00:00:00.3Z e' >"$d/in"
	run -0 --separate-stderr tb --replay "$d/in"
	assert_eq "$output" "$(cat "$d/in")" "every record, in its order"
	assert_msg "$stderr" "--replay: 2 of 5 records were out of order (before a timestamp already gone): each went right after the record before it"
	run -0 --separate-stderr tb --replay --stats=json "$d/in"
	[[ $stderr == *'"out_of_order":2,'* ]] || { echo "$stderr" >&2; return 1; }
	[[ $stderr == *"--replay: 2 of 5 records were out of order"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	# In order: nothing said.
	sed -n '1p;2p;5p' "$d/in" >"$d/sorted"
	run -0 --separate-stderr tb --replay "$d/sorted"
	assert_eq "$stderr" "" "in order, quiet"
}

@test "replay: -s as JSON names the format and the counts" {
	printf '[23/Nov/2026:14:05:06 +0000] a\n[23/Nov/2026:14:05:06 +0000] b\n' \
	    >"$d/log"
	run -0 --separate-stderr tb --replay --stats=json "$d/log"
	[[ $stderr == *'"replay":{"speed":1,"format":"common log format","records_timed":2,"records_untimed":0,"out_of_order":0,"behind_p50_ms":'* ]] ||
	    { echo "stderr: $stderr" >&2; return 1; }
}

@test "replay: a ceiling of -r 5/s holds records that share a time" {
	for i in 1 2 3 4 5; do
		echo "1732370706 rec$i"
	done >"$d/log"
	echo "1732370706.100 rec6" >>"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay -r 5/s
	assert_offsets 0 200 400 600 800 1000
}

@test "replay: the ceiling under -a sliding and --byte-rate too" {
	for i in 1 2 3 4; do
		echo "1732370706 record-$i"
	done >"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    -a sliding -r 2/s
	assert_offsets 0 0 1000 1000
	# Records of 20 bytes at 100 B/s with a burst of 20: 200 ms apart.
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    --byte-rate 100B/s --byte-burst 20
	assert_offsets 0 200 400 600
}

@test "replay: with --drop-to, what the ceiling cannot carry is set aside" {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "1732370706 rec$i"
	done >"$d/log"
	echo "1732370707 late" >>"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    -r 1/min -b 3 --drop-to "$d/dropped" -s
	assert_eq "$(stamp_texts | cut -d ' ' -f 2 | tr '\n' ' ')" \
	    "rec1 rec2 rec3 " "records kept"
	assert_eq "$(cut -d ' ' -f 2 "$d/dropped" | tr '\n' ' ')" \
	    "rec4 rec5 rec6 rec7 rec8 rec9 rec10 late " "records dropped"
	[[ $stderr == *"units 11 in, 3 out, 8 dropped, 0 waiting"* ]]
	# Dropped, not delayed: the last was judged at its own time.
	assert_le "$(stamp_end)" 8000 "exit (ms)"
	assert_ge "$(stamp_end)" "$(awk -v a="$(stamp_in)" 'BEGIN { print a + 1000 }')" \
	    "exit after the last record's time (ms)"
}

@test "replay: a record arriving after its time leaves at once, on the first's schedule" {
	# A slow producer: b comes 3 s after its time and leaves at once; c,
	# due 4 s after a, keeps that time, counted from a: a schedule started
	# again at b's arrival would put it 7 s after a.  (No strict lower
	# bound here: a's own arrival may lag its release.)
	producer() {
		echo "1732370706.000 a"
		sleep 3.5
		echo "1732370706.500 b"
		echo "1732370710.000 c"
	}
	run -0 --separate-stderr "$STAMP" -- "$TB" --replay < <(producer)
	assert_eq "$(stamp_texts | cut -d ' ' -f 2 | tr '\n' ' ')" "a b c " \
	    "records"
	assert_le "$(awk -v a="$(stamp_field 3)" -v b="$(stamp_field 1)" \
	    'BEGIN { print a - b }')" 6000 "record c after record a (ms)"
}

@test "replay: local times keep real time across the spring change of TZ" {
	# In EST5EDT 01:59:59 is followed one second later by 03:00:00.
	printf '2026-03-08 01:59:59 a\n2026-03-08 03:00:00 b\n' >"$d/log"
	TZ=EST5EDT,M3.2.0,M11.1.0 run -0 --separate-stderr "$STAMP" -i \
	    "$d/log" -- "$TB" --replay
	assert_offsets 0 1000
	assert_le "$(stamp_end)" 7000 "exit (ms): the skipped hour not waited"
	# In UTC there is an hour and a second between them.
	printf '2026-03-08 01:59:59 a\n2026-03-08 03:00:00 b\n' >"$d/log"
	TZ=UTC0 run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" \
	    --replay --max-gap 1500ms
	assert_offsets 0 1500
}

@test "replay: the hour repeated in autumn goes on, it does not go back" {
	# 01:50 EDT, then 01:05 written after the clocks went back: 01:05
	# EST, 15 minutes later (0.375 s at speed 2400), not 45 earlier.
	printf '2026-11-01 01:50:00 a\n2026-11-01 01:05:00 b\n' >"$d/log"
	TZ=EST5EDT,M3.2.0,M11.1.0 run -0 --separate-stderr "$STAMP" -i \
	    "$d/log" -- "$TB" --replay --speed 2400 -s
	assert_offsets 0 375
	[[ $stderr == *"0 out of order"* ]] ||
	    { echo "stderr: $stderr" >&2; return 1; }
}

@test "replay: --time-field and --time-format read a timestamp inside" {
	printf 'id1,23.11.2026 14:05:06,a\nid2,23.11.2026 14:05:06.5,b\n' \
	    >"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay \
	    -F , --time-field 2 --time-format '%d.%m.%Y %H:%M:%S'
	assert_offsets 0 500
}

@test "replay: -R NAME --speed changes a running replay's speed at once" {
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	printf '1732370706 a\n1732370766 b\n' >"$d/log"
	"$STAMP" -p "$d/pid" -- "$TB" --replay --name rp "$d/log" \
	    >"$d/stamps" 2>"$d/err" &
	local bg=$!
	wait_for_output "$d/pid"
	wait_running "$(cat "$d/pid")"
	run -0 --separate-stderr "$TB" -R rp --speed 60
	assert_eq "$stderr" "" "stderr of -R"
	# The second record, a minute of log away, is now about a second
	# away, not a minute: stamp ends well before its 20 s limit.
	local st=0
	wait "$bg" || st=$?
	assert_eq "$st" 0 "status of the replay"
	output=$(cat "$d/stamps")
	assert_eq "$(stamp_count)" 2 "records"
	assert_ge "$(stamp_field 2)" 1000 "record 2 arrival (ms)"
}

@test "replay: -R --speed to a run that is not replaying is refused" {
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	"$TB" -c -r 1/min --name plain </dev/zero >/dev/null &
	local pid=$!
	wait_running "$pid"
	run -2 --separate-stderr "$TB" -R plain --speed 2
	kill "$pid"
	wait "$pid" || true
	assert_msg "$stderr" "plain: this tbthrottle is not replaying (--replay)"
}

@test "replay: a record longer than the buffer still goes at its time" {
	{
		echo "1732370706 short"
		printf '1732370706.300 '
		head -c 300000 /dev/zero | tr '\0' x
		echo
		echo "1732370706.600 after"
	} >"$d/log"
	run -0 --separate-stderr "$STAMP" -i "$d/log" -- "$TB" --replay
	assert_offsets 0 300 600
	assert_eq "$(stamp_texts | sed -n 3p)" "1732370706.600 after" "last"
}

@test "--replay: no timestamp in the first records is exit 1, naming the first line and the fix, nothing copied" {
	local d=$BATS_TEST_TMPDIR
	printf '{"msg":"a","n":1700000000}\n{"msg":"b","n":1700000001}\n' >"$d/in"
	run -1 --separate-stderr tb --replay "$d/in"
	assert_eq "$output" "" "nothing copied"
	assert_msg "$stderr" "--replay: no timestamp in the first 2 records (the first: '{\"msg\":\"a\",\"n\":1700000000}'); looked for epoch, RFC 3339, syslog and common log format times in each record: give --time-field N, --time-key NAME or --time-format FMT"
	printf '[Mon Jan 01 00:00:00 2024] [error] x\n' >"$d/apache"
	run -1 --separate-stderr tb --replay --time-format '%d/%m/%Y' "$d/apache"
	[[ $stderr == *"looked for the --time-format '%d/%m/%Y' in each record"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	# The records held are set aside whole, as at a stop.
	run -1 --separate-stderr tb --replay -r 1000/s --drop-to "$d/rest" "$d/in"
	cmp "$d/in" "$d/rest"
}

@test "--replay: records without a timestamp among timed ones go after the one before, said once" {
	run -0 --separate-stderr bash -c "printf '2024-01-01T00:00:00Z a\n  at line 2\n  at line 3\n2024-01-01T00:00:00.2Z b\n' | tb --replay -s"
	assert_eq "${#lines[@]}" 4 "records"
	[[ $stderr == *"(limit the timestamps)"* ]] || { echo "$stderr" >&2; return 1; }
	[[ $stderr == *"--replay: 2 of 4 records had no timestamp: each went right after the record before it"* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "--replay -F , --time-field: the timestamp ends at its field, the next column is no fraction" {
	local t0 t1
	t0=$(now_ms)
	run -0 bash -c "printf 'a,2024-01-01T13:04:05,900\nb,2024-01-01T13:04:06,100\n' | tb --replay -F , --time-field 2"
	t1=$(now_ms)
	# 1 s apart, not 0.2 s (05.900 to 06.100).
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 1000 "ms"
	t0=$(now_ms)
	run -0 bash -c "printf 'a;13:04:05;9\nb;13:04:06;1\n' | tb --replay -F ';' --time-field 2 --time-format %T"
	t1=$(now_ms)
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 1000 "ms with a format"
}

@test "--time-key: numbers in exponent form, as Python writes float nanoseconds, are timed" {
	printf '%s\n' '{"ts": 1.7323707061e+18, "m": "a"}' \
	    '{"ts": 1.7323707066e+18, "m": "b"}' '{"ts":1.732370707E18}' \
	    >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr tb --replay --time-key ts --dry-run \
	    "$BATS_TEST_TMPDIR/in"
	[[ $output == *"3 timed"*"0 without a timestamp"* ]]
	[[ $output == *"0.900 s"* ]]
}

@test "--time-key: the timestamp of JSON lines by its key, whatever the order, spacing or nesting" {
	local d=$BATS_TEST_TMPDIR t0 t1
	# zap (epoch s with a fraction), pino (epoch ms), logrus (RFC 3339),
	# a nested key of the same name that must not be taken.
	printf '%s\n' \
	    '{"level":"info","ts":1700000000.25,"msg":"zap"}' \
	    '{ "msg" : "x", "ts" : 1700000000.75 }' >"$d/zap"
	printf '%s\n' '{"time":1700000000000,"pid":1}' \
	    '{"pid":1,"time":1700000000500}' >"$d/pino"
	printf '%s\n' \
	    '{"inner":{"time":"2020-01-01T00:00:00Z"},"time":"2024-01-01T00:00:00Z"}' \
	    '{"time":"2024-01-01T00:00:00.5Z","inner":{"time":"1999-01-01T00:00:00Z"}}' >"$d/logrus"
	for f in zap:ts pino:time logrus:time; do
		t0=$(now_ms)
		run -0 --separate-stderr tb --replay --time-key "${f#*:}" -s "$d/${f%:*}"
		t1=$(now_ms)
		assert_eq "${#lines[@]}" 2 "${f%:*} records"
		[[ $stderr == *"2 records timed, 0 without"* ]] || { echo "$stderr" >&2; return 1; }
		assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 500 "${f%:*}: ms"
		assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 5000 "${f%:*}: ms"
	done
	run -2 --separate-stderr tb --replay --time-key ts --time-field 2 "$d/zap"
	assert_msg "$stderr" "--time-key finds the timestamp by its JSON key: give it or --time-field, not both"
	run -2 --separate-stderr tb -r 1/s --time-key ts "$d/zap"
	assert_msg "$stderr" "--time-key needs --replay"
}

@test "--replay --dry-run: the format, the records, the span and how long, nothing released" {
	printf '2024-01-01T00:00:00Z a\ncont\n2024-01-01T00:10:00Z b\n2024-01-01T00:05:00Z c\n2024-01-01T01:00:00.5Z d' >"$d/in"
	run -0 --separate-stderr tb --replay --dry-run --speed 10 "$d/in"
	assert_eq "$output" "records: 5, 4 timed (RFC 3339), 1 without a timestamp, 1 out of order
log time: 2024-01-01T00:00:00.000000000Z to 2024-01-01T01:00:00.500000000Z, 1 h 0 min 0.500 s
replay at speed 10: 6 min 0.050 s (limits aside)" "the report"
	run -0 --separate-stderr tb --replay --dry-run --max-gap 1s <"$d/in"
	[[ ${lines[2]} == "replay at speed 1, gaps cut to --max-gap: 2.000 s (limits aside)" ]] ||
	    { echo "$output" >&2; return 1; }
	printf 'no time\n' >"$d/none"
	run -1 --separate-stderr tb --replay --dry-run "$d/none"
	assert_msg "$stderr" "--dry-run: no record has a timestamp (the first: 'no time'); looked for epoch, RFC 3339, syslog and common log format times in each record: give --time-field N, --time-key NAME or --time-format FMT"
	printf 'a,13:04:05x\nb,1\n' >"$d/none"
	run -1 --separate-stderr tb --replay --dry-run --time-field 2 -F , "$d/none"
	assert_msg "$stderr" "--dry-run: no record has a timestamp (field 2 of the first: '13:04:05x'); looked for epoch, RFC 3339, syslog and common log format times at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	# Epoch milliseconds with a fraction, as JSON writers give them.
	printf '{"ts":1700000000123.456}\n{"ts":1700000000200}\n' >"$d/ms"
	run -0 --separate-stderr tb --replay --dry-run "$d/ms"
	assert_eq "${lines[0]}" "records: 2, 2 timed (epoch ms), 0 without a timestamp, 0 out of order" "epoch ms"
	assert_eq "${lines[1]}" "log time: 2023-11-14T22:13:20.123456000Z to 2023-11-14T22:13:20.200000000Z, 0.077 s" "the fraction"
	# Days, and what goes past 292 years, said so.
	printf '1900-01-01T00:00:00Z a\n2100-01-01T00:00:00.5Z b\n' >"$d/wide"
	run -0 --separate-stderr tb --replay --dry-run --speed 0.000001 --loop 2 "$d/wide"
	assert_eq "${lines[1]}" "log time: 1900-01-01T00:00:00.000000000Z to 2100-01-01T00:00:00.500000000Z, 73049 d 0 h 0 min 0.500 s" "days"
	assert_eq "${lines[2]}" "replay at speed 1e-06: over 292 years (limits aside)" "past the count"
	assert_eq "${lines[3]}" "--loop 2: 2 passes of over 292 years, one right after another: over 292 years in all" "loops"
	# Nothing to replay is no error, as for the replay.
	run -0 --separate-stderr tb --replay --dry-run </dev/null
	assert_eq "$stderr" "" "said"
	# The replay looks for its first time in the first 100 records: a
	# time only after them is a replay that stops, and said so.
	{ seq 100; echo 2024-01-01T00:00:00Z t; } >"$d/late"
	run -1 --separate-stderr tb --replay --dry-run "$d/late"
	assert_msg "$stderr" "--dry-run: the replay would stop at its start: no timestamp in the first 100 records (the first: '1'); looked for epoch, RFC 3339, syslog and common log format times in each record: give --time-field N, --time-key NAME or --time-format FMT"
	run -1 --separate-stderr tb --replay "$d/late"
	assert_msg "$stderr" "--replay: no timestamp in the first 100 records (the first: '1'); looked for epoch, RFC 3339, syslog and common log format times in each record: give --time-field N, --time-key NAME or --time-format FMT"
	{ seq 99; echo 2024-01-01T00:00:00Z t; } >"$d/late"
	run -0 --separate-stderr tb --replay --dry-run "$d/late"
	# And in its first 128 KiB: a longer first record is looked at by
	# its start.
	{ head -c 131072 /dev/zero | tr '\0' x; echo; echo 2024-01-01T00:00:00Z t; } >"$d/late"
	run -1 --separate-stderr tb --replay --dry-run "$d/late"
	[[ $stderr == *"the replay would stop at its start: no timestamp in the first 1 record (the first: 'xxx"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	run -1 --separate-stderr tb --replay "$d/late"
	# A report that cannot be written is said.
	run -1 --separate-stderr bash -c '"$0" --replay --dry-run "$1" >/dev/full' \
	    "$TB" "$d/in"
	assert_msg "$stderr" "write error: No space left on device"
	run -2 --separate-stderr tb --dry-run "$d/in"
	assert_msg "$stderr" "--dry-run needs --replay"
}

@test "--loop N: the FILEs replayed N times in all, each pass on its own schedule, --loop-gap between; -s counts passes" {
	local t0 t1
	printf '2024-01-01T00:00:00Z a\n2024-01-01T00:00:00.2Z b\n' >"$d/in"
	t0=$(now_ms)
	run -0 --separate-stderr tb --replay --loop 3 --loop-gap 300ms -s "$d/in"
	t1=$(now_ms)
	assert_eq "$output" "$(cat "$d/in" "$d/in" "$d/in")" "three passes"
	# 3 x 200 ms of log, 2 gaps of 300 ms: 1.2 s, never less.
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 1200 "ms"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 6000 "ms"
	[[ $stderr == *"6 records timed, 0 without a timestamp, 0 out of order"*"; pass 3" ]] ||
	    { echo "$stderr" >&2; return 1; }
	run -0 --separate-stderr tb --replay --loop 2 --stats=json "$d/in"
	[[ $stderr == *'"passes":2}'* ]] || { echo "$stderr" >&2; return 1; }
	# A last record without its newline ends each pass with one, counted
	# as read: no record runs on into the next pass's first.
	printf '1700000000 a\n1700000000 b' >"$d/in"
	run -0 --separate-stderr bash -c 'tb --replay --loop 3 -s "$0" | od -An -c' "$d/in"
	assert_eq "$(tr -d ' \n' <<<"$output")" \
	    "$(printf '1700000000 a\\n1700000000 b\\n%.0s' 1 2 3 | tr -d ' ')" \
	    "three passes, each record whole"
	[[ $stderr == *"units 6 in, 6 out"*"bytes 78 in, 78 out"* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "--loop inf goes on until stopped; --loop refuses what cannot be read twice" {
	local pid n
	printf '2024-01-01T00:00:00Z a\n2024-01-01T00:00:00.05Z b\n' >"$d/in"
	"$TB" --replay --loop inf "$d/in" >"$d/out" &
	pid=$!
	sleep 1
	kill -TERM "$pid"
	wait "$pid" || true
	n=$(wc -l <"$d/out")
	assert_ge "$n" 6 "lines after a second of passes"
	run -2 --separate-stderr tb --replay --loop 2 <"$d/in"
	assert_msg "$stderr" "--loop reads its FILEs again: give the log as a FILE (standard input cannot be read twice)"
	run -2 --separate-stderr tb --replay --loop 2 "$d/in" -
	assert_msg "$stderr" "--loop reads its FILEs again: standard input ('-') cannot be read twice"
	run -2 --separate-stderr tb --replay --loop 0 "$d/in"
	assert_msg "$stderr" "invalid --loop '0': give the passes in all, a whole number from 1 to 1000000000, or inf"
	run -2 --separate-stderr tb --replay --loop-gap 1s "$d/in"
	assert_msg "$stderr" "--loop-gap needs --loop N|inf"
	run -2 --separate-stderr tb --loop 2 "$d/in"
	assert_msg "$stderr" "--loop needs --replay"
	run -2 --separate-stderr tb --replay --dry-run --loop 2 <"$d/in"
	assert_msg "$stderr" "--loop reads its FILEs again: give the log as a FILE (standard input cannot be read twice)"
}

@test "--loop: a pass that reads nothing ends the loop; a pipe as FILE is refused" {
	: >"$d/empty"
	run -0 --separate-stderr timeout 5 "$TB" --replay --loop inf "$d/empty"
	assert_eq "$output" "" "nothing"
	run -2 --separate-stderr bash -c 'printf "2026-11-23T14:05:06Z a\n" |
	    "$0" --replay --loop 2 /dev/stdin' "$TB"
	assert_msg "$stderr" "--loop reads its FILEs again: '/dev/stdin' is no regular file (a pipe or a terminal cannot be read twice)"
}

@test "--replay --time-field that finds no timestamp quotes the field's text, escaped and cut, and the formats tried" {
	printf 'a 13:04:05x\nb 13:04:06x\n' >"$d/in"
	run -1 --separate-stderr tb --replay --time-field 2 "$d/in"
	assert_msg "$stderr" "--replay: no timestamp in the first 2 records (field 2 of the first: '13:04:05x'); looked for epoch, RFC 3339, syslog and common log format times at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	printf 'a,2024\nb\n' >"$d/csv"
	run -1 --separate-stderr tb --replay --time-field 2 "$d/csv"
	assert_msg "$stderr" "--replay: no timestamp in the first 2 records (the first, 'a,2024', has no field 2: fields are split at blanks, or at C with -F C); looked for epoch, RFC 3339, syslog and common log format times at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	printf 'x;1\x01;%080d\n' 0 >"$d/long"
	run -1 --separate-stderr tb --replay -F ';' --time-field 2 --time-format %T "$d/long"
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (field 2 of the first: '1\\x01'); looked for the --time-format '%T' at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	run -1 --separate-stderr tb --replay --time-field 2 --time-format %T "$d/long"
	# Cut at 60 bytes of the record, and said so, its control byte shown.
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (the first, 'x;1\\x01;$(printf '%055d' 0)...', has no field 2: fields are split at blanks, or at C with -F C); looked for the --time-format '%T' at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	# Nothing in it steers the terminal: a NUL, C1 controls raw and in
	# UTF-8, a mark that reorders text and bytes that are no UTF-8 are
	# shown as bytes; other UTF-8 stays as it is.
	printf 'a\000b \302\2335m \2332J \342\200\256x caf\303\251 \377\n' >"$d/ctl"
	run -1 --separate-stderr tb --replay "$d/ctl"
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (the first: 'a\\x00b \\xc2\\x9b5m \\x9b2J \\xe2\\x80\\xaex café \\xff'); looked for epoch, RFC 3339, syslog and common log format times in each record: give --time-field N, --time-key NAME or --time-format FMT"
	printf '{"when":"noon"}\n' >"$d/json"
	run -1 --separate-stderr tb --replay --time-key when "$d/json"
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (key \"when\" of the first: 'noon'); looked for epoch, RFC 3339, syslog and common log format times in the JSON key \"when\": give --time-field N, --time-key NAME or --time-format FMT"
	run -1 --separate-stderr tb --replay --time-key ts "$d/json"
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (the first, '{\"when\":\"noon\"}', has no key \"ts\"); looked for epoch, RFC 3339, syslog and common log format times in the JSON key \"ts\": give --time-field N, --time-key NAME or --time-format FMT"
}

@test "--replay on JSON lines: a key named for a time before the first time in the text, said once at start" {
	printf '%s\n' \
	    '{"created":"2024-01-01T00:00:00Z","timestamp":"2024-01-01T00:00:00Z","m":1}' \
	    '{"created":"2024-01-01T00:00:00Z","timestamp":"2024-01-01T00:00:00.6Z","m":2}' \
	    >"$d/two"
	local t0 t1
	t0=$(now_ms)
	run -0 --separate-stderr tb --replay --loop 2 "$d/two"
	t1=$(now_ms)
	assert_eq "$output" "$(cat "$d/two" "$d/two")" "records"
	# Once, not once a pass.
	assert_msg "$stderr" "--replay: records timed by their JSON key \"timestamp\" (also holding a time: \"created\"; --time-key NAME picks another)"
	# 0.6 s of log twice, not all at once by "created".
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 1200 "ms"
	printf '%s\n' '{"level":"info","TS":1700000000.25,"msg":"a"}' \
	    '{"level":"info","TS":1700000000.75,"msg":"b"}' >"$d/zap"
	run -0 --separate-stderr tb --replay --dry-run "$d/zap"
	assert_msg "$stderr" "--replay: records timed by their JSON key \"TS\""
	[[ $output == "records: 2, 2 timed (epoch s)"* ]] || { echo "$output" >&2; return 1; }
	# Named by the user: nothing to say.
	run -0 --separate-stderr tb --replay --time-key created --dry-run "$d/two"
	assert_eq "$stderr" "" "quiet with --time-key"
	run -0 --separate-stderr tb --replay --time-key timestamp "$d/two"
	assert_eq "$stderr" "" "quiet with --time-key"
}

@test "--replay --dry-run --loop: one pass read, and how long its passes would take, --loop-gap apart" {
	printf '2024-01-01T00:00:00Z a\n2024-01-01T00:00:00.2Z b\n' >"$d/in"
	run -0 --separate-stderr tb --replay --dry-run --loop 3 --loop-gap 300ms "$d/in"
	assert_eq "$output" "records: 2, 2 timed (RFC 3339), 0 without a timestamp, 0 out of order
log time: 2024-01-01T00:00:00.000000000Z to 2024-01-01T00:00:00.200000000Z, 0.200 s
replay at speed 1: 0.200 s (limits aside)
--loop 3: 3 passes of 0.200 s, 0.300 s apart: 1.200 s in all" "the report"
	assert_eq "$stderr" "" "nothing on stderr"
	run -0 --separate-stderr tb --replay --dry-run --loop 2 "$d/in"
	assert_eq "${lines[3]}" "--loop 2: 2 passes of 0.200 s, one right after another: 0.400 s in all" "no gap"
	run -0 --separate-stderr tb --replay --dry-run --loop inf --loop-gap 1s "$d/in"
	assert_eq "${lines[3]}" "--loop inf: the pass again and again, 1.000 s apart, until stopped" "for ever"
	run -0 --separate-stderr tb --replay --dry-run --loop 1000000000 --loop-gap 1h "$d/in"
	assert_eq "${lines[3]}" "--loop 1000000000: 1000000000 passes of 0.200 s, 1 h 0 min 0.000 s apart: over 292 years in all" "beyond counting"
}
