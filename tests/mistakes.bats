#!/usr/bin/env bats
# Plausible mistakes, each answered by one line that names what happened
# and the fix, with the exit status the man page lists: habits of pv and
# of other tools, rates in words, a burst of one under --drop.

load helpers

setup() {
	# Runs of other tests (in $HOME's cache, too) are not these tests'.
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run HOME=$BATS_TEST_TMPDIR/home
	mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
}

# mistake STATUS MESSAGE ARG...: tbthrottle ARG... (input empty) exits
# STATUS with the one line MESSAGE on stderr.
mistake() {
	local status=$1 msg=$2
	shift 2
	run "-$status" --separate-stderr tb "$@" </dev/null
	assert_msg "$stderr" "$msg"
}

@test "the mistakes table: one line each, naming the fix, exit 2" {
	mistake 2 "unknown option '-L': pv's -L 10 is bytes a second: give -c -r 10/s" -L 10
	mistake 2 "unknown option '-L': pv's -L 1m is bytes a second: give -c -r 1m/s" -L1m
	mistake 2 "unknown option '-L': pv's -L RATE is bytes a second: give -c -r RATE/s, such as -c -r 1m/s (see --help)" -L 1x
	mistake 2 "invalid rate '1m': a period needs a slash: 1/m; for 1 MiB a second (pv's -L 1m) give -c -r 1m/s" -r 1m
	mistake 2 "unknown option '-rate': did you mean '--rate'?" -rate 5/s
	mistake 2 "unknown option '-burst=4': did you mean '--burst=4'?" -r 1/s -burst=4
	mistake 2 "unknown option '-stats': did you mean '--stats'?" -r 1/s -stats
	mistake 2 "-s and --stats take no value apart: for a JSON report give --stats=json (for a file named json, give ./json)" -s json -r 1/s
	mistake 2 "-s and --stats take no value apart: for a JSON report give --stats=json (for a file named json, give ./json)" --stats json -r 1/s
	mistake 2 "invalid option '-s=json': for a JSON report give --stats=json" -s=json -r 1/s
	mistake 2 "invalid option '-r=5/s': a short option takes its value after it, as -r 5/s" -r=5/s
	mistake 2 "'per' after the rate '10' looks like part of it: give the rate as one word, such as -r 10/s (for a file named per, give it as ./NAME)" -r 10 per second
	mistake 2 "'/s' after the rate '5' looks like part of it: give the rate as one word, such as -r 5/s" -r 5 /s
	mistake 2 "'/min' after the rate '5' looks like part of it: give the rate as one word, such as -r 5/min" --rate=5 /min
	mistake 2 "--json needs --list or --show: what it prints as JSON" --json
}

