#!/usr/bin/env bats
# Real-time schedule.  With all input available at once, unit k (1-based)
# leaves at t0 + max(0, k - burst) / rate (token bucket), or 1/rate apart
# (leaky bucket).
#
# Lower bounds are strict, with no tolerance.  Where the bucket starts full
# the input is fed by stamp -i 100 ms after the start, so unit k cannot
# leave before IN + (k - burst) / rate however long tbthrottle took to
# start (ASan).  Where the schedule counts from tbthrottle's own start
# (--initial), the input is a file and the bound counts from stamp's start,
# which comes first.  Upper bounds are generous (the
# box is noisy and CI also runs under ASan): they only catch a unit that is
# late by whole periods.

load helpers

setup_file() {
	build_stamp
	local n
	for ((n = 1; n <= 10; n++)); do
		seq 1 "$n" >"$BATS_FILE_TMPDIR/lines$n"
	done
}

# A file holding the lines 1 to N, all available at once.
lines() {
	echo "$BATS_FILE_TMPDIR/lines$1"
}

@test "default token bucket: one line at once, then one every 1/rate" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 5)" -- "$TB" -r 20/s
	assert_schedule 1 50 5
	assert_eq "$(stamp_texts)" "$(seq 5)" "records"
	# 200 ms from record 1, not counting tbthrottle's start (seconds
	# under ASan on a busy machine): a rate read ten times slower would
	# take 2 s, and 1.2 s leaves a stall of a second.
	assert_le "$(awk -v a="$(stamp_field 1)" -v b="$(stamp_field 5)" \
	    'BEGIN { print b - a }')" 1200 "record 1 to record 5 (ms)"
}

@test "token bucket with -b 3: three lines at once, then 1/rate apart" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 7)" -- "$TB" -r 20/s -b 3
	assert_schedule 3 50 7
	# 200 ms from record 1, as above: ten times slower would take 2 s.
	assert_le "$(awk -v a="$(stamp_field 1)" -v b="$(stamp_field 7)" \
	    'BEGIN { print b - a }')" 1200 "record 1 to record 7 (ms)"
}

@test "the burst goes out without waiting for the rate" {
	# At 1/min a second line would wait a minute unless the burst covers it.
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/min -b 3 <"$(lines 3)"
	assert_eq "$(stamp_count)" 3 "number of records"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "a duration burst: -b 2min at 1/min lets two lines through at once" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/min -b 2min <"$(lines 2)"
	assert_eq "$(stamp_count)" 2 "number of records"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "a duration burst: -b 100ms at 20/s is a burst of two" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 5)" -- "$TB" -r 20/s -b 100ms
	assert_schedule 2 50 5
}

@test "--initial 0: the first line waits 1/rate" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 20/s --initial 0 <"$(lines 3)"
	# Line k at k/rate: the schedule for burst 1 shifted by one period.
	assert_schedule 1 50 3 50
}

@test "--initial 0 with a burst: the first line still waits 1/rate" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 20/s -b 3 --initial 0 \
	    <"$(lines 3)"
	assert_schedule 1 50 3 50
}

@test "--initial 1 with -b 3: only one line at once" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 20/s -b 3 --initial 1 \
	    <"$(lines 4)"
	assert_schedule 1 50 4
}

@test "--initial 2 with -b 3 at 1/min: two lines at once" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/min -b 3 --initial 2 \
	    <"$(lines 2)"
	assert_eq "$(stamp_count)" 2 "number of records"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "leaky bucket: lines leave 1/rate apart" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 5)" -- "$TB" --leaky -r 20/s
	assert_schedule 1 50 5
	# 200 ms from record 1, as above: ten times slower would take 2 s.
	assert_le "$(awk -v a="$(stamp_field 1)" -v b="$(stamp_field 5)" \
	    'BEGIN { print b - a }')" 1200 "record 1 to record 5 (ms)"
}

@test "-a leaky is --leaky" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 4)" -- "$TB" -a leaky -r 20/s
	assert_schedule 1 50 4
}

@test "leaky bucket with --initial 0: the first line waits 1/rate" {
	run -0 --separate-stderr "$STAMP" -- "$TB" --leaky --initial 0 -r 20/s \
	    <"$(lines 3)"
	assert_schedule 1 50 3 50
}

