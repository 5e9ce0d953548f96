#!/usr/bin/env bats
# --timeout, --halt, and a stop's grace: commands of --exec that run too
# long, or after the run has had enough failures, get SIGTERM, then
# SIGKILL 2 s later; they count as failed.

load helpers

setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	export LOG=$BATS_TEST_TMPDIR/log
	# A sleep of a length of its own, to be found, or missed, by pgrep.
	NAP=$((100000 + RANDOM))
}

# slowest ERR: the slowest command's run time in ms, by tbthrottle's own
# clock, from the -s report in ERR.
slowest() {
	sed -n 's/.*slowest \([0-9.]*\) s.*/\1/p' "$1" |
	    awk '{ printf "%d\n", $1 * 1000 }'
}

# no_nap: no sleep $NAP is left.
no_nap() {
	! pgrep -f "^sleep $NAP" >/dev/null || {
		echo "a sleep $NAP is left" >&2
		pkill -f "^sleep $NAP"
		return 1
	}
}

@test "--timeout: a command still running T after its start gets SIGTERM, not before T; failed, exit 123" {
	local d=$BATS_TEST_TMPDIR st=0 t0 t1
	t0=$(now_ms)
	tb -r inf -s --timeout 500ms --exec sleep "$NAP" <<<0 2>"$d/err" ||
	    st=$?
	t1=$(now_ms)
	assert_eq "$st" 123 "exit status" || { cat "$d/err" >&2; return 1; }
	assert_ge "$(slowest "$d/err")" 500 "ran (ms), by tbthrottle's clock"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print int(b - a) }')" \
	    8000 "the run (ms)"
	grep -q "commands 1 started, 0 succeeded, 1 failed" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
	grep -q -- "--timeout: the command of record 1 still ran after 0.5 s" \
	    "$d/err" || { cat "$d/err" >&2; return 1; }
	no_nap
}

@test "--timeout: a command that ignores SIGTERM gets SIGKILL 2 s later" {
	local d=$BATS_TEST_TMPDIR st=0
	# An ignored signal stays ignored across exec.
	tb -r inf -s --timeout 300ms --exec sh -c \
	    "trap '' TERM; exec sleep $NAP" <<<0 2>"$d/err" || st=$?
	assert_eq "$st" 123 "exit status" || { cat "$d/err" >&2; return 1; }
	assert_ge "$(slowest "$d/err")" 2300 "ran (ms): T and the grace"
	assert_le "$(slowest "$d/err")" 10000 "ran (ms)"
	no_nap
}

@test "--timeout with --retry 1 --retry-on timeout tries a timed-out command again; without timeout in the list, not" {
	local d=$BATS_TEST_TMPDIR st=0
	tb -r inf -s --timeout 300ms --retry 1 --retry-on timeout \
	    --retry-delay 0 --exec sh -c \
	    "echo \$TBTHROTTLE_TRY >>$LOG; exec sleep $NAP" <<<0 \
	    2>"$d/err" || st=$?
	assert_eq "$st" 123 "exit status" || { cat "$d/err" >&2; return 1; }
	assert_eq "$(cat "$LOG")" $'1\n2' "the tries"
	grep -q "1 failed.*1 tried again" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
	rm "$LOG"
	st=0
	tb -r inf --timeout 300ms --retry 1 --retry-delay 0 --exec sh -c \
	    "echo \$TBTHROTTLE_TRY >>$LOG; exec sleep $NAP" <<<0 \
	    2>"$d/err" || st=$?
	assert_eq "$st" 123 "exit status, 75 only"
	assert_eq "$(cat "$LOG")" 1 "the tries, 75 only"
	no_nap
}

