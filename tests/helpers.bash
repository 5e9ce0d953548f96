# shellcheck shell=bash
# shellcheck disable=SC2154 # output and stderr are set by bats' run
# Shared helpers for the tbthrottle system tests (bats-core >= 1.5).
#
# Load with `load helpers` at the top of a .bats file.  Timing tests call
# build_stamp from setup_file and then run "$STAMP" -- "$TB" ARGS...

bats_require_minimum_version 1.5.0

# TB_UNDER_TEST runs the suite on another build or a wrapper (valgrind).
TB="${TB_UNDER_TEST:-$BATS_TEST_DIRNAME/../tbthrottle}"

# A hang must fail the test, not stall the suite (CI runs it twice, once
# under ASan+UBSan).
export BATS_TEST_TIMEOUT="${BATS_TEST_TIMEOUT:-30}"

# bats' timeout only kills the test's direct children: a tbthrottle that
# hangs inside `run` or a pipeline would keep the test's pipes open and
# stall the suite anyway.  So every run of tbthrottle has its own limit:
# tb() below for direct runs, stamp's built-in limit for timed runs.
export TB TB_LIMIT="${TB_LIMIT:-20}"

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
# stamp: the timestamping receiver.
#
# stamp starts its clock, then forks and runs CMD with standard output on a
# pipe it reads.  Its clock therefore starts before CMD's, so every time it
# reports is an upper bound on how long CMD had been running: a lower bound
# "line k arrives at >= X ms" needs no tolerance at all.
#
#   stamp [-c] [-i FILE [-I MS]] [-w MS] [-o FILE] [-p PIDFILE] -- CMD [ARG]...
#     default   one line per line read: "MS TEXT" (TEXT escaped, cut at 80
#               bytes); a final line without newline is reported too
#     -c        one line per read(2): "MS LEN LASTBYTE_HEX TOTAL_SO_FAR"
#     -i FILE   feed FILE to CMD's stdin through a pipe, all at once, 100 ms
#               (-I MS: MS ms) after the start, and print "IN MS" with the
#               time just before the first byte is written.  CMD has
#               started by then (even under ASan), so unit k of a token
#               bucket cannot leave before IN + (k - burst) / rate: a lower
#               bound from the input's arrival, not hidden by CMD's
#               start-up time.
#     -w MS     do not read the pipe before MS ms (a slow consumer)
#     -o FILE   also copy the raw bytes to FILE
#     -p FILE   write CMD's pid to FILE (atomically) once it is forked
#     -P BYTES  shrink the pipe to BYTES (Linux F_SETPIPE_SZ), so a
#               stalled reader blocks CMD sooner
#     -S        sockets (socketpair) instead of pipes, for -i too
#   The last line is "END MS STATUS", MS taken after CMD exited; stamp
#   exits with CMD's status (128+N when CMD was killed by signal N).
#   CMD is killed with SIGKILL (status 137) after $TB_LIMIT seconds.
#   CMD starts with every signal at its default disposition, unblocked, so
#   SIGINT works even though bats runs background jobs with it ignored.
# ---------------------------------------------------------------------------
build_stamp() {
	export STAMP="$BATS_FILE_TMPDIR/stamp"
	[[ -x $STAMP ]] && return 0
	cc -std=c11 -O2 -Wall -Wextra -o "$STAMP" -x c - <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec t0;
static volatile pid_t child;
static char rec[80];
static size_t reclen, rectotal;

static double
ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void
on_alarm(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

static void
flush_record(double at)
{
	printf("%.3f ", at);
	for (size_t i = 0; i < reclen; i++) {
		unsigned char c = (unsigned char)rec[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	if (rectotal > reclen)
		printf("...");
	putchar('\n');
	reclen = rectotal = 0;
}

int
main(int argc, char **argv)
{
	static char buf[1 << 16];
	int chunks = 0, opt, fd[2], status, out = -1, sock = 0, pipesz = 0;
	const char *limit = getenv("TB_LIMIT");
	struct sigaction sa;
	long wait_ms = 0, in_ms = 100;
	unsigned long long total = 0;
	const char *pidfile = NULL, *infile = NULL;
	int in[2] = { -1, -1 };
	pid_t pid, feeder = -1;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((opt = getopt(argc, argv, "+ci:I:w:o:p:P:S")) != -1) {
		switch (opt) {
		case 'c': chunks = 1; break;
		case 'i': infile = optarg; break;
		case 'I': in_ms = atol(optarg); break;
		case 'w': wait_ms = atol(optarg); break;
		case 'o':
			out = open(optarg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0) {
				perror(optarg);
				return 127;
			}
			break;
		case 'p': pidfile = optarg; break;
		case 'P': pipesz = atoi(optarg); break;
		case 'S': sock = 1; break;
		default: return 127;
		}
	}
	if (optind >= argc ||
	    (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, fd) : pipe(fd)) != 0 ||
	    (infile != NULL && (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0,
	    in) : pipe(in)) != 0)) {
		fprintf(stderr, "stamp: usage or setup error\n");
		return 127;
	}
#ifdef F_SETPIPE_SZ
	if (pipesz > 0 && !sock)
		(void)fcntl(fd[1], F_SETPIPE_SZ, pipesz);
#endif
	fflush(stdout);
	if (infile != NULL && (feeder = fork()) == 0) {
		struct timespec due = t0;
		int f = open(infile, O_RDONLY);

		close(fd[0]);
		close(fd[1]);
		close(in[0]);
		alarm(limit != NULL && atoi(limit) > 0 ? (unsigned)atoi(limit) : 20);
		if (f < 0) {
			perror(infile);
			_exit(127);
		}
		due.tv_sec += in_ms / 1000;
		due.tv_nsec += in_ms % 1000 * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due,
		    NULL) != 0)
			;
		printf("IN %.3f\n", ms());
		fflush(stdout);
		while ((n = read(f, buf, sizeof buf)) > 0)
			if (write(in[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	if ((pid = fork()) < 0) {
		fprintf(stderr, "stamp: fork failed\n");
		return 127;
	}
	if (pid == 0) {
		sigset_t none;

		for (int s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				(void)signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		if (infile != NULL) {
			dup2(in[0], STDIN_FILENO);
			close(in[0]);
			close(in[1]);
		}
		if (out >= 0)
			close(out);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(fd[1]);
	if (infile != NULL) {
		close(in[0]);
		close(in[1]);
	}
	child = pid;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;	/* no SA_RESTART: read must end */
	sigaction(SIGALRM, &sa, NULL);
	alarm(limit != NULL && atoi(limit) > 0 ? (unsigned)atoi(limit) : 20);
	if (pidfile != NULL) {
		char tmp[4096];
		FILE *fp;

		snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
		if ((fp = fopen(tmp, "w")) == NULL)
			return 127;
		fprintf(fp, "%ld\n", (long)pid);
		fclose(fp);
		rename(tmp, pidfile);
	}
	if (wait_ms > 0) {
		struct timespec ts = { wait_ms / 1000, wait_ms % 1000 * 1000000L };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	for (;;) {
		double at;

		n = read(fd[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at = ms();
		total += (unsigned long long)n;
		if (out >= 0 && write(out, buf, (size_t)n) != n) {
			perror("stamp: write");
			return 127;
		}
		if (chunks) {
			printf("%.3f %zd %02x %llu\n", at, n,
			    (unsigned char)buf[n - 1], total);
		} else {
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] == '\n') {
					flush_record(at);
					continue;
				}
				if (reclen < sizeof rec)
					rec[reclen++] = buf[i];
				rectotal++;
			}
		}
		fflush(stdout);
	}
	if (rectotal > 0)
		flush_record(ms());
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	alarm(0);
	if (feeder > 0)
		(void)waitpid(feeder, NULL, 0);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		fprintf(stderr, "stamp: %s killed after the time limit?\n",
		    argv[optind]);
	status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
	    WEXITSTATUS(status);
	printf("END %.3f %d\n", ms(), status);
	return status;
}
EOF
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
# signal handlers, shown by its control file, so that a signal sent next
# cannot find it still starting (at most 20 s).
wait_running() {
	local i dir uid
	uid=$(id -u)
	for ((i = 0; i < 2000; i++)); do
		for dir in "${XDG_RUNTIME_DIR:-/nonexistent}/tbthrottle" \
		    "/run/user/$uid/tbthrottle" "/dev/shm/tbthrottle-$uid" \
		    "/tmp/tbthrottle-$uid"; do
			[[ -e $dir/$1 ]] && return 0
		done
		sleep 0.01
	done
	echo "tbthrottle $1 did not start" >&2
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
# -b 10, each on plenty of lines, for 2 s; together they release at most
# 10 + 100/s over the whole time, and each gets some.
assert_four_share() {
	local d=$BATS_TEST_TMPDIR i t0 t1 total pids=()
	seq 100000 >"$d/in"
	t0=$(now_ms)
	for i in 1 2 3 4; do
		"$TB" "$@" -r 100/s -b 10 "$d/in" >"$d/out$i" &
		pids+=($!)
	done
	sleep 2
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