@test "leaky bucket in byte mode: bytes leave 1/rate apart, no burst" {
	head -c 20 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -i "$BATS_TEST_TMPDIR/in" -- \
	    "$TB" -c --leaky -r 1000/s
	local k t
	t=$(stamp_in)
	for k in 2 5 10 11 20; do
		assert_ge "$(stamp_byte_time "$k")" "$(awk -v t="$t" -v k="$k" 'BEGIN { print t + k - 1 }')" \
		    "byte $k arrival (ms)"
	done
}

@test "byte mode: the default burst is 10 ms of the rate, then the rate" {
	head -c 60 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -i "$BATS_TEST_TMPDIR/in" -- \
	    "$TB" -c -r 200/s
	# 10 ms at 200/s is 2 bytes; byte k at (k - 2) * 5 ms.
	local k t
	t=$(stamp_in)
	for k in 3 4 10 30 60; do
		assert_ge "$(stamp_byte_time "$k")" "$(awk -v t="$t" -v k="$k" 'BEGIN { print t + (k - 2) * 5 }')" \
		    "byte $k arrival (ms)"
	done
	# 290 ms from the first byte to the last, not counting the start: a
	# rate read ten times slower would take 2.9 s.  The exit only has to
	# come well before stamp's limit.
	assert_le "$(awk -v a="$(stamp_byte_time 1)" -v b="$(stamp_byte_time 60)" \
	    'BEGIN { print b - a }')" 2000 "first byte to last (ms)"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "byte mode with -b 1: byte k at (k - 1) / rate" {
	head -c 40 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -c -i "$BATS_TEST_TMPDIR/in" -- \
	    "$TB" -c -b 1 -r 400/s
	local k t
	t=$(stamp_in)
	for k in 2 3 20 40; do
		assert_ge "$(stamp_byte_time "$k")" "$(awk -v t="$t" -v k="$k" 'BEGIN { print t + (k - 1) * 2.5 }')" \
		    "byte $k arrival (ms)"
	done
}

@test "byte rates set the pace: 1025 bytes at 10K/s take 100 ms" {
	local r n
	for r in 10K/s:1025 10KB/s:1001 6MB/min:10001; do
		n=${r#*:}
		r=${r%:*}
		head -c "$n" /dev/zero >"$BATS_TEST_TMPDIR/in"
		run -0 --separate-stderr "$STAMP" -c -i "$BATS_TEST_TMPDIR/in" -- \
		    "$TB" -c -b 1 -r "$r"
		assert_ge "$(stamp_byte_time "$n")" "$(awk -v t="$(stamp_in)" 'BEGIN { print t + 100 }')" \
		    "-r $r: last byte (ms)"
		# From the first byte out, however late the start: 100 ms,
		# where a rate read 10 times slower would take 1000 ms more;
		# 900 ms still fails that, and passes a stall of 800 ms.
		assert_le "$(awk -v a="$(stamp_byte_time 1)" \
		    -v b="$(stamp_byte_time "$n")" 'BEGIN { print b - a }')" 900 \
		    "-r $r: first byte to last (ms)"
	done
}

@test "every period spelling sets the pace: three lines at 20/s are 50 ms apart" {
	local r
	# (cli.bats pins every spelling exactly; this checks real time.)
	for r in 20 1200/min 72000/h 1728000/day 1/50ms 40/2s; do
		run -0 --separate-stderr "$STAMP" -I 30 -i "$(lines 3)" -- "$TB" -r "$r"
		assert_schedule 1 50 3
		# Line 3 is due 100 ms after line 1 took the token, however
		# late that was; a rate read 20 times slower would part them
		# by 2 s, which 1.5 s still fails while it passes a stall of
		# more than a second.
		assert_le "$(awk -v a="$(stamp_field 1)" -v b="$(stamp_field 3)" \
		    'BEGIN { print b - a }')" 1500 "-r $r: line 1 to line 3 (ms)"
	done
}

# unbuffered FIRST SECOND ARGS...: tbthrottle ARGS is given FIRST, and
# SECOND only once FIRST has come out whole: a run that kept FIRST back
# for more input, its end or a full buffer never lets SECOND come (the
# wait gives up after 20 s), on an idle machine or a busy one.  The
# output must be both.
unbuffered() {
	local first=$1 second=$2 d=$BATS_TEST_TMPDIR
	shift 2
	printf '%s' "$first" >"$d/first"
	{
		printf '%s' "$first"
		wait_for "the first part out alone" cmp -s "$d/out" "$d/first" &&
		    printf '%s' "$second"
	} | "$STAMP" -c -o "$d/out" -- "$TB" "$@" >"$d/stamp"
	cmp "$d/out" <(printf '%s%s' "$first" "$second")
}

@test "no buffering lag: a slow producer's line goes out as soon as it arrives" {
	unbuffered $'a\n' $'b\n' -r 100/s
}

@test "no buffering lag with -r inf" {
	unbuffered $'a\n' $'b\n' -r inf
}

@test "no buffering lag in byte mode" {
	unbuffered ab cd -c -r 1K/s
}

@test "idle time earns no more than a full bucket" {
	# The input arrives after 400 ms idle: at 20/s with -b 2 the bucket
	# then holds 2 tokens, not 8.
	run -0 --separate-stderr "$STAMP" -I 400 -i "$(lines 6)" -- \
	    "$TB" -r 20/s -b 2
	assert_schedule 2 50 6
}

@test "sliding window: at most N in any window, then the next N as the first leave" {
	run -0 --separate-stderr "$STAMP" -i "$(lines 8)" -- "$TB" -a sliding -r 3/300ms
	local t k
	t=$(stamp_in)
	assert_eq "$(stamp_count)" 8 "records"
	# Records 4-6 no earlier than 300 ms after the input, 7-8 after 600 ms.
	for k in 4 5 6; do
		assert_ge "$(stamp_field "$k")" "$(awk -v t="$t" 'BEGIN { print t + 300 }')" "record $k (ms)"
	done
	for k in 7 8; do
		assert_ge "$(stamp_field "$k")" "$(awk -v t="$t" 'BEGIN { print t + 600 }')" "record $k (ms)"
	done
	assert_le "$(stamp_field 8)" 3000 "record 8 (ms)"
	# That no window holds more than 3 is checked where the records
	# enter the output, in the next test: at the reader, one late read
	# puts records of two windows together.
}

# Where records enter the output, as the kernel saw the writes (strace):
# no window of the period holds more than N, though a write goes late.
# Each write counts from when it had returned, not from when it was due.
@test "sliding window: no window of the period holds more than N at the writes, late ones too" {
	local d=$BATS_TEST_TMPDIR
	needs_strace
	awk 'BEGIN { for (i = 1; i <= 60; i++) printf "%03d\n", i }' >"$d/in"
	run -0 traced write "$d/log" bash -c \
	    'exec "$0" -a sliding -r 10/200ms "$1" >"$2"' "$TB" "$d/in" "$d/out"
	# A write of records of 4 bytes holds its result / 4 of them.
	awk '$3 ~ /^write\(1,/ { print $2, $NF / 4 }' "$d/log" | sort -n >"$d/writes"
	assert_eq "$(awk '{ n += $2 } END { print n }' "$d/writes")" 60 "records written"
	assert_le "$(most_in_span 200000000 <"$d/writes")" 10 "most records within 200 ms"
}

@test "fixed windows: the next N wait for the next wall-clock boundary" {
	local start
	start=$(date +%s.%N)
	run -0 --separate-stderr bash -c 'seq 6 | tb -a fixed -r 3/s |
	    while read -r l; do echo "$l $(date +%s.%N)"; done'
	assert_eq "${#lines[@]}" 6 "lines"
	# Line 4 can only leave once a new second has begun on the wall
	# clock: it is seen in a later whole second than the start.
	assert_ge "$(awk 'NR == 4 { print int($2) }' <<<"$output")" \
	    "$(awk -v s="$start" 'BEGIN { print int(s) + 1 }')" "line 4 wall second"
	assert_le "$(awk -v s="$start" 'NR == 6 { print $2 - s }' <<<"$output")" 4 \
	    "line 6 seconds after start"
}

@test "several limits: a unit leaves when every -r allows it (sustained + peak)" {
	# Sustained 10/s with burst 3, peak 40/s with burst 1: one at once,
	# the next two 25 ms apart (peak), then 100 ms apart (sustained).
	run -0 --separate-stderr "$STAMP" -i "$(lines 6)" -- "$TB" -r 10/s -b 3 -r 40/s -b 1
	local t k due
	t=$(stamp_in)
	assert_eq "$(stamp_count)" 6 "records"
	k=0
	for due in 0 25 50 100 200 300; do
		k=$((k + 1))
		assert_ge "$(stamp_field "$k")" "$(awk -v t="$t" -v d="$due" 'BEGIN { print t + d }')" "record $k (ms)"
	done
	assert_le "$(stamp_field 6)" 3000 "record 6 (ms)"
}
