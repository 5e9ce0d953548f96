#!/usr/bin/env bats
# --joblog: a line for each record whose command is done (its last try),
# in GNU parallel's layout, each written whole.

load helpers

# odd: a script that exits 1 for records holding an odd number, 0 else.
odd() {
	cat >"$BATS_TEST_TMPDIR/odd" <<'SCRIPT'
#!/bin/sh
case $1 in *[13579]) exit 1 ;; esac
exit 0
SCRIPT
	chmod +x "$BATS_TEST_TMPDIR/odd"
}

# columns FILE: each line's Seq, Exitval, Signal and Command, sorted by Seq.
columns() {
	awk -F'\t' 'NR > 1 { print $1, $7, $8, $9 }' "$1" | sort -n
}

@test "--joblog: GNU parallel's header and nine columns, a line per record, successes and failures" {
	local d=$BATS_TEST_TMPDIR
	odd
	run -123 tb -r inf -j 2 --joblog "$d/log" --exec "$d/odd" \
	    < <(seq 4)
	assert_eq "$(head -n 1 "$d/log")" \
	    "$(printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand')" \
	    "the header"
	assert_eq "$(awk -F'\t' 'NF != 9' "$d/log")" "" "nine columns each"
	assert_eq "$(awk -F'\t' 'NR > 1 && ($2 != ":" || $5 != 0 || $6 != 0 ||
	    $3 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ ||
	    $4 !~ /^ *[0-9]+\.[0-9][0-9][0-9]$/)' "$d/log")" "" \
	    "host, times, send and receive as GNU parallel writes them"
	assert_eq "$(columns "$d/log" | tr '\n' ,)" \
	    "1 1 0 $d/odd 1,2 0 0 $d/odd 2,3 1 0 $d/odd 3,4 0 0 $d/odd 4," \
	    "Seq, Exitval, Signal, Command"
	# Its start is the wall clock's: within a minute of now.
	local start now
	start=$(awk -F'\t' 'NR == 2 { print int($3) }' "$d/log")
	now=$(date +%s)
	(( start <= now && start > now - 60 )) ||
	    { echo "start $start, now $now" >&2; false; }
}

@test "--joblog: a command killed by a signal has it in Signal, Exitval 0" {
	local d=$BATS_TEST_TMPDIR
	run -125 tb -r inf --joblog "$d/log" --exec sh -c 'kill -9 $$' \
	    < <(echo x)
	assert_eq "$(awk -F'\t' 'NR > 1 { print $1, $7, $8 }' "$d/log")" \
	    "1 0 9" "Seq, Exitval, Signal"
}

@test "--joblog: appended to, the header once; the header written to an empty file" {
	local d=$BATS_TEST_TMPDIR
	: >"$d/log"
	run -0 tb -r inf --joblog "$d/log" --exec true < <(seq 2)
	run -0 tb -r inf --joblog "$d/log" --exec true < <(seq 3)
	assert_eq "$(grep -c '^Seq' "$d/log")" 1 "one header"
	assert_eq "$(awk -F'\t' 'NR > 1 { print $1 }' "$d/log" | sort -n |
	    tr '\n' ' ')" "1 1 2 2 3 " "the lines of both runs"
}

@test "--joblog with --retry: one line per record, its last try's" {
	local d=$BATS_TEST_TMPDIR
	cat >"$d/flaky" <<'SCRIPT'
#!/bin/sh
[ "$TBTHROTTLE_TRY" -le 2 ] && case $1 in *[13579]) exit 75 ;; esac
exit 0
SCRIPT
	chmod +x "$d/flaky"
	run -0 tb -r inf --retry 3 --retry-delay 1ms --joblog "$d/log" \
	    --exec "$d/flaky" < <(seq 4)
	assert_eq "$(columns "$d/log" | cut -d' ' -f1-3 | tr '\n' ,)" \
	    "1 0 0,2 0 0,3 0 0,4 0 0," "a line per record, its last try's"
	# Tries run out: the last try's exit value.
	run -123 tb -r inf --retry 1 --retry-delay 1ms --joblog "$d/log2" \
	    --exec "$d/flaky" < <(seq 2)
	assert_eq "$(columns "$d/log2" | cut -d' ' -f1-3 | tr '\n' ,)" \
	    "1 75 0,2 0 0," "the failed record's last try"
}

@test "--joblog: a line holds no newline the record held (quoted as \$'...')" {
	local d=$BATS_TEST_TMPDIR
	run -0 tb -r inf -0 --joblog "$d/log" --exec printf %s \
	    < <(printf 'a\nb\0c d\0')
	assert_eq "$(wc -l <"$d/log")" 3 "a header and two lines"
	assert_eq "$(awk -F'\t' 'NR > 1 { print $9 }' "$d/log")" \
	    "printf %s \$'a\\nb'
printf %s 'c d'" "the commands, quoted for the shell"
}

@test "--joblog FILE that cannot be opened: exit 1, nothing run" {
	local d=$BATS_TEST_TMPDIR
	run -1 --separate-stderr tb -r inf --joblog "$d/no/log" \
	    --exec sh -c ': >"$0/ran"' "$d" < <(echo x)
	[[ $stderr == *"--joblog $d/no/log"* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	[[ ! -e $d/ran ]]
}

@test "--joblog: a command killed at a stop gets no line, one done before does" {
	local d=$BATS_TEST_TMPDIR pid
	# Its own process group, a stop signal sent to it and its commands
	# alike (as a terminal's interrupt is).  Record 2's command waits
	# for record 1's line before it says it started.
	setsid "$TB" -r inf -j 2 --joblog "$d/log" --exec sh -c \
	    'case $1 in 1) exit 0 ;; esac
	    until grep -q "^1	" "$0/log"; do sleep 0.05; done
	    : >"$0/started"; exec sleep 30' "$d" \
	    < <(seq 2) 2>/dev/null &
	pid=$!
	wait_for "the second command to start" test -e "$d/started"
	kill -TERM -- "-$pid"
	wait "$pid" || true
	assert_eq "$(awk -F'\t' 'NR > 1 { print $1, $7, $8 }' "$d/log")" \
	    "1 0 0" "record 1, done; record 2, killed at the stop, not"
}
