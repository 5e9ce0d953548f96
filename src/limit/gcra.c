/* The token bucket as one integer (GCRA), for state shared by processes. */
#include "gcra.h"

int64_t
gcra_scale(const struct gcra *g, int64_t epoch_ns, int64_t now_ns)
{
	int64_t e = now_ns - epoch_ns;

	if (e < 0)
		e = 0;
	if ((uint64_t)e > (uint64_t)GCRA_MAX_SCALED / g->n)
		return -1;
	return e * (int64_t)g->n;
}

int64_t
gcra_unscale(const struct gcra *g, int64_t epoch_ns, int64_t t)
{
	return epoch_ns + (t + (int64_t)g->n - 1) / (int64_t)g->n;
}

int64_t
gcra_reserve(
    const struct gcra *g, int64_t tat, int64_t now, uint64_t units, int64_t *at)
{
	int64_t from = tat > now ? tat : now;
	int64_t cost = (int64_t)(units * g->d);
	/* Past the range means never; it must not wrap around. */
	int64_t next = from > GCRA_MAX_SCALED - cost ? GCRA_MAX_SCALED :
						       from + cost;
	int64_t go = next - (int64_t)(g->burst * g->d);

	*at = go > now ? go : now;
	return next;
}

uint64_t
gcra_avail(const struct gcra *g, int64_t tat, int64_t now)
{
	int64_t owed;

	if (tat <= now)
		return g->burst;
	/* The bucket lacks (tat - now) / d units, rounded up. */
	owed = (tat - now + (int64_t)g->d - 1) / (int64_t)g->d;
	return owed >= (int64_t)g->burst ? 0 : g->burst - (uint64_t)owed;
}
