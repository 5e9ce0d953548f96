#!/usr/bin/env bats
# How a run ends on a stop signal: the record being written goes out whole
# and nothing after it; what was read and not released is set aside whole
# in the --drop-to file and counted as waiting; clean-up runs however the
# process ends.

load helpers

setup() {
	# Runs of tests side by side must not meet: each its own names.
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}

setup_file() {
	build_stamp
}

# A record of 3 MB, longer than any buffer and than the pipe, then more.
long_input() {
	{
		head -c 3000000 /dev/zero | tr '\0' x
		printf '\n'
		seq 5
	} >"$1"
}

# stalled_reader ARGS...: tbthrottle ARGS -s reads $d/in and writes
# through a 4 KiB pipe to a reader (stamp -W) that reads nothing until
# the file $d/go exists; back once the pipe holds bytes: a write is then
# held, however long the machine took to get there.  stamp's pid in $spid,
# tbthrottle's in $pid, the output in $d/out and the report in $d/err.
stalled_reader() {
	local d=$BATS_TEST_TMPDIR
	"$STAMP" -c -W "$d/go" -P 4096 -o "$d/out" -p "$d/pid" -- \
	    "$TB" "$@" -s <"$d/in" >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	wait_for "a write to the stalled reader" has_text "$d/log" WROTE
}

# stop_mid_record SIG STATUS ARGS...: a stalled reader holds tbthrottle
# ARGS in the middle of the long record's write when SIG comes; then the
# reader reads.  The output is exactly the long record.
stop_mid_record() {
	local sig=$1 want=$2 d=$BATS_TEST_TMPDIR spid pid st=0
	shift 2
	long_input "$d/in"
	stalled_reader "$@"
	kill -s "$sig" "$pid"
	touch "$d/go"
	wait "$spid" || st=$?
	assert_eq "$st" "$want" "exit status after SIG$sig" || return 1
	head -n 1 "$d/in" | cmp - "$d/out" || return 1
	grep -q ' 1 out,' "$d/err" || { cat "$d/err" >&2; return 1; }
}

# gone_unread PID: PID ends while the stalled reader still reads
# nothing: a stop that waited for the reader would never end, so the
# generous limit of wait_for costs nothing on any machine.  Then the
# reader reads.
gone_unread() {
	local ok=0
	wait_for "the end of $1 before its reader reads" is_gone "$1" || ok=1
	touch "$BATS_TEST_TMPDIR/go"
	return "$ok"
}

@test "SIGTERM mid-record: the long record goes out whole, nothing after it" {
	stop_mid_record TERM 143 -r 1/s
}

@test "SIGINT mid-record: the long record goes out whole, nothing after it" {
	stop_mid_record INT 130 -r 1/s
}

@test "SIGHUP mid-record: the long record goes out whole, nothing after it" {
	stop_mid_record HUP 129 -r 1/s
}

@test "SIGTERM mid-record with -r inf: whole" {
	stop_mid_record TERM 143 -r inf
}

@test "SIGTERM mid-record with -0: whole" {
	local d=$BATS_TEST_TMPDIR spid pid st=0
	{ head -c 3000000 /dev/zero | tr '\0' x; printf '\0a\0'; } >"$d/in"
	stalled_reader -0 -r 1/s
	kill -s TERM "$pid"
	touch "$d/go"
	wait "$spid" || st=$?
	assert_eq "$st" 143 "exit status"
	assert_eq "$(wc -c <"$d/out")" 3000001 "bytes out"
}

@test "SIGTERM mid-record with --queue: whole" {
	stop_mid_record TERM 143 --leaky -r 1/s --queue 5
}

@test "SIGTERM mid-record with --drop: whole" {
	stop_mid_record TERM 143 -r 1/s --drop
}

@test "a second signal mid-record ends at once, the record cut" {
	local d=$BATS_TEST_TMPDIR spid st=0 pid
	long_input "$d/in"
	stalled_reader -r 1/s
	kill -s TERM "$pid"
	# A stop signal within 100 ms of the first is the same stop
	# (src/sys/signals.c), timed from when its handler ran, and one sent
	# while the first is still pending merges with it: so the second goes
	# 500 ms after the first has been taken, not after it was sent, which
	# a run not scheduled meanwhile would leave pending or handle late.
	wait_for "SIGTERM to reach $pid" handled "$pid" TERM
	sleep 0.5
	kill -s TERM "$pid"
	# Gone while the reader reads nothing: the record is left cut.
	gone_unread "$pid"
	wait "$spid" || st=$?
	assert_eq "$st" 143 "exit status"
	assert_le "$(wc -c <"$d/out")" 2999999 "bytes out"
}

