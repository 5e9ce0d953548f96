/*
 * count: how fast framer.c finds delimiters, against plain byte loops, in
 * GB/s over a 128 KiB buffer that stays in cache.  The lines are random
 * in length around 8, 40 and 1000 bytes; each call walks the buffer as
 * the engine does:
 *
 *   count      framer_count over the whole buffer
 *   span all   framer_span with no limit on units
 *   span 64    framer_span 64 records a call, to the buffer's end
 *   span 1     framer_span one record a call
 *   whole      framer_whole from the end, one record a call
 *
 * The result is a Markdown table on standard output.  usage: count [delim]
 * with delim a byte value (default 10, newline).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "framer.h"

#define LEN (128 * 1024)
#define SECONDS 0.15
#define RUNS 5

static struct framer fr = { false, '\n' };
static unsigned char buf[LEN];
static volatile size_t sink;

static size_t
ref_count(const struct framer *f, const char *b, size_t len, bool final)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += (unsigned char)b[i] == f->delim;
	return n + (final && len > 0 && (unsigned char)b[len - 1] != f->delim);
}

static size_t
ref_span(const struct framer *f, const char *b, size_t len, size_t max,
    size_t *units)
{
	size_t n = 0, end = 0;

	for (size_t i = 0; i < len && n < max; i++)
		if ((unsigned char)b[i] == f->delim) {
			n++;
			end = i + 1;
		}
	*units = n;
	return end;
}

static size_t
ref_whole(const struct framer *f, const char *b, size_t len)
{
	for (; len > 0; len--)
		if ((unsigned char)b[len - 1] == f->delim)
			break;
	return len;
}

struct kernel {
	size_t (*count)(const struct framer *, const char *, size_t, bool);
	size_t (*span)(
	    const struct framer *, const char *, size_t, size_t, size_t *);
	size_t (*whole)(const struct framer *, const char *, size_t);
};

static const struct kernel shipped = { framer_count, framer_span,
	framer_whole };
static const struct kernel plain = { ref_count, ref_span, ref_whole };

/* One pass over the buffer the way row says; returns a checksum. */
static size_t
pass(const struct kernel *k, int row)
{
	const char *b = (const char *)buf;
	size_t off = 0, n, units, max = row == 1 ? SIZE_MAX : row == 2 ? 64 : 1;

	if (row == 0)
		return k->count(&fr, b, LEN, false);
	if (row == 4) {
		for (n = LEN; n > 0; n = k->whole(&fr, b, n - 1))
			off += n;
		return off;
	}
	while ((n = k->span(&fr, b + off, LEN - off, max, &units)) > 0)
		off += n;
	return off;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The best of a few short runs: the machine is shared, and another
 * process can only make a run slower. */
static double
gbps(const struct kernel *k, int row)
{
	double best = 0;

	for (int run = 0; run < RUNS; run++) {
		double start = now(), t;
		long passes = 0;

		do {
			for (int i = 0; i < 4; i++)
				sink += pass(k, row);
			passes += 4;
		} while ((t = now() - start) < SECONDS / RUNS);
		if ((double)passes * LEN / t / 1e9 > best)
			best = (double)passes * LEN / t / 1e9;
	}
	return best;
}

/* Lines of random length from line / 2 to 3 * line / 2, fixed seed. */
static void
fill(size_t line)
{
	uint64_t x = 88172645463325252ULL;
	size_t i, next = 0;

	for (i = 0; i < LEN; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)(' ' + x % 95);
		if (buf[i] == fr.delim)
			buf[i] = 'x';
		if (i == next) {
			next += line / 2 + (size_t)(x >> 32) % (line + 1);
			buf[i] = fr.delim;
		}
	}
}

int
main(int argc, char **argv)
{
	static const size_t lines[] = { 8, 40, 1000 };
	static const char *rows[] = { "count", "span all", "span 64", "span 1",
		"whole" };

	if (argc > 1)
		fr.delim = (unsigned char)strtoul(argv[1], NULL, 0);
	printf("| GB/s, framer vs plain loop | ~8 B lines | ~40 B | ~1000 B "
	       "|\n|---|--:|--:|--:|\n");
	for (int row = 0; row < 5; row++) {
		printf("| %s |", rows[row]);
		for (int l = 0; l < 3; l++) {
			fill(lines[l]);
			if (pass(&shipped, row) != pass(&plain, row)) {
				fprintf(
				    stderr, "count: %s differs\n", rows[row]);
				return 1;
			}
			printf(" %.1f vs %.1f |", gbps(&shipped, row),
			    gbps(&plain, row));
		}
		printf("\n");
	}
	return 0;
}