@test "habits of xargs and GNU parallel: one line each, naming the fix, exit 2" {
	cd "$BATS_TEST_TMPDIR"
	printf 'x\n' >urls.txt
	# A value left out takes the next option for it, and made a file or
	# a bucket of that name: never.
	mistake 2 "--drop-to needs its value, and '--exec' is an option (a value so spelled goes in the same word: --drop-to=--exec)" -r 5/s --drop-to --exec echo hi
	mistake 2 "--shared needs its value, and '--exec' is an option (a value so spelled goes in the same word: --shared=--exec)" --shared --exec echo hi
	mistake 2 "-r needs its value, and '--exec' is an option (a value so spelled goes in the same word: -r--exec)" -r --exec echo
	mistake 2 "--joblog needs its value, and '--exec' is an option (a value so spelled goes in the same word: --joblog=--exec)" -r 1/s --joblog --exec echo
	mistake 2 "--name needs its value, and '--stats' is an option (a value so spelled goes in the same word: --name=--stats)" -r 1/s --name --stats
	[[ ! -e ./--exec ]] || { echo "a file --exec was made" >&2; return 1; }
	# Long options of xargs, parallel, curl and rsync; -j as parallel
	# counts CPUs; xargs's -a FILE and -z.
	mistake 2 "unknown option '--retries': GNU parallel's --retries N is --retry N here (on exit 75, or the statuses --retry-on names)" -r 1/s --retries 3 --exec echo
	mistake 2 "unknown option '--max-procs': xargs's --max-procs N is -j N here" -r 1/s --max-procs 4 --exec echo
	mistake 2 "unknown option '--replace': --exec runs one command per record: {} in its arguments is the record" -r 1/s --replace --exec echo
	mistake 2 "unknown option '--arg-file': xargs's --arg-file FILE: give FILE as an operand, before --exec or after ';'" -r 1/s --arg-file urls.txt --exec echo
	mistake 2 "invalid --timeout '5': a duration needs its unit: 5s, or 5ms" -r 1/s --timeout 5 --exec echo
	mistake 2 "unknown option '--limit-rate': curl's --limit-rate is bytes a second: give -c -r 100k/s" --limit-rate 100k
	mistake 2 "unknown option '--bwlimit': rsync's --bwlimit is KiB a second: give -c -r 1000K/s" --bwlimit=1000
	mistake 2 "invalid -j '100%': GNU parallel counts jobs by the CPUs so (a share of them); give how many at once, a number from 1 to 4096" -r 1/s -j 100% --exec echo
	mistake 2 "invalid -j '+2': GNU parallel counts jobs by the CPUs so (more than them); give how many at once, a number from 1 to 4096" -r 1/s -j +2 --exec echo
	mistake 2 "-a urls.txt: -a is the algorithm here (token, leaky, sliding or fixed); for xargs's -a FILE, give the file as an operand, before --exec or after ';'" -r 1/s -a urls.txt --exec echo
	mistake 2 "unknown option '-z': records that end in NUL are -0 here" -r 1/s -z --exec echo
	# GNU parallel's {.} is text: said, and the run goes on.
	run -0 --separate-stderr bash -c 'echo x | "$0" -r 9/s --exec echo {.}.png' "$TB"
	assert_eq "$output" "{.}.png x" "the command's words"
	assert_msg "$stderr" "{.} after --exec is text here: {} is the record, {N} its field N and {#} its number (GNU parallel's {.}, {/}, {//}, {/.} and {%} are not filled in)"
	# The command without --exec, or its line in one word.
	mistake 2 "'echo' is no file but a command: to run it for each record, give --exec echo [ARG...]" -r 2/s echo {}
	mistake 2 "'{1}' is no file: a command's record is {} after --exec: give --exec CMD [ARG...] {}" -r 2/s {1}
	mistake 2 "--exec 'echo {}': a command and its arguments are words of their own (--exec echo {}), or a shell line is given to sh (--exec sh -c 'LINE')" -r 2/s --exec 'echo {}'
	mistake 2 "-P 4: jobs at once is -j 4 here; -P is the progress line" -r 2/s -P 4 --exec echo
	mistake 2 "-P 4: jobs at once is -j 4 here; -P is the progress line" -r 2/s -P4 --exec echo
	mistake 2 "-P 0: as many jobs at once as can be is -j 4096 here; -P is the progress line" -r 2/s -P 0 --exec echo
	mistake 2 "unknown option '-n': --exec runs one command per record: {} in its arguments is the record (without {}, it comes last)" -r 2/s -n 1 --exec echo
	mistake 2 "unknown option '-I': --exec runs one command per record: {} in its arguments is the record (without {}, it comes last)" -r 2/s -I{} --exec echo {}
	mistake 2 "unknown option '-I': --exec runs one command per record: {} in its arguments is the record (without {}, it comes last)" -r 2/s -I {} --exec echo {}
	mistake 2 "unknown option '-L': --exec runs one command per record: {} in its arguments is the record (without {}, it comes last)" -r 2/s -L 1 --exec echo
	mistake 2 "unknown option '-L': pv's -L 1 is bytes a second: give -c -r 1/s" -L 1
	mistake 2 "unknown option '--delay': for one start every 0.2 s, give --leaky -r 1/0.2s" --delay 0.2 --exec echo
	mistake 2 "unknown option '--delay': for one start every 2m, give --leaky -r 1/2m" --delay=2m --exec echo
	mistake 2 "unknown option '--delay': for one start every T, give --leaky -r 1/T (T such as 0.2s or 2min)" --delay 1m30s --exec echo
	mistake 2 "':::' is GNU parallel's: give the inputs as lines of standard input or of FILE operands" -r 2/s --exec echo ::: a b
	mistake 2 "':::' is GNU parallel's: give the inputs as lines of standard input or of FILE operands" -r 2/s ::: a b
	mistake 2 "'::::' is GNU parallel's: give the input FILEs as operands, before --exec or after ';'" -r 2/s --exec echo :::: urls.txt
	mistake 2 "invalid -j '0': that is GNU parallel's \"as many as possible\"; give how many at once, up to -j 4096 (the limits still pace the starts)" -r 2/s -j 0 --exec echo
	mistake 2 "invalid -j '0': that is GNU parallel's \"as many as possible\"; give how many at once, up to -j 4096 (the limits still pace the starts)" -r 2/s -j0 --exec echo
	mistake 2 "invalid -j '0': that is GNU parallel's \"as many as possible\"; give how many at once, up to -j 4096 (the limits still pace the starts)" -r 2/s --jobs=0 --exec echo
	# A command's own options, --exec left out: said with the command.
	mistake 2 "unknown option '-f' after 'curl', which is no file: to run curl for each record, give --exec curl -fsSO [ARG...], input FILEs before --exec" -r 2/s curl -fsSO urls.txt
	mistake 2 "unknown option '--silent' after 'curl', which is no file: to run curl for each record, give --exec curl --silent [ARG...], input FILEs before --exec" -r 2/s urls.txt curl --silent
	# A name with a dot or a slash is a file mistyped; a file is a file.
	mistake 2 "unknown option '-f' (see --help)" -r 2/s urls.text -f
	mistake 2 "unknown option '-f' (see --help)" -r 2/s ./curl -f
	printf 'x\n' >curl
	mistake 2 "unknown option '-f' (see --help)" -r 2/s curl -f
	# With no operand before it, the plain line.
	mistake 2 "unknown option '-f' (see --help)" -r 2/s -f
}

