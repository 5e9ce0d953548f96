#!/usr/bin/env bats
# -s/--stats and SIGUSR1: the report on standard error, and that its
# counts add up to the input.

load helpers

# json_field NAME: the value of NAME in the JSON report in $stderr.
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
	# 9 s at 1/s: a stop however late finds some waiting.
	stop_after 0.5 "$d/out" "$d/err" "$TB" -r 1/s --stats=json "$d/in"
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
	local d=$BATS_TEST_TMPDIR pid st=0 feed
	# The input held open: the run outlasts the waits below.
	mkfifo "$d/in"
	"$TB" -r 10/s -s <"$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	exec {feed}>"$d/in"
	seq 6 >&"$feed"
	wait_running "$pid"
	wait_for "6 read" stat_ge "$pid" units_in 6
	kill -s USR1 "$pid"
	wait_for "the report" has_text "$d/err" "units 6 in"
	exec {feed}>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status"
	seq 6 | cmp - "$d/out"
	assert_eq "$(grep -c '^tbthrottle: units 6 in' "$d/err")" 2 "reports (SIGUSR1 and exit)"
	grep -q '^tbthrottle: units 6 in, 6 out, 0 dropped, 0 waiting' "$d/err"
}

@test "without -s nothing is reported, and SIGUSR1 does not kill it" {
	local d=$BATS_TEST_TMPDIR pid st=0 feed
	mkfifo "$d/in"
	"$TB" -r 10/s <"$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	exec {feed}>"$d/in"
	seq 3 >&"$feed"
	wait_running "$pid"
	kill -s USR1 "$pid"
	wait_for "the report" has_text "$d/err" units
	exec {feed}>&-
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
	[[ $output == *"tbthrottle: "*" out at "*" waiting"* ]] ||
	    { echo "terminal: $output" >&2; false; }
	[[ $output == *"tbthrottle: 12 out at "* ]]
}

@test "-P stays silent when stderr is not a terminal" {
	run -0 --separate-stderr bash -c 'seq 5 | tb -r 50/s -P'
	assert_eq "$output" "$(seq 5)" "output"
	assert_eq "$stderr" "" "stderr"
}

# rate_of: the achieved rate in the text report in $stderr.
rate_of() {
	sed -n 's/.* s, \([0-9.e+-]*\) units\/s (limit .*/\1/p' <<<"$stderr"
}

@test "the report shows the limit beside the rate, and one line is no breach" {
	run -0 --separate-stderr bash -c 'echo a | tb -r 5/s -s'
	[[ $stderr == *"units/s (limit 5/s, burst 1), max lateness"* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	assert_le "$(rate_of)" 5 "achieved rate"
}

# elapsed_of: the run's time in seconds in the text report in $stderr.
elapsed_of() {
	sed -n 's/.* waiting; \([0-9.]*\) s, .* units\/s (limit .*/\1/p' <<<"$stderr"
}

@test "a run at its limit reports that rate, not more: the burst is left out" {
	run -0 --separate-stderr bash -c 'seq 30 | tb -r 20/s -b 10 -s'
	[[ $stderr == *"(limit 20/s, burst 10)"* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	assert_le "$(rate_of)" 20 "achieved rate"
	# The rate is of the 20 units beyond the burst over the time the run
	# took, however long a busy machine made it: one that counted the
	# burst in (30) or took another count off is out by 10 units or
	# more.  Half a unit allows for the report's rounding.
	assert_le "$(awk -v r="$(rate_of)" -v e="$(elapsed_of)" \
	    'BEGIN { x = r * e - 20; print x < 0 ? -x : x }')" 0.5 \
	    "units beyond the burst, the rate times the time, less 20"
}

@test "the report names every kind of limit" {
	run -0 --separate-stderr bash -c 'seq 3 | tb -r 1000/s -b 5 -r 6000/min -s'
	[[ $stderr == *"(limit 1000/s, burst 5 and 6000/min, burst 1)"* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	run -0 --separate-stderr bash -c 'seq 3 | tb -a fixed -r 100/min -s'
	[[ $stderr == *"(limit 100/min per clock window)"* ]]
	run -0 --separate-stderr bash -c 'seq 3 | tb -k 1 -r 1/min --drop -s'
	[[ $stderr == *"(limit 1/min per key, burst 1)"* ]]
	run -0 --separate-stderr bash -c 'seq 3 | tb -c -r 1M/s -s'
	[[ $stderr == *"(limit 1048576 B/s, burst 10485)"* ]]
	run -0 --separate-stderr bash -c 'seq 3 | tb --byte-rate 1k/s -s'
	[[ $stderr == *"(limit bytes 1024 B/s, burst 10)"* ]]
	run -0 --separate-stderr bash -c 'seq 3 | tb -r inf -s'
	[[ $stderr == *"(limit none)"* ]]
}

@test "--stats=json carries the limit and its rate" {
	run -0 --separate-stderr bash -c 'echo a | tb -r 5/s --stats=json'
	[[ $stderr == *'"limit":"5/s, burst 1","limit_per_s":5,'* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	assert_eq "$(json_field rate_per_s)" 0 "rate_per_s (within the burst)"
}

@test "-P clears its line before output reaches the same terminal, and redraws it" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run -0 --separate-stderr script -qfec "seq 3 | '$TB' -r 4/s -P" \
	    /dev/null
	# Every line of output starts on a cleared line, after the status.
	local line
	for line in 1 2 3; do
		[[ $output == *$'\r\e[K'"$line"$'\r\n\rtbthrottle: '* ]] ||
		    { printf 'terminal: %q\n' "$output" >&2; false; }
	done
}

@test "the reader going away (SIGPIPE) still prints the report, then 141" {
	run -0 --separate-stderr bash -c \
	    'set +o pipefail; seq 100000 | tb -r 1000/s -b 5 -s | head -n 3 >/dev/null; echo "${PIPESTATUS[1]}"'
	assert_eq "$output" 141 "exit status"
	[[ $stderr == "tbthrottle: units "*" in, "*" out, 0 dropped, "*" waiting; "* ]] ||
	    { echo "stderr: $stderr" >&2; false; }
	assert_one_stderr_line
}

@test "SIGQUIT stops like SIGTERM: report, then dies of it" {
	local d=$BATS_TEST_TMPDIR spid st=0
	build_stamp
	seq 10 >"$d/in"
	# stamp starts it with default signals: bats ignores SIGQUIT in
	# background jobs.
	"$STAMP" -o "$d/out" -p "$d/pid" -- "$TB" -r 1/min -s "$d/in" \
	    >"$d/log" 2>"$d/err" 3>&- &
	spid=$!
	wait_for_output "$d/out"
	wait_running "$(cat "$d/pid")"
	kill -s QUIT "$(cat "$d/pid")"
	wait "$spid" || st=$?
	assert_eq "$st" 131 "exit status"
	assert_eq "$(cat "$d/out")" 1 "released"
	grep -q '1 out, 0 dropped, 9 waiting' "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "-s reports once when a write error ends the run (exit 1)" {
	[[ -c /dev/full ]] || skip "no /dev/full here"
	run -1 --separate-stderr bash -c 'seq 3 | tb -r 1000/s -s >/dev/full'
	[[ $stderr == *"write error"* ]]
	assert_eq "$(grep -c 'units 3 in, 0 out, 0 dropped, 3 waiting' \
	    <<<"$stderr")" 1 "reports"
}
