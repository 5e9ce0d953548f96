#!/usr/bin/env bats
# Naming and finding running tbthrottles: --name, -R NAME, --list and
# -R NAME --stats, over the control socket.

load helpers

setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run HOME=$BATS_TEST_TMPDIR/home
	mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
	started=()
}

# A test that failed must not leave what it started stopped or running
# (and a pid that is no longer our child's is left alone).
teardown() {
	local p
	for p in "${started[@]}"; do
		kill_ours CONT "$p"
		kill_ours KILL "$p"
	done
}

# start_named NAME ARGS...: tbthrottle ARGS --name NAME on an input that
# stays open; its pid in $pid once its socket answers.
start_named() {
	local name=$1
	shift
	mkfifo "$BATS_TEST_TMPDIR/in.$name"
	"$TB" --name "$name" "$@" <"$BATS_TEST_TMPDIR/in.$name" \
	    >"$BATS_TEST_TMPDIR/out.$name" 2>"$BATS_TEST_TMPDIR/err.$name" 3>&- &
	pid=$!
	started+=("$pid")
	# Hold the FIFO open, so the run waits for input.
	exec {feed}>"$BATS_TEST_TMPDIR/in.$name"
	eval "feed_$name=$feed"
	wait_running "name.$name"
}

# start_run ARGS...: tbthrottle ARGS on an input that stays open (the
# descriptor $feed holds it), in the background; its pid in $pid once its
# socket answers.
start_run() {
	local in
	in=$(mktemp -u "$BATS_TEST_TMPDIR/in.XXXXXX")
	mkfifo "$in"
	"$TB" "$@" <"$in" >/dev/null 2>"$in.err" 3>&- &
	pid=$!
	started+=("$pid")
	exec {feed}>"$in"
	wait_running "$pid"
}

# stop_run PID: end a run of start_run (the last one started).
stop_run() {
	kill_ours TERM "$1"
	eval "exec ${feed}>&-"
	wait "$1" || true
}

stop_named() {
	local fd_var=feed_$1
	kill_ours TERM "$2"
	eval "exec ${!fd_var}>&-"
	wait "$2" || true
}

@test "-R NAME changes the run of that name, and no other" {
	local a b
	start_named alpha -r 1/min
	a=$pid
	start_named beta -r 1/min
	b=$pid
	run -0 --separate-stderr "$TB" -R beta -r 20/s -b 3
	run -0 --separate-stderr "$TB" -R beta --stats
	[[ $output == *"(limit 20/s, burst 3)"* ]] || { echo "$output" >&2; false; }
	run -0 --separate-stderr "$TB" -R alpha --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	stop_named alpha "$a"
	stop_named beta "$b"
}

@test "a second live run of one name is refused at start, exit 1" {
	local a
	start_named same -r 1/min
	a=$pid
	run -1 --separate-stderr bash -c \
	    'seq 3 | "$1" -r 1/s --name same' _ "$TB"
	assert_msg "$stderr" "--name same: another tbthrottle of yours (pid $a) has this name"
	assert_eq "$output" "" "output"
	stop_named same "$a"
}

@test "a name whose run died is taken over" {
	local a
	start_named phoenix -r 1/min
	a=$pid
	kill -KILL "$a"
	wait "$a" || true
	run -0 --separate-stderr bash -c \
	    'seq 2 | "$1" -r 1k/s --name phoenix' _ "$TB"
	assert_eq "$output" $'1\n2' "output"
	# Gone with its run: the name and the socket.
	assert_eq "$(ls "$XDG_RUNTIME_DIR/tbthrottle" | grep -c phoenix)" 0 \
	    "name left"
	eval "exec ${feed_phoenix}>&-"
}

