#!/usr/bin/env bats
# --retry and --failed-to: a command that asks to be tried again (exit 75,
# EX_TEMPFAIL) is, each try a new start booked in the limits, after a wait
# the command may set (TBTHROTTLE_RETRY_AFTER); what failed for good is
# kept, in input order.

load helpers

teardown() {
	local f
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[[ -e $f ]] || continue
		kill_ours TERM "$(cat "$f")" 'python3*'
	done
}

# flaky N: a script that logs "SEQ TRY RECORD" and exits 75 on the first
# N tries of records holding an odd number, 0 otherwise.
flaky() {
	local d=$BATS_TEST_TMPDIR
	cat >"$d/flaky" <<SCRIPT
#!/bin/sh
echo "\$TBTHROTTLE_SEQ \$TBTHROTTLE_TRY \$1" >>"$d/tries"
case \$1 in *[13579]) [ "\$TBTHROTTLE_TRY" -le $1 ] && exit 75 ;; esac
exit 0
SCRIPT
	chmod +x "$d/flaky"
}

@test "--retry: a record whose command exits 75 is tried again, the same number, the next try" {
	local d=$BATS_TEST_TMPDIR
	flaky 2
	run -0 --separate-stderr tb -r 50/s --retry 3 --retry-delay 10ms -s \
	    "$d/in" --exec "$d/flaky" < <(seq 4 >"$d/in")
	assert_eq "$(sort -n "$d/tries" | tr '\n' ' ')" \
	    "1 1 1 1 2 1 1 3 1 2 1 2 3 1 3 3 2 3 3 3 3 4 1 4 " \
	    "SEQ TRY RECORD of every try"
	[[ $stderr == *"8 started, 4 succeeded, 0 failed"*"4 tried again"* ]] ||
	    { echo "report: $stderr" >&2; false; }
}

@test "--retry: every try is a start the limits book: never closer than -a leaky's period" {
	local d=$BATS_TEST_TMPDIR n
	needs_strace
	flaky 1
	seq 8 >"$d/in"
	traced execve "$d/trace" "$TB" -r 5/s -a leaky --catch-up 0 \
	    --retry 2 --retry-delay 0 "$d/in" --exec "$d/flaky"
	execs "$d/trace" "$d/flaky" >"$d/starts"
	n=$(wc -l <"$d/starts")
	assert_eq "$n" 12 "starts: 8 records and 4 tries again"
	assert_eq "$(most_in_span 200000000 <"$d/starts")" 1 \
	    "starts within one period (200 ms) of another"
}

@test "--retry: the wait the command wrote to TBTHROTTLE_RETRY_AFTER is the least before its next try; its directory goes with the run" {
	local d=$BATS_TEST_TMPDIR
	cat >"$d/cmd" <<SCRIPT
#!/bin/sh
date +%s%N >>"$d/starts"
if [ "\$TBTHROTTLE_TRY" = 1 ]; then
	echo 1.2 >"\$TBTHROTTLE_RETRY_AFTER"
	date +%s%N >"$d/ended"
	exit 75
fi
SCRIPT
	chmod +x "$d/cmd"
	mkdir "$d/tmp"
	TMPDIR=$d/tmp run -0 tb -r 100/s --retry 1 --retry-delay 0 \
	    --exec "$d/cmd" < <(echo x)
	assert_eq "$(wc -l <"$d/starts")" 2 "tries"
	assert_ge "$(($(tail -1 "$d/starts") - $(cat "$d/ended")))" \
	    1200000000 "ns from the first try's end to the second's start"
	assert_eq "$(ls -A "$d/tmp")" "" "files left in TMPDIR"
}