# one_stop_sent_twice HOW I: tbthrottle queues 50 records at 4/s, -s and
# --drop-to, and is stopped by SIGTERM sent twice at once: by timeout(1)
# (HOW timeout), which sends it to the process and then to its group, or
# by two kills in a row (HOW kill).  It is one stop: the report is printed
# and every record is out or set aside once, in order, as many set aside
# as the report counts waiting.
one_stop_sent_twice() {
	local how=$1 i=$2 d=$BATS_TEST_TMPDIR pid st=0 waiting
	local args=(--leaky -r 4/s --queue 50 --drop-to "$d/aside" -s "$d/in")
	rm -f "$d/aside"
	if [[ $how == timeout ]]; then
		timeout 1 "$TB" "${args[@]}" >"$d/out" 2>"$d/err" || st=$?
		assert_eq "$st" 124 "timeout's exit status, pass $i" || return 1
	else
		"$TB" "${args[@]}" --name twice$i >"$d/out" 2>"$d/err" &
		pid=$!
		wait_running name.twice$i
		wait_for_output "$d/out" # the input is read
		kill -s TERM "$pid"
		kill -s TERM "$pid"
		wait "$pid" || st=$?
		assert_eq "$st" 143 "exit status, pass $i" || return 1
	fi
	cat "$d/out" "$d/aside" | cmp - "$d/in" || return 1
	waiting=$(sed -n 's/.* dropped, \([0-9]*\) waiting; bytes.*/\1/p' "$d/err")
	assert_eq "$waiting" "$(wc -l <"$d/aside")" "waiting in the report, pass $i"
}

@test "SIGTERM sent twice at once, by timeout(1) or two kills, is one stop: reported, the rest set aside" {
	local i
	seq 50 >"$BATS_TEST_TMPDIR/in"
	for ((i = 0; i < 10; i++)); do
		one_stop_sent_twice kill "$i" || return 1
	done
	for ((i = 0; i < 3; i++)); do
		one_stop_sent_twice timeout "$i" || return 1
	done
}

@test "SIGTERM on a --queue with --drop-to: the queued records are set aside whole" {
	local d=$BATS_TEST_TMPDIR
	seq 50 >"$d/in"
	# At 2/s the 50 take 25 s: the stop, however late, finds most
	# waiting.
	stop_after 1 "$d/out" "$d/err" "$TB" --leaky -r 2/s --queue 50 \
	    --drop-to "$d/rejected" -s "$d/in"
	assert_eq "$stopped_status" 143 "exit status"
	# Every line is out or set aside, in order, once.
	cat "$d/out" "$d/rejected" | cmp - "$d/in"
	local out waiting
	out=$(wc -l <"$d/out")
	waiting=$(sed -n 's/.* dropped, \([0-9]*\) waiting; bytes.*/\1/p' "$d/err")
	assert_eq "$waiting" "$((50 - out))" "units waiting in the report"
	assert_ge "$waiting" 40 "units waiting"
}

