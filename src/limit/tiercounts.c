/* The counts of each tier for the reports, kept as records come and go. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rate.h"
#include "tiercounts.h"

/* The rate of limit l (NULL: none) as a person reads it, into out. */
static void
rate_text(const struct limit *l, bool bytes, enum algorithm alg, char *out,
    size_t size)
{
	if (l == NULL) {
		snprintf(out, size, "none: dropped");
		return;
	}
	rate_format(&l->rate, bytes, out, size);
	if (alg == ALG_TOKEN && !l->rate.inf) {
		size_t n = strlen(out);

		snprintf(out + n, size - n, ", burst %llu",
		    (unsigned long long)l->burst);
	}
}

/* Order tiers by pattern, for bsearch. */
static int
by_pattern(const void *a, const void *b)
{
	return strcmp((*(const struct tier *const *)a)->pattern,
	    (*(const struct tier *const *)b)->pattern);
}

/* The tier of sorted[0..n) whose pattern is p, or NULL. */
static const struct tier *
find_pattern(const struct tier **sorted, size_t n, const char *p)
{
	struct tier key = { .pattern = (char *)(uintptr_t)p };
	const struct tier *kp = &key, **at;

	at = n > 0 ? bsearch(&kp, sorted, n, sizeof *sorted, by_pattern) : NULL;
	return at != NULL ? *at : NULL;
}

int
tiercounts_make(struct tiercounts *to, const struct tiercounts *tc,
    const struct tiers *t, const struct limit *rest, bool bytes,
    enum algorithm alg)
{
	struct stats_tier *row = calloc(t->ntiers + 1, sizeof *row);
	const struct tier **sorted = malloc((t->ntiers + 1) * sizeof *sorted);

	if (row == NULL || sorted == NULL) {
		free(row);
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < t->ntiers; i++)
		sorted[i] = &t->tier[i];
	qsort(sorted, t->ntiers, sizeof *sorted, by_pattern);
	for (size_t i = 0; i <= t->ntiers; i++) {
		const struct tier *ti = i < t->ntiers ? &t->tier[i] : NULL;

		row[i].pattern = ti != NULL ? ti->pattern : NULL;
		row[i].line = ti != NULL ? ti->line : 0;
		rate_text(ti != NULL ? &ti->limit : rest, bytes, alg,
		    row[i].limit, sizeof row[i].limit);
	}
	/* The rest's counts carry; a tier's, when its pattern stays. */
	for (size_t j = 0; j < tc->n; j++) {
		const struct stats_tier *was = &tc->rows[j];
		const struct tier *now = was->pattern == NULL ?
		    NULL :
		    find_pattern(sorted, t->ntiers, was->pattern);
		struct stats_tier *into = was->pattern == NULL ?
		    &row[t->ntiers] :
		    now != NULL ? &row[now->index] :
				  NULL;

		if (into != NULL) {
			into->units_out += was->units_out;
			into->units_dropped += was->units_dropped;
		}
	}
	free(sorted);
	*to = (struct tiercounts){ row, t->ntiers + 1, tc->kt };
	return 0;
}

void
tiercounts_tally(
    void *ctx, const char *rec, size_t len, bool whole, enum stats_fate fate)
{
	struct tiercounts *tc = ctx;
	struct stats_tier *row;
	const char *key;
	size_t n;

	if (tc->rows == NULL)
		return;
	if (rec == NULL) {
		for (size_t i = 0; i < tc->n; i++)
			tc->rows[i].units_waiting = 0;
		return;
	}
	n = keys_of_record(&tc->kt->spec, rec, len, whole, &key);
	row = &tc->rows[keys_rule_of(tc->kt, key, n)];
	if (fate == STATS_WAITING) {
		row->units_waiting++;
		return;
	}
	/* Not below 0: a reload between may have moved it to another row,
	 * until the stream tells it again. */
	if (row->units_waiting > 0)
		row->units_waiting--;
	if (fate == STATS_OUT)
		row->units_out++;
	else
		row->units_dropped++;
}

void
tiercounts_free(struct tiercounts *tc)
{
	free(tc->rows);
	tc->rows = NULL;
	tc->n = 0;
}