@test "-P N where a file N is: the progress line and the file, as written" {
	cd "$BATS_TEST_TMPDIR"
	printf 'four\n' >4
	run -0 --separate-stderr tb -r 100/s -P 4 </dev/null
	assert_eq "$output" four "the file 4 is read"
	assert_eq "$stderr" "" "nothing said"
}

@test "a FILE after --exec with nothing to read: exit 2 from /dev/null, a warning from an empty pipe" {
	cd "$BATS_TEST_TMPDIR"
	printf 'a\nb\n' >urls.txt
	mkdir dir
	mistake 2 "urls.txt is an argument of echo: give input FILEs before --exec, or after ';'" -r 2/s --exec echo -n urls.txt
	run -2 --separate-stderr bash -c 'tb -r 2/s --exec echo urls.txt <&-'
	assert_msg "$stderr" "urls.txt is an argument of echo: give input FILEs before --exec, or after ';'"
	run -0 --separate-stderr bash -c 'printf "" | tb -r 100/s --exec echo urls.txt'
	assert_eq "$output" "" "no command ran"
	assert_msg "$stderr" "urls.txt is an argument of echo: give input FILEs before --exec, or after ';'"
	run -0 --separate-stderr bash -c 'printf "x\n" | tb -r 100/s --exec echo urls.txt'
	assert_eq "$output" "urls.txt x" "a record read: the command's file, as asked"
	assert_eq "$stderr" "" "a record read: nothing said"
	run -0 --separate-stderr tb -r 100/s urls.txt --exec echo </dev/null
	assert_eq "$output" "a"$'\n'"b" "FILE before --exec"
	assert_eq "$stderr" "" "FILE before --exec: nothing said"
	run -0 --separate-stderr tb -r 100/s --exec echo ';' urls.txt </dev/null
	assert_eq "$output" "a"$'\n'"b" "FILE after ';'"
	assert_eq "$stderr" "" "FILE after ';': nothing said"
	run -0 --separate-stderr tb -r 100/s --exec ls dir /dev/null </dev/null
	assert_eq "$stderr" "" "a directory or a device is no input FILE"
}