# stop_partial OUT ASIDE COUNTS ARGS...: tbthrottle ARGS reads three
# records and the start of a fourth from a FIFO, then a stop comes: OUT is
# released, the --drop-to file holds ASIDE (- for no --drop-to), and the
# report's units match COUNTS ("N out, N dropped, N waiting").  The fourth
# record, not yet whole, is neither set aside nor counted, in every mode.
stop_partial() {
	local out=$1 aside=$2 counts=$3 d=$BATS_TEST_TMPDIR pid to=()
	shift 3
	[[ $aside == - ]] || to=(--drop-to "$d/aside")
	printf '%s\n' 1700000001 1700000100 1700000200 >"$d/four"
	printf 1700000300 >>"$d/four"
	mkfifo "$d/fifo"
	"$TB" "$@" "${to[@]}" --name partial -s <"$d/fifo" >"$d/out" \
	    2>"$d/err" &
	pid=$!
	{
		# One write (cat's; bash's printf writes a line at a time): a
		# replay reads no more while its next record waits, so a
		# fourth's start written apart might never be read.
		cat "$d/four"
		wait_running name.partial
		# The three and the fourth's start read: 3 x 11 + 10 bytes.
		wait_for "the fourth record's start read" \
		    stat_ge partial bytes_in 43
		kill -s TERM "$pid"
		sleep 0.3
	} >"$d/fifo"
	wait "$pid" || true
	assert_eq "$(cat "$d/out")" "$out" "released"
	[[ $aside == - ]] || assert_eq "$(cat "$d/aside")" "$aside" "drop file"
	grep -q "units 3 in, $counts;" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "SIGTERM while shaping: a record not yet whole is neither set aside nor counted" {
	stop_partial 1700000001 - '1 out, 0 dropped, 2 waiting' -r 1/min
}

@test "SIGTERM on a --queue: a record not yet whole is neither set aside nor counted" {
	stop_partial 1700000001 $'1700000100\n1700000200' \
	    '1 out, 0 dropped, 2 waiting' -r 1/min --queue 5
}

@test "SIGTERM on a replay: a record not yet whole is neither set aside nor counted" {
	stop_partial 1700000001 $'1700000100\n1700000200' \
	    '1 out, 0 dropped, 2 waiting' --replay -r 1000/s
}

@test "SIGTERM on a dropping run: a record not yet whole is neither set aside nor counted" {
	stop_partial 1700000001 $'1700000100\n1700000200' \
	    '1 out, 2 dropped, 0 waiting' -r 1/min
}

@test "SIGTERM on a replay of a file: the drop file holds as many records as are counted waiting" {
	local d=$BATS_TEST_TMPDIR out aside waiting
	# 300 kB: the buffer ends inside a record.
	awk 'BEGIN { for (i = 1; i <= 4000; i++)
	    printf "%d %070d\n", 1700000000 + i * 1000, i }' >"$d/in"
	stop_after 0.5 "$d/out" "$d/err" "$TB" --replay -r 1000/s \
	    --drop-to "$d/aside" -s "$d/in"
	assert_eq "$stopped_status" 143 "exit status"
	out=$(wc -l <"$d/out")
	aside=$(wc -l <"$d/aside")
	waiting=$(sed -n 's/.* dropped, \([0-9]*\) waiting; bytes.*/\1/p' \
	    "$d/err")
	assert_eq "$waiting" "$aside" "units waiting against the drop file"
	assert_ge "$aside" 100 "records set aside"
	grep -q "units $((out + aside)) in, $out out, 0 dropped" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
	# Whole records, in order, once.
	cat "$d/out" "$d/aside" | cmp - <(head -n "$((out + aside))" "$d/in")
}

