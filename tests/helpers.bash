# shellcheck shell=bash
# shellcheck disable=SC2154 # output and stderr are set by bats' run
# Shared helpers for the tbthrottle system tests (bats-core >= 1.5).
#
# Load with `load helpers` at the top of a .bats file.  Timing tests call
# build_stamp from setup_file and then run "$STAMP" -- "$TB" ARGS...

bats_require_minimum_version 1.5.0

# TB_UNDER_TEST runs the suite on another build or a wrapper (valgrind).
TB="${TB_UNDER_TEST:-$BATS_TEST_DIRNAME/../tbthrottle}"

# A hang must fail the test, not stall the suite (CI runs it three times,
# once under ASan+UBSan beside two CPU-bound processes).  The limit is for
# hangs, not for speed: a test that takes some seconds on an idle machine
# starts dozens of processes, each of which a busy one may make ten times
# slower.  (A file that needs more sets it after loading this; bats starts
# a test's countdown before the test runs, so a test cannot set its own.)
export BATS_TEST_TIMEOUT="${BATS_TEST_TIMEOUT:-120}"

# bats' timeout only kills the test's direct children: a tbthrottle that
# hangs inside `run` or a pipeline would keep the test's pipes open and
# stall the suite anyway.  So every run of tbthrottle has its own limit:
# tb() below for direct runs, stamp's built-in limit for timed runs.
export TB TB_LIMIT="${TB_LIMIT:-20}"

# Shared buckets are kept in the state directory: each test its own, so
# that tests of one name running side by side never share a bucket.
if [[ -n ${BATS_TEST_TMPDIR:-} ]]; then
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
fi

# bucket_dir: where this test's runs keep their --shared buckets (the
# state directory of src/sys/rundir.c, this host's part of it).
bucket_dir() {
	local host
	host=$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')
	echo "$XDG_STATE_HOME/tbthrottle/$host"
}

# make_bucket_dir: make bucket_dir (and its parents) as tbthrottle would,
# private, and print it.
make_bucket_dir() {
	local d
	d=$(bucket_dir)
	mkdir -p "$d"
	chmod 700 "$XDG_STATE_HOME" "$XDG_STATE_HOME/tbthrottle" "$d"
	echo "$d"
}

# tb ARG...: run tbthrottle, killed after $TB_LIMIT seconds.  GNU timeout
# passes the exit status through, and re-raises a fatal signal, so
# PIPESTATUS still shows 141 for SIGPIPE.
tb() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -k 2 "$TB_LIMIT" "$TB" "$@"
	else
		"$TB" "$@"
	fi
}
export -f tb

# ---------------------------------------------------------------------------
# stamp: the timestamping receiver, tests/tools/stamp.c (its header comment
# describes its flags and output); make check builds it into tests/stamp.
# ---------------------------------------------------------------------------
build_stamp() {
	export STAMP="$BATS_TEST_DIRNAME/tools/stamp"
	if [[ ! -x $STAMP ]]; then
		echo "build_stamp: $STAMP is missing: run make tests/tools/stamp" \
		    "(make check builds it)" >&2
		return 1
	fi
}

# ---------------------------------------------------------------------------
# Reading stamp output (in $output after `run "$STAMP" ...`).
# ---------------------------------------------------------------------------

# Data lines start with a time; "IN" and "END" lines do not.
# Field F (default 1: the time) of the N-th data line.
stamp_field() {
	local n=$1 f=${2:-1}
	awk -v n="$n" -v f="$f" '$1 ~ /^[0-9]/ && ++i == n { print $f; exit }' \
	    <<<"$output"
}

# Number of data lines (records, or reads with -c).
stamp_count() {
	awk '$1 ~ /^[0-9]/' <<<"$output" | wc -l | tr -d ' '
}

# With -i: the time at which the input was written (0 without -i).
stamp_in() {
	awk '$1 == "IN" { t = $2 } END { print t + 0 }' <<<"$output"
}

# Time at which the command had exited.
stamp_end() {
	awk '$1 == "END" { print $2 }' <<<"$output"
}

# The text of the data lines, times stripped: compare to what is expected.
stamp_texts() {
	awk '$1 ~ /^[0-9]/ { sub(/^[^ ]* /, ""); print }' <<<"$output"
}