@test "--list: a line per live run: pid, name, limit, counts, age" {
	local a b
	start_named listed -r 5/min -b 2
	a=$pid
	start_named other --leaky -r 3/s
	b=$pid
	printf 'x\ny\nz\n' >&"$feed_listed"
	wait_for "listed to read 3" stat_ge listed units_in 3
	run -0 --separate-stderr "$TB" --list
	# (Runs of this user outside the test may be listed too.)
	[[ $output == *"$a"*" listed "*"5/min, burst 2; units 3 in, 2 out, 0 dropped, 1 waiting; up "*" s"* ]] ||
	    { echo "$output" >&2; false; }
	[[ $output == *"$b"*" other "*"3/s, leaky; units 0 in"* ]] ||
	    { echo "$output" >&2; false; }
	stop_named listed "$a"
	stop_named other "$b"
	run -0 --separate-stderr "$TB" --list
	[[ $output != *"$a "* && $output != *"$b "* ]] ||
	    { echo "after they ended: $output" >&2; false; }
}

@test "--list: a replay shows its speed, the log time it reached and the records gone, its limits as a ceiling" {
	local a b
	start_named replaying --replay --speed 2
	a=$pid
	start_named capped --replay -r 5/s
	b=$pid
	run -0 --separate-stderr "$TB" --list
	[[ $output == *"$a"*" replaying "*"replay at speed 2, no log time yet, 0 records gone; units 0 in"* ]] ||
	    { echo "$output" >&2; false; }
	# The third record is due half an hour of log later: it waits.
	printf '%s\n' '2024-01-01T00:00:00Z a' '2024-01-01T00:00:01Z b' \
	    '2024-01-01T01:00:00Z c' >&"$feed_replaying"
	wait_for "replaying to send 2" stat_ge replaying units_out 2
	run -0 --separate-stderr "$TB" --list
	[[ $output == *"$a"*" replaying "*"replay at speed 2, log time 2024-01-01T00:00:01Z, 2 records gone; units 3 in, 2 out, 0 dropped, 1 waiting; up "*" s"* ]] ||
	    { echo "$output" >&2; false; }
	[[ $output == *"$b"*" capped "*"replay at speed 1, no log time yet, 0 records gone, ceiling 5/s, burst 1; units 0 in"* ]] ||
	    { echo "$output" >&2; false; }
	run -0 --separate-stderr "$TB" --list --json
	[[ $output == *'"name":"replaying","answering":true,"limit":"none","replay":{"speed":2,"log_time":"2024-01-01T00:00:01Z","records":2,"pass":1},"units_in":3,'* ]] ||
	    { echo "$output" >&2; false; }
	stop_named replaying "$a"
	stop_named capped "$b"
}

@test "-R NAME --stats returns the report; --stats=json as JSON" {
	local a
	start_named reporter -r 1/min
	a=$pid
	printf 'a\nb\n' >&"$feed_reporter"
	wait_for "reporter to read 2" stat_ge reporter units_in 2
	run -0 --separate-stderr "$TB" -R reporter --stats
	[[ $output == "tbthrottle: units 2 in, 1 out, 0 dropped, 1 waiting; "* ]] ||
	    { echo "$output" >&2; false; }
	run -0 --separate-stderr "$TB" -R reporter --stats=json
	[[ $output == '{"units_in":2,"units_out":1,'* ]] ||
	    { echo "$output" >&2; false; }
	run -0 --separate-stderr "$TB" -R "$a" --stats
	[[ $output == "tbthrottle: units 2 in"* ]]
	stop_named reporter "$a"
}

@test "a request is answered at once while the run waits for input" {
	local a t0 t1
	start_named idle -r 1/s
	a=$pid
	t0=$(now_ms)
	run -0 --separate-stderr "$TB" -R idle -r 2/s
	t1=$(now_ms)
	# A run that answered only once input came would leave -R to give
	# up at 5 s (exit 1, above); the round trip, a process start
	# included, is well within that on a busy machine too.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 4000 \
	    "round trip (ms)"
	stop_named idle "$a"
}

