/* Unit tests of limiter.c: several limits at once, as one limiter. */
#include <inttypes.h>

#include "bucket.h"
#include "limiter.h"
#include "unit.h"

void
test_set(void)
{
	struct bucket sustained, peak;
	struct limiter m[2], all;
	struct limiter_set set = { m, 2 };
	int64_t now = 0, rel[20];

	current = "several limits";
	/* 10/s burst 5 with a peak of 50/s burst 2, saturated input. */
	bucket_init(&sustained, 1, 100 * MS, 5, 5, 0);
	bucket_init(&peak, 1, 20 * MS, 2, 2, 0);
	limiter_of_bucket(&m[0], &sustained);
	limiter_of_bucket(&m[1], &peak);
	limiter_of_set(&all, &set);
	for (int k = 0; k < 20; k++) {
		int64_t due = all.ready_at(all.self, 0, 1);

		if (due > now)
			now = due;
		if (all.take(all.self, 0, now, 1) != 1) {
			check(0, "no grant at the deadline");
			return;
		}
		rel[k] = now;
	}
	check(rel[0] == 0 && rel[1] == 0, "peak burst of 2 at once");
	check(rel[2] == 20 * MS && rel[3] == 40 * MS && rel[4] == 60 * MS,
	    "then the peak rate: %" PRId64 " %" PRId64, rel[2], rel[3]);
	check(rel[5] == 100 * MS && rel[6] == 200 * MS && rel[19] == 1500 * MS,
	    "then the sustained rate: %" PRId64 " %" PRId64, rel[5], rel[19]);
	/* Neither is charged for a unit the other refuses. */
	bucket_init(&sustained, 1, NS, 1, 0, 0); /* empty */
	bucket_init(&peak, 1, NS, 3, 3, 0);
	check(all.take(all.self, 0, 0, 5) == 0, "refused by one");
	check(bucket_avail(&peak, 0, 0) == 3, "the other not charged");
}
