#!/usr/bin/env bats
# --resume and --resume-failed: the records a --joblog says were done are
# not started again; the rest keep their numbers, and the limits.

load helpers

# job: a command that appends "<record> <TBTHROTTLE_SEQ> <status>" to
# $LEDGER, then exits 1 for the records listed in $FAIL (spaces around).
job() {
	cat >"$BATS_TEST_TMPDIR/job" <<'SCRIPT'
#!/bin/sh
case " $FAIL " in *" $1 "*) st=1 ;; *) st=0 ;; esac
echo "$1 $TBTHROTTLE_SEQ $st" >>"$LEDGER"
exit "$st"
SCRIPT
	chmod +x "$BATS_TEST_TMPDIR/job"
}

@test "--resume: a record with a line in the joblog starts no command; the rest keep their input numbers" {
	local d=$BATS_TEST_TMPDIR
	job
	export LEDGER=$d/ledger1 FAIL="3 6"
	run -123 tb -r inf --joblog "$d/log" --exec "$d/job" {} < <(seq 4)
	export LEDGER=$d/ledger2 FAIL=
	run -0 --separate-stderr tb -r inf -s --joblog "$d/log" --resume \
	    --exec "$d/job" {} < <(seq 8)
	# 1-4 have lines, 3's a failure: --resume passes it over too.
	assert_eq "$(sort -n "$d/ledger2" | tr '\n' ,)" \
	    "5 5 0,6 6 0,7 7 0,8 8 0," "records run, their numbers"
	[[ $stderr == *"4 done before (the joblog says), not started"* ]] ||
	    { echo "$stderr" >&2; false; }
	# The joblog grew by the lines of the records run, numbered as input.
	assert_eq "$(awk -F'\t' 'NR > 1 { print $1 }' "$d/log" | sort -n |
	    tr '\n' ,)" "1,2,3,4,5,6,7,8," "Seqs"
}

@test "--resume-failed: the records whose last line failed run again, numbered as before" {
	local d=$BATS_TEST_TMPDIR
	job
	export LEDGER=$d/ledger1 FAIL="2 5"
	run -123 tb -r inf -j 2 --joblog "$d/log" --exec "$d/job" {} \
	    < <(seq 6)
	export LEDGER=$d/ledger2 FAIL="5"
	run -123 tb -r inf --joblog "$d/log" --resume-failed \
	    --exec "$d/job" {} < <(seq 7)
	assert_eq "$(sort -n "$d/ledger2" | tr '\n' ,)" "2 2 0,5 5 1,7 7 0," \
	    "the failed and the new"
	# Its later line says 2 succeeded: only 5 is still to do.
	export LEDGER=$d/ledger3 FAIL=
	run -0 tb -r inf --joblog "$d/log" --resume-failed \
	    --exec "$d/job" {} < <(seq 7)
	assert_eq "$(cat "$d/ledger3")" "5 5 0" "what was left"
}

@test "--resume after a run stopped half-way: every record's command succeeded exactly once over both runs" {
	local d=$BATS_TEST_TMPDIR pid
	job
	export LEDGER=$d/ledger FAIL=
	seq 60 >"$d/in"
	# Commands that take a while, three at once: a stop finds some
	# running; they finish in its grace and are logged, none is cut.
	"$TB" -r 40/s -b 1 -j 3 --joblog "$d/log" \
	    --exec sh -c 'sleep 0.2; exec "$0" "$@"' "$d/job" {} \
	    <"$d/in" >/dev/null 2>"$d/err1" &
	pid=$!
	wait_for "10 commands" has_lines "$d/ledger" 10
	kill -TERM "$pid"
	wait "$pid" || true
	local first
	first=$(wc -l <"$d/ledger")
	((first < 60)) || { echo "the first run did all $first" >&2; false; }
	run -0 tb -r 40/s -b 1 -j 3 --joblog "$d/log" --resume \
	    --exec "$d/job" {} <"$d/in"
	assert_eq "$(awk '{ print $1 }' "$d/ledger" | sort -n | uniq -c |
	    awk '$1 != 1' | head -3)" "" "a record run twice"
	assert_eq "$(wc -l <"$d/ledger")" 60 "records run over both"
	assert_eq "$(awk '$1 != $2' "$d/ledger")" "" "numbers as the input's"
}