@test "-R to a name nobody holds, and --list with none running" {
	run -1 --separate-stderr "$TB" -R nobody-here -r 1/s
	# It says where it looked: the runtime directory, then the cache's.
	[[ $stderr == *"no running tbthrottle of yours is named 'nobody-here' (looked in $XDG_RUNTIME_DIR/tbthrottle, $HOME/.cache/tbthrottle/"*"; see --list)" ]] ||
	    { echo "$stderr" >&2; return 1; }
	run -0 --separate-stderr "$TB" --list
	assert_eq "$output" "PID      NAME             LIMITS; UNITS IN, OUT, DROPPED, WAITING; AGE" "the header alone"
	run -0 --separate-stderr "$TB" --list --json
	assert_eq "$output" "" "no run, no object"
	run -0 --separate-stderr "$TB" --list
	[[ $output != *nobody-here* ]]
}

@test "--name refuses what could not be a name" {
	run -2 --separate-stderr tb --name 123 -r 1/s
	[[ $stderr == *"invalid --name '123'"* ]]
	run -2 --separate-stderr tb --name .x -r 1/s
	[[ $stderr == *"invalid --name '.x'"* ]]
	run -2 --separate-stderr tb --list -r 1/s
	[[ $stderr == *"--list takes no other options"* ]]
}

@test "another user cannot ask: the socket's directory and the peer check keep them out" {
	[[ $(id -u) == 0 ]] || skip "needs root to act as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local a d=$BATS_TEST_TMPDIR
	start_named private -r 1/min
	a=$pid
	cp "$TB" "$d/tb"
	chmod 755 "$d" "$d/tb"
	run -1 --separate-stderr env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups "$d/tb" \
	    -R "$a" -r 1/s
	[[ $stderr == *"another user"* ]] || { echo "$stderr" >&2; false; }
	stop_named private "$a"
}

@test "a name shaped like a temporary bucket keeps its link when --shared sweeps" {
	local name=a.bucket.2147483646.tmp
	start_run --name "$name" -r 1/min
	run -0 --separate-stderr bash -c 'seq 2 | tb --shared swept -r 1k/s'
	[[ -L $XDG_RUNTIME_DIR/tbthrottle/name.$name ]]
	run -0 --separate-stderr tb -R "$name" --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	stop_run "$pid"
}

@test "as root, -R to another user's process says whose it is" {
	[[ $(id -u) == 0 ]] || skip "needs root to run a process as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local a
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 3>&- &
	a=$!
	started+=("$a")
	run -1 --separate-stderr tb -R "$a" -r 1/s
	assert_msg "$stderr" "process $a belongs to another user"
	kill "$a"
	wait "$a" || true
}

# silent PID N [MORE]: N (and MORE) connections to the socket of PID that
# never ask (tests/tools/silent), in the background, their pid in $spid; what
# they report goes to $BATS_TEST_TMPDIR/silent.PID once they are connected.
silent() {
	local out=$BATS_TEST_TMPDIR/silent.$1 i
	[[ -x $BATS_TEST_DIRNAME/tools/silent ]] || {
		echo "tests/tools/silent is missing: run make tests/tools/silent" \
		    "(make check builds it)" >&2
		return 1
	}
	"$BATS_TEST_DIRNAME/tools/silent" "$XDG_RUNTIME_DIR/tbthrottle/$1" "${@:2}" \
	    >"$out" 3>&- &
	spid=$!
	started+=("$spid")
	wait_for "silent to connect to $1" test -s "$out"
}

# holds PID N: the run PID holds N connections to its socket or more
# (Linux's /proc: its descriptors that are sockets, less the one it
# listens on).  Without /proc, it says so at once.
holds() {
	local n
	[[ -d /proc/$1/fd ]] || return 0
	n=$(find "/proc/$1/fd" -lname 'socket:*' 2>/dev/null | wc -l)
	((n - 1 >= $2))
}

# out_while_held PID FILE N: FILE holds N lines or more, all written
# while PID held its 16 connections: once it holds fewer, the wait ends
# at once.  The lines are counted first, so that what is counted went
# out before the connections were seen still held.
out_while_held() {
	local n
	n=$(wc -l <"$2")
	if ! holds "$1" 16; then
		echo "the run closed a connection before $3 lines were out" \
		    "(it had $n)" >&2
		# shellcheck disable=SC2034 # read by wait_for
		WAIT_GAVE_UP=1
		return 1
	fi
	((n >= $3))
}

