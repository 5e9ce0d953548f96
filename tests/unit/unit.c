/* The unit tests' shared harness: counters, check(), the generator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

int passed, failed;
const char *current;

/* The seed the running test drew from, and whether a failure named it. */
static uint64_t test_seed;
static int seed_said;

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
	if (!seed_said) {
		fprintf(stderr,
		    "  (its random cases: TB_UNIT_SEED=%#llx ./tests/unit/run "
		    "draws them again)\n",
		    (unsigned long long)test_seed);
		seed_said = 1;
	}
}

/*
 * A small deterministic generator, so every run sees the same cases.  Each
 * test starts it from a seed of its own (rng_start), so that its cases do
 * not depend on the tests before it.
 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

void
rng_start(const char *name)
{
	const char *env = getenv("TB_UNIT_SEED");
	uint64_t seed = 0xcbf29ce484222325ULL;

	if (env != NULL && *env != '\0') {
		seed = strtoull(env, NULL, 0);
	} else {
		/* FNV-1a of the name. */
		for (; *name != '\0'; name++)
			seed = (seed ^ (unsigned char)*name) * 0x100000001b3ULL;
	}
	(void)rng_swap(seed);
	test_seed = rng_state;
	seed_said = 0;
}

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