@test "--resume: the records done take no token: the limit applies to the rest" {
	local d=$BATS_TEST_TMPDIR t0 ms
	job
	export LEDGER=$d/ledger FAIL=
	run -0 tb -r inf --joblog "$d/log" --exec true < <(seq 20)
	t0=$(now_ms)
	run -0 tb -r 4/s -b 1 --joblog "$d/log" --resume \
	    --exec "$d/job" {} < <(seq 23)
	ms=$(elapsed_ms "$t0")
	assert_eq "$(tr '\n' , <"$d/ledger")" "21 21 0,22 22 0,23 23 0," "run"
	# Three at 4/s from a full bucket of one: 0.5 s at least.  Had the
	# 20 done taken their tokens it would have been over 5 s.
	assert_ge "$ms" 500 "ms for 3 records at 4/s"
	# That they took no token is told by the bucket itself, not by a
	# clock a busy machine stretches: with --drop and a burst of 3 at
	# 1/h, a done record that took a token would leave one of the three
	# dropped.
	: >"$d/ledger"
	run -0 --separate-stderr tb -r 1/h -b 3 --drop -s --joblog "$d/log" \
	    --resume --exec "$d/job" {} < <(seq 26)
	assert_eq "$(awk '{ print $1 }' "$d/ledger" | tr '\n' ,)" "24,25,26," \
	    "the records done took tokens"
	[[ $stderr == *" 0 dropped"* ]] || { echo "$stderr" >&2; false; }
}

@test "--resume: a joblog of GNU parallel's is read as its own" {
	command -v parallel >/dev/null || skip "GNU parallel is not installed"
	local d=$BATS_TEST_TMPDIR
	job
	seq 5 | parallel --will-cite -j 1 --joblog "$d/log" \
	    'test {} -ne 3' >/dev/null || true
	export LEDGER=$d/ledger FAIL=
	run -0 tb -r inf --joblog "$d/log" --resume-failed \
	    --exec "$d/job" {} < <(seq 5)
	assert_eq "$(cat "$d/ledger")" "3 3 0" "the one parallel failed"
}

@test "--resume: no joblog yet runs every record; a cut last line runs again; lines not a job's are said once" {
	local d=$BATS_TEST_TMPDIR
	job
	export LEDGER=$d/ledger1 FAIL=
	run -0 tb -r inf --joblog "$d/log" --resume --exec "$d/job" {} \
	    < <(seq 2)
	assert_eq "$(wc -l <"$d/ledger1")" 2 "records run with no joblog"
	# A run killed while it wrote its line leaves it without a newline.
	printf 'not a job line\n3\t:\t1.0\t0.1\t0\t0\t0\t0\tx' >>"$d/log"
	export LEDGER=$d/ledger2
	run -0 --separate-stderr tb -r inf --joblog "$d/log" --resume \
	    --exec "$d/job" {} < <(seq 3)
	assert_eq "$(cat "$d/ledger2")" "3 3 0" "the cut line's record"
	[[ $stderr == *"--resume: $d/log: 1 line is no joblog line (the first is line 4): passed over"* ]] ||
	    { echo "$stderr" >&2; false; }
	[[ $stderr == *"--resume: $d/log: its last line has no newline"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--resume usage errors: it needs --joblog, one of the two, no --loop; the joblog must be a file" {
	local d=$BATS_TEST_TMPDIR
	run -2 --separate-stderr tb -r inf --resume --exec true </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--resume needs --joblog FILE"* ]] || { echo "$stderr" >&2; false; }
	run -2 --separate-stderr tb -r inf --joblog "$d/l" --resume \
	    --resume-failed --exec true </dev/null
	assert_one_stderr_line
	[[ $stderr == *"give one"* ]] || { echo "$stderr" >&2; false; }
	run -2 --separate-stderr tb -r inf --joblog "$d/l" --resume-failed \
	    --loop 2 "$d/l" --exec true
	assert_one_stderr_line
	[[ $stderr == *"--resume-failed does not combine with --loop"* ]] ||
	    { echo "$stderr" >&2; false; }
	mkdir "$d/dir"
	run -1 --separate-stderr tb -r inf --joblog "$d/dir" --resume \
	    --exec true </dev/null
	assert_one_stderr_line
	[[ $stderr == *"--resume: $d/dir is no regular file"* ]] ||
	    { echo "$stderr" >&2; false; }
}

@test "--resume: after a record longer than the buffer, the records done are taken out before any count sees them" {
	local d=$BATS_TEST_TMPDIR
	{ head -c 200000 /dev/zero | tr '\0' x; echo; printf 'k%s\n' 2 3 4 5 6; } \
	    >"$d/in"
	printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n3\t:\t1.0\t0.1\t0\t0\t0\t0\tx\n4\t:\t1.0\t0.1\t0\t0\t0\t0\tx\n' \
	    >"$d/log"
	echo '* inf' >"$d/tiers"
	job
	export LEDGER=$d/ledger FAIL=
	run -123 --separate-stderr tb -k 1 --tiers "$d/tiers" -s \
	    --joblog "$d/log" --resume --exec "$d/job" {} <"$d/in"
	assert_eq "$(sort -n "$d/ledger" | tr '\n' ,)" "k2 2 0,k5 5 0,k6 6 0," \
	    "records run, their numbers"
	[[ $stderr == *"tier '*' (line 1, inf): units 4 in, 3 out, 1 dropped, 0 waiting"* ]] ||
	    { echo "$stderr" >&2; false; }
}