@test "a FILE after --exec, standard input a terminal: said at start, and the run goes on" {
	command -v script >/dev/null || skip "script(1) is not installed"
	cd "$BATS_TEST_TMPDIR"
	printf 'a\n' >urls.txt
	# script(1) gives the run a terminal, where a record is typed and then
	# the end of input.  With a record read, only the start says it.
	run -0 bash -c 'printf "x\n" | script -qfec "$TB -r 100/s --exec echo urls.txt; echo status \$?" /dev/null'
	# The terminal echoes the x typed, whenever script types it: before
	# the run, or after its first line on a busy machine.
	local out
	out=$(grep -v $'^x\r$' <<<"$output")
	[[ $out == *"tbthrottle: urls.txt is an argument of echo: give input FILEs before --exec, or after ';'"$'\r\n'"urls.txt x"$'\r\n'"status 0"* ]] ||
	    { echo "$output" >&2; return 1; }
	[[ $(grep -c "is an argument" <<<"$output") == 1 ]] || { echo "$output" >&2; return 1; }
}

@test "an option of ours after --exec without ';': a warning, and the command gets it" {
	local w
	w="after --exec goes to echo: give tbthrottle's options before --exec, or end the command with ';'"
	run -0 --separate-stderr bash -c 'echo x | tb -r 100/s --exec echo -j 4'
	assert_eq "$output" "-j 4 x" "the command has -j 4"
	assert_msg "$stderr" "-j 4 $w"
	run -0 --separate-stderr bash -c 'echo x | tb -r 100/s --exec echo -r 5/s'
	assert_msg "$stderr" "-r 5/s $w"
	run -0 --separate-stderr bash -c 'echo x | tb -r 100/s --exec echo --rate=5/s'
	assert_msg "$stderr" "--rate=5/s $w"
	run -0 --separate-stderr bash -c 'echo x | tb -r 100/s --exec echo -a leaky'
	assert_msg "$stderr" "-a leaky $w"
	run -0 --separate-stderr bash -c 'echo x | tb -r 100/s --exec echo --leaky'
	assert_msg "$stderr" "--leaky $w"
	# The command's own, or ended by ';': nothing to say.
	for cmd in "echo -j 4 ';'" "echo -r x" "echo -rf" "echo -j 0" "echo -a" "echo -- -j 4" "echo --stats --progress"; do
		run -0 --separate-stderr bash -c "echo x | tb -r 100/s --exec $cmd"
		assert_eq "$stderr" "" "--exec $cmd"
	done
}

@test "a number run into a period: an interval below one, both readings above, M for a million records" {
	mistake 2 "invalid rate '0.2s': one every 0.2 s is 1/0.2s (5/s)" -r 0.2s
	mistake 2 "invalid rate '0.5min': one every 0.5 min is 1/0.5min (2/min)" -r 0.5min
	mistake 2 "invalid rate '2s': a period needs a slash: 2/s for 2 a second, or 1/2s for one every 2 s" -r 2s
	mistake 2 "invalid rate '1m/s': m is 2^20 bytes with -c; for a million records give M: 1M/s" -r 1m/s
	run -0 --separate-stderr tb -c -r 1m/s </dev/null
	assert_eq "$stderr" "" "with -c, 1m/s is 2^20 bytes a second"
}

@test "what looks like a mistake but is not: a file after a whole rate, ./json, a value" {
	local d=$BATS_TEST_TMPDIR
	cd "$d"
	printf 'x\n' >s
	printf 'y\n' >json
	run -0 tb -r 100/s s
	assert_eq "$output" x "a file named s after -r 100/s"
	run -0 --separate-stderr tb -s -r 100/s ./json
	assert_eq "$output" y "./json"
	run -0 tb -r 100/s --drop-to -rate s
	assert_eq "$output" x "-rate as the value of --drop-to"
	# A file named as a command, or as a placeholder, is a file.
	printf 'z\n' >echo
	printf 'w\n' >'{}'
	run -0 tb -r 100/s echo '{}'
	assert_eq "$output" $'z\nw' "files named echo and {}"
}

@test "--speed 200% is a speed of 2" {
	printf '2024-01-01T00:00:00Z a\n2024-01-01T00:00:01Z b\n' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr tb --replay --speed 200% -s "$BATS_TEST_TMPDIR/in"
	[[ $stderr == *"replay at speed 2,"* ]] || { echo "$stderr" >&2; return 1; }
}

