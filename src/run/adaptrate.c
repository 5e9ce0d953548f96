/* --adapt: the run's rate, learnt from the commands that ask to be tried again. */
#include <err.h>

#include "adaptrate.h"
#include "engine.h"

/* The rate is moved along the curve this often while below the ceiling. */
#define TICK_NS 50000000LL
/* The longest period a slowed rate may have: a unit a day. */
#define MAX_D (86400ULL * 1000000000ULL)

/* Units a second of rate t. */
static double
per_s(const struct rate *t)
{
	return (double)t->n * 1e9 / (double)t->d;
}

static bool
same(const struct rate *x, const struct rate *y)
{
	return x->n == y->n && x->d == y->d;
}

void
adaptrate_init(struct adaptrate *r, struct limits *L)
{
	const char *why;

	if (L->now[0].rate.inf)
		errx(2, "--adapt slows a rate: give -r RATE, not inf");
	if (L->cfg->nlimits != 1)
		errx(2, "--adapt slows one rate: give one -r, not %d",
		    L->cfg->nlimits);
	if (!build_adaptable(L, &why))
		errx(2, "--adapt changes the rate as the run goes: %s", why);
	*r = (struct adaptrate){ .L = L,
		.ceiling = L->now[0].rate,
		.applied = L->now[0].rate,
		.fleet = build_fleet(L) };
	adapt_init(&r->a, per_s(&r->ceiling));
	if (r->fleet) /* a cut made before this process came */
		(void)adapt_adopt(&r->a, build_fleet_cut(L, 0));
}

/* A cut another process of the --shared bucket made: this one's too. */
static bool
heard(struct adaptrate *r)
{
	return r->fleet && adapt_adopt(&r->a, build_fleet_cut(r->L, 0));
}

void
adaptrate_refused(struct adaptrate *r, int64_t sent_ns, int64_t now_ns)
{
	/* A try sent before the fleet's last cut says nothing new. */
	(void)heard(r);
	if (adapt_refused(&r->a, sent_ns, now_ns)) {
		/* Offered to the fleet; the latest cut, whoever's, holds. */
		if (r->fleet)
			(void)adapt_adopt(
			    &r->a, build_fleet_cut(r->L, adapt_word(&r->a)));
		r->next_ns = now_ns; /* a cut goes at once */
		(void)adaptrate_tick(r, now_ns);
	}
}

void
adaptrate_hold(struct adaptrate *r, int64_t until_ns)
{
	if (r->fleet)
		build_fleet_hold(r->L, until_ns);
}

int64_t
adaptrate_tick(struct adaptrate *r, int64_t now_ns)
{
	struct limit l = r->L->now[0];
	double want, have;

	if (heard(r))
		r->next_ns = now_ns;
	if (now_ns < r->next_ns)
		return r->next_ns;
	/* Set by -R NAME -r since: the new ceiling, the curve scaled. */
	if (!same(&l.rate, &r->applied)) {
		r->ceiling = r->applied = l.rate;
		adapt_set_ceiling(&r->a, per_s(&r->ceiling), now_ns);
	}
	want = adapt_rate(&r->a, now_ns);
	l.rate = r->ceiling;
	if (want < per_s(&r->ceiling)) {
		/* Not as written any more: shown as it is. */
		l.rate.count = l.rate.period_ns = 0;
		adapt_apply(&l.rate.n, &l.rate.d, want,
		    r->ceiling.d > MAX_D ? r->ceiling.d : MAX_D);
	}
	/* Each change wakes the engine: only one of 1 % or more, or the
	 * last step to the ceiling. */
	have = per_s(&r->applied);
	if (!same(&l.rate, &r->applied) &&
	    (same(&l.rate, &r->ceiling) || per_s(&l.rate) > have * 1.01 ||
		per_s(&l.rate) < have * 0.99)) {
		build_slow(r->L, &l, now_ns);
		r->applied = l.rate;
		/* What a --shared bucket booked stands: its word moved on. */
		if (!r->fleet)
			engine_limits_changed(now_ns);
	}
	if (same(&r->applied, &r->ceiling))
		return r->next_ns = r->fleet ? now_ns + TICK_NS : INT64_MAX;
	return r->next_ns = now_ns + TICK_NS;
}
