/* The interface every limit algorithm offers, and the gate's in memory. */
#include <string.h>

#include "bucket.h"
#include "fixed.h"
#include "keys.h"
#include "limiter.h"
#include "sliding.h"

static int64_t
b_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	return bucket_ready_at(self, ready_ns, units);
}

static uint64_t
b_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	return bucket_avail(self, ready_ns, now_ns);
}

static uint64_t
b_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	return bucket_take(self, ready_ns, now_ns, max);
}

static void
b_went(void *self, uint64_t units, int64_t at_ns)
{
	bucket_went(self, units, at_ns);
}

static int64_t
w_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	return sliding_ready_at(self, ready_ns, units);
}

static uint64_t
w_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	return sliding_avail(self, ready_ns, now_ns);
}

static uint64_t
w_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	return sliding_take(self, ready_ns, now_ns, max);
}

static void
w_went(void *self, uint64_t units, int64_t at_ns)
{
	sliding_went(self, units, at_ns);
}

void
limiter_of_bucket(struct limiter *l, struct bucket *b)
{
	*l = (struct limiter){ .self = b,
		.ready_at = b_ready_at,
		.avail = b_avail,
		.take = b_take,
		.went = b_went };
}

void
limiter_of_sliding(struct limiter *l, struct sliding *w)
{
	*l = (struct limiter){ .self = w,
		.ready_at = w_ready_at,
		.avail = w_avail,
		.take = w_take,
		.went = w_went };
}

static int64_t
f_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	return fixed_ready_at(self, ready_ns, units);
}

static uint64_t
f_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	return fixed_avail(self, ready_ns, now_ns);
}

static uint64_t
f_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	return fixed_take(self, ready_ns, now_ns, max);
}

static void
f_went(void *self, uint64_t units, int64_t at_ns)
{
	fixed_went(self, units, at_ns);
}

void
limiter_of_fixed(struct limiter *l, struct fixed *f)
{
	*l = (struct limiter){ .self = f,
		.ready_at = f_ready_at,
		.avail = f_avail,
		.take = f_take,
		.went = f_went };
}

static int64_t
s_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	const struct limiter_set *s = self;
	int64_t due = ready_ns;

	for (int i = 0; i < s->n; i++) {
		int64_t t = limiter_ready_at(&s->members[i], ready_ns, units);

		if (t > due)
			due = t;
	}
	return due;
}

static uint64_t
s_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	const struct limiter_set *s = self;
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < s->n; i++) {
		uint64_t a = limiter_avail(&s->members[i], ready_ns, now_ns);

		if (a < least)
			least = a;
	}
	return least;
}

static uint64_t
s_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	struct limiter_set *s = self;
	uint64_t got = s_avail(self, ready_ns, now_ns);

	if (got > max)
		got = max;
	for (int i = 0; got > 0 && i < s->n; i++)
		(void)limiter_take(&s->members[i], ready_ns, now_ns, got);
	return got;
}

static void
s_went(void *self, uint64_t units, int64_t at_ns)
{
	struct limiter_set *s = self;

	for (int i = 0; i < s->n; i++)
		limiter_went(&s->members[i], units, at_ns);
}

void
limiter_of_set(struct limiter *l, struct limiter_set *s)
{
	*l = (struct limiter){ .self = s,
		.ready_at = s_ready_at,
		.avail = s_avail,
		.take = s_take,
		.went = s_went };
}

static int64_t
k_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	const struct keytab *t = self;

	if (t->cur_none || t->cur_inf)
		return t->cur_none ? INT64_MAX : ready_ns;
	switch (t->kind) {
	case KEYS_SLIDING:
		return sliding_ready_at(&t->cur_w, ready_ns, units);
	case KEYS_FIXED:
		return fixed_ready_at(&t->cur_f, ready_ns, units);
	default:
		return bucket_ready_at(&t->cur, ready_ns, units);
	}
}

static uint64_t
k_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	const struct keytab *t = self;

	/* No time before the latest units of any key went. */
	if (now_ns < t->went_ns)
		now_ns = t->went_ns;
	if (t->cur_none || t->cur_inf)
		return t->cur_none ? 0 : UINT64_MAX;
	switch (t->kind) {
	case KEYS_SLIDING:
		return sliding_avail(&t->cur_w, ready_ns, now_ns);
	case KEYS_FIXED:
		return fixed_avail(&t->cur_f, ready_ns, now_ns);
	default:
		return bucket_avail(&t->cur, ready_ns, now_ns);
	}
}

static uint64_t
k_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	struct keytab *t = self;
	uint64_t got;

	if (now_ns < t->went_ns)
		now_ns = t->went_ns;
	/* keys_select made room in a window's times for one release. */
	if (t->cur_none || t->cur_inf)
		got = t->cur_none ? 0 : max;
	else if (t->kind == KEYS_SLIDING)
		got = sliding_take(
		    &t->cur_w, ready_ns, now_ns, max > 1 ? 1 : max);
	else if (t->kind == KEYS_FIXED)
		got = fixed_take(&t->cur_f, ready_ns, now_ns, max);
	else
		got = bucket_take(&t->cur, ready_ns, now_ns, max);
	keys_store(t, got, now_ns);
	return got;
}

static void
k_went(void *self, uint64_t units, int64_t at_ns)
{
	struct keytab *t = self;

	if (at_ns > t->went_ns)
		t->went_ns = at_ns;
	if (t->cur_none || t->cur_inf)
		return;
	if (t->kind == KEYS_SLIDING)
		sliding_went(&t->cur_w, units, at_ns);
	else if (t->kind == KEYS_FIXED)
		fixed_went(&t->cur_f, units, at_ns);
	else
		bucket_went(&t->cur, units, at_ns);
	/* Kept as a take of nothing keeps it: the key's state, in place. */
	keys_store(t, 0, at_ns);
}

