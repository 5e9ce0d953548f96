/* Token bucket in GCRA form, exact on integer nanoseconds; pure, no I/O. */
#include <stdbool.h>

#include "bucket.h"

int64_t
bucket_muldiv_floor(int64_t a, uint64_t num, uint64_t den)
{
	int64_t q, r;
	uint64_t frac;

	if (num == 0 || den == 0) /* not a rate; keeps the function total */
		return 0;
	q = a / (int64_t)den;
	r = a % (int64_t)den;
	if (r < 0) {
		q--;
		r += (int64_t)den;
	}
	/* r < den, so r * num < den * num < 2^63. */
	frac = (uint64_t)r * num / den;
	if (q > 0 && (uint64_t)q > ((uint64_t)INT64_MAX - frac) / num)
		return INT64_MAX;
	if (q < 0 && (uint64_t)(-(q + 1)) >= ((uint64_t)INT64_MAX + 1) / num)
		return INT64_MIN;
	return q * (int64_t)num + (int64_t)frac;
}

int64_t
bucket_muldiv_ceil(int64_t a, uint64_t num, uint64_t den)
{
	int64_t f;

	if (a == INT64_MIN)
		return INT64_MIN;
	f = bucket_muldiv_floor(-a, num, den);
	return f == INT64_MIN ? INT64_MAX : -f;
}

/* Keep 0 <= k < n by moving whole periods of n units into base_ns. */
static void
normalize(struct bucket *b)
{
	if (b->n != 0 && b->k >= b->n) {
		b->base_ns += (int64_t)(b->k / b->n * b->d);
		b->k %= b->n;
	}
}

bool
bucket_full_at(const struct bucket *b, int64_t t_ns)
{
	int64_t e = t_ns - b->base_ns;

	if (e < 0)
		return false;
	if ((uint64_t)e >= b->d)
		return true;
	return b->k * b->d <= (uint64_t)e * b->n;
}

/* Apply the capacity limit at t_ns: credit beyond a full bucket is lost. */
static void
settle(struct bucket *b, int64_t t_ns)
{
	if (bucket_full_at(b, t_ns)) {
		b->base_ns = t_ns;
		b->k = 0;
	}
}

/* A time before the latest units went is that time (see bucket_avail). */
static int64_t
not_before_went(const struct bucket *b, int64_t t_ns)
{
	return t_ns < b->went_ns ? b->went_ns : t_ns;
}

static int64_t
settle_point(const struct bucket *b, int64_t ready_ns, int64_t now_ns)
{
	int64_t late = now_ns - b->catchup_ns;

	return ready_ns > late ? ready_ns : late;
}

/* Tokens at t_ns since the last settle, without the capacity limit. */
static int64_t
tokens_at(const struct bucket *b, int64_t t_ns)
{
	int64_t earned = bucket_muldiv_floor(t_ns - b->base_ns, b->n, b->d);
	int64_t have = (int64_t)b->burst - (int64_t)b->k;

	if (earned > 0 && have > INT64_MAX - earned)
		return INT64_MAX;
	return have + earned;
}

void
bucket_init(struct bucket *b, uint64_t n, uint64_t d, uint64_t burst,
    uint64_t initial, int64_t now_ns)
{
	b->n = n;
	b->d = d;
	b->burst = burst;
	b->base_ns = now_ns;
	b->k = burst - initial;
	b->catchup_ns = BUCKET_CATCHUP_NS;
	b->went_ns = INT64_MIN;
	normalize(b);
}

void
bucket_set_catchup(struct bucket *b, int64_t catchup_ns)
{
	b->catchup_ns = catchup_ns > 0 ? catchup_ns : 0;
}

uint64_t
bucket_avail(const struct bucket *b, int64_t ready_ns, int64_t now_ns)
{
	struct bucket c = *b;
	int64_t t;

	now_ns = not_before_went(b, now_ns);
	settle(&c, settle_point(b, ready_ns, now_ns));
	t = tokens_at(&c, now_ns);
	return t > 0 ? (uint64_t)t : 0;
}