@test "-r 1M/s without -c counts lines: said once, and the run goes on" {
	run -0 --separate-stderr bash -c 'seq 3 | tb -r 1M/s'
	assert_eq "$output" "$(seq 3)" "output"
	assert_msg "$stderr" "-r 1M/s counts lines, not bytes; to limit bytes, add -c, or give --byte-rate 1M/s"
	run -0 --separate-stderr bash -c 'seq 3 | tb -c -r 1M/s'
	assert_eq "$stderr" "" "with -c, nothing to say"
	run -0 --separate-stderr bash -c 'seq 3 | tb -l -r 1M/s'
	assert_eq "$stderr" "" "with -l, lines are meant"
}

@test "--replay habits: a CSV read without -F, JSON lines with two times" {
	local d=$BATS_TEST_TMPDIR
	printf 'a,2024-01-01T00:00:00Z\n' >"$d/csv"
	run -1 --separate-stderr tb --replay --time-field 2 "$d/csv"
	assert_msg "$stderr" "--replay: no timestamp in the first 1 record (the first, 'a,2024-01-01T00:00:00Z', has no field 2: fields are split at blanks, or at C with -F C); looked for epoch, RFC 3339, syslog and common log format times at field 2: give --time-field N, --time-key NAME or --time-format FMT"
	run -0 --separate-stderr tb --replay -F , --time-field 2 "$d/csv"
	assert_eq "$stderr" "" "with -F ,"
	printf '{"created":"2024-01-01T00:00:00Z","timestamp":"2024-01-01T00:00:00Z"}\n' >"$d/json"
	run -0 --separate-stderr tb --replay "$d/json"
	assert_msg "$stderr" "--replay: records timed by their JSON key \"timestamp\" (also holding a time: \"created\"; --time-key NAME picks another)"
}

@test "--drop with a burst of 1 that drops most of a file says why, and how to keep them" {
	run -0 --separate-stderr bash -c 'seq 100 | tb -r 10/s --drop'
	assert_eq "$output" 1 "output"
	assert_msg "$stderr" "99 of 100 records were dropped: with --drop a record passes only if a token is there when it comes, and -b 1 holds one; give -b N for bursts, or leave --drop out to delay them"
	run -0 --separate-stderr bash -c 'seq 100 | tb -r 10/s -b 50 --drop'
	assert_eq "$stderr" "" "with a burst given, nothing to say"
}

@test "-R says in one line what it changed; on a -k run, how to change its rates" {
	local pid
	"$TB" -r 1/min --name conf <(seq 3; sleep 20) >/dev/null &
	pid=$!
	wait_running name.conf
	run -0 --separate-stderr tb -R conf -r 2/min -b 3
	assert_eq "$output" "conf: 2/min, burst 3 (was 1/min, burst 1)" "stdout"
	kill "$pid"
	wait "$pid" || true
	"$TB" -k 1 -r 1/min --name keyed <(echo a; echo a; sleep 20) >/dev/null &
	pid=$!
	wait_running name.keyed
	run -2 --separate-stderr tb -R keyed -r 5/min
	assert_msg "$stderr" "keyed: the rates of -k cannot be changed live (a run started with --tiers FILE changes them by -R NAME --reload)"
	kill "$pid"
	wait "$pid" || true
}

@test "--list: a header, and --list --json an object a line" {
	local pid
	"$TB" -r 1/min --name listed <(seq 3; sleep 20) >/dev/null &
	pid=$!
	wait_running name.listed
	wait_for "listed to read 3" stat_ge listed units_in 3
	run -0 --separate-stderr tb --list
	assert_eq "${lines[0]}" "PID      NAME             LIMITS; UNITS IN, OUT, DROPPED, WAITING; AGE" "header"
	[[ ${lines[1]} == "$pid"*" listed "*"1/min, burst 1; units 3 in, 1 out, 0 dropped, 2 waiting; up "* ]] ||
	    { echo "$output" >&2; return 1; }
	run -0 --separate-stderr tb --list --json
	[[ $output == "{\"pid\":$pid,\"name\":\"listed\",\"answering\":true,\"limit\":\"1/min, burst 1\",\"units_in\":3,\"units_out\":1,\"units_dropped\":0,\"units_waiting\":2,\"up_s\":"*"}" ]] ||
	    { echo "$output" >&2; return 1; }
	kill "$pid"
	wait "$pid" || true
}
