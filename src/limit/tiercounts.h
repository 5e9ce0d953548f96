/* The counts of each tier for the reports, kept as records come and go. */
#ifndef TIERCOUNTS_H
#define TIERCOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "keys.h"
#include "spec.h"
#include "stats.h"
#include "tiers.h"

/* A row of counts per tier, and one for the keys no tier takes. */
struct tiercounts {
	struct stats_tier *rows; /* n of them, or NULL */
	size_t n;
	struct keytab *kt; /* which finds each record's tier */
};

/*
 * New rows into to, for the tiers t and the rest (whose limit is rest, or
 * NULL: they are dropped), each rate as a person reads it, for units of
 * bytes or records under alg; the counts out and dropped of tc's rows
 * (tc is left as it was) carry to the new row of the same pattern, and
 * the rest's to the rest; to finds tiers as tc does.  Returns 0, or -1
 * when memory runs out.
 */
int tiercounts_make(struct tiercounts *to, const struct tiercounts *tc,
    const struct tiers *t, const struct limit *rest, bool bytes,
    enum algorithm alg);

/*
 * A stats_tally_fn on a struct tiercounts: the stream tells each record
 * once that it waits, then its fate; its tier's row follows, and a report
 * only reads the rows.
 */
void tiercounts_tally(
    void *ctx, const char *rec, size_t len, bool whole, enum stats_fate fate);

void tiercounts_free(struct tiercounts *tc);

#endif
