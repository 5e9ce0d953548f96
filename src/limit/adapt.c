/* --adapt: a rate that falls when the server refuses and climbs back; pure. */
#include <math.h>

#include "adapt.h"

#define NS_PER_S 1e9

void
adapt_init(struct adapt *a, double ceil_per_s)
{
	*a = (struct adapt){ .ceil = ceil_per_s,
		.floor = ceil_per_s * ADAPT_FLOOR,
		.round_s = ceil_per_s >= 1 ? 1 : 1 / ceil_per_s,
		.cut_ns = INT64_MIN };
}

/* Units a round along the curve, rounds after the last cut. */
static double
curve(const struct adapt *a, double rounds)
{
	double x = rounds - a->k_rounds;

#ifdef ADAPT_AIMD
	(void)x;
	return a->cut_to + rounds;
#else
	return ADAPT_C * x * x * x + a->peak;
#endif
}

double
adapt_rate(const struct adapt *a, int64_t now_ns)
{
	double r;

	if (a->cut_ns == INT64_MIN)
		return a->ceil;
	r = curve(a, (double)(now_ns - a->cut_ns) / NS_PER_S / a->round_s) /
	    a->round_s;
	if (r > a->ceil)
		return a->ceil;
	return r < a->floor ? a->floor : r;
}

/* The curve from a cut to peak (units a round) at cut_ns. */
static void
cut_from(struct adapt *a, double peak, int64_t cut_ns)
{
	a->peak = peak;
	a->cut_to = peak * ADAPT_BETA;
	if (a->cut_to < a->floor * a->round_s)
		a->cut_to = a->floor * a->round_s;
	/* The curve starts at cut_to: C (0 - K)^3 + peak = cut_to. */
	a->k_rounds = cbrt((a->peak - a->cut_to) / ADAPT_C);
	a->cut_ns = cut_ns;
}

#define WORD_FRAC ADAPT_PEAK_ONE
#define WORD_MAX_MS ((UINT64_C(1) << 40) - 1)

uint64_t
adapt_word(const struct adapt *a)
{
	uint64_t ms, frac;
	double f;

	if (a->cut_ns < 0) /* never cut (INT64_MIN) */
		return 0;
	ms = ((uint64_t)a->cut_ns + 999999) / 1000000 + 1;
	if (ms > WORD_MAX_MS)
		ms = WORD_MAX_MS;
	f = a->peak / (a->ceil * a->round_s);
	f = f > 1 ? 1 : f;
	frac = (uint64_t)llround(f * WORD_FRAC);
	return ms << 24 | (frac > 0 ? frac : 1);
}

bool
adapt_adopt(struct adapt *a, uint64_t w)
{
	int64_t cut_ns = (int64_t)(ADAPT_WORD_MS(w) - 1) * 1000000;

	if (w == 0 || (a->cut_ns != INT64_MIN && cut_ns <= a->cut_ns))
		return false;
	cut_from(a, (double)(w & WORD_FRAC) / WORD_FRAC * a->ceil * a->round_s,
	    cut_ns);
	return true;
}

bool
adapt_refused(struct adapt *a, int64_t sent_ns, int64_t now_ns)
{
	double was;

	a->refused++;
	if (a->cut_ns != INT64_MIN && sent_ns < a->cut_ns)
		return false;
	was = adapt_rate(a, now_ns) * a->round_s;
	cut_from(a, was, now_ns);
	a->cuts++;
	return true;
}

void
adapt_set_ceiling(struct adapt *a, double ceil_per_s, int64_t now_ns)
{
	/* Units a round: scaled to the new ceiling, in its own rounds. */
	double old_round_s = a->round_s, scale = ceil_per_s / a->ceil;

	(void)now_ns;
	a->ceil = ceil_per_s;
	a->floor = ceil_per_s * ADAPT_FLOOR;
	a->round_s = ceil_per_s >= 1 ? 1 : 1 / ceil_per_s;
	if (a->cut_ns == INT64_MIN)
		return;
	scale *= a->round_s / old_round_s;
	a->peak *= scale;
	a->cut_to *= scale;
	a->k_rounds = cbrt((a->peak - a->cut_to) / ADAPT_C);
}

void
adapt_apply(uint64_t *n, uint64_t *d, double per_s, uint64_t max_d)
{
	double have = (double)*n * NS_PER_S / (double)*d, nd;

	if (per_s >= have || per_s <= 0)
		return;
	/* n units every d / (per_s / have) ns: d grows, rounded up. */
	nd = ceil((double)*d * (have / per_s));
	while (nd > (double)max_d || (double)*n * nd >= 0x1p63) {
		if (*n == 1) {
			nd = nd > (double)max_d ? (double)max_d : nd;
			break;
		}
		/* Half the units in half the time: slower by a rounding. */
		*n /= 2;
		nd = ceil(nd / 2);
	}
	*d = (uint64_t)nd;
}
