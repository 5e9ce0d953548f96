#!/usr/bin/env bats
# -R NAME|PID: live changes of rate and burst.  The running tbthrottle
# answers on a UNIX-domain socket, mode 0600, in a directory only its user
# can enter; -R connects, sends the new limits and reads the reply.

load helpers

setup() {
	build_stamp
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
}

# Start stamp running tbthrottle ARGS on FILE in the background; its
# output goes to $d/stamps and tbthrottle's pid to $d/pid.
start_timed() {
	local file=$1
	shift
	# A pid file left by an earlier start must not be taken for this one.
	rm -f "$d/pid"
	"$STAMP" -p "$d/pid" -- "$TB" "$@" <"$file" >"$d/stamps" 2>"$d/err" &
	bg=$!
	wait_for "stamp's pid file" test -s "$d/pid"
	pid=$(cat "$d/pid")
	# The control socket shows that it is ready for -R.
	wait_running "$pid"
}

stamped() {
	awk '$1 ~ /^[0-9]/' "$d/stamps" | wc -l | tr -d ' '
}

@test "-R lowers the rate for the very next unit" {
	local d=$BATS_TEST_TMPDIR bg pid m0 m1
	seq 100 >"$d/in"
	start_timed "$d/in" -r 20/s --catch-up 0
	wait_for "units at 20/s" stat_ge "$pid" units_out 5
	run -0 --separate-stderr "$TB" -R "$pid" -r 1/min
	assert_eq "$stderr" "" "stderr of -R"
	# Counted by the run itself, as its writes return: the change is made
	# before -R is answered, so what went at 20/s is in m0, and no late
	# read of the output counts.
	m0=$(stat_of "$pid" units_out)
	sleep 1
	m1=$(stat_of "$pid" units_out)
	assert_ge "$m0" 5 "units out at the change"
	assert_ge "$m1" "$m0" "units out a second later"
	# 20/s would have sent 20 more, or a few even on a machine too busy
	# to run it for most of the second; at 1/min only the unit whose
	# token was nearly earned may still go (its progress is kept).
	assert_le "$((m1 - m0))" 1 "units in the second after -R"
	# Raise it again so the run ends; nothing was lost.
	run -0 --separate-stderr "$TB" -R "$pid" -r 1k/s -b 10
	wait "$bg"
	assert_eq "$(stamped)" 100 "units out"
}

@test "-R raises the rate at once, and -b sets the new burst" {
	local d=$BATS_TEST_TMPDIR bg pid t0 t1
	seq 6 >"$d/in"
	start_timed "$d/in" -r 1/min
	sleep 0.2
	t0=$(now_ms)
	run -0 --separate-stderr "$TB" -R "$pid" -r 10/s -b 5
	wait "$bg"
	t1=$(now_ms)
	# At 1/min the other 5 would take 5 min; at 10/s, 0.5 s at most.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 5000 \
	    "time after -R (ms)"
	assert_eq "$(stamped)" 6 "units out"
}