@test "--retry-on: the statuses listed are tried again, others not; tries run out: exit 123, --failed-to has them whole, in input order" {
	local d=$BATS_TEST_TMPDIR
	printf 'a 0\nb 3\nc 2\nd 0\ne 3\n' >"$d/in"
	run -123 --separate-stderr tb -s -r 100/s -j 3 --retry 2 \
	    --retry-on 3,75 --retry-delay 10ms --failed-to "$d/failed" \
	    "$d/in" --exec sh -c 'exit {2}'
	assert_eq "$(cat "$d/failed")" $'b 3\nc 2\ne 3' "records failed"
	[[ $stderr == *"9 started, 2 succeeded, 3 failed"*"4 tried again"* ]] ||
	    { echo "report: $stderr" >&2; false; }
}

@test "--failed-to: without --retry, the records whose command failed; none failed, nothing written; a file that cannot be written, said before any command runs" {
	local d=$BATS_TEST_TMPDIR
	run -123 tb -r inf -j 2 --failed-to "$d/failed" \
	    --exec sh -c 'test {} != 2 && test {} != 5' < <(seq 6)
	assert_eq "$(cat "$d/failed")" $'2\n5' "records failed"
	run -0 tb -r inf --failed-to "$d/none" --exec true < <(seq 3)
	[[ -f $d/none && ! -s $d/none ]]
	run -1 --separate-stderr tb -r inf --failed-to "$d/no/such" \
	    --exec touch "$d/ran" < <(seq 3)
	assert_eq "$stderr" "tbthrottle: --failed-to $d/no/such: No such file or directory" "message"
	[[ ! -e $d/ran ]]
}

@test "--retry --drop: a try the limit drops failed for good: counted, exit 123, in --failed-to" {
	local d=$BATS_TEST_TMPDIR
	run -123 --separate-stderr tb -r 1/h -b 3 --drop -s --retry 2 \
	    --retry-delay 10ms --failed-to "$d/failed" \
	    --exec sh -c 'exit 75' < <(seq 3)
	assert_eq "$(cat "$d/failed")" $'1\n2\n3' "records failed"
	[[ $stderr == *"3 started, 0 succeeded, 3 failed"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--retry: a stop while a try waits for its token: the record failed, in --failed-to" {
	local d=$BATS_TEST_TMPDIR pid
	"$TB" -r 1/s -b 1 -s --retry 3 --retry-delay 10ms \
	    --failed-to "$d/failed" --exec sh -c 'echo ran >>"$0"; exit 75' \
	    "$d/ran" <<<a 2>"$d/err" &
	pid=$!
	wait_for "the first try" has_lines "$d/ran" 1
	# Its try again is due 10 ms later, its token 1 s after the first:
	# by now it waits for the token (a busy machine may keep it in the
	# 10 ms wait, a failure all the same).
	sleep 0.2
	kill -TERM "$pid"
	local st=0
	wait "$pid" || st=$?
	assert_eq "$st" 143 "exit status"
	assert_eq "$(cat "$d/failed")" a "records failed"
	grep -q "1 failed" "$d/err" || { cat "$d/err" >&2; false; }
}

@test "--retry: a record tried again when the input has ended, its last record with no delimiter, and records still waiting" {
	local d=$BATS_TEST_TMPDIR
	flaky 1
	run -0 tb -r 20/s --retry 1 --retry-delay 0 \
	    --exec "$d/flaky" < <(printf '1\n2\n3')
	assert_eq "$(sort -n "$d/tries" | tr '\n' ' ')" \
	    "1 1 1 1 2 1 2 1 2 3 1 3 3 2 3 " "tries"
}

@test "--retry against an HTTP server with a quota: curl-retry's 429s tried again until every URL got 200" {
	local d=$BATS_TEST_TMPDIR
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	python3 "$BATS_TEST_DIRNAME/tools/quotad.py" --port-file "$d/port" \
	    --log "$d/requests" --window 3/1s 3>&- &
	echo $! >"$d/quotad.pid"
	wait_for "quotad's port" test -s "$d/port"
	seq 8 | sed "s|^|http://127.0.0.1:$(cat "$d/port")/|" >"$d/urls"
	run -0 tb -r 50/s -j 2 --retry 20 --retry-delay 100ms "$d/urls" \
	    --exec "$BATS_TEST_DIRNAME/../examples/curl-retry" {} -o /dev/null
	assert_eq "$(awk '$4 == 200' "$d/requests" | wc -l)" 8 "URLs answered 200"
	assert_eq "$(awk '$4 == 200 { print $3 }' "$d/requests" | sort -u |
	    wc -l)" 8 "each URL once"
}

@test "--retry usage: needs --exec, the other options need --retry, values named" {
	run -2 --separate-stderr tb -r 1/s --retry 3
	assert_msg "$stderr" "--retry needs --exec: what is tried again or failed is a command"
	run -2 --separate-stderr tb -r 1/s --retry-delay 1s --exec true
	[[ $stderr == "tbthrottle: --retry-delay needs --retry N" ]]
	run -2 --separate-stderr tb -r 1/s --retry 2 --retry-on 300 --exec true
	[[ $stderr == "tbthrottle: invalid --retry-on '300': "* ]]
	run -2 --separate-stderr tb --replay --retry 2 --exec true
	[[ $stderr == "tbthrottle: --retry does not combine with --replay"* ]]
}

@test "--retry: what a command makes of TBTHROTTLE_RETRY_AFTER (a FIFO, a directory, control bytes) neither holds up the run nor reaches the terminal, and nothing is left" {
	local d=$BATS_TEST_TMPDIR m
	mkdir "$d/tmp"
	cat >"$d/cmd" <<'SCRIPT'
#!/bin/sh
case $1 in
fifo) mkfifo "$TBTHROTTLE_RETRY_AFTER" ;;
dir) mkdir "$TBTHROTTLE_RETRY_AFTER" ;;
esc) printf '\033]0;OWNED\007x' >"$TBTHROTTLE_RETRY_AFTER" ;;
esac
exit 75
SCRIPT
	chmod +x "$d/cmd"
	for m in fifo dir esc; do
		TMPDIR=$d/tmp run -123 --separate-stderr tb -r 100/s --retry 1 \
		    --retry-delay 1ms --exec "$d/cmd" < <(echo "$m")
		[[ $stderr != *$'\033'* && $stderr != *$'\007'* ]]
	done
	[[ $stderr == *"'\\x1b]0;OWNED\\x07x'"* ]]
	assert_eq "$(ls -A "$d/tmp")" "" "files left in TMPDIR"
}

