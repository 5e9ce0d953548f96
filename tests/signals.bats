#!/usr/bin/env bats
# End of input, closed output (SIGPIPE), and SIGTERM/SIGINT.

load helpers

setup_file() {
	build_stamp
}

# --- end of input ------------------------------------------------------------

@test "EOF: exits as soon as the last line is released, not 1/rate later" {
	printf 'a\nb\n' >"$BATS_TEST_TMPDIR/in"
	# At one line every 2 s, a sleep after the last write would add 2 s:
	# 1.5 s from line b to the exit still fails it, and leaves a stall
	# of more than a second.
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/2s <"$BATS_TEST_TMPDIR/in"
	assert_eq "$(stamp_texts)" $'a\nb' "records"
	assert_ge "$(stamp_field 2)" 2000 "line b arrival (ms)"
	local after
	after=$(awk -v b="$(stamp_field 2)" -v e="$(stamp_end)" 'BEGIN { print e - b }')
	assert_le "$after" 1500 "time from the last line to exit (ms)"
	# Line b is due 2 s after line a, not counting tbthrottle's start: a
	# rate read half as fast would part them by 4 s.
	assert_le "$(awk -v a="$(stamp_field 1)" -v b="$(stamp_field 2)" \
	    'BEGIN { print b - a }')" 3500 "line a to line b (ms)"
}

