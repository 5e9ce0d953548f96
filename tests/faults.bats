#!/usr/bin/env bats
# Faults: a stalled consumer, a stopped tbthrottle, signal storms, and the
# kinds of file standard input and output can be.  Nothing is lost,
# reordered or duplicated, and no fault turns into a burst beyond the
# bucket.

load helpers

setup_file() {
	build_stamp
	seq 200 >"$BATS_FILE_TMPDIR/lines"
	# 1000-byte lines, numbered.
	awk 'BEGIN { for (i = 1; i <= 60; i++) printf "%04d%0996d\n", i, 0 }' \
	    >"$BATS_FILE_TMPDIR/wide"
}

# Most data lines of stamp's $output that arrived within MS ms of the
# first one at or after time FROM.
burst_after() {
	awk -v from="$1" -v w="$2" '$1 ~ /^[0-9]/ && $1 >= from {
		if (t0 == "") t0 = $1
		if ($1 <= t0 + w) n++
	} END { print n + 0 }' <<<"$output"
}

@test "a consumer that stops reading for a second gets no burst beyond the bucket" {
	# 1000-byte lines at 20/s, burst 3, through a 4 KiB pipe: while the
	# reader sleeps tbthrottle blocks; after, at most the pipe's 4 lines,
	# the blocked one and the burst of 3 come together, not the 20 a
	# catch-up would send.
	run -0 --separate-stderr "$STAMP" -P 4096 -w 1000 -i "$BATS_FILE_TMPDIR/wide" \
	    -- "$TB" -r 20/s -b 3
	assert_eq "$(stamp_count)" 60 "lines"
	assert_le "$(burst_after 1000 40)" 9 "lines within 40 ms of the resume"
	assert_eq "$(stamp_texts | cut -c1-4)" "$(seq -f %04g 60)" "order"
}

@test "SIGSTOP then SIGCONT: after the pause at most the burst leaves at once" {
	local d=$BATS_TEST_TMPDIR pid t0
	needs_strace
	# Timed where the units leave (the writes, as strace saw them), not
	# where a reader got them: a reader that is late after the pause would
	# read the burst and the next lines together.
	traced write "$d/log" bash -c ': >"$1.$$" &&
	    exec "$0" -r 50/s -b 4 "$2" >"$3"' \
	    "$TB" "$d/pid" "$BATS_FILE_TMPDIR/lines" "$d/out" &
	local bg=$!
	# Its pid is the name of an empty file: writing it would log one
	# more write to standard output.
	wait_for "the pid file" compgen -G "$d/pid.*" >/dev/null
	pid=$(compgen -G "$d/pid.*")
	pid=${pid##*.}
	# Well into the run: the burst spent, lines going at the rate.
	wait_for "10 lines out" has_lines "$d/out" 10
	kill -STOP "$pid"
	sleep 1
	t0=$(date +%s.%N)
	kill -CONT "$pid"
	wait "$bg"
	assert_eq "$(cat "$d/out")" "$(seq 200)" "lines, in order"
	# From the first write after SIGCONT, 100 ms hold at most the burst
	# and what 100 ms and the 10 ms catch-up time earn at 50/s (4 + 5.5),
	# one line decided before the stop and written after it, and one
	# more as strace times a write from its start while tbthrottle counts
	# it from its end: 11.  However late the run or the tracer was after
	# the pause, the bucket it finds is full and no fuller.  A run that
	# caught up on the pause would send its 50 lines at once, and one that
	# found a second bucket's worth 8 and the rate's 5 or 6: both more.
	written "$d/log" "$BATS_FILE_TMPDIR/lines" >"$d/writes"
	assert_eq "$(awk '{ n += $2 } END { print n }' "$d/writes")" 200 \
	    "lines written"
	assert_le "$(awk -v t="$t0" '$1 >= t {
	    if (f == "") f = $1
	    if ($1 - f <= 0.1) n += $2 } END { print n + 0 }' "$d/writes")" 11 \
	    "lines written within 100 ms of the first after SIGCONT"
}