@test "-R with a slower rate keeps the spacing of the new rate" {
	local d=$BATS_TEST_TMPDIR tracer tbpid t0 t8
	needs_strace
	seq 8 >"$d/in"
	# Timed where the units leave (the writes, as strace saw them), from
	# before -R was sent: a late read of the output changes nothing.
	traced write "$d/log" bash -c ': >"$1.$$" &&
	    exec "$0" -r 1/min --catch-up 0 <"$2" >"$3"' \
	    "$TB" "$d/pid" "$d/in" "$d/out" &
	tracer=$!
	# Its pid is the name of an empty file: writing it would log one
	# more write to standard output.
	wait_for "the pid file" compgen -G "$d/pid.*" >/dev/null
	tbpid=$(compgen -G "$d/pid.*")
	tbpid=${tbpid##*.}
	wait_running "$tbpid"
	t0=$(date +%s.%N)
	run -0 --separate-stderr "$TB" -R "$tbpid" -r 5/s
	wait "$tracer"
	assert_eq "$(cat "$d/out")" "$(seq 8)" "units out"
	# Unit 2 goes once the rest of its token is earned at 5/s (its
	# progress at 1/min is kept: at most half a token, as the change
	# comes within 30 s of unit 1), then each unit 200 ms after the one
	# before: unit 8 no sooner than 1300 ms after -R was sent, however
	# late any write was.  A spacing of 100 ms, or one pair released
	# together, puts it at 1200 ms at most.
	written "$d/log" "$d/in" >"$d/writes"
	t8=$(awk '{ n += $2 } n >= 8 { print $1; exit }' "$d/writes")
	assert_ge "$(awk -v a="$t0" -v b="$t8" 'BEGIN { printf "%.3f", (b - a) * 1000 }')" \
	    1300 "unit 8 after -R (ms)"
}

@test "-R: a bad value is refused by the running tbthrottle, which goes on" {
	local d=$BATS_TEST_TMPDIR bg pid
	seq 3 >"$d/in"
	start_timed "$d/in" -c -r 1/min
	run -2 --separate-stderr "$TB" -R "$pid" -r 5/fortnight
	assert_one_stderr_line
	[[ $stderr == *"5/fortnight"* ]]
	run -2 --separate-stderr "$TB" -R "$pid" -r 1K/s -b 0
	assert_one_stderr_line
	[[ $stderr == *"'0'"* ]]
	run -2 --separate-stderr "$TB" -R "$pid" -r 1K/s -r 2K/s
	assert_one_stderr_line
	[[ $stderr == *"1 limit"* ]]
	# Byte rates are read in the target's own mode.
	run -0 --separate-stderr "$TB" -R "$pid" -r 1KiB/s -b 1K
	wait "$bg"
	assert_eq "$(awk '$1 ~ /^[0-9]/' "$d/stamps" | wc -l | tr -d ' ')" 3 "lines out"
}

@test "-R: windows cannot be changed live, and say so" {
	local d=$BATS_TEST_TMPDIR bg pid
	seq 3 >"$d/in"
	start_timed "$d/in" -a sliding -r 1/min
	run -2 --separate-stderr "$TB" -R "$pid" -r 10/min
	assert_one_stderr_line
	[[ $stderr == *"-a token"* ]]
	kill "$pid"
	wait "$bg" || true
}

@test "-R refuses a process that is not a tbthrottle, and leaves it alone" {
	sleep 30 &
	local victim=$!
	run -1 --separate-stderr "$TB" -R "$victim" -r 1/s
	assert_one_stderr_line
	[[ $stderr == *"no control socket"* ]]
	kill -0 "$victim"
	kill "$victim"
}

@test "-R to a process that does not exist" {
	sleep 0 &
	local gone=$!
	wait "$gone"
	run -1 --separate-stderr "$TB" -R "$gone" -r 1/s
	assert_one_stderr_line
	[[ $stderr == *"no process $gone"* ]]
}

@test "-R refuses another user's process" {
	if [[ $(id -u) != 0 ]]; then
		# Process 1 is root's.
		run -1 --separate-stderr "$TB" -R 1 -r 1/s
	else
		# As root: a tbthrottle of ours, and -R from user nobody.
		local d=$BATS_TEST_TMPDIR bg pid
		cp "$TB" "$d/tb"
		chmod 755 "$d" "$d/tb"
		seq 3 >"$d/in"
		start_timed "$d/in" -r 1/min
		run -1 --separate-stderr setpriv --reuid=65534 --regid=65534 \
		    --clear-groups "$d/tb" -R "$pid" -r 1/s
		kill "$pid"
		wait "$bg" || true
	fi
	assert_one_stderr_line
	[[ $stderr == *"another user"* ]]
}

@test "the control socket is private while running and removed at exit" {
	local d=$BATS_TEST_TMPDIR bg pid
	seq 2 >"$d/in"
	start_timed "$d/in" -r 1/min
	local f=$XDG_RUNTIME_DIR/tbthrottle/$pid
	[[ -S $f ]]
	assert_eq "$(stat -c %a "$f")" 600 "file mode"
	assert_eq "$(stat -c %a "${f%/*}")" 700 "directory mode"
	kill -s TERM "$pid"
	wait "$bg" || true
	[[ ! -e $f ]]
}

@test "a control directory open to others is not used, with a warning" {
	local d=$BATS_TEST_TMPDIR
	mkdir -m 777 "$XDG_RUNTIME_DIR/tbthrottle"
	chmod 777 "$XDG_RUNTIME_DIR/tbthrottle"
	run -0 --separate-stderr bash -c 'seq 3 | tb -r 1k/s'
	assert_eq "$output" "$(seq 3)" "output"
	[[ $stderr == *"not a private directory"* ]]
}

@test "-R usage errors" {
	local bad
	for bad in .abc 0 0123 -5 99999999999 "a b"; do
		run -2 --separate-stderr tb -R "$bad" -r 1/s
		assert_one_stderr_line
		[[ $stderr == *"'$bad'"* ]]
	done
	run -2 --separate-stderr tb -R 123
	assert_one_stderr_line
	[[ $stderr == *"needs -r"* ]]
	run -2 --separate-stderr tb -R 123 -r 1/s -s
	assert_one_stderr_line
	[[ $stderr == *"not both"* ]]
	run -2 --separate-stderr tb -R 123 -r 1/s -a leaky
	assert_one_stderr_line
	[[ $stderr == *"'-a'"* ]]
	run -2 --separate-stderr tb -R 123 -r 1/s somefile
	assert_one_stderr_line
	[[ $stderr == *"FILE operands"* ]]
	run -2 --separate-stderr tb -R 123 -r 1/q
	assert_one_stderr_line
	[[ $stderr == *"'1/q'"* ]]
}

@test "-R does not touch a process that took the pid of a dead tbthrottle" {
	sleep 30 &
	local victim=$!
	mkdir -p -m 700 "$XDG_RUNTIME_DIR/tbthrottle"
	install -m 600 /dev/null "$XDG_RUNTIME_DIR/tbthrottle/$victim"
	run -1 --separate-stderr "$TB" -R "$victim" -r 5/s
	assert_one_stderr_line
	[[ $stderr == *"no control socket"* ]]
	# The stale entry is gone, and the process left alone.
	[[ ! -e $XDG_RUNTIME_DIR/tbthrottle/$victim ]]
	kill -0 "$victim"
	kill "$victim"
}

@test "the control socket is removed when tbthrottle ends in an error" {
	run -1 --separate-stderr tb -r 1/s --drop-to /nonexistent/dir/x </dev/null
	assert_eq "$(find "$XDG_RUNTIME_DIR" -type f | wc -l)" 0 "files left"
}

@test "SIGUSR2 does not kill a tbthrottle without a rate" {
	local d=$BATS_TEST_TMPDIR pid
	{ echo one; sleep 0.4; echo two; } | "$TB" -r inf >"$d/out" &
	pid=$!
	# Once it runs: "one" is through.
	wait_for_output "$d/out"
	kill -USR2 "$pid"
	wait "$pid"
	assert_eq "$(cat "$d/out")" $'one\ntwo' "output"
}

@test "-R: per-key and shared buckets cannot be changed live, and say so" {
	local d=$BATS_TEST_TMPDIR bg pid
	printf 'a\na\na\n' >"$d/in"
	start_timed "$d/in" -k 1 -r 1/min
	run -2 --separate-stderr "$TB" -R "$pid" -r 10/min
	assert_one_stderr_line
	[[ $stderr == *"-k cannot be changed live"* ]]
	kill "$pid"
	wait "$bg" || true
	start_timed "$d/in" --shared live -r 1/min
	run -2 --separate-stderr "$TB" -R "$pid" -r 10/min
	assert_one_stderr_line
	[[ $stderr == *"--shared cannot be changed live"* ]]
	kill "$pid"
	wait "$bg" || true
}