@test "connections that never ask do not hold up the schedule, and are closed after 1 s" {
	local a n0 ms
	start_named busy -r 100/s
	a=$pid
	seq 1000 >&"$feed_busy"
	wait_for "the first lines out" has_lines "$BATS_TEST_TMPDIR/out.busy" 1
	silent "$a" 16
	wait_for "the run to take the 16 connections" holds "$a" 16
	n0=$(wc -l <"$BATS_TEST_TMPDIR/out.busy")
	# 100 lines a second are due while the peers wait, for their second;
	# a run that waited for a request would release none until it closed
	# them (or for 16 s, one after the other), but for one it may have
	# been sending as it took them.  5 lines are half a tenth of that
	# second, whatever a busy machine's late wake-ups cost.
	wait_for "5 lines out while the 16 silent peers wait" \
	    out_while_held "$a" "$BATS_TEST_TMPDIR/out.busy" "$((n0 + 5))"
	wait "$spid"
	assert_eq "$(grep -c '^closed' "$BATS_TEST_TMPDIR/silent.$a")" 16 \
	    "connections closed"
	# Never before their second; a run that closed them one after the
	# other, each after the last one's second, would close the last at
	# 16 s, and one that never did, never (silent gives up after 60 s).
	# 5 s leaves a busy machine its slowness.
	while read -r _ ms; do
		assert_ge "$ms" 1000 "a silent connection closed after (ms)"
		assert_le "$ms" 5000 "a silent connection closed after (ms)"
	done < <(grep '^closed' "$BATS_TEST_TMPDIR/silent.$a")
	stop_named busy "$a"
}

@test "a stop is prompt while 16 connections never ask" {
	local a t0
	start_named stoppable -r 100/s
	a=$pid
	silent "$a" 16
	wait_for "the run to take the 16 connections" holds "$a" 16
	t0=$(now_ms)
	kill -TERM "$a"
	wait_for "the run to end" is_gone "$a"
	# A run that waited for each peer's second in turn would take 16 s;
	# 8 s leaves a busy machine its slowness.
	assert_le "$(elapsed_ms "$t0")" 8000 "time to stop (ms)"
	wait "$a" || true
	kill_ours TERM "$spid"
	eval "exec ${feed_stoppable}>&-"
}

@test "beyond 16 connections waiting to ask, the oldest is closed, and -R is still answered" {
	local a early
	start_named crowded -r 1/min
	a=$pid
	# 16, then 4 more by the same process as soon as the run takes them:
	# no process start between, which a busy machine could stretch past
	# the first ones' second.
	silent "$a" 16 4
	run -0 --separate-stderr tb -R crowded --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	wait "$spid"
	assert_eq "$(head -n 1 "$BATS_TEST_TMPDIR/silent.$a")" "connected 20" \
	    "connections made"
	# The 4 of the first 16 that had waited longest made way for the
	# next 4 (and one more, for -R, if it came within their second),
	# before their second was up; no other closes before it.  A close
	# for the second is never seen before 1000 ms: silent takes its
	# time before it connects, the run starts the second after it
	# accepts.  A run that made no way for them closes none before.
	early=$(awk '$1 == "closed" && $2 < 1000' "$BATS_TEST_TMPDIR/silent.$a" | wc -l)
	assert_ge "$early" 4 "connections closed early"
	assert_le "$early" 5 "connections closed early"
	stop_named crowded "$a"
}