# With -c: time at which the TOTAL-th byte had arrived.
stamp_byte_time() {
	awk -v want="$1" '$1 ~ /^[0-9]/ && $4 >= want { print $1; exit }' \
	    <<<"$output"
}

# ---------------------------------------------------------------------------
# Numeric assertions with a readable failure message.
# ---------------------------------------------------------------------------

# The first 40 lines of $output, for failure messages.
show_output() {
	printf 'output was:\n' >&2
	awk 'NR <= 40; NR == 41 { print "..." }' <<<"$output" >&2
}

# assert_ge ACTUAL MIN WHAT
assert_ge() {
	if [[ -z $1 ]] || ! awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; then
		printf '%s: got %s, want >= %s\n' "$3" "${1:-<nothing>}" "$2" >&2
		show_output
		return 1
	fi
}

# assert_le ACTUAL MAX WHAT
assert_le() {
	if [[ -z $1 ]] || ! awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
		printf '%s: got %s, want <= %s\n' "$3" "${1:-<nothing>}" "$2" >&2
		show_output
		return 1
	fi
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
	if [[ $1 != "$2" ]]; then
		printf '%s: got [%s], want [%s]\n' "$3" "$1" "$2" >&2
		return 1
	fi
}

# Line k of a run (1-based) is released no earlier than (k - burst) / rate:
# assert_schedule BURST INTERVAL_MS COUNT [INITIAL_DELAY_MS]
# Checks the k-th record of stamp's $output for k = 1..COUNT, from the
# input's arrival with -i, else from stamp's start.  No tolerance: both are
# before anything tbthrottle could have released.
assert_schedule() {
	local burst=$1 step=$2 count=$3 delay=${4:-0} k due

	delay=$(awk -v d="$delay" -v t="$(stamp_in)" 'BEGIN { print d + t }')
	assert_eq "$(stamp_count)" "$count" "number of records"
	for ((k = 1; k <= count; k++)); do
		due=$(awk -v k="$k" -v b="$burst" -v s="$step" -v d="$delay" \
		    'BEGIN { x = k - b; if (x < 0) x = 0; printf "%.3f\n", d + x * s }')
		assert_ge "$(stamp_field "$k")" "$due" "record $k arrival (ms)"
	done
}

# plus MS MS: their sum (stamp's times have fractions).
plus() {
	awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'
}

# keyed N K [TAG]: N records "TAGk<i mod K> <i>", one a line, for -k 1.
keyed() {
	awk -v n="$1" -v k="$2" -v tag="${3:-}" 'BEGIN {
		for (i = 1; i <= n; i++) printf "%sk%d %d\n", tag, i % k, i }'
}

# assert_total_shapes ARG...: through tbthrottle ARG... -k 1 -r 100/s -b 5
# --total-rate 10/s --total-burst 2, 12 records of 4 keys, each of which
# could go at once, wait for the total: in input order, record 12 at >=
# (12 - 2) / 10 s = 1 s, and never early.
assert_total_shapes() {
	local in d=$BATS_TEST_TMPDIR
	keyed 12 4 >"$d/total-in"
	run -0 "$STAMP" -i "$d/total-in" -- "$TB" "$@" -k 1 -r 100/s -b 5 \
	    --total-rate 10/s --total-burst 2
	assert_eq "$(stamp_count)" 12 "records out" || return 1
	assert_eq "$(stamp_texts)" "$(cat "$d/total-in")" "in input order" ||
	    return 1
	in=$(stamp_in)
	assert_ge "$(stamp_field 3)" "$(plus "$in" 100)" "record 3 (ms)" &&
	    assert_ge "$(stamp_field 12)" "$(plus "$in" 1000)" \
		"record 12 (ms)" &&
	    assert_le "$(stamp_field 12)" "$(plus "$in" 5000)" \
		"record 12, late (ms)"
}

# Milliseconds on the wall clock, for measuring around kill and wait.
now_ms() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		local t=${EPOCHREALTIME/,/.}
		awk -v t="$t" 'BEGIN { printf "%.3f\n", t * 1000 }'
	else
		awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", t * 1000 }'
	fi
}

