#!/usr/bin/env bats
# -s/--stats and SIGUSR1: the report on standard error, and that its
# counts add up to the input.

load helpers

# json_field NAME: the value of NAME in the JSON report in $stderr.
json_field() {
	sed -n "s/.*\"$1\":\\([0-9.e+-]*\\).*/\\1/p" <<<"$stderr"
}

@test "-s reports on exit: every unit and byte in went out" {
	run -0 --separate-stderr bash -c 'seq 20 | tb -r inf -s'
	assert_eq "${#lines[@]}" 20 "lines out"
	[[ $stderr == "tbthrottle: units 20 in, 20 out, 0 dropped, 0 waiting; bytes 51 in, 51 out, 0 dropped, 0 waiting; "* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	assert_one_stderr_line
}

@test "--stats=json: one object whose counts match the input" {
	run -0 --separate-stderr bash -c 'printf "a\nbb\nccc" | tb -r 1000/s --stats=json'
	assert_eq "$(json_field units_in)" 3 "units_in"
	assert_eq "$(json_field units_out)" 3 "units_out (the last has no newline)"
	assert_eq "$(json_field bytes_in)" 8 "bytes_in"
	assert_eq "$(json_field bytes_out)" 8 "bytes_out"
	assert_eq "$(json_field units_dropped)" 0 "units_dropped"
	[[ $stderr == "{"*"}" ]]
}

@test "--stats counts bytes in byte mode, also through the splice path" {
	head -c 100000 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr tb -c -r inf --stats=json "$BATS_TEST_TMPDIR/in"
	assert_eq "$(json_field bytes_in)" 100000 "bytes_in"
	assert_eq "$(json_field bytes_out)" 100000 "bytes_out"
	assert_eq "$(json_field units_out)" 100000 "units_out"
}

@test "stopped by SIGTERM, the report still adds up: in = out + waiting" {
	local d=$BATS_TEST_TMPDIR
	seq 10 >"$d/in"
	stop_after 0.5 "$d/out" "$d/err" "$TB" -r 5/s --stats=json "$d/in"
	assert_eq "$stopped_status" 143 "exit status"
	local out waiting
	out=$(json_field units_out)
	waiting=$(json_field units_waiting)
	assert_eq "$(json_field units_in)" 10 "units_in"
	assert_eq "$((out + waiting))" 10 "out + waiting"
	assert_eq "$(wc -l <"$d/out")" "$out" "lines actually written"
	assert_eq "$(json_field bytes_in)" 21 "bytes_in"
}

@test "SIGUSR1 prints a report at once without disturbing the run" {
	local d=$BATS_TEST_TMPDIR pid st=0
	seq 6 | "$TB" -r 10/s -s >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	sleep 0.25
	kill -s USR1 "$pid"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status"
	seq 6 | cmp - "$d/out"
	assert_eq "$(grep -c '^tbthrottle: units 6 in' "$d/err")" 2 "reports (SIGUSR1 and exit)"
	grep -q '^tbthrottle: units 6 in, 6 out, 0 dropped, 0 waiting' "$d/err"
}

@test "without -s nothing is reported, and SIGUSR1 does not kill it" {
	local d=$BATS_TEST_TMPDIR pid st=0
	seq 3 | "$TB" -r 10/s >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	kill -s USR1 "$pid"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status"
	seq 3 | cmp - "$d/out"
	assert_eq "$(grep -c units "$d/err")" 1 "only the SIGUSR1 report"
}

@test "-P draws a live status line when stderr is a terminal" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run -0 --separate-stderr script -qfec \
	    "seq 12 | '$TB' -r 20/s -P >'$BATS_TEST_TMPDIR/out'" /dev/null
	seq 12 | cmp - "$BATS_TEST_TMPDIR/out"
	[[ $output == *"tbthrottle: "*" out, "*" waiting"* ]] ||
	    { echo "terminal: $output" >&2; false; }
	[[ $output == *"tbthrottle: 12 out, "* ]]
}

@test "-P stays silent when stderr is not a terminal" {
	run -0 --separate-stderr bash -c 'seq 5 | tb -r 50/s -P'
	assert_eq "$output" "$(seq 5)" "output"
	assert_eq "$stderr" "" "stderr"
}