@test "--list waits 5 s in all for stopped runs, even one whose backlog is full, and says they do not answer" {
	local a b c t0 ms
	start_named frozen -r 1/min
	a=$pid
	start_named still -r 1/min
	b=$pid
	start_named awake -r 1/min
	c=$pid
	kill -STOP "$a" "$b"
	# 17 connections fill the listen backlog of 16: a connect would wait.
	silent "$a" 20
	[[ $(head -n 1 "$BATS_TEST_TMPDIR/silent.$a") == "connected 17" ]]
	t0=$(now_ms)
	TB_LIMIT=14 run -0 --separate-stderr tb --list
	ms=$(elapsed_ms "$t0")
	# Both are asked at once: 5 s for the two, not 5 s each.
	assert_ge "$ms" 5000 "time of --list (ms)"
	assert_le "$ms" 8500 "time of --list (ms)"
	[[ $output == *"$a"*" frozen "*"not answering"* ]] || { echo "$output" >&2; false; }
	[[ $output == *"$b"*" still "*"not answering"* ]] || { echo "$output" >&2; false; }
	[[ $output == *"$c"*" awake "*"1/min, burst 1; units 0 in"* ]] ||
	    { echo "$output" >&2; false; }
	# Neither stops -R from reaching another run at once.
	t0=$(now_ms)
	TB_LIMIT=14 run -0 --separate-stderr tb -R awake --stats
	# Held by the stopped ones it would take their 5 s.
	assert_le "$(elapsed_ms "$t0")" 4000 "time of -R awake (ms)"
	kill "$spid"
	kill -CONT "$a" "$b"
	stop_named frozen "$a"
	stop_named still "$b"
	stop_named awake "$c"
}

@test "-R gives a stopped run 5 s, and what it asked is not done when the run goes on" {
	local a t0 ms
	start_named paused -r 1/min
	a=$pid
	kill -STOP "$a"
	t0=$(now_ms)
	TB_LIMIT=14 run -1 --separate-stderr tb -R paused -r 50/s
	ms=$(elapsed_ms "$t0")
	assert_msg "$stderr" "no answer from paused within 5 s; nothing was changed"
	assert_ge "$ms" 5000 "time of -R (ms)"
	assert_le "$ms" 8000 "time of -R (ms)"
	kill -CONT "$a"
	run -0 --separate-stderr tb -R paused --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	stop_named paused "$a"
}

@test "-R to a stopped run whose backlog is full gives up after 5 s" {
	local a t0 ms
	start_named jammed -r 1/min
	a=$pid
	kill -STOP "$a"
	silent "$a" 20
	t0=$(now_ms)
	TB_LIMIT=14 run -1 --separate-stderr tb -R "$a" --stats
	ms=$(elapsed_ms "$t0")
	assert_msg "$stderr" "no answer from $a within 5 s; nothing was changed"
	assert_ge "$ms" 5000 "time of -R (ms)"
	assert_le "$ms" 8000 "time of -R (ms)"
	kill "$spid"
	kill -CONT "$a"
	stop_named jammed "$a"
}

# at_most_one_alive PID...: no more than one of PID... runs.
at_most_one_alive() {
	local p n=0
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && n=$((n + 1))
	done
	((n <= 1))
}

@test "runs started at once over a name whose run was killed: one takes it, the others are refused" {
	local trial i p alive holder pids err go=$BATS_TEST_TMPDIR/go
	for ((trial = 1; trial <= 10; trial++)); do
		start_named "gone$trial" -r 1/min
		kill -KILL "$pid"
		wait "$pid" || true
		mv "$XDG_RUNTIME_DIR/tbthrottle/name.gone$trial" \
		    "$XDG_RUNTIME_DIR/tbthrottle/name.race"
		# Each start waits to open the FIFO go, so that all go at once.
		rm -f "$go"
		mkfifo "$go"
		pids=()
		for i in 1 2 3 4 5 6; do
			"$TB" --name race -r 1/min <"$go" >/dev/null \
			    2>"$BATS_TEST_TMPDIR/race.$i" 3>&- &
			pids+=($!)
			started+=($!)
		done
		exec {gofd}>"$go"
		# Until the ones refused have ended (two holders never will).
		wait_for "one run left of trial $trial" at_most_one_alive "${pids[@]}"
		alive=0
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && alive=$((alive + 1)) && holder=$p
		done
		assert_eq "$alive" 1 "live runs named race, trial $trial"
		assert_eq "$(readlink "$XDG_RUNTIME_DIR/tbthrottle/name.race")" \
		    "$holder" "the name's link"
		for i in 1 2 3 4 5 6; do
			err=$(cat "$BATS_TEST_TMPDIR/race.$i")
			[[ -z $err || $err == *"(pid $holder) has this name" ]] ||
			    { echo "$err" >&2; false; }
		done
		kill "$holder"
		wait "${pids[@]}" || true
		eval "exec ${gofd}>&- ${feed}>&-"
	done
}

