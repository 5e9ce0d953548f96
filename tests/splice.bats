#!/usr/bin/env bats
# Throttled bytes moved by splice(2): with -c at a finite rate, from a pipe
# or a regular file to a pipe, the bytes wait in the input until they are
# due and go out in the kernel.  Whatever the reader, the signals or the
# input do meanwhile, the output is the input byte for byte, never early,
# and what was not released is still in the input.  Elsewhere (a file or
# a terminal as output, a socket or a device as input) the bytes are read
# and written, with the same result.

load helpers

setup_file() {
	build_stamp
}

setup() {
	d=$BATS_TEST_TMPDIR
	head -c 1000000 /dev/urandom >"$d/in"
}

# The first N bytes of $d/in.
first() {
	head -c "$1" "$d/in"
}

@test "from a pipe to a pipe: every byte, in order, never early" {
	run -0 "$STAMP" -c -o "$d/out" -- sh -c \
	    'cat "$1" | "$TB" -c -r 2MB/s -b 100000' sh "$d/in"
	cmp "$d/in" "$d/out"
	# Byte k is due (k - burst) / rate after the start: 450 ms for the
	# last, measured from before tbthrottle started.
	assert_ge "$(stamp_byte_time 1000000)" 450 "last byte (ms)"
	assert_ge "$(stamp_byte_time 500000)" 200 "500000th byte (ms)"
}

@test "from a regular file to a pipe: every byte, never early" {
	run -0 "$STAMP" -c -o "$d/out" -- "$TB" -c -r 2MB/s -b 100000 "$d/in"
	cmp "$d/in" "$d/out"
	assert_ge "$(stamp_byte_time 1000000)" 450 "last byte (ms)"
}

@test "standard input a regular file: the same" {
	run -0 "$STAMP" -c -o "$d/out" -- sh -c \
	    'exec "$TB" -c -r 4MB/s -b 100000 <"$1"' sh "$d/in"
	cmp "$d/in" "$d/out"
	assert_ge "$(stamp_byte_time 1000000)" 225 "last byte (ms)"
}

@test "a named pipe as operand, and files and pipes mixed, like cat" {
	mkfifo "$d/fifo"
	first 300000 >"$d/fifo" &
	first 1000 | tb -c -r 20MB/s "$d/in" "$d/fifo" - "$d/in" >"$d/out" |
	    cat
	cat "$d/in" <(first 300000) <(first 1000) "$d/in" | cmp - "$d/out"
}

# stop_then_cat: on standard input, tbthrottle -c at 200 kB/s stopped
# after 300 ms (its -s report in $d/err), then cat: together they should
# pass every byte of it.  The megabyte would take 5 s: the stop finds the
# run however slow the machine.
stop_then_cat() {
	# Background jobs read /dev/null unless told otherwise.
	"$TB" -c -r 200kB/s -b 1000 -s 2>"$d/err" <&0 &
	local pid=$!
	wait_running "$pid"
	sleep 0.3
	kill -TERM "$pid"
	wait "$pid" || true
	cat
}

@test "bytes not yet released stay in the input for the next reader" {
	linux_only "splice(2): bytes are read into the buffer"
	# tbthrottle has released some 300 kB; cat gets the rest.
	stop_then_cat <"$d/in" | cat >"$d/out"
	cmp "$d/in" "$d/out"
	# Counted as read and waiting, though they stayed in the input.
	grep -q 'bytes [0-9]* in, [0-9]* out, 0 dropped, [0-9]* waiting' \
	    "$d/err" || { cat "$d/err" >&2; return 1; }
}

@test "from a pipe, too, unreleased bytes stay in the pipe" {
	linux_only "splice(2): bytes are read into the buffer"
	cat "$d/in" | stop_then_cat | cat >"$d/out"
	cmp "$d/in" "$d/out"
}

@test "partial splices into a small pipe: every byte, never early" {
	# A 4 KiB pipe (left small: tbthrottle grows only default-size
	# pipes) takes each 10 kB chunk in three or more splices.
	run -0 "$STAMP" -c -P 4096 -o "$d/out" -- \
	    "$TB" -c -r 1MB/s -b 10000 "$d/in"
	cmp "$d/in" "$d/out"
	assert_ge "$(stamp_byte_time 1000000)" 990 "last byte (ms)"
}

