/* Sliding window: at most limit units in any window of width_ns; pure. */
#include <stdlib.h>

#include "sliding.h"

int
sliding_init(
    struct sliding *w, uint64_t limit, int64_t width_ns, int64_t catchup_ns)
{
	*w = (struct sliding){
		.limit = limit, .width_ns = width_ns, .catchup_ns = catchup_ns
	};
	w->times = calloc((size_t)limit, sizeof *w->times);
	return w->times == NULL ? -1 : 0;
}

void
sliding_free(struct sliding *w)
{
	free(w->times);
	w->times = NULL;
}

/* Time of the j-th most recent release, 1 <= j <= count. */
static int64_t
recent(const struct sliding *w, uint64_t j)
{
	return w->times[(w->oldest + w->count - j) % w->limit];
}

int64_t
sliding_ready_at(const struct sliding *w, int64_t ready_ns, uint64_t units)
{
	uint64_t j = w->limit - units + 1;
	int64_t t;

	/* The window ending at t may hold limit - units releases: the
	 * (limit - units + 1)-th most recent must have left it. */
	if (units > w->limit || j > w->count)
		return ready_ns;
	t = recent(w, j) + w->width_ns;
	return t > ready_ns ? t : ready_ns;
}

/* When units granted at now_ns are recorded: see sliding_take. */
static int64_t
charge_time(const struct sliding *w, int64_t ready_ns, int64_t now_ns)
{
	int64_t t = now_ns - w->catchup_ns,
		due = sliding_ready_at(w, ready_ns, 1);

	if (t < ready_ns)
		t = ready_ns;
	if (t < due)
		t = due;
	if (w->count > 0 && t < recent(w, 1))
		t = recent(w, 1);
	return t;
}

/* Releases in the window (t - width_ns, t]; the ring is sorted. */
static uint64_t
in_window(const struct sliding *w, int64_t t)
{
	uint64_t lo = 0, hi = w->count; /* answer in [lo, hi] */

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (recent(w, mid) > t - w->width_ns)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

uint64_t
sliding_avail(const struct sliding *w, int64_t ready_ns, int64_t now_ns)
{
	int64_t t = charge_time(w, ready_ns, now_ns);

	/* Due later than now, and than the latest release went: a release
	 * that went is a time known to have come. */
	if (t > now_ns && (w->count == 0 || t > recent(w, 1)))
		return 0;
	return w->limit - in_window(w, t);
}

uint64_t
sliding_take(struct sliding *w, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	int64_t t = charge_time(w, ready_ns, now_ns);
	uint64_t got = sliding_avail(w, ready_ns, now_ns);

	if (got > max)
		got = max;
	for (uint64_t i = 0; i < got; i++) {
		if (w->count < w->limit) {
			w->times[(w->oldest + w->count) % w->limit] = t;
			w->count++;
		} else {
			w->times[w->oldest] = t;
			w->oldest = (w->oldest + 1) % w->limit;
		}
	}
	return got;
}

void
sliding_went(struct sliding *w, uint64_t units, int64_t at_ns)
{
	if (units > w->count)
		units = w->count;
	/* Only later: the ring stays sorted. */
	for (uint64_t j = 1; j <= units; j++) {
		int64_t *t = &w->times[(w->oldest + w->count - j) % w->limit];

		if (*t < at_ns)
			*t = at_ns;
	}
}