@test "a run removes, at start, the names that lead to its pid" {
	local d=$XDG_RUNTIME_DIR/tbthrottle
	mkdir -p -m 700 "$d"
	mkfifo "$BATS_TEST_TMPDIR/in"
	# The link is made by the process that then becomes the run.
	bash -c 'ln -s "$$" "$1/name.ghost" && exec "$2" -r 1/min' _ "$d" "$TB" \
	    <"$BATS_TEST_TMPDIR/in" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	pid=$!
	started+=("$pid")
	exec {feed}>"$BATS_TEST_TMPDIR/in"
	wait_running "$pid"
	[[ ! -L $d/name.ghost ]]
	run -0 --separate-stderr tb --list
	[[ $output == *"$pid"*" - "* ]] || { echo "$output" >&2; false; }
	stop_run "$pid"
}

@test "--name cannot take a file that is no name's link (a bucket of an older tbthrottle); a bucket of the same spelling is kept elsewhere now" {
	local d=$XDG_RUNTIME_DIR/tbthrottle
	start_run --shared name.clash -r 1/min
	run -0 --separate-stderr tb --name clash.bucket -r 1/s </dev/null
	stop_run "$pid"
	echo old >"$d/name.old.bucket"
	chmod 600 "$d/name.old.bucket"
	run -1 --separate-stderr tb --name old.bucket -r 1/s </dev/null
	assert_msg "$stderr" "--name old.bucket: $d/name.old.bucket is not a name's link (a --shared bucket of an older tbthrottle may have that name): choose another name"
	assert_eq "$(cat "$d/name.old.bucket")" old "the file left alone"
}

@test "a name whose run was killed does not lead -R to the process that took its pid" {
	local a d=$XDG_RUNTIME_DIR/tbthrottle
	start_run -r 1/min
	a=$pid
	# As if a run called victim had had this pid, and been killed.
	ln -s "$a" "$d/name.victim"
	run -1 --separate-stderr tb -R victim -r 50/s
	[[ $stderr == *"no running tbthrottle of yours is named 'victim' (looked in $XDG_RUNTIME_DIR/tbthrottle"*"; see --list)" ]] ||
	    { echo "$stderr" >&2; return 1; }
	run -0 --separate-stderr tb -R "$a" --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	# The link no live run holds is gone.
	[[ ! -L $d/name.victim ]]
	stop_run "$a"
}

# cpu_ticks PID: the user and system time PID has used, in clock ticks.
cpu_ticks() {
	local stat
	stat=$(cat "/proc/$1/stat")
	read -r -a f <<<"${stat##*) }"
	echo "$((f[11] + f[12]))"
}

@test "with no descriptor left to accept a request, the run waits for one without spinning, and answers once it has one" {
	local a fd free=0 t0 t1 hz
	command -v prlimit >/dev/null || skip "needs prlimit (util-linux)"
	start_named starved -r 1/min
	a=$pid
	# The lowest descriptor free in the run: with it as the limit, every
	# accept(2) fails with EMFILE.
	while [[ -e /proc/$a/fd/$free ]]; do free=$((free + 1)); done
	prlimit --pid "$a" --nofile="$free:"
	silent "$a" 1
	sleep 0.3
	t0=$(cpu_ticks "$a")
	sleep 2
	t1=$(cpu_ticks "$a")
	hz=$(getconf CLK_TCK)
	# A loop on a listening socket that cannot accept would use the 2 s.
	assert_le "$((t1 - t0))" "$((hz / 5))" "CPU ticks in 2 s with no descriptor"
	# With descriptors again, a request waiting is answered.
	prlimit --pid "$a" --nofile=1024:
	run -0 --separate-stderr tb -R starved --stats
	[[ $output == *"(limit 1/min, burst 1)"* ]] || { echo "$output" >&2; false; }
	kill_ours TERM "$spid"
	stop_named starved "$a"
}