@test "--retry: a try again that cannot start (the command is gone) fails its record: counted, in --failed-to, not said tried again" {
	local d=$BATS_TEST_TMPDIR
	printf '#!/bin/sh\nrm -f "$0"\nexit 75\n' >"$d/gone"
	chmod +x "$d/gone"
	run -127 --separate-stderr tb -r 100/s --retry 2 --retry-delay 10ms \
	    --failed-to "$d/failed" -s --exec "$d/gone" < <(echo a)
	assert_eq "$(cat "$d/failed")" a "records failed"
	[[ $stderr == *"1 started, 0 succeeded, 1 failed, 0 running"* &&
	    $stderr != *"tried again"* ]] || { echo "$stderr" >&2; false; }
}

@test "--retry: a try again is due while the input is open and idle: it starts on time, not when more input comes" {
	local d=$BATS_TEST_TMPDIR t0 pid st=0
	printf '#!/bin/sh\necho "$TBTHROTTLE_TRY" >>"$0.tries"\nsleep 0.2\nexit 75\n' \
	    >"$d/cmd"
	chmod +x "$d/cmd"
	mkfifo "$d/in"
	# Slots free, so the engine reads while the command runs: its end
	# must wake the read.
	tb -r 100/s -j 3 --retry 2 --retry-delay 10ms --exec "$d/cmd" <"$d/in" &
	pid=$!
	exec 9>"$d/in"
	echo a >&9
	t0=$(now_ms)
	# Three tries, all while the input stays open with nothing more.
	wait_for "three tries" has_lines "$d/cmd.tries" 3
	assert_le "$(elapsed_ms "$t0")" 8000 "ms to the third try"
	exec 9>&-
	wait "$pid" || st=$?
	assert_eq "$st" 123 "exit status: the record failed"
}
