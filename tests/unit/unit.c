/* The unit tests' shared harness: counters, check(), the generator. */
#include <stdarg.h>
#include <stdio.h>

#include "unit.h"

int passed, failed;
const char *current;

void
check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	fprintf(stderr, "FAIL %s: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A small deterministic generator, so every run sees the same cases.  One
 * state for the whole binary: each test draws where the one before it
 * stopped, as when they all lived in one file.
 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

uint64_t
rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

uint64_t
rng_swap(uint64_t state)
{
	uint64_t was = rng_state;

	rng_state = state != 0 ? state : 0x9e3779b97f4a7c15ULL;
	return was;
}

uint64_t
rng_below(uint64_t n)
{
	return rng() % n;
}

/*
 * In any window [t_i, t_j] of the releases: j - i + 1 <= burst +
 * rate * (t_j - t_i + catchup).
 */
int
window_ok(const int64_t *rel, int count, uint64_t burst, uint64_t n, uint64_t d,
    int64_t catchup_ns)
{
	long double r = (long double)n / d, best = -1e300L;

	for (int j = 0; j < count; j++) {
		long double v = r * rel[j] - j;

		if (v > best)
			best = v;
		if (best + j + 1 - r * rel[j] > burst + r * catchup_ns + 1e-6L)
			return 0;
	}
	return 1;
}
