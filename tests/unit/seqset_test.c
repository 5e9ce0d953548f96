/* Unit tests of seqset.c: a set of job numbers, against a plain model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqset.h"
#include "unit.h"

#define RANGE 3000

/* Whether s holds exactly the numbers model[0..RANGE) says. */
static int
same(const struct seqset *s, const unsigned char *model)
{
	for (uint64_t i = 0; i < RANGE + 2; i++)
		if (seqset_has(s, i) != (i < RANGE && model[i]))
			return 0;
	return 1;
}

/* Random adds and removals, some in runs, asked after each batch. */
static void
test_model(void)
{
	struct seqset s;
	unsigned char model[RANGE] = { 0 };
	uint64_t n = 0, held = 0, cur = 0;

	current = "seqset: random adds and removes, asked as they go";
	seqset_init(&s);
	for (int step = 0; step < 40000; step++) {
		/* Mostly the next number, as a resumed run adds them. */
		uint64_t v = rng_below(4) ? cur++ % RANGE : rng_below(RANGE);
		int add = rng_below(5) != 0;

		check((add ? seqset_add(&s, v) : seqset_remove(&s, v)) == 0,
		    "change of %llu", (unsigned long long)v);
		model[v] = (unsigned char)add;
		if (step % 997 == 0)
			check(
			    same(&s, model), "step %d, before settling", step);
	}
	check(same(&s, model), "before settling");
	check(seqset_settle(&s) == 0 && same(&s, model), "settled");
	for (int i = 0; i < RANGE; i++)
		held += model[i];
	n = seqset_count(&s);
	check(n == held, "count %llu, want %llu", (unsigned long long)n,
	    (unsigned long long)held);
	for (size_t i = 0; i + 1 < s.nruns; i++)
		check(s.runs[i].lo <= s.runs[i].hi &&
			s.runs[i].hi + 1 < s.runs[i + 1].lo,
		    "runs %zu and %zu are sorted, apart", i, i + 1);
	seqset_free(&s);
	check(!seqset_has(&s, 0) && seqset_bytes(&s) == 0, "freed");
}

/* The ends: 0, SEQSET_MAX, and numbers above it refused. */
static void
test_edges(void)
{
	struct seqset s;

	current = "seqset: numbers up to 2^63 - 1, none above";
	seqset_init(&s);
	check(seqset_add(&s, SEQSET_MAX) == 0, "add 2^63 - 1");
	check(seqset_add(&s, SEQSET_MAX + 1) == -1, "add 2^63 refused");
	check(seqset_remove(&s, UINT64_MAX) == -1, "remove 2^64-1 refused");
	check(seqset_add(&s, 0) == 0 && seqset_add(&s, SEQSET_MAX - 1) == 0,
	    "add 0 and 2^63 - 2");
	check(seqset_settle(&s) == 0, "settled");
	check(s.nruns == 2, "two runs: %zu", s.nruns);
	check(seqset_has(&s, 0) && seqset_has(&s, SEQSET_MAX) &&
		!seqset_has(&s, SEQSET_MAX + 1) && !seqset_has(&s, 1),
	    "has");
	check(seqset_count(&s) == 3, "count");
	check(seqset_remove(&s, SEQSET_MAX - 1) == 0 &&
		seqset_settle(&s) == 0 && !seqset_has(&s, SEQSET_MAX - 1) &&
		seqset_has(&s, SEQSET_MAX),
	    "remove below the top");
	seqset_free(&s);

	current = "seqset: a removal splits a run, a later add mends it";
	for (uint64_t i = 1; i <= 10; i++)
		seqset_add(&s, i);
	seqset_remove(&s, 5);
	seqset_remove(&s, 10);
	check(!seqset_has(&s, 5) && !seqset_has(&s, 10) && seqset_has(&s, 9),
	    "removed");
	seqset_settle(&s);
	check(s.nruns == 2 && seqset_count(&s) == 8, "two runs of 8");
	seqset_add(&s, 5);
	seqset_settle(&s);
	check(s.nruns == 1 && s.runs[0].lo == 1 && s.runs[0].hi == 9,
	    "one run 1..9");
	seqset_free(&s);
}

/* Memory: what numbers in order, at random and shuffled cost. */
static void
test_memory(void)
{
	struct seqset s;
	uint64_t *perm, n = 1000000, got = 0;
	int ok = 1;

	current = "seqset: 10^6 numbers in order take one run";
	seqset_init(&s);
	for (uint64_t i = 1; i <= n; i++)
		seqset_add(&s, i);
	check(s.nruns == 1 && seqset_bytes(&s) <= 64 &&
		seqset_peak_bytes(&s) <= 64,
	    "%zu runs, %zu bytes", s.nruns, seqset_bytes(&s));
	seqset_free(&s);

	current = "seqset: 10^6 random numbers of 1..10^7";
	for (uint64_t i = 1; i <= 10 * n; i++)
		if (rng_below(10) == 0 && seqset_add(&s, i * 7919 % (10 * n)))
			ok = 0;
	seqset_settle(&s);
	got = seqset_count(&s);
	check(ok && got > n * 9 / 10 && got < n * 11 / 10, "%llu numbers",
	    (unsigned long long)got);
	check(seqset_bytes(&s) <= 20 * got && seqset_peak_bytes(&s) <= 32 * got,
	    "%zu bytes, %zu at most, for %llu", seqset_bytes(&s),
	    seqset_peak_bytes(&s), (unsigned long long)got);
	if (getenv("SEQSET_MEASURE"))
		printf("seqset random: %llu numbers, %zu bytes, peak %zu\n",
		    (unsigned long long)got, seqset_bytes(&s),
		    seqset_peak_bytes(&s));
	seqset_free(&s);

	current = "seqset: 1..10^6 shuffled end as one run";
	if ((perm = malloc(n * sizeof *perm)) == NULL)
		abort();
	for (uint64_t i = 0; i < n; i++)
		perm[i] = i + 1;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = rng_below(i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint64_t i = 0; i < n; i++)
		seqset_add(&s, perm[i]);
	free(perm);
	seqset_settle(&s);
	check(s.nruns == 1 && seqset_count(&s) == n && seqset_bytes(&s) <= 64,
	    "%zu runs, %zu bytes", s.nruns, seqset_bytes(&s));
	check(seqset_peak_bytes(&s) <= 24 * n, "peak %zu bytes",
	    seqset_peak_bytes(&s));
	if (getenv("SEQSET_MEASURE"))
		printf("seqset shuffled: %zu bytes, peak %zu\n",
		    seqset_bytes(&s), seqset_peak_bytes(&s));
	seqset_free(&s);
}

void
test_seqset(void)
{
	test_model();
	test_edges();
	test_memory();
}