void
limiter_of_keys(struct limiter *l, struct keytab *t)
{
	*l = (struct limiter){ .self = t,
		.ready_at = k_ready_at,
		.avail = k_avail,
		.take = k_take,
		.went = k_went };
	t->went_ns = INT64_MIN;
}

/* Are a and b bookings in the same bucket: the same key, or none? */
static bool
same_key(const struct booking *a, const struct booking *b)
{
	if (a->key == NULL || b->key == NULL)
		return a->key == b->key;
	return a->key_len == b->key_len &&
	    memcmp(a->key, b->key, a->key_len) == 0;
}

size_t
limiter_book_all(const struct limiter *l, struct booking *b, size_t n,
    bool take, int64_t now_ns, int64_t ahead_ns, limiter_select_fn *select,
    void *ctx)
{
	int64_t from = now_ns, lead_ns = INT64_MIN;
	size_t i;

	for (i = 0; i < n; i++) {
		if (select != NULL)
			select(ctx, &b[i]);
		if (take) {
			b[i].taken = limiter_take(
			    l, b[i].at_ns, b[i].at_ns, b[i].units);
			continue;
		}
		b[i].due_ns = limiter_ready_at(l, from, b[i].units);
		if (b[i].due_ns == INT64_MAX)
			return i + 1; /* never: nothing after it goes */
		(void)limiter_take(l, from, b[i].due_ns, b[i].units);
		from = b[i].due_ns;
		if (from - now_ns <= ahead_ns)
			continue;
		/* Beyond the look-ahead, only the same bucket goes on, and
		 * only within the look-ahead of its first due beyond. */
		if (lead_ns == INT64_MIN)
			lead_ns = from;
		if (i + 1 == n || !same_key(&b[i], &b[i + 1]) ||
		    from - lead_ns > ahead_ns)
			return i + 1;
	}
	return i;
}

/* ---- the gate's backends in memory ---- */

static size_t
l_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	(void)now_ns;
	if (n == 0)
		return 0;
	b->due_ns = limiter_ready_at(self, b->at_ns, b->units);
	return 1;
}

static uint64_t
l_grant(void *self, const struct booking *b, int64_t now_ns)
{
	return limiter_avail(self, b->at_ns, now_ns);
}

static void
l_take(void *self, const struct booking *b, uint64_t units, int64_t now_ns)
{
	(void)limiter_take(self, b->at_ns, now_ns, units);
}

static size_t
l_judge(void *self, struct booking *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i].taken = limiter_take(
		    self, b[i].at_ns, b[i].at_ns, b[i].units);
	return n;
}

static void
l_went(void *self, uint64_t units, int64_t at_ns)
{
	limiter_went(self, units, at_ns);
}

void
limiter_backend(struct gate_backend *be, struct limiter *l)
{
	*be = (struct gate_backend){ .self = l,
		.plan = l_plan,
		.grant = l_grant,
		.take = l_take,
		.judge = l_judge,
		.went = l_went,
		.batch = 1 };
}

/* Select the key of b's record in k's table at now_ns. */
static void
k_select(struct keys_backend *k, const struct booking *b, int64_t now_ns)
{
	keys_select_record(k->t, b->rec, b->bytes, !b->outgrown, now_ns);
	k->planned = b;
	k->took = false;
}

static size_t
kb_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	struct keys_backend *k = self;

	if (n == 0)
		return 0;
	k_select(k, b, now_ns);
	b->due_ns = limiter_ready_at(&k->l, b->at_ns, b->units);
	return 1;
}

static uint64_t
kb_grant(void *self, const struct booking *b, int64_t now_ns)
{
	struct keys_backend *k = self;
	uint64_t n;

	if (b != k->planned)
		k_select(k, b, now_ns);
	n = limiter_avail(&k->l, b->at_ns, now_ns);
	/* One record at a time: the next may have another key. */
	return n > 1 ? 1 : n;
}

static void
kb_take(void *self, const struct booking *b, uint64_t units, int64_t now_ns)
{
	struct keys_backend *k = self;

	if (b != k->planned)
		k_select(k, b, now_ns);
	k->took = limiter_take(&k->l, b->at_ns, now_ns, units) > 0;
	k->planned = NULL;
}

static size_t
kb_judge(void *self, struct booking *b, size_t n)
{
	struct keys_backend *k = self;

	for (size_t i = 0; i < n; i++) {
		k_select(k, &b[i], b[i].at_ns);
		b[i].taken = limiter_take(
		    &k->l, b[i].at_ns, b[i].at_ns, b[i].units);
		k->took = b[i].taken > 0;
	}
	k->planned = NULL;
	return n;
}

/* Only the key selected last can be told: see gate_alone. */
static void
kb_went(void *self, uint64_t units, int64_t at_ns)
{
	struct keys_backend *k = self;

	if (k->took)
		limiter_went(&k->l, units, at_ns);
}

static size_t
kb_key(void *self, const struct booking *b, const char **key)
{
	struct keys_backend *k = self;

	return keys_of_record(&k->t->spec, b->rec, b->bytes, !b->outgrown, key);
}

void
keys_backend(struct gate_backend *be, struct keys_backend *k, struct keytab *t)
{
	*k = (struct keys_backend){ .t = t };
	limiter_of_keys(&k->l, t);
	*be = (struct gate_backend){ .self = k,
		.plan = kb_plan,
		.grant = kb_grant,
		.take = kb_take,
		.judge = kb_judge,
		.went = kb_went,
		.key = kb_key,
		.batch = 1 };
}
