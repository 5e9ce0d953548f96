#!/usr/bin/env bats
# --exec and -j: a command started for each record released, the limits
# applying to the moment each starts; outcomes as xargs reports them.

load helpers

setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
}

# starts FILE: the times (s) at which the commands logged to FILE began,
# one a line, from the "start" lines of a log of "start|end TIME".
starts() {
	awk '$1 == "start" { print $2 }' "$1"
}

# most_at_once FILE: the most commands running at once in the log FILE.
most_at_once() {
	awk '{ print $2, ($1 == "start" ? 1 : -1) }' "$1" | sort -k1,1n -k2,2n |
	    awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}

# A command's start is the kernel's start time of its process, which the
# spawn sets, on the boot clock to a clock tick (Linux's /proc): checks of
# the starts' spacing allow them SLACK s, two ticks, for the rounding and
# the moment between the run's decision and its spawn.  Elsewhere the
# command reads the clock when it runs, a time a busy machine may make
# later by more: there SLACK is 0.1 s.
if [[ -r /proc/self/stat ]]; then SLACK=0.02; else SLACK=0.1; fi

# job_clock: now, on the clock of job's start times.
job_clock() {
	if [[ -r /proc/self/stat ]]; then
		local up _
		read -r up _ </proc/uptime
		echo "$up"
	else
		date +%s.%N
	fi
}

# has_count FILE TEXT N: at least N lines of FILE hold TEXT.
has_count() {
	local n
	n=$(grep -cF -- "$2" "$1" 2>/dev/null)
	((${n:-0} >= $3))
}

# no_zombie_child PID: none of PID's children has ended unreaped.
no_zombie_child() {
	! ps -o stat= --ppid "$1" | grep -q '^Z'
}