@test "EOF: with -b 2 at 1/min two lines finish immediately" {
	printf 'a\nb\n' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/min -b 2 \
	    <"$BATS_TEST_TMPDIR/in"
	assert_eq "$(stamp_texts)" $'a\nb' "records"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "EOF: a final line without newline inside the burst finishes immediately" {
	printf 'a\nb' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -o "$BATS_TEST_TMPDIR/out" -- \
	    "$TB" -r 1/min -b 2 <"$BATS_TEST_TMPDIR/in"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "EOF: empty input at 1/min with no initial tokens exits at once" {
	run -0 --separate-stderr "$STAMP" -- "$TB" -r 1/min --initial 0 </dev/null
	assert_eq "$(stamp_count)" 0 "number of records"
	assert_le "$(stamp_end)" 5000 "exit time (ms)"
}

@test "EOF: byte mode exits as soon as the last byte is released" {
	head -c 500 /dev/zero >"$BATS_TEST_TMPDIR/in"
	# 10 ms of 1000 B/s is 10 bytes; the last byte is due at 490 ms.
	run -0 --separate-stderr "$STAMP" -c -- "$TB" -c -r 1000/s \
	    <"$BATS_TEST_TMPDIR/in"
	assert_ge "$(stamp_byte_time 500)" 490 "last byte arrival (ms)"
	# A run that went on waiting after the last byte (for more input, a
	# timer of seconds) would not exit in 1.5 s, which leaves a stall of
	# more than a second.
	local after
	after=$(awk -v b="$(stamp_byte_time 500)" -v e="$(stamp_end)" 'BEGIN { print e - b }')
	assert_le "$after" 1500 "time from the last byte to exit (ms)"
	# 490 ms from the first byte to the last, not counting tbthrottle's
	# start: a rate read ten times slower would take 4.9 s.
	assert_le "$(awk -v a="$(stamp_byte_time 1)" -v b="$(stamp_byte_time 500)" \
	    'BEGIN { print b - a }')" 2500 "first byte to last (ms)"
}

# --- closed output -----------------------------------------------------------

@test "SIGPIPE: yes | tbthrottle -r inf | head -n 5 ends at once with status 141 and no message" {
	local err="$BATS_TEST_TMPDIR/err" t0 t1
	t0=$(now_ms)
	run -0 --separate-stderr bash -c '
	    yes | tb -r inf 2>"$0" | head -n 5
	    echo "status=${PIPESTATUS[1]}"' "$err"
	t1=$(now_ms)
	assert_eq "$output" $'y\ny\ny\ny\ny\nstatus=141' "output"
	assert_eq "$(cat "$err")" "" "stderr of tbthrottle"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "time taken (ms)"
}

@test "SIGPIPE: a throttled run also dies of SIGPIPE silently" {
	local err="$BATS_TEST_TMPDIR/err"
	run -0 --separate-stderr bash -c '
	    yes | tb -r 200/s 2>"$0" | head -n 2
	    echo "status=${PIPESTATUS[1]}"' "$err"
	assert_eq "$output" $'y\ny\nstatus=141' "output"
	assert_eq "$(cat "$err")" "" "stderr of tbthrottle"
}

@test "SIGPIPE ignored by the parent: EPIPE still ends with status 141 and no message" {
	local err="$BATS_TEST_TMPDIR/err"
	run -0 --separate-stderr bash -c '
	    trap "" PIPE
	    yes 2>/dev/null | tb -r inf 2>"$0" | head -n 5 >/dev/null
	    echo "status=${PIPESTATUS[1]}"' "$err"
	assert_eq "$output" "status=141" "output"
	assert_eq "$(cat "$err")" "" "stderr of tbthrottle"
}

# --- SIGTERM and SIGINT --------------------------------------------------------

# signal_while_sleeping SIG STATUS: start tbthrottle -r 1/min on two lines,
# wait for the first, send SIG while it sleeps for the second's deadline.
signal_while_sleeping() {
	local sig=$1 want=$2 d=$BATS_TEST_TMPDIR spid st=0 t0 t1
	printf 'first\nsecond\n' >"$d/in"
	"$STAMP" -o "$d/out" -p "$d/pid" -- "$TB" -r 1/min <"$d/in" \
	    >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	wait_for_output "$d/out"
	sleep 0.1	# well into the sleep for the second line
	t0=$(now_ms)
	kill -s "$sig" "$(cat "$d/pid")"
	wait "$spid" || st=$?
	t1=$(now_ms)
	output=$(cat "$d/log")
	assert_eq "$st" "$want" "exit status after SIG$sig"
	# A run that slept on to its deadline would end only when stamp
	# kills it, after TB_LIMIT (20 s) and with status 137: 10 s leaves
	# a busy machine seconds.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 10000 \
	    "time from SIG$sig to exit (ms)"
	printf 'first\n' | cmp - "$d/out"
	assert_eq "$(cat "$d/err")" "" "stderr"
}

@test "SIGTERM while sleeping for a deadline ends promptly with status 143, no partial record" {
	signal_while_sleeping TERM 143
}

@test "SIGINT while sleeping for a deadline ends promptly with status 130, no partial record" {
	signal_while_sleeping INT 130
}

@test "SIGTERM while waiting for input ends promptly with status 143" {
	local d=$BATS_TEST_TMPDIR spid st=0 t0 t1 pid
	mkfifo "$d/fifo"
	exec 4<>"$d/fifo"	# a producer that never writes nor closes
	"$STAMP" -o "$d/out" -p "$d/pid" -- "$TB" -r 10/s <"$d/fifo" \
	    >"$d/log" 2>"$d/err" 3>&- 4>&- &
	spid=$!
	wait_for_output "$d/pid"
	# Its handlers set, and asleep on the input that never comes.
	pid=$(cat "$d/pid")
	wait_running "$pid"
	wait_for "tbthrottle $pid to wait for input" is_asleep "$pid"
	t0=$(now_ms)
	kill -s TERM "$pid"
	wait "$spid" || st=$?
	t1=$(now_ms)
	exec 4>&-
	assert_eq "$st" 143 "exit status"
	# A run that read on, deaf to the signal, would end only when stamp
	# kills it, after TB_LIMIT (20 s) and with status 137: 10 s leaves
	# a busy machine seconds.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 10000 \
	    "time from SIGTERM to exit (ms)"
	assert_eq "$(cat "$d/err")" "" "stderr"
}

@test "SIGINT while waiting for input ends promptly with status 130, keeping what was read whole" {
	local d=$BATS_TEST_TMPDIR spid st=0
	mkfifo "$d/fifo"
	exec 4<>"$d/fifo"
	printf 'done\npart' >&4	# one whole line, then a partial one
	"$STAMP" -o "$d/out" -p "$d/pid" -- "$TB" -r 10/s <"$d/fifo" \
	    >"$d/log" 2>"$d/err" 3>&- 4>&- &
	spid=$!
	wait_for_output "$d/out"
	sleep 0.2
	kill -s INT "$(cat "$d/pid")"
	wait "$spid" || st=$?
	exec 4>&-
	assert_eq "$st" 130 "exit status"
	printf 'done\n' | cmp - "$d/out"
}

# signal_during_blocked_write SIZE: a SIZE-byte record fills the pipe and
# stamp reads nothing until told; SIGTERM arrives while the write is
# blocked.  Checks the exit status; the caller checks the output.
signal_during_blocked_write() {
	local d=$BATS_TEST_TMPDIR spid st=0
	{ head -c "$1" /dev/zero | tr '\0' x; printf '\nnext\n'; } >"$d/in"
	"$STAMP" -W "$d/go" -o "$d/out" -p "$d/pid" -- "$TB" -r 1/min <"$d/in" \
	    >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	wait_for_output "$d/pid"
	wait_running "$(cat "$d/pid")"
	wait_for "bytes in the pipe" has_text "$d/log" WROTE
	kill -s TERM "$(cat "$d/pid")"
	touch "$d/go"
	wait "$spid" || st=$?
	assert_eq "$st" 143 "exit status"
}

@test "SIGTERM during a blocked write still finishes that record, then ends with 143" {
	# 100 kB: more than the pipe holds, less than the 128 KiB buffer.
	signal_during_blocked_write 100000
	head -n 1 "$BATS_TEST_TMPDIR/in" | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "SIGTERM while streaming a record longer than the buffer still finishes it, then ends with 143" {
	# A record longer than the 128 KiB buffer is streamed in pieces; a
	# stop waits for its end (tbthrottle(1), EXIT STATUS), and nothing
	# from the next record goes out.
	signal_during_blocked_write 300000
	head -n 1 "$BATS_TEST_TMPDIR/in" | cmp - "$BATS_TEST_TMPDIR/out"
}