int64_t
bucket_ready_at(const struct bucket *b, int64_t ready_ns, uint64_t units)
{
	struct bucket c = *b;
	int64_t need, t;

	settle(&c, ready_ns);
	/* Tokens at t are burst - k + floor((t - base) * n / d). */
	need = (int64_t)units + (int64_t)c.k - (int64_t)c.burst;
	t = bucket_muldiv_ceil(need, c.d, c.n);
	if (t > 0 && c.base_ns > INT64_MAX - t)
		return INT64_MAX;
	t += c.base_ns;
	return t > ready_ns ? t : ready_ns;
}

uint64_t
bucket_take(struct bucket *b, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	uint64_t got = bucket_avail(b, ready_ns, now_ns);

	now_ns = not_before_went(b, now_ns);
	settle(b, settle_point(b, ready_ns, now_ns));
	if (got > max)
		got = max;
	b->k += got;
	normalize(b);
	return got;
}

void
bucket_charge(struct bucket *b, int64_t ready_ns, int64_t now_ns, uint64_t cost)
{
	int64_t base;
	uint64_t periods, max_k;

	now_ns = not_before_went(b, now_ns);
	settle(b, settle_point(b, ready_ns, now_ns));
	/* A debt reaching past ~146 years of the clock means "never": keep
	 * it there rather than let the time wrap around. */
	base = b->base_ns > 0 ? b->base_ns : 0;
	if (base >= INT64_MAX / 2)
		return;
	periods = (uint64_t)((INT64_MAX / 2 - base) / (int64_t)b->d);
	max_k = periods > UINT64_MAX / b->n ? UINT64_MAX : periods * b->n;
	if (b->k >= max_k)
		return;
	b->k += cost < max_k - b->k ? cost : max_k - b->k;
	normalize(b);
}

/*
 * Was the bucket full at t_ns before the latest units were taken from it:
 * tokens_at(t_ns) + units >= burst, that is earned + units >= k?
 */
static bool
full_before(const struct bucket *b, uint64_t units, int64_t t_ns)
{
	int64_t earned = bucket_muldiv_floor(t_ns - b->base_ns, b->n, b->d);
	uint64_t owed;

	if (earned >= 0)
		return units >= b->k || (uint64_t)earned >= b->k - units;
	/* Before base_ns: the units must make up k and what is owed. */
	owed = (uint64_t)(-(earned + 1)) + 1;
	return units >= b->k && units - b->k >= owed;
}

void
bucket_went(struct bucket *b, uint64_t units, int64_t at_ns)
{
	int64_t t = at_ns - b->catchup_ns;

	if (at_ns > b->went_ns)
		b->went_ns = at_ns;
	/* Taken at t, the units would have found it full and had only its
	 * burst: charge them so, which only ever gives fewer tokens. */
	if (units == 0 || b->n == 0 || !full_before(b, units, t))
		return;
	b->base_ns = t;
	b->k = units;
	normalize(b);
}

void
bucket_retune(
    struct bucket *b, uint64_t n, uint64_t d, uint64_t burst, int64_t now_ns)
{
	int64_t have, e, since_ns = 0;

	settle(b, now_ns);
	have = tokens_at(b, now_ns);
	if (have < (int64_t)burst) {
		/*
		 * Keep the progress towards the next token: the time since
		 * the last whole one, as a fraction of a token, in time at
		 * the new rate.  Rounded down, it is off by under 1 ns.
		 */
		e = now_ns - b->base_ns;
		since_ns = e -
		    bucket_muldiv_ceil(
			bucket_muldiv_floor(e, b->n, b->d), b->d, b->n);
		since_ns = (int64_t)((long double)since_ns * b->n / b->d * d /
		    n);
	} else {
		have = (int64_t)burst;
	}
	b->n = n;
	b->d = d;
	b->burst = burst;
	b->base_ns = now_ns - since_ns;
	/* k = burst - have; a debt (have < 0) makes k exceed the burst. */
	b->k = have >= 0 ? burst - (uint64_t)have : burst + (uint64_t)(-have);
	normalize(b);
}