# job: $BATS_TEST_TMPDIR/job SECONDS RECORD, a command that logs its
# start and end to $LOG ("start|end TIME RECORD"), sleeping SECONDS
# between.  Its end is read before it exits, on the clock of its start.
job() {
	HZ=$(getconf CLK_TCK)
	export HZ
	cat >"$BATS_TEST_TMPDIR/job" <<'SH'
#!/bin/sh
if read -r s <"/proc/$$/stat" 2>/dev/null; then
	set -- "$1" "$2" ${s##*) }
	start=$(awk -v t="${22}" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')
	echo "start $start $2" >>"$LOG"
	sleep "$1"
	read -r up _ </proc/uptime
	echo "end $up $2" >>"$LOG"
else
	echo "start $(date +%s.%N) $2" >>"$LOG"
	sleep "$1"
	echo "end $(date +%s.%N) $2" >>"$LOG"
fi
SH
	chmod +x "$BATS_TEST_TMPDIR/job"
}

@test "--exec: each record is one argument, spaces, quotes, dashes, empty and all" {
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' 'a b' '"q" '\''s'\' '-n' '--help' '' '  lead' 'x{}y' >"$d/in"
	run -0 --separate-stderr "$TB" -r inf "$d/in" --exec printf '<%s>\n'
	assert_eq "$output" "$(printf '<%s>\n' 'a b' '"q" '\''s'\' '-n' \
	    '--help' '' '  lead' 'x{}y')" "the arguments"
	assert_eq "$stderr" "" "stderr"
}

@test "--exec: {} in any argument is the record, as often as it comes; nothing appended then" {
	run -0 "$TB" -r inf --exec printf '%s\n' 'pre-{}-{}' '{}' <<<$'one\ntwo'
	assert_eq "$output" $'pre-one-one\none\npre-two-two\ntwo' "output"
}

@test "--exec: binary bytes pass as they are, with -0 and -d" {
	local d=$BATS_TEST_TMPDIR
	printf 'a\tb\001\377c\0second\n\0' >"$d/in"
	run -0 "$TB" -0 -r inf "$d/in" --exec sh -c 'printf %s "$1" | od -An -tx1' _
	assert_eq "$(echo $output)" "61 09 62 01 ff 63 73 65 63 6f 6e 64 0a" "bytes"
	run -0 "$TB" -d , -r inf --exec printf '[%s]' <<<'a,b c,'
	assert_eq "$output" $'[a][b c][\n]' "records by -d, the last one's newline too"
}

@test "--exec: a ';' ends the command; options and FILEs may follow it" {
	local d=$BATS_TEST_TMPDIR
	printf 'x\ny\n' >"$d/in"
	run -0 --separate-stderr "$TB" --exec echo got ';' -r inf -s "$d/in"
	assert_eq "$output" $'got x\ngot y' "output"
	[[ $stderr == *"commands 2 started, 2 succeeded, 0 failed"* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "--exec: a NUL inside a line can be no argument: dropped, said once, to --drop-to, exit 123" {
	local d=$BATS_TEST_TMPDIR
	printf 'ok1\nbad\0one\nok2\nbad\0two\n' >"$d/in"
	run -123 --separate-stderr "$TB" -r 1000/s -b 100 --drop-to "$d/dropped" \
	    -s "$d/in" --exec echo
	assert_eq "$output" $'ok1\nok2' "commands run"
	cmp "$d/dropped" <(printf 'bad\0one\nbad\0two\n')
	[[ $stderr == *"record 2 holds a NUL byte"* ]] || { echo "$stderr" >&2; return 1; }
	[[ $stderr == *"2 records no argument can hold (dropped)"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	assert_eq "$(grep -c 'NUL byte' <<<"$stderr")" 1 "said once"
}

@test "--exec: a record longer than the buffer is dropped whole, exit 123" {
	local d=$BATS_TEST_TMPDIR
	{ echo short; head -c 300000 /dev/zero | tr '\0' x; echo; echo after; } >"$d/in"
	run -123 --separate-stderr "$TB" -r 1000/s -b 100 --drop-to "$d/dropped" \
	    "$d/in" --exec echo
	assert_eq "$output" $'short\nafter' "commands run"
	assert_eq "$(wc -c <"$d/dropped")" 300001 "the long record, whole"
	[[ $stderr == *"too long for an argument"* ]] || { echo "$stderr" >&2; return 1; }
}

@test "--exec exit status: 0 all succeeded, 123 one failed, 124 one exited 255, 125 one was killed" {
	run -0 "$TB" -r inf --exec true <<<$'1\n2'
	run -123 "$TB" -r inf --exec sh -c 'exit $1' _ <<<$'0\n3\n0'
	run -124 "$TB" -r inf --exec sh -c 'exit $1' _ <<<$'0\n255\n1'
	run -125 "$TB" -r inf --exec sh -c 'kill -9 $$' _ <<<'1'
	# A command's own 127 (sh: not found) is a failure, as in xargs.
	run -123 "$TB" -r inf --exec sh -c 'exit 127' <<<'1'
}

@test "--exec: a command that cannot start is one message, 127 or 126, and nothing more starts" {
	local d=$BATS_TEST_TMPDIR
	run -127 --separate-stderr "$TB" -r 1000/s -b 100 -s --drop-to "$d/rest" \
	    --exec no-such-command-here <<<$'1\n2\n3'
	assert_eq "$output" "" "stdout"
	[[ $stderr == *"--exec: cannot run 'no-such-command-here': No such file or directory"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	[[ $stderr == *"3 waiting"* ]] || { echo "$stderr" >&2; return 1; }
	assert_eq "$(cat "$d/rest")" $'1\n2\n3' "the records never started, set aside whole"
	printf 'echo hi\n' >"$d/noexec"
	chmod -x "$d/noexec"
	run -126 --separate-stderr "$TB" -r inf --exec "$d/noexec" <<<'1'
	[[ $stderr == *"cannot run '$d/noexec': Permission denied"* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "--exec: a command's input is /dev/null, never the records; output and errors are ours" {
	run -0 --separate-stderr "$TB" -r inf --exec sh -c 'wc -c; echo err >&2' <<<$'a\nb'
	assert_eq "$output" $'0\n0' "each command read nothing"
	assert_eq "$stderr" $'err\nerr' "its stderr"
}

@test "--exec: a command has the descriptors we were given, as xargs passes them, and none of ours" {
	local d=$BATS_TEST_TMPDIR want
	echo x >"$d/in"
	# bats gives its children descriptors of its own, and 7 is the
	# user's (7>FILE): the command has those, and none that we open (the
	# FILE, the drop file, --shared's file, the run directory, the
	# control socket, the lock of --name).
	want=$(sh -c 'ls /proc/$$/fd' </dev/null 7>"$d/seven" | sort | tr '\n' ' ')
	run -0 "$TB" -r 100/s -b 5 --shared "fds$BATS_TEST_NUMBER" --name fds \
	    --drop-to "$d/drop" "$d/in" --exec sh -c 'ls /proc/$$/fd; echo hi >&7' \
	    _ 7>"$d/seven"
	assert_eq "$(sort <<<"$output" | tr '\n' ' ')" "$want" "descriptors"
	assert_eq "$(cat "$d/seven")" hi "what the command wrote to 7"
}

@test "-j 1 (the default): the next command starts only when the one before has ended" {
	local d=$BATS_TEST_TMPDIR
	job
	export LOG=$d/log
	run -0 "$TB" -r 100/s -b 5 --exec "$d/job" 0.2 <<<$'1\n2\n3'
	assert_eq "$(most_at_once "$d/log")" 1 "commands at once"
}

@test "-j 1: the next command starts as soon as the one before ends, not at a poll" {
	local t0 t1
	t0=$(now_ms)
	run -0 "$TB" -r inf --exec sleep < <(for _ in 1 2 3 4 5 6 7 8; do echo 0.1; done)
	t1=$(now_ms)
	# 0.8 s of sleeps; a wake-up by polling (once a second) would take
	# 8 s, and 6 s leaves a busy machine its slow process starts.
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 800 "ms"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 6000 "ms"
}

@test "-j 3: never more than 3 at once, and 3 do run at once" {
	local d=$BATS_TEST_TMPDIR
	job
	export LOG=$d/log
	run -0 "$TB" -r inf -j 3 --exec "$d/job" 0.3 < <(seq 9)
	assert_eq "$(most_at_once "$d/log")" 3 "commands at once"
	assert_eq "$(starts "$d/log" | wc -l)" 9 "commands"
}

@test "-j 2 with a rate: starts never early, even after slow commands end together" {
	local d=$BATS_TEST_TMPDIR
	job
	export LOG=$d/log
	# 5/s with a burst of 2, commands of 0.7 s: slots, not tokens, hold
	# the starts back; when they free, no burst banked meanwhile goes.
	run -0 "$TB" -r 5/s -b 2 -j 2 --exec "$d/job" 0.7 < <(seq 8)
	starts "$d/log" | sort -n | awk -v b=2 -v r=5 -v slack="$SLACK" '
	    { t[NR] = $1 }
	    END {
		for (i = 1; i <= NR; i++)
			for (j = i; j <= NR; j++)
				if (j - i + 1 > b + r * (t[j] - t[i] + slack)) {
					printf "%d starts in %.3f s\n", j - i + 1, t[j] - t[i]
					exit 1
				}
	    }'
	assert_eq "$(most_at_once "$d/log")" 2 "commands at once"
}

@test "-j usage errors: a count from 1 to 4096, and only with --exec" {
	run -2 --separate-stderr "$TB" -r 1/s -j 4097 --exec true
	assert_msg "$stderr" "invalid -j '4097': give a whole number from 1 to 4096"
	run -2 --separate-stderr "$TB" -r 1/s -j 2
	assert_msg "$stderr" "-j 2 needs --exec: it bounds the commands running at once"
	run -2 --separate-stderr "$TB" -r 1/s --exec
	assert_msg "$stderr" "--exec needs a command: --exec CMD [ARG...] [;]"
	run -2 --separate-stderr "$TB" -r 1/s --exec ';' echo
	assert_msg "$stderr" "--exec needs a command: --exec CMD [ARG...] [;]"
	run -2 --separate-stderr "$TB" -r 1/s -c --exec echo
	assert_msg "$stderr" "--exec runs a command for each record; it does not apply to -c"
	run -2 --separate-stderr "$TB" -r 1/s --exec echo ';' --exec true
	assert_msg "$stderr" "--exec given twice: give one command"
	run -2 --separate-stderr "$TB" -k 1 -r 1/s --order key --exec echo
	assert_msg "$stderr" "--exec does not combine with --order key: records wait for a free slot in the order they come"
}

@test "--exec: a value spelled --exec is one in its option's word, and after -- a file name" {
	local d=$BATS_TEST_TMPDIR
	cd "$d"
	printf 'x\n' >--exec
	run -0 "$TB" -r inf -- --exec
	assert_eq "$output" "x" "the file named --exec"
	run -0 "$TB" -r 1000/s --drop-to=--exec --exec echo <<<'y'
	assert_eq "$output" "y" "the command ran"
	# Apart, it is taken for a value left out.
	run -2 --separate-stderr "$TB" -r 1000/s --drop-to --exec --exec echo <<<'y'
	assert_msg "$stderr" "--drop-to needs its value, and '--exec' is an option (a value so spelled goes in the same word: --drop-to=--exec)"
}

@test "--exec: SIGTERM starts nothing more, waits for the commands running, then reports" {
	local d=$BATS_TEST_TMPDIR pid st=0
	job
	export LOG=$d/log
	seq 10 >"$d/in"
	"$TB" -r 10/s -j 2 -s --name ex "$d/in" --exec "$d/job" 3 2>"$d/err" &
	pid=$!
	wait_running name.ex
	# Both slots taken, for 3 s: the stop comes before a third could
	# start, however slow the machine.
	wait_for "two commands started" has_lines "$d/log" 2
	kill -TERM "$pid"
	wait "$pid" || st=$?
	assert_eq "$st" 143 "exit status: ended by SIGTERM"
	assert_eq "$(grep -c start "$d/log")" 2 "started"
	assert_eq "$(grep -c end "$d/log")" 2 "ended before tbthrottle did"
	grep -q "8 waiting" "$d/err" || { cat "$d/err" >&2; return 1; }
	grep -q "commands 2 started, 2 succeeded" "$d/err" || { cat "$d/err" >&2; return 1; }
}

@test "--exec: a second SIGTERM sends SIGTERM to the commands and ends at once, its -s report made" {
	local d=$BATS_TEST_TMPDIR pid st=0 t0 t1
	cat >"$d/slow" <<SH
#!/bin/sh
trap 'echo term >>$d/log; exit 0' TERM
echo start >>$d/log
sleep 20 & wait
SH
	chmod +x "$d/slow"
	"$TB" -r inf -j 2 -s --name ex2 --exec "$d/slow" <<<$'1\n2\n3' \
	    2>"$d/err" &
	pid=$!
	wait_running name.ex2
	# Both running, so that both have their trap set when told to end.
	wait_for "both commands to start" has_lines "$d/log" 2
	t0=$(now_ms)
	kill -TERM "$pid"
	# A second stop within 0.1 s of the first is taken for the same one
	# (src/sys/signals.c), and one sent while the first is still pending
	# is lost: the first must have been taken before the pause begins.
	wait_for "the first SIGTERM to be taken" handled "$pid" TERM
	sleep 0.3
	kill -0 "$pid" # still waiting for them
	kill -TERM "$pid"
	wait "$pid" || st=$?
	t1=$(now_ms)
	assert_eq "$st" 143 "exit status"
	# The commands write their line as they end, which may be after
	# tbthrottle has: a run that never sent them SIGTERM leaves them
	# sleeping for 20 s, which the wait does not last.
	wait_for "both commands to be told to end" has_count "$d/log" term 2
	assert_eq "$(grep -c term "$d/log")" 2 "commands told to end"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 5000 "ms to end"
	# Nothing was half written: the report is still made, once.
	assert_eq "$(grep -c 'commands 2 started' "$d/err")" 1 "-s reports" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "--exec: no zombie is left while the run goes on" {
	local d=$BATS_TEST_TMPDIR pid feed
	mkfifo "$d/in"
	"$TB" -r 20/s -j 4 --name zz --exec true <"$d/in" 3>&- &
	pid=$!
	# The input held open: the run goes on, idle, once all have started.
	exec {feed}>"$d/in"
	seq 40 >&"$feed"
	wait_running name.zz
	wait_for "the 40 commands to start" stat_ge zz units_out 40
	# A command that has just ended is a zombie until the run reaps it,
	# which a busy machine may delay: what is checked is that none is
	# left for long.  A run that never reaps its commands (or only when
	# it needs a slot for the next, of which none comes) keeps up to 40
	# zombies for as long as it runs, which the wait outlasts.
	wait_for "no zombie child of tbthrottle" no_zombie_child "$pid"
	kill -TERM "$pid"
	exec {feed}>&-
	wait "$pid" || true
}

@test "--exec -s and --stats=json count started, succeeded, failed and the slowest" {
	local slowest
	# The slowest in the middle, neither first nor last; one at a time.
	run -123 --separate-stderr "$TB" -r inf --stats=json --exec \
	    sh -c 'sleep 0.$1; exit $(($1 % 2))' _ <<<$'2\n4\n3'
	[[ $stderr == *'"commands":{"started":3,"succeeded":2,"failed":1,"refused":0,"running":0,"retried":0,"retrying":0,"slowest_s":'* ]] ||
	    { echo "$stderr" >&2; return 1; }
	slowest=$(sed -n 's/.*"slowest_s":\([0-9.]*\).*/\1/p' <<<"$stderr")
	# Never shorter than its sleep (so not the first's or the last's),
	# and shorter than the run by the other two's sleeps at least (so
	# not their sum), however slow the machine made each.
	assert_ge "$slowest" 0.4 "slowest_s"
	assert_le "$slowest" "$(awk -v e="$(json_field elapsed_s)" 'BEGIN { print e - 0.5 }')" \
	    "slowest_s, against the run's elapsed_s less 0.5 s"
}

@test "--exec with -k: each key's rate applies to its commands' starts" {
	local d=$BATS_TEST_TMPDIR
	job
	export LOG=$d/log
	printf 'a 1\nb 1\na 2\nb 2\n' >"$d/in"
	run -0 "$TB" -k 1 -r 2/s -j 4 "$d/in" --exec "$d/job" 0
	# a and b go at once; each key's second half a second after.
	awk '$1 == "start" { print $3, $2 }' "$d/log" | sort -k1,1 -k2,2n |
	    awk -v slack="$SLACK" '
	    $1 == k { if ($2 - t < 0.5 - slack) { print "early: " $0; exit 1 } }
	    { k = $1; t = $2 }'
	assert_eq "$(starts "$d/log" | wc -l)" 4 "commands"
}

@test "--exec with --tiers: the tier's rate applies" {
	local d=$BATS_TEST_TMPDIR t0 t1
	printf 'slow* 2/s\n* inf\n' >"$d/tiers"
	t0=$(now_ms)
	run -0 "$TB" -k 1 --tiers "$d/tiers" -j 2 --exec true <<<$'slow\nslow\nslow\nfast\n'
	t1=$(now_ms)
	assert_ge "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 1000 "ms for 3 of 2/s"
}

@test "--exec with --replay: commands start at the records' timestamps" {
	local d=$BATS_TEST_TMPDIR up
	job
	export LOG=$d/log
	printf '2024-01-01T00:00:00Z a\n2024-01-01T00:00:01Z b\n' >"$d/in"
	# The second start is due 0.5 s after the first record was read, which
	# is after this clock reading: a strict bound however late the first
	# command's spawn was on a busy machine (the gap between the two
	# starts is not: a late first spawn shortens it).
	up=$(job_clock)
	run -0 "$TB" --replay --speed 2 "$d/in" --exec "$d/job" 0
	starts "$d/log" | awk -v slack="$SLACK" -v t="$up" '
	    NR == 2 { if ($1 - t < 0.5 - slack) { print $1 - t; exit 1 } }'
	assert_eq "$(starts "$d/log" | wc -l)" 2 "commands"
}

@test "--exec --drop: a record refused by the limit starts nothing" {
	run -0 --separate-stderr "$TB" -r 1/h -b 2 --drop -s --exec echo <<<$'1\n2\n3\n4'
	assert_eq "$output" $'1\n2' "commands run"
	[[ $stderr == *"2 dropped"* ]] || { echo "$stderr" >&2; return 1; }
}

@test "--exec: when our output's reader goes away (a command dies of SIGPIPE writing to it), the run stops as cat would" {
	local t0
	t0=$(now_ms)
	run bash -c 'seq 20000 | tb -r 500/s -b 10 --exec echo | head -1; echo "${PIPESTATUS[1]}"'
	assert_eq "${lines[0]}" 1 "output"
	assert_eq "${lines[1]}" 141 "tbthrottle ended of SIGPIPE"
	# A run that went on starting commands after the reader left would
	# take 40 s for 20000 records at 500/s, or until tb's limit killed
	# it; 10 s leaves a busy machine its slowness.
	assert_le "$(elapsed_ms "$t0")" 10000 "ms to end"
}

@test "--exec: a command killed by a SIGPIPE of its own, our output fine, is killed by a signal: 125" {
	run -125 --separate-stderr tb -r inf --exec sh -c 'echo $1; kill -PIPE $$' _ <<<$'1\n2'
	assert_eq "$output" 1 "commands run: none after it"
	[[ $stderr == *"--exec: 'sh' was killed by signal 13 ("*"): no more commands start"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	# A write to a pipe of its own that nobody reads.
	run -125 tb -r inf --exec python3 -c 'import os, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
r, w = os.pipe()
os.close(r)
os.write(w, b"x")' <<<'1'
}

@test "--exec: after a command exits 255 or is killed, none starts; those running end; the rest wait, as xargs" {
	local d=$BATS_TEST_TMPDIR
	run -124 --separate-stderr tb -r 1000/s -b 100 -s --drop-to "$d/rest" \
	    --exec sh -c 'echo $1; [ "$1" != 2 ] || exit 255' _ <<<$'1\n2\n3\n4'
	assert_eq "$output" $'1\n2' "commands run"
	assert_eq "$(cat "$d/rest")" $'3\n4' "the records not started, set aside whole"
	[[ $stderr == *"--exec: 'sh' exited with status 255: no more commands start"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	[[ $stderr == *" 2 out, 0 dropped, 2 waiting;"* ]] || { echo "$stderr" >&2; return 1; }
	# Killed while another runs: that one ends in its own time.
	run -125 --separate-stderr tb -r inf -j 2 -s --exec sh -c \
	    '[ "$1" = 1 ] || kill -9 $$; sleep 0.5; echo "$1 ended"' _ <<<$'1\n2\n3\n4'
	assert_eq "$output" "1 ended" "commands run"
	[[ $stderr == *"--exec: 'sh' was killed by signal 9 ("*"): no more commands start"* ]] ||
	    { echo "$stderr" >&2; return 1; }
	[[ $stderr == *"2 waiting;"*"commands 2 started, 1 succeeded, 1 failed, 0 running"* ]] ||
	    { echo "$stderr" >&2; return 1; }
}

# few_processes N ARG...: tbthrottle ARG... as a user of its own (an unused
# uid), allowed N processes in all (ulimit -u, which does not bind root);
# skipped, saying why, where that cannot be done.
few_processes() {
	local n=$1 uid
	shift
	[[ $(id -u) == 0 ]] ||
	    skip "RLIMIT_NPROC counts every process of the user: needs root to run as a user of its own"
	command -v setpriv >/dev/null || skip "needs setpriv(1) to run as another user"
	uid=$((200000 + $$ % 100000))
	# The tool must be where that user can run it (not in a directory
	# of ours only, as a package build's mktemp -d is).
	setpriv --reuid="$uid" --regid="$uid" --clear-groups \
	    test -x "$TB" ||
	    skip "$TB is in a directory another user cannot enter"
	# LeakSanitizer checks at exit in a thread, which the limit may deny
	# (make SAN=1).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    setpriv --reuid="$uid" --regid="$uid" --clear-groups \
	    bash -c 'ulimit -u "$1" && shift && exec "$@"' _ "$n" "$TB" "$@"
}

@test "--exec: with no process to be had, a start waits for one of ours to end, as xargs; with none of ours, it gives up" {
	local d=$BATS_TEST_TMPDIR t0 st=0
	printf '1.2\n%.0s' 1 2 3 4 5 6 >"$d/in"
	# tbthrottle and 3 commands: the 4th waits for one to end, beyond the
	# second that a start was once tried for.
	t0=$(now_ms)
	few_processes 4 -r inf -j 8 -s --exec sleep <"$d/in" >"$d/out" 2>"$d/err" || st=$?
	assert_eq "$st" 0 "exit status" || { cat "$d/err" >&2; return 1; }
	grep -q 'commands 6 started, 6 succeeded' "$d/err" || { cat "$d/err" >&2; return 1; }
	assert_ge "$(elapsed_ms "$t0")" 2400 "ms for two rounds of 1.2 s"
	# Nothing of ours runs to wait for: a second's tries, then one line.
	t0=$(now_ms)
	st=0
	few_processes 1 -r inf -j 8 --exec sleep <"$d/in" >"$d/out" 2>"$d/err" || st=$?
	assert_eq "$st" 126 "exit status"
	assert_ge "$(elapsed_ms "$t0")" 1000 "ms tried"
	assert_le "$(elapsed_ms "$t0")" 10000 "ms tried"
	assert_eq "$(wc -l <"$d/err")" 1 "lines of message"
	grep -q "^tbthrottle: --exec: cannot run 'sleep': Resource temporarily unavailable (for 1 s no process was to be had, and no command of ours ran to wait for)$" "$d/err" ||
	    { cat "$d/err" >&2; return 1; }
}

@test "--exec: a record that waited for a slot is not late: -a sliding holds its window, --drop keeps it" {
	local d=$BATS_TEST_TMPDIR
	# Slow commands hold the slots: what comes meanwhile waits, and then
	# goes as of when a slot freed, not as of when it came.
	run -0 --separate-stderr bash -c '(for i in $(seq 10); do echo $i; sleep .15; done) |
	    "$0" -r 10/s -b 1 --drop -j 1 -s --exec sh -c "sleep .3" _' "$TB"
	[[ $stderr == *" 0 dropped"* ]] || { echo "$stderr" >&2; return 1; }
	run -0 --separate-stderr bash -c 'seq 30 | "$0" -r 10/s -a sliding -j 4 -s \
	    --exec sh -c "[ \$1 -le 8 ] && sleep 4; exit 0" _' "$TB"
	# Not a place in the schedule kept for each start that waited: the
	# largest lateness is that of the token, not the slots'.  A run that
	# kept the places would count each record that waited for a slot
	# late by that wait, the two rounds of 4 s of the first 8 (8 s at
	# most); 2 s leaves a busy machine its late wake-ups.
	[[ $stderr =~ max\ lateness\ ([0-9.]+)\ ms ]] ||
	    { echo "$stderr" >&2; return 1; }
	assert_le "${BASH_REMATCH[1]%.*}" 2000 "max lateness (ms)"
}

# A window's bound holds where the commands start: the times of their
# execs, as the kernel saw them (strace), never put more than N in any
# window.  Each record counts from when its command had started, after
# the exec, not from when it was let through: the execs of a batch follow
# one another, and a late wake-up's may come after the catch-up's due.
@test "--exec -a sliding: no window of the period holds more than N command starts, at any -j" {
	local d=$BATS_TEST_TMPDIR cmd opts
	needs_strace
	cmd=$(type -P true)
	seq 40 >"$d/in"
	for opts in "-j 1" "-j 4" "-j 20" "-j 20 --catch-up 0"; do
		# shellcheck disable=SC2086 # the options, word by word
		run -0 traced execve "$d/log" "$TB" -a sliding -r 10/200ms $opts \
		    "$d/in" --exec "$cmd"
		assert_eq "$(execs "$d/log" "$cmd" | wc -l | tr -d ' ')" 40 \
		    "$opts: commands started"
		assert_le "$(execs "$d/log" "$cmd" | most_in_span 200000000)" 10 \
		    "$opts: most starts within 200 ms"
	done
}

@test "--exec -a fixed: no window of the wall clock holds more than N command starts, at any -j" {
	local d=$BATS_TEST_TMPDIR cmd opts
	needs_strace
	cmd=$(type -P true)
	seq 40 >"$d/in"
	for opts in "-j 1" "-j 4" "-j 20"; do
		# shellcheck disable=SC2086 # the options, word by word
		run -0 traced execve "$d/log" "$TB" -a fixed -r 10/200ms $opts \
		    "$d/in" --exec "$cmd"
		assert_eq "$(execs "$d/log" "$cmd" | wc -l | tr -d ' ')" 40 \
		    "$opts: commands started"
		assert_le "$(execs "$d/log" "$cmd" |
		    most_in_windows 200000000 20000000)" 10 \
		    "$opts: most starts in a window of 200 ms"
	done
}

@test "--exec -a leaky --catch-up 0: command starts are never less than 1/rate apart" {
	local d=$BATS_TEST_TMPDIR cmd
	needs_strace
	cmd=$(type -P true)
	seq 20 >"$d/in"
	run -0 traced execve "$d/log" "$TB" -a leaky -r 20/s --catch-up 0 \
	    -j 4 "$d/in" --exec "$cmd"
	assert_eq "$(execs "$d/log" "$cmd" | wc -l | tr -d ' ')" 20 "commands"
	assert_le "$(execs "$d/log" "$cmd" | most_in_span 50000000)" 1 \
	    "most starts within 50 ms"
}

# -k and --drop: each key's window holds at its commands' starts.  Every
# 100 ms a burst of 4 records for each of 4 keys, the key that came last
# (its commands starting after 12 others) coming first in the next burst.
# A record let through starts before the next is judged.
@test "--exec -k -a sliding --drop: no key's window holds more than N command starts" {
	local d=$BATS_TEST_TMPDIR cmd k
	needs_strace
	cmd=$(type -P true)
	run -0 traced execve "$d/log" bash -c 'keys=(a b c d)
	    for ((i = 0; i < 10; i++)); do
		for ((j = 0; j < 4; j++)); do
			printf "${keys[(j - i + 40) % 4]} %d\n" 1 2 3 4
		done
		sleep 0.1
	    done | "$0" -k 1 -a sliding -r 4/100ms --drop -j 16 --exec "$1"' \
	    "$TB" "$cmd"
	for k in a b c d; do
		assert_le "$(grep -F "\"$k " "$d/log" | execs /dev/stdin "$cmd" |
		    most_in_span 100000000)" 4 "key $k: most starts within 100 ms"
	done
	assert_ge "$(execs "$d/log" "$cmd" | wc -l)" 16 "commands started"
}

@test "--exec: a script without #! runs by the shell, as xargs runs it" {
	local d=$BATS_TEST_TMPDIR
	printf 'echo plain "$@"\n' >"$d/plain"
	chmod +x "$d/plain"
	run -0 "$TB" -r inf --exec "$d/plain" <<<'arg'
	assert_eq "$output" "plain arg" "output"
}

@test "--take: at most the burst at once, operands of digits, no local fallback" {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	run -2 --separate-stderr "$TB" --shared tk -r 1/s -b 2 --take 3
	assert_msg "$stderr" "--take 3 is more than the bucket holds (-b 2): take at most the burst at once"
	run -2 --separate-stderr "$TB" --shared tk -r 1/s -b 2 --take +1
	assert_msg "$stderr" "invalid --take operand '+1': give the tokens to take, a whole number from 1 to 4294967295"
	run -2 --separate-stderr "$TB" --shared tk -r 1/s --take 1 2
	assert_msg "$stderr" "--take takes one operand, N, the tokens to take (a KEY needs -k FIELD), not '2'"
	run -2 --separate-stderr "$TB" --shared tk -r 1/s --redis redis://127.0.0.1:1 \
	    --redis-fallback local --take
	assert_msg "$stderr" "--take with --redis-fallback local would grant every take while Redis is down (each is a new process, its local bucket full): give block or fail"
}
