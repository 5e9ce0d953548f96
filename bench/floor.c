/*
 * floor: the least work a precise throttler can do, for the benchmark to
 * measure tbthrottle's CPU time against.
 *
 *   floor [-c | -l | -s] RATE BURST QUANTUM < input
 *
 * RATE units per second (a whole number), a bucket of BURST units, and
 * QUANTUM units gathered per wake-up: the numbers tbthrottle derives from
 * its options (see limits.c: the units worth 0.5 ms of the rate for
 * records, 1 ms for bytes, at least 1, at most the burst and 131072).  A
 * unit is a line (-l, the default) or a byte (-c).  With -s, bytes are not
 * read at all but moved with splice(2), from a pipe or a file to a pipe
 * grown to 256 KiB as tbthrottle grows them: the floor of its splice path.
 *
 * It keeps tbthrottle's schedule and nothing else: BURST units at once at
 * the start, then unit k (1-based) due (k - BURST) / RATE after it.  It
 * books up to QUANTUM of the units it holds, reading only when it holds
 * none; unless they are due already, sleeps with clock_nanosleep to the
 * absolute time the last of them is due; then writes in one write(2) every unit held whose token has
 * come by then.  A unit late by more than 10 ms (tbthrottle's default
 * --catch-up) loses its place, as in tbthrottle's bucket.  Its buffer is
 * as large as tbthrottle's, so it reads and writes the same chunks.  It
 * assumes the input never runs dry, as the benchmark's inputs do not.
 *
 * Build: cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra \
 *            -o bench/floor bench/floor.c
 */
#define _GNU_SOURCE /* splice(2), F_SETPIPE_SZ: Linux only, for -s */
#include <err.h>
#include <fcntl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define NS 1000000000ULL
#define BUF_BYTES (128 * 1024)	/* tbthrottle's ENGINE_BUF_BYTES */
#define CATCHUP_NS 10000000LL	/* tbthrottle's default --catch-up */
#define RATE_MAX 10000000000ULL /* keeps the products below 2^64 */

static char buf[BUF_BYTES];
static bool bytes, spliced;
static uint64_t rate, burst;
static int64_t base_ns; /* tokens earned since base_ns ... */
static uint64_t taken;	/* ... of which taken so far */

static int64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NS + ts.tv_nsec;
}

/* Whole tokens the rate earns from base_ns to t_ns (t_ns >= base_ns). */
static uint64_t
earned(int64_t t_ns)
{
	uint64_t e = (uint64_t)(t_ns - base_ns);

	return e / NS * rate + e % NS * rate / NS;
}

/* When n units (n <= burst) have their tokens. */
static int64_t
due_ns(uint64_t n)
{
	uint64_t need = n + taken - burst;

	if (n + taken <= burst)
		return base_ns;
	return base_ns +
	    (int64_t)(need / rate * NS + (need % rate * NS + rate - 1) / rate);
}

/* Bytes of b[0..len) in at most max whole units, their count in *units. */
static size_t
span(const char *b, size_t len, bool eof, uint64_t max, uint64_t *units)
{
	const char *p = b, *end = b + len, *nl;

	*units = 0;
	if (bytes) {
		*units = len < max ? len : max;
		return (size_t)*units;
	}
	while (*units < max && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		p = nl + 1;
		++*units;
	}
	if (eof && p < end && *units < max) { /* a last line without '\n' */
		p = end;
		++*units;
	}
	return (size_t)(p - b);
}

/* -s: move len bytes in the kernel; false at the end of the input. */
static bool
splice_out(size_t len)
{
	while (len > 0) {
		ssize_t got = splice(STDIN_FILENO, NULL, STDOUT_FILENO, NULL,
		    len, SPLICE_F_MOVE);

		if (got == 0)
			return false;
		if (got < 0 && errno != EINTR)
			err(1, "splice");
		len -= got > 0 ? (size_t)got : 0;
	}
	return true;
}

static uint64_t
number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > RATE_MAX)
		errx(2, "invalid %s '%s'", what, s);
	return v;
}

int
main(int argc, char *argv[])
{
	uint64_t quantum, units;
	size_t head = 0, tail = 0, len;
	bool eof = false;
	int64_t now;

	if (argc > 1 &&
	    (strcmp(argv[1], "-c") == 0 || strcmp(argv[1], "-l") == 0 ||
		strcmp(argv[1], "-s") == 0)) {
		bytes = argv[1][1] != 'l';
		spliced = argv[1][1] == 's';
		argc--;
		argv++;
	}
	if (argc != 4)
		errx(2,
		    "usage: floor [-c | -l | -s] RATE BURST QUANTUM < input");
	if (spliced) {
		(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, 256 * 1024);
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 256 * 1024);
	}
	rate = number(argv[1], "rate");
	burst = number(argv[2], "burst");
	quantum = number(argv[3], "quantum");
	if (quantum > burst)
		errx(2, "the quantum is at most the burst");
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* as tbthrottle */
#endif
	base_ns = now_ns();
	for (;;) {
		struct timespec ts;
		int64_t at;
		ssize_t got;

		span(buf + head, tail - head, eof, quantum, &units);
		if (units == 0 && eof)
			return 0;
		if (units == 0 && spliced) {
			head =
			    0; /* as many bytes as a buffer, left in the input */
			tail = sizeof buf;
			continue;
		}
		if (units == 0) {
			if (tail == sizeof buf && head == 0)
				errx(1, "a line longer than %d bytes",
				    BUF_BYTES);
			if (tail == sizeof buf) {
				memmove(buf, buf + head, tail - head);
				tail -= head;
				head = 0;
			}
			got = read(STDIN_FILENO, buf + tail, sizeof buf - tail);
			if (got < 0 && errno != EINTR)
				err(1, "read");
			eof = got == 0;
			tail += got > 0 ? (size_t)got : 0;
			continue;
		}
		at = due_ns(units);
		ts.tv_sec = (time_t)(at / (int64_t)NS);
		ts.tv_nsec = (long)(at % (int64_t)NS);
		/* Already due after a late wake-up or a slow write: no sleep. */
		if (now_ns() < at)
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				   &ts, NULL) == EINTR)
				;
		now = now_ns();
		/* Later than the catch-up: the bucket fills no fuller. */
		if (now - CATCHUP_NS > base_ns &&
		    earned(now - CATCHUP_NS) >= taken) {
			base_ns = now - CATCHUP_NS;
			taken = 0;
		}
		len = span(buf + head, tail - head, eof,
		    burst + earned(now) - taken, &units);
		taken += units;
		if (spliced) {
			if (!splice_out(len))
				return 0;
			head += len;
			len = 0;
		}
		while (len > 0) {
			got = write(STDOUT_FILENO, buf + head, len);
			if (got < 0 && errno != EINTR)
				err(1, "write");
			head += got > 0 ? (size_t)got : 0;
			len -= got > 0 ? (size_t)got : 0;
		}
		if (head == tail)
			head = tail = 0;
	}
}