@test "a reader that stalls for a second: every byte, then never early" {
	run -0 --separate-stderr "$STAMP" -c -w 1000 -P 4096 -o "$d/out" -- \
	    "$TB" -c -r 500kB/s -b 10000 -s "$d/in"
	cmp "$d/in" "$d/out"
	# The stall is lost time; no byte comes before its place in the
	# schedule from the start.
	assert_ge "$(stamp_byte_time 1000000)" 1980 "last byte (ms)"
	assert_ge "$(stamp_byte_time 510000)" 1000 "510000th byte (ms)"
	[[ $stderr == *'bytes 1000000 in, 1000000 out, 0 dropped, 0 waiting'* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "a report asked for mid-splice leaves the bytes whole" {
	"$STAMP" -c -W "$d/go" -P 4096 -o "$d/out" -p "$d/pid" -- \
	    "$TB" -c -r 1MB/s -b 100000 "$d/in" >"$d/stamps" 2>"$d/err" &
	spid=$!
	wait_for_output "$d/pid"
	wait_running "$(cat "$d/pid")"
	# The reader reads nothing until told: the splice waits for room.
	wait_for "bytes in the pipe" has_text "$d/stamps" WROTE
	kill -USR1 "$(cat "$d/pid")"
	wait_for "the report" has_text "$d/err" "bytes "
	touch "$d/go"
	wait "$spid"
	cmp "$d/in" "$d/out"
	grep -q 'bytes [0-9]* in, [0-9]* out' "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "SIGTERM mid-splice: the bytes moved stay out, the rest stays in, at once" {
	linux_only "splice(2): bytes are read into the buffer"
	local out i
	# The reader stalls, until told, behind a 4 KiB pipe: a chunk's
	# splice is blocked when SIGTERM comes.  Bytes are whole units: the
	# run ends there, before the reader reads, and cat then reads the
	# rest of the input.
	"$STAMP" -c -W "$d/go" -P 4096 -o "$d/out" -- sh -c \
	    'exec 3<&0; "$TB" -c -r 1MB/s -b 100000 -s 2>"$1" <&3 &
	    echo "$!" >"$1.pid"; st=0; wait "$!" || st=$?; echo "$st" >"$1.st"
	    cat' \
	    sh "$d/err" <"$d/in" >"$d/stamps" &
	spid=$!
	wait_for_output "$d/err.pid"
	wait_running "$(cat "$d/err.pid")"
	wait_for "bytes in the pipe" has_text "$d/stamps" WROTE
	kill -TERM "$(cat "$d/err.pid")"
	# Ended while the reader still reads nothing: a stop that waited for
	# the reader would never end.
	wait_for "the end of the stopped run" test -s "$d/err.st" || i=1
	touch "$d/go"
	[[ -z $i ]]
	wait "$spid"
	assert_eq "$(cat "$d/err.st")" 143 "exit status after SIGTERM"
	cmp "$d/in" "$d/out"
	# The burst, 100000 bytes, was blocked at 4 KiB (a page or two).
	out=$(sed -n 's/.*bytes [0-9]* in, \([0-9]*\) out.*/\1/p' "$d/err")
	assert_ge "$out" 4096 "bytes released before the stop"
	assert_le "$out" 65536 "bytes released before the stop"
}

@test "a file that shrinks under a claim: its bytes as they are, then the end" {
	linux_only "splice(2): no claim on a file"
	local pid cpid
	mkfifo "$d/fifo" # output a pipe, and $! tbthrottle's pid
	cat "$d/fifo" >"$d/out" &
	cpid=$!
	"$TB" -c -r 50kB/s -b 1000 -s "$d/in" 2>"$d/err" >"$d/fifo" &
	pid=$!
	wait_running "$pid"
	# Bytes out: the first claim (128 KiB) is made and still held, for
	# the 2 s that 100000 bytes take at 50 kB/s.
	wait_for "bytes out" test -s "$d/out"
	truncate -s 100000 "$d/in"
	wait "$pid"
	wait "$cpid"
	first 100000 | cmp - "$d/out"
	grep -q 'bytes 100000 in, 100000 out, 0 dropped, 0 waiting' \
	    "$d/err" || { cat "$d/err" >&2; return 1; }
}

@test "the input ends mid-chunk: the last short chunk, no earlier" {
	first 100001 >"$d/short"
	run -0 "$STAMP" -c -o "$d/out" -- sh -c \
	    'cat "$1" | "$TB" -c -r 1MB/s -b 1000 -s' sh "$d/short"
	cmp "$d/short" "$d/out"
	assert_ge "$(stamp_byte_time 100001)" 99 "last byte (ms)"
}

@test "-s counts every spliced byte" {
	cat "$d/in" | tb -c -r 50MB/s -s 2>"$d/err" | cat >"$d/out"
	cmp "$d/in" "$d/out"
	grep -q \
	    'units 1000000 in, 1000000 out, 0 dropped, 0 waiting; bytes 1000000 in, 1000000 out' \
	    "$d/err" || { cat "$d/err" >&2; return 1; }
}

@test "-R changes the rate of spliced bytes at once" {
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	"$TB" -c -r 100kB/s -b 1000 --name spl "$d/in" >"$d/out" &
	pid=$!
	wait_running name.spl
	sleep 0.2
	t0=$(now_ms)
	tb -R spl -r 10MB/s
	wait "$pid"
	t1=$(now_ms)
	cmp "$d/in" "$d/out"
	# At the old rate the rest would take 8 s or more.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "ms after -R"
}

# --- where splice does not apply: read and write, the same result ---------

@test "output a regular file: every byte" {
	cat "$d/in" | tb -c -r 50MB/s >"$d/out"
	cmp "$d/in" "$d/out"
}

@test "output a socket, input a socket: every byte" {
	run -0 "$STAMP" -S -c -o "$d/out" -i "$d/in" -- \
	    "$TB" -c -r 20MB/s -b 100000
	cmp "$d/in" "$d/out"
}

@test "output a terminal: every byte" {
	command -v script >/dev/null || skip "script(1) is missing"
	printf 'abc\n' >"$d/small"
	script -qec "\"$TB\" -c -r 1MB/s \"$d/small\"" /dev/null >"$d/out"
	grep -q abc "$d/out"
}

@test "input a device: read, not spliced" {
	tb -c -r 20MB/s /dev/zero | head -c 300000 | cmp - <(head -c 300000 /dev/zero)
}

@test "a file of /proc, whose size says 0: its bytes still pass" {
	tb -c -r 1MB/s /proc/self/status >"$d/out"
	grep -q '^Name:' "$d/out"
}

@test "a pipe made small on purpose is left small" {
	# stamp -P 4096 shrinks its pipe; tbthrottle must not grow it, or a
	# stalled reader would not hold it back as the reader meant.
	run -0 "$STAMP" -c -w 500 -P 4096 -o "$d/out" -- \
	    "$TB" -c -r 100MB/s -s "$d/in"
	cmp "$d/in" "$d/out"
	# The first read after the stall finds at most the 4 KiB.
	local first_len
	first_len=$(stamp_field 1 2)
	assert_le "$first_len" 4096 "bytes in the pipe after the stall"
}