@test "a stop gives running commands 10 s, then SIGTERM, then SIGKILL 2 s later: it ends in time, none left, reported" {
	local d=$BATS_TEST_TMPDIR pid st=0 t0 t1
	# Record 2's command ignores SIGTERM: it needs the SIGKILL.
	printf '1\n2\n' >"$d/in"
	"$TB" -r 1000/s -j 2 -s --name st "$d/in" --exec sh -c \
	    "echo \$0 >>$LOG; [ \$0 = 2 ] && trap '' TERM; exec sleep $NAP" \
	    2>"$d/err" &
	pid=$!
	wait_running name.st
	wait_for "two commands started" has_lines "$LOG" 2
	t0=$(now_ms)
	kill -TERM "$pid"
	wait "$pid" || st=$?
	t1=$(now_ms)
	assert_eq "$st" 143 "exit status: ended by SIGTERM" ||
	    { cat "$d/err" >&2; return 1; }
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print int(b - a) }')" \
	    12000 "from the stop to the end (ms): grace and SIGKILL's 2 s"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print int(b - a) }')" \
	    20000 "from the stop to the end (ms)"
	grep -q "commands 2 started, 0 succeeded, 2 failed" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
	no_nap
}

@test "a stop's grace is --timeout's T when given" {
	local d=$BATS_TEST_TMPDIR pid st=0 t0 t1
	# Input held open: the run is stopped while it reads.
	mkfifo "$d/fifo"
	"$TB" -r 1000/s -s --name st2 --timeout 1s --exec sleep "$NAP" \
	    <"$d/fifo" 2>"$d/err" &
	pid=$!
	exec 5>"$d/fifo"
	echo 0 >&5
	wait_running name.st2
	wait_for "the command started" pgrep -f "^sleep $NAP"
	t0=$(now_ms)
	kill -TERM "$pid"
	wait "$pid" || st=$?
	t1=$(now_ms)
	exec 5>&-
	assert_eq "$st" 143 "exit status" || { cat "$d/err" >&2; return 1; }
	assert_ge "$(slowest "$d/err")" 1000 "ran (ms), by tbthrottle's clock"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print int(b - a) }')" \
	    8000 "from the stop to the end (ms)"
	no_nap
}

@test "--halt soon,fail=1 (and GNU parallel's 1) starts nothing after the first failure" {
	local d=$BATS_TEST_TMPDIR st=0 how
	for how in soon,fail=1 1; do
		rm -f "$LOG"
		st=0
		seq 5 | tb -r inf -s --halt "$how" --exec sh -c \
		    "echo \$0 >>$LOG; [ \$0 != 2 ]" 2>"$d/err" || st=$?
		assert_eq "$st" 123 "exit status, $how" ||
		    { cat "$d/err" >&2; return 1; }
		assert_eq "$(cat "$LOG")" $'1\n2' "commands run, $how"
		grep -q -- "--halt: 1 record failed: no more commands start" \
		    "$d/err" || { cat "$d/err" >&2; return 1; }
	done
}

@test "--halt soon,fail=50% judges from 3 ended records on" {
	local d=$BATS_TEST_TMPDIR st=0
	# 1 succeeds, 2 fails (1 of 2, not judged yet), 3 fails: 2 of 3.
	seq 6 | tb -r inf --halt soon,fail=50% --exec sh -c \
	    "echo \$0 >>$LOG; [ \$0 = 1 ]" 2>"$d/err" || st=$?
	assert_eq "$st" 123 "exit status"
	assert_eq "$(cat "$LOG")" $'1\n2\n3' "commands run"
}

@test "--halt now,fail=1 (and GNU parallel's 2) ends the commands running: SIGTERM, failed" {
	local d=$BATS_TEST_TMPDIR st=0 how t0 t1
	for how in now,fail=1 2; do
		st=0
		t0=$(now_ms)
		printf '1\n2\n3\n' | tb -r inf -j 2 -s --halt "$how" \
		    --exec sh -c "[ \$0 = 2 ] && exit 1; exec sleep $NAP" \
		    2>"$d/err" || st=$?
		t1=$(now_ms)
		assert_eq "$st" 123 "exit status, $how" ||
		    { cat "$d/err" >&2; return 1; }
		assert_le "$(awk -v a="$t0" -v b="$t1" \
		    'BEGIN { print int(b - a) }')" 8000 "the run (ms), $how"
		grep -q "commands 2 started, 0 succeeded, 2 failed" "$d/err" ||
		    { cat "$d/err" >&2; return 1; }
		no_nap
	done
}