@test "SIGTERM while shaping: waiting records are counted, nothing written to a file" {
	local d=$BATS_TEST_TMPDIR
	seq 10 >"$d/in"
	stop_after 0.5 "$d/out" "$d/err" "$TB" -r 1/min -s "$d/in"
	assert_eq "$(cat "$d/out")" 1 "released"
	grep -q '1 out, 0 dropped, 9 waiting' "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

# stalled ARGS...: tbthrottle ARGS -s writes $d/in to a stalled reader;
# SIGTERM comes when a write is held, and it must end before the reader
# reads anything.  Its exit status in $st.
stalled() {
	local spid pid
	st=0
	stalled_reader "$@"
	kill -s TERM "$pid"
	gone_unread "$pid"
	wait "$spid" || st=$?
}

@test "SIGTERM with a stalled reader: it ends at once, the output whole records" {
	# What a pipe holds (FIONREAD, F_GETPIPE_SZ) tells the room it
	# surely has; without, a stop ends at the next second's alarm.
	linux_only "FIONREAD for what a pipe holds"
	local d=$BATS_TEST_TMPDIR size
	seq 300000 >"$d/in"
	stalled -r inf
	assert_eq "$st" 143 "exit status"
	size=$(wc -c <"$d/out")
	assert_ge "$size" 1 "bytes out"
	head -c "$size" "$d/in" | cmp - "$d/out"
	[[ $(tail -c 1 "$d/out" | od -An -c) == *'\n'* ]] ||
	    { echo "the output ends inside a record" >&2; return 1; }
	grep -q " $(wc -l <"$d/out") out, 0 dropped" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "SIGTERM with a stalled reader and --queue --drop-to: the rest set aside whole" {
	local d=$BATS_TEST_TMPDIR out aside waiting
	seq 300000 >"$d/in"
	stalled --leaky -r 1000000/s --queue 1000000 --drop-to "$d/aside"
	assert_eq "$st" 143 "exit status"
	out=$(wc -l <"$d/out")
	aside=$(wc -l <"$d/aside")
	assert_ge "$out" 1 "records out"
	assert_ge "$aside" 1 "records set aside"
	# Every record read is out or set aside, whole, in order, once.
	cat "$d/out" "$d/aside" | cmp - <(head -n "$((out + aside))" "$d/in")
	waiting=$(sed -n 's/.* dropped, \([0-9]*\) waiting; bytes.*/\1/p' \
	    "$d/err")
	assert_eq "$waiting" "$aside" "units waiting against the drop file"
	grep -q " $out out, 0 dropped" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "SIGTERM with a stalled reader mid-record: the record is finished first" {
	local d=$BATS_TEST_TMPDIR size spid pid st=0
	# Records of 10001 bytes: a 4 KiB pipe takes part of the first.
	awk 'BEGIN { for (i = 0; i < 100; i++) printf "%010000d\n", i }' \
	    >"$d/in"
	stalled_reader -r inf
	kill -s TERM "$pid"
	touch "$d/go"
	wait "$spid" || st=$?
	assert_eq "$st" 143 "exit status"
	# It waited for the reader, which read once told to, to finish the
	# record the pipe had taken 4 KiB of.
	size=$(wc -c <"$d/out")
	assert_ge "$size" 10001 "bytes out"
	assert_eq "$((size % 10001))" 0 "bytes out, in whole records"
	head -c "$size" "$d/in" | cmp - "$d/out"
}

@test "SIGTERM with a stalled reader after records written one by one: it ends at once, the output whole records" {
	# What a pipe holds (FIONREAD, F_GETPIPE_SZ) tells the room it
	# surely has; without, a stop ends at the next second's alarm.
	linux_only "FIONREAD for what a pipe holds"
	local d=$BATS_TEST_TMPDIR i fpid spid pid st=0 size
	printf '%02048d\n' 0 >"$d/one"
	cat "$d/one" "$d/one" "$d/one" "$d/one" "$d/one" >"$d/five"
	mkfifo "$d/in"
	# Records of 2049 bytes written one at a time each take a page of
	# the pipe of their own, half empty; then 5 come at once.
	{
		for ((i = 0; i < 14; i++)); do
			cat "$d/one"
			sleep 0.05
		done
		sleep 0.5
		cat "$d/five"
		sleep 30
	} >"$d/in" &
	fpid=$!
	"$STAMP" -c -W "$d/go" -P 65536 -o "$d/out" -p "$d/pid" -- \
	    "$TB" -r 1000/s -b 5 -s <"$d/in" >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	wait_running "$pid"
	# All 19 read, however long the writer took: the 5 are then held.
	wait_for "19 records read" stat_ge "$pid" units_in 19
	kill -s TERM "$pid"
	# A write that took part of a record would hold the stop until the
	# reader reads.
	gone_unread "$pid"
	wait "$spid" || st=$?
	kill_ours TERM "$fpid"
	assert_eq "$st" 143 "exit status"
	size=$(wc -c <"$d/out")
	assert_eq "$((size % 2049))" 0 "bytes out, in whole records"
	grep -q "units 19 in, $((size / 2049)) out, 0 dropped" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

# --- clean-up whatever ends the run -------------------------------------------

@test "death by SIGPIPE leaves no control file" {
	local d=$BATS_TEST_TMPDIR
	export XDG_RUNTIME_DIR=$d/run
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
	set +o pipefail
	seq 100000 | tb -r 1000/s -b 5 | head -n 3 >"$d/out"
	assert_eq "${PIPESTATUS[1]}" 141 "exit status"
	assert_eq "$(ls -A "$XDG_RUNTIME_DIR/tbthrottle")" "" "control files"
}

@test "SIGPIPE ignored by the parent: still 141, and no control file" {
	local d=$BATS_TEST_TMPDIR st=0 hpid
	export XDG_RUNTIME_DIR=$d/run
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
	seq 100000 >"$d/in"
	mkfifo "$d/fifo"
	head -n 3 "$d/fifo" >/dev/null &
	hpid=$!
	(trap '' PIPE; exec "$TB" -r 1000/s -b 5 "$d/in" >"$d/fifo" \
	    2>"$d/err") || st=$?
	wait "$hpid"
	assert_eq "$st" 141 "exit status"
	assert_eq "$(cat "$d/err")" "" "stderr"
	assert_eq "$(ls -A "$XDG_RUNTIME_DIR/tbthrottle")" "" "control files"
}

@test "a broken --drop-to pipe: exit 1 naming it, no control file" {
	local d=$BATS_TEST_TMPDIR st=0 hpid
	export XDG_RUNTIME_DIR=$d/run
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
	seq 200000 >"$d/in"
	mkfifo "$d/fifo"
	head -c 10 "$d/fifo" >/dev/null &
	hpid=$!
	tb -r 1/s --drop-to "$d/fifo" "$d/in" >/dev/null 2>"$d/err" || st=$?
	wait "$hpid"
	assert_eq "$st" 1 "exit status"
	assert_msg "$(cat "$d/err")" "write error on $d/fifo: Broken pipe"
	assert_eq "$(ls -A "$XDG_RUNTIME_DIR/tbthrottle")" "" "control files"
}

@test "SIGUSR1 while opening a --drop-to FIFO reports, and the run goes on" {
	local d=$BATS_TEST_TMPDIR pid st=0
	mkfifo "$d/fifo"
	seq 10 >"$d/in"
	"$TB" -r 1/min --drop-to "$d/fifo" "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	kill -s USR1 "$pid"
	wait_for "the report" has_text "$d/err" "units 0 in"
	cat "$d/fifo" >"$d/dropped"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status"
	assert_eq "$(cat "$d/out")" 1 "released"
	assert_eq "$(wc -l <"$d/dropped")" 9 "dropped"
	grep -q '^tbthrottle: units 0 in' "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "a stop while opening a --joblog or --failed-to FIFO ends the run as a stop, 143, nothing said" {
	local d=$BATS_TEST_TMPDIR pid st opt
	mkfifo "$d/fifo"
	for opt in --joblog --failed-to; do
		st=0
		"$TB" -r 1/s "$opt" "$d/fifo" --exec true <"$BATS_TEST_DIRNAME/../README.md" \
		    >/dev/null 2>"$d/err" &
		pid=$!
		# Asleep in the open, which waits for a reader that never comes.
		wait_for "$opt's open" is_asleep "$pid"
		kill -s TERM "$pid"
		wait "$pid" || st=$?
		assert_eq "$st" 143 "$opt: exit status"
		assert_eq "$(cat "$d/err")" "" "$opt: stderr"
	done
}

@test "a stop with a record to drop only partly here: the drop file holds whole records only" {
	local d=$BATS_TEST_TMPDIR pid
	mkfifo "$d/fifo"
	"$TB" -r 1/min --queue 1 --drop-to "$d/dropped" -s <"$d/fifo" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	{
		# a goes before b comes: b is queued.
		printf 'a\n'
		wait_for "a out" has_lines "$d/out" 1
		printf 'b\n'
		wait_for "b read" stat_ge "$pid" units_in 2
		# The queue is full: this record is to be dropped, but its end
		# has not come when the stop does.
		printf 'partial'
		wait_for "the start of the partial record read" \
		    stat_ge "$pid" bytes_in 11
		kill -s TERM "$pid"
		sleep 0.3
	} >"$d/fifo"
	wait "$pid" || true
	assert_eq "$(cat "$d/out")" a "released"
	# b was queued: set aside whole; the partial record is neither there
	# nor counted.
	assert_eq "$(cat "$d/dropped")" b "drop file"
	grep -q '1 out, 0 dropped, 1 waiting' "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "a stop while opening a FIFO operand is no end of input: no partial record set aside" {
	local d=$BATS_TEST_TMPDIR pid
	printf 'a\nb\nabc' >"$d/A"
	mkfifo "$d/B"
	"$TB" -r 1/min --queue 5 --drop-to "$d/dropped" "$d/A" "$d/B" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	# A read whole, B being opened.
	wait_for "a released" has_lines "$d/out" 1
	kill -s TERM "$pid"
	wait "$pid" || true
	assert_eq "$(cat "$d/out")" a "released"
	# "abc" may go on in B: it is no whole record yet.
	assert_eq "$(cat "$d/dropped")" b "drop file"
}