@test "a storm of signals does not disturb the schedule" {
	local d=$BATS_TEST_TMPDIR
	seq 20 >"$d/in"
	"$STAMP" -p "$d/pid" -i "$d/in" -I 300 -- "$TB" -r 20/s >"$d/stamps" &
	local bg=$! pid
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	# Once it runs (its first line is out: a signal before it has set
	# its handlers would kill any program), SIGWINCH (ignored) and
	# SIGUSR2 (caught: it interrupts every sleep and read) as fast as the
	# shell can send them, for the rest of the run.
	wait_for "the first line" grep -q '^[0-9]' "$d/stamps"
	( while kill -WINCH "$pid" 2>/dev/null && kill -USR2 "$pid" 2>/dev/null; do :; done ) &
	local storm=$!
	wait "$bg"
	kill "$storm" 2>/dev/null || true
	wait "$storm" 2>/dev/null || true
	output=$(cat "$d/stamps")
	assert_schedule 1 50 20
	assert_eq "$(stamp_texts)" "$(seq 20)" "lines"
	assert_le "$(stamp_field 20)" 6000 "line 20 (ms)"
}

@test "standard output may be a regular file, /dev/null, a FIFO or a socket" {
	local d=$BATS_TEST_TMPDIR
	tb -r 1k/s -b 100 "$BATS_FILE_TMPDIR/lines" >"$d/file"
	cmp "$d/file" "$BATS_FILE_TMPDIR/lines"
	tb -c -r inf "$BATS_FILE_TMPDIR/lines" >"$d/file2"
	cmp "$d/file2" "$BATS_FILE_TMPDIR/lines"
	tb -r 1k/s -b 100 "$BATS_FILE_TMPDIR/lines" >/dev/null
	tb -c -r inf "$BATS_FILE_TMPDIR/lines" >/dev/null
	mkfifo "$d/fifo"
	cat "$d/fifo" >"$d/via-fifo" &
	local reader=$!
	tb -r 1k/s -b 100 "$BATS_FILE_TMPDIR/lines" >"$d/fifo"
	wait "$reader"
	cmp "$d/via-fifo" "$BATS_FILE_TMPDIR/lines"
	run -0 --separate-stderr "$STAMP" -S -- "$TB" -r 1k/s -b 100 "$BATS_FILE_TMPDIR/lines"
	assert_eq "$(stamp_texts)" "$(seq 200)" "through a socket"
	run -0 --separate-stderr "$STAMP" -S -- "$TB" -c -r inf "$BATS_FILE_TMPDIR/lines"
	assert_eq "$(stamp_texts)" "$(seq 200)" "spliced to a socket"
}

@test "standard input may be a regular file, /dev/null, a FIFO or a socket" {
	local d=$BATS_TEST_TMPDIR
	run -0 bash -c 'tb -r 1k/s -b 100 <"$0"' "$BATS_FILE_TMPDIR/lines"
	assert_eq "$output" "$(seq 200)" "file"
	run -0 bash -c 'tb -c -r inf <"$0"' "$BATS_FILE_TMPDIR/lines"
	assert_eq "$output" "$(seq 200)" "file, spliced"
	run -0 tb -r 1k/s </dev/null
	assert_eq "$output" "" "/dev/null"
	mkfifo "$d/fifo"
	seq 200 >"$d/fifo" &
	run -0 bash -c 'tb -r 1k/s -b 100 <"$0"' "$d/fifo"
	assert_eq "$output" "$(seq 200)" "FIFO"
	# Sockets on both sides, from stamp.
	run -0 --separate-stderr "$STAMP" -S -i "$BATS_FILE_TMPDIR/lines" -I 10 \
	    -- "$TB" -r 1k/s -b 100
	assert_eq "$(stamp_texts)" "$(seq 200)" "socket"
	run -0 --separate-stderr "$STAMP" -S -i "$BATS_FILE_TMPDIR/lines" -I 10 \
	    -- "$TB" -c -r inf
	assert_eq "$(stamp_texts)" "$(seq 200)" "socket, bytes"
}

@test "standard input and output a terminal: lines pass, end of input ends it" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run -0 script -qec "$TB -r 1k/s -b 100 $BATS_FILE_TMPDIR/lines" /dev/null
	assert_eq "$(tr -d '\r' <<<"$output" | head -n 3)" $'1\n2\n3' "first lines"
	# Typed lines on a terminal, then ^D: each line is a record.
	run -0 bash -c '{ sleep 0.3; printf "alpha\nbeta\n"; sleep 0.3; printf "\004"; } |
	    script -qec "$0 -r 100/s -s" /dev/null' "$TB"
	[[ $output == *alpha*beta* && $output == *"units 2 in, 2 out"* ]]
}