# wait_running PID: wait until tbthrottle PID (with a rate) has set up its
# signal handlers, shown by its control file (wait_running name.NAME: by
# its name's link), so that a signal sent next cannot find it still
# starting (at most WAIT_LIMIT s, as wait_for).  A PID that has ended
# fails at once: a run must outlast the wait however slow the machine,
# with input held open, not by being slow.  The control file is in the
# first of these that tbthrottle can use (src/sys/rundir.c): a directory per
# boot and host under HOME, hence the pattern.
wait_running() {
	wait_for "tbthrottle $1 to start" seen_running "$1"
}

# seen_running PID|name.NAME: wait_running's test; when PID has ended it
# sets WAIT_GAVE_UP, so that the wait fails at once.
seen_running() {
	local dir
	for dir in "${XDG_RUNTIME_DIR:-/nonexistent}/tbthrottle" \
	    "/run/user/$UID/tbthrottle" \
	    "${HOME:-/nonexistent}"/.cache/tbthrottle/*; do
		[[ -e $dir/$1 ]] && return 0
	done
	if [[ $1 =~ ^[0-9]+$ ]] && is_gone "$1"; then
		echo "tbthrottle $1 ended before it was seen running" >&2
		WAIT_GAVE_UP=1
	fi
	return 1
}

# stop_after SECONDS OUT ERR CMD...: run CMD in the background, output to
# OUT and ERR, send it SIGTERM after SECONDS and wait; its exit status is
# left in $stopped_status and its stderr in $stderr.
stop_after() {
	local secs=$1 out=$2 err=$3 pid
	shift 3
	"$@" >"$out" 2>"$err" &
	pid=$!
	wait_running "$pid"
	sleep "$secs"
	kill -s TERM "$pid"
	local st=0
	wait "$pid" || st=$?
	stopped_status=$st
	export stopped_status
	stderr=$(cat "$err")
}

# assert_four_share ARG...: four tbthrottles with ARG... plus -r 100/s
# -b 10, each on plenty of lines, for 2 s once all four run; together they
# release at most 10 + 100/s over the whole time, and each gets some.
# The time counts from before the first start, so a slow start only makes
# the bound looser.  The 2 s begin once each has set up (wait_running), and
# the stop waits until each has written a line and all together 100: a
# process starved for good, or a shared bucket that hands out nothing,
# still fails (the wait gives up after WAIT_LIMIT s), while one that was
# merely slow to start or to be scheduled is waited for.
assert_four_share() {
	local d=$BATS_TEST_TMPDIR i t0 t1 total pids=()
	seq 100000 >"$d/in"
	t0=$(now_ms)
	for i in 1 2 3 4; do
		"$TB" "$@" -r 100/s -b 10 "$d/in" >"$d/out$i" &
		pids+=($!)
	done
	if ! four_share_run "$d" "${pids[@]}"; then
		kill -TERM "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" || true
		return 1
	fi
	kill -TERM "${pids[@]}"
	wait "${pids[@]}" || true
	t1=$(now_ms)
	total=$(cat "$d"/out? | wc -l)
	assert_le "$total" "$(awk -v a="$t0" -v b="$t1" \
	    'BEGIN { printf "%d", 10 + (b - a) / 10 + 1 }')" "lines" || return 1
	assert_ge "$total" 100 "lines" || return 1
	for i in 1 2 3 4; do
		assert_ge "$(wc -l <"$d/out$i")" 1 "lines of process $i" || return 1
	done
}

# four_share_run DIR PID...: assert_four_share's waits, each of which
# fails when what it waits for never comes.
four_share_run() {
	local d=$1 pid i
	shift
	for pid in "$@"; do
		wait_running "$pid" || return 1
	done
	sleep 2
	for i in 1 2 3 4; do
		wait_for "a line from process $i" has_lines "$d/out$i" 1 ||
		    return 1
	done
	wait_for "100 lines from the four" has_lines_all 100 "$d"/out?
}

# has_lines_all N FILE...: the FILEs hold at least N lines together.
has_lines_all() {
	local n=$1
	shift
	(($(cat "$@" 2>/dev/null | wc -l) >= n))
}

# children_cpu_ms VAR: set VAR to the CPU time, user and system, in whole
# ms, of the processes this shell has started and waited for: around a
# run, what it cost, which a busy machine leaves as it is while it
# stretches the wall clock.  It must run in this shell, not in $(...):
# a subshell has waited for none, and would always say 0.
children_cpu_ms() {
	local f=$BATS_TEST_TMPDIR/.times
	times >"$f"
	printf -v "$1" '%s' "$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
	    split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
	    printf "%d\n", t * 1000 }' "$f")"
}

# elapsed_ms T0: whole ms since T0 (from now_ms).
elapsed_ms() {
	awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%d", b - a }'
}

# wait_for WHAT CMD...: poll every 10 ms until CMD succeeds, for at most
# WAIT_LIMIT seconds (default 20): what a test waits for instead of
# sleeping for as long as an idle machine would need.  The limit is a busy
# machine's, not an idle one's: only what never comes fails.  CMD sets
# WAIT_GAVE_UP to end the wait at once, when what it waits for never can
# come.
wait_for() {
	local what=$1 deadline=$((SECONDS + ${WAIT_LIMIT:-20}))
	shift
	WAIT_GAVE_UP=
	until "$@"; do
		[[ -z $WAIT_GAVE_UP ]] || return 1
		if ((SECONDS > deadline)); then
			echo "gave up after ${WAIT_LIMIT:-20} s waiting for $what" >&2
			return 1
		fi
		sleep 0.01
	done
}

# has_lines FILE N: FILE holds at least N lines.
has_lines() {
	[[ -e $1 ]] && (($(wc -l <"$1") >= $2))
}

# has_text FILE TEXT: FILE holds TEXT.
has_text() {
	grep -qF -- "$2" "$1" 2>/dev/null
}

# is_named PID NAME: PID is a process whose name (its comm) NAME matches,
# a glob.
is_named() {
	local comm
	comm=$(cat "/proc/$1/comm" 2>/dev/null ||
	    ps -o comm= -p "$1" 2>/dev/null) || return 1
	# shellcheck disable=SC2053 # NAME is a glob
	[[ $comm == $2 ]]
}

# is_child PID: PID is a process of which this shell is the parent.
is_child() {
	local stat ppid
	if [[ -r /proc/$1/stat ]]; then
		read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
		read -r _ ppid _ <<<"${stat##*) }"
	else
		ppid=$(ps -o ppid= -p "$1" 2>/dev/null) || return 1
	fi
	((ppid == BASHPID))
}

# kill_ours SIGNAL PID [NAME]: send SIGNAL to PID only while it is still
# the process the test started: with NAME, one whose name NAME matches
# (is_named); without, a child of this shell.  A process that ended
# leaves its pid free, and a machine that hands pids out again within
# minutes (pid_max 32768) may give it to a stranger, another test's run,
# which a signal meant for the dead would hit.
kill_ours() {
	[[ $2 =~ ^[0-9]+$ ]] || return 0
	if [[ -n ${3:-} ]]; then
		is_named "$2" "$3" || return 0
	else
		is_child "$2" || return 0
	fi
	kill -s "$1" "$2" 2>/dev/null || true
}

# is_gone PID: PID has ended (gone, or a zombie not yet reaped).  With
# /proc, no process is started to tell, as a poll every 10 ms would.
is_gone() {
	local stat
	kill -0 "$1" 2>/dev/null || return 0
	if [[ -r /proc/$1/stat ]]; then
		read -r stat <"/proc/$1/stat" 2>/dev/null || return 0
		[[ ${stat##*) } == Z* ]]
	else
		[[ $(ps -o stat= -p "$1" 2>/dev/null) == Z* ]]
	fi
}

# stat_of NAME|PID FIELD: number field FIELD of the run's live report
# (-R --stats=json), the totals'; nothing when the run did not answer.
stat_of() {
	"$TB" -R "$1" --stats=json 2>/dev/null |
	    sed -n 's/,"tiers":.*//; s/^{.*"'"$2"'":\([0-9]*\).*/\1/p'
}

# stat_ge NAME|PID FIELD N: field FIELD of the run's live report (-R
# --stats=json) is at least N.
stat_ge() {
	local n
	n=$(stat_of "$1" "$2")
	[[ -n $n ]] && ((n >= $3))
}

# handled PID SIG: signal SIG is no longer pending for PID (its SigPnd and
# ShdPnd in /proc/PID/status): it has been delivered, and a handler
# started, so that the same signal sent next is one more, not merged with
# it.  Where /proc cannot tell, it says so and the wait gives up.
handled() {
	local n mask line
	n=$(kill -l "$2") || return 1
	if [[ ! -r /proc/$1/status ]]; then
		is_gone "$1" && return 0
		echo "no /proc/$1/status to tell whether SIG$2 came" >&2
		WAIT_GAVE_UP=1
		return 1
	fi
	while read -r line; do
		case $line in
		SigPnd:* | ShdPnd:*)
			mask=${line##*[[:space:]]}
			(((16#$mask >> (n - 1)) & 1)) && return 1
			;;
		esac
	done <"/proc/$1/status"
	return 0
}

# is_asleep PID: PID is waiting in the kernel (state S), as a run blocked
# on its input or sleeping for a deadline is.
is_asleep() {
	local stat
	if [[ -r /proc/$1/stat ]]; then
		read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
		stat=${stat##*) }
		[[ ${stat%% *} == S ]]
	else
		[[ $(ps -o stat= -p "$1" 2>/dev/null) == S* ]]
	fi
}

# Poll until FILE is non-empty (at most 10 s).
wait_for_output() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.01
	done
	echo "timed out waiting for output in $1" >&2
	return 1
}

# but_slow_handshakes: $stderr without the lines of a link to Redis that
# took more than its 1 s on a busy machine (a TLS handshake under ASan
# may), each said, waited for and reached again: what is left is what the
# run said of the server itself.
but_slow_handshakes() {
	stderr=$(grep -v -e '; waiting for it$' -e ': reached again$' \
	    <<<"$stderr" || true)
}

# Exactly one line on stderr (run --separate-stderr), for usage errors.
assert_one_stderr_line() {
	local lines
	lines=$(printf '%s' "$stderr" | awk 'END { print NR }')
	if [[ $lines != 1 || -z $stderr ]]; then
		printf 'want exactly one stderr line, got %s:\n%s\n' \
		    "$lines" "$stderr" >&2
		return 1
	fi
}

# assert_msg TEXT WANT: TEXT is one message line, WANT after the program's
# name (which is not "tbthrottle" when TB_UNDER_TEST names another file).
assert_msg() {
	if [[ $1 != *": $2" || $1 == *$'\n'* ]]; then
		printf 'want one line "PROGRAM: %s", got [%s]\n' "$2" "$1" >&2
		return 1
	fi
}

# json_field NAME: the value of number field NAME of the JSON report
# (--stats=json) on stderr (run --separate-stderr): the totals', not a
# tier's.
json_field() {
	sed -n 's/,"tiers":.*//; s/^{.*"'"$1"'":\([0-9.e+-]*\).*/\1/p' <<<"$stderr"
}

# linux_only WHAT: skip the test, saying why, on a build without the paths
# only Linux has (make PORTABLE=1), which WHAT needs.
linux_only() {
	if "$TB" -V | grep -q 'portable build'; then
		skip "a portable build has no $1"
	fi
}

# ---------------------------------------------------------------------------
# strace: when a run's system calls were made, as the kernel saw them.
# ---------------------------------------------------------------------------

# needs_strace: skip the test where strace(1) is missing or cannot trace.
needs_strace() {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	strace -f -qq --seccomp-bpf -e trace=execve \
	    --absolute-timestamps=format:unix,precision:ns -o /dev/null true \
	    2>/dev/null || skip "strace cannot trace here"
}

# traced CALL LOG CMD [ARG]...: run CMD, and every process it starts,
# under strace, logging each system call CALL to LOG as "PID
# SECONDS.NANOSECONDS CALL(...) = RESULT": the time, on the wall clock,
# that the call was entered.  strace takes it while the caller is stopped
# at the call, so a command's execve is logged before posix_spawn(3)
# returns in the process that started it (it returns once the exec is
# done), and a write before it returns: no later than tbthrottle can
# know the unit went.  CMD is killed after 3 x $TB_LIMIT seconds.
# A build with ASan looks for leaks by no means a traced process has.
traced() {
	local call=$1 log=$2
	shift 2
	# strace -f slows every process it follows, several times over on a
	# busy machine: three times the limit.
	if command -v timeout >/dev/null 2>&1; then
		set -- timeout -k 2 "$((TB_LIMIT * 3))" "$@"
	fi
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -qq --seccomp-bpf -e trace="$call" -e signal=none \
	    --absolute-timestamps=format:unix,precision:ns -o "$log" "$@"
}

# execs LOG PATH: "SECONDS.NANOSECONDS 1" for each execve of PATH logged
# in LOG by traced, in order of time.
execs() {
	awk -v p="execve(\"$2\"," 'index($3, p) == 1 { print $2, 1 }' "$1" |
	    sort -n
}

# most_in_span NS: of the lines "SECONDS.NANOSECONDS UNITS" on standard
# input, in order of time, the most units made less than NS ns apart from
# first to last: what a sliding window of NS ns held at those times.
# Exact: the times are taken apart as whole nanoseconds.
most_in_span() {
	awk -v w="$1" '
	    { split($1, p, "."); if (NR == 1) s0 = p[1]
	      t[NR] = (p[1] - s0) * 1e9 + p[2]; u[NR] = $2 }
	    END {
		j = 1
		for (i = 1; i <= NR; i++) {
			sum += u[i]
			while (t[i] - t[j] >= w)
				sum -= u[j++]
			if (sum > most)
				most = sum
		}
		print most + 0
	    }'
}

# written LOG FILE: "SECONDS.NANOSECONDS N" for each write to standard
# output logged in LOG by traced (write), in order of time, N the lines
# of FILE that it completed: FILE is what the run copied, in order, so
# the bytes written so far tell how many of its lines are out.
written() {
	awk '$3 ~ /^write\(1,/ && $NF + 0 > 0 { print $2, $NF }' "$1" |
	    sort -n |
	    awk 'NR == FNR { end[FNR] = end[FNR - 1] + length($0) + 1; next }
		{ b += $2; n = k
		  while ((k + 1) in end && end[k + 1] <= b) k++
		  print $1, k - n }' "$2" -
}

# most_in_windows NS SLACK_NS: of the lines as most_in_span's, the most
# units in one window of NS ns (dividing a second) aligned to the wall
# clock, as -a fixed aligns them, leaving out the last SLACK_NS of each.
# tbthrottle reads the wall clock's offset once at start, its second read
# a little after the first, so its windows begin at most that much before
# the wall clock's: a unit it counts in the next window may fall at the end
# of this one, and is not counted here.
most_in_windows() {
	awk -v w="$1" -v slack="$2" '
	    { split($1, p, ".")
	      if (p[2] % w < w - slack) n[p[1] "." int(p[2] / w)] += $2 }
	    END { for (k in n) if (n[k] > most) most = n[k]; print most + 0 }'
}

# refused_once FILE SECONDS: a command at FILE that stamps each start
# ("NS RECORD TRY", to FILE.starts) and refuses record a's first try,
# asking through TBTHROTTLE_RETRY_AFTER for SECONDS; every other try
# succeeds.
refused_once() {
	cat >"$1" <<SCRIPT
#!/bin/sh
echo "\$(date +%s%N) \$1 \$TBTHROTTLE_TRY" >>"\$0.starts"
[ "\$1.\$TBTHROTTLE_TRY" = a.1 ] || exit 0
echo $2 >"\$TBTHROTTLE_RETRY_AFTER"
exit 75
SCRIPT
	chmod +x "$1"
}

# quotad ARG...: start tests/tools/quotad.py, an HTTP server that keeps a
# quota, with ARGs; URL is its root, its log of requests
# $BATS_TEST_TMPDIR/requests.  quotad_stop (in teardown) stops it.
quotad() {
	local d=$BATS_TEST_TMPDIR
	python3 "$BATS_TEST_DIRNAME/tools/quotad.py" --port-file "$d/port" \
	    --log "$d/requests" "$@" 3>&- &
	echo $! >"$d/quotad.pid"
	wait_for "quotad's port" test -s "$d/port"
	# shellcheck disable=SC2034 # URL: for the test that called this
	URL=http://127.0.0.1:$(cat "$d/port")/
}

quotad_stop() {
	if [[ -e $BATS_TEST_TMPDIR/quotad.pid ]]; then
		kill_ours TERM "$(cat "$BATS_TEST_TMPDIR/quotad.pid")" 'python3*'
	fi
}
