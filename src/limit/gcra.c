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

/* The time a full bucket spans; at least one unit's. */
static int64_t
span(const struct gcra *g)
{
	uint64_t t = g->span != 0 ? g->span : g->burst * g->d;

	return (int64_t)(t > g->d ? t : g->d);
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
	int64_t go = next - span(g);

	*at = go > now ? go : now;
	return next;
}

uint64_t
gcra_avail(const struct gcra *g, int64_t tat, int64_t now)
{
	/* A unit may go while the state after it is within the span. */
	int64_t room = span(g) - (tat > now ? tat - now : 0);
	uint64_t k = room > 0 ? (uint64_t)room / g->d : 0;

	return k < g->burst ? k : g->burst;
}

int64_t
gcra_empty_until(const struct gcra *g, int64_t tat, int64_t t)
{
	/* A unit goes at max(tat, t) + d - span: at t when tat is this. */
	int64_t more = span(g) - (int64_t)g->d;
	int64_t want = t > GCRA_MAX_SCALED - more ? GCRA_MAX_SCALED : t + more;

	return want > tat ? want : tat;
}
