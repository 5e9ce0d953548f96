/* Per-key limits: a small state per live key, by rule; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "keys.h"

/* Slots of the index to start with; it doubles to stay at most half full. */
#define KEYS_MIN_CAP 1024
/* The index finds an entry by the hash's low 32 bits: at most 2^32 slots. */
#define KEYS_MAX_CAP (UINT64_C(1) << 32)
/* The len of a key kept as its hash; and of one whose rule is of the
 * rules before the last reload. */
#define KEYS_HASHED (KEYS_INLINE + 1)
#define KEYS_STALE (KEYS_INLINE + 2)
#define ENTRY_BITS 0xffffffffULL

_Static_assert(sizeof(struct siphash_tag) <= KEYS_INLINE,
    "a key's 128-bit hash fits where the bytes of a short key go");

size_t
keys_of_record(const struct keyspec *spec, const char *rec, size_t len,
    bool whole, const char **key)
{
	size_t n;

	if (whole && len > 0 &&
	    (unsigned char)rec[len - 1] == (unsigned)spec->delim)
		len--;
	n = field_of(rec, len, spec->field, spec->sep, key);
	/* Its end unseen, the field may go on. */
	if (!whole && *key + n == rec + len) {
		*key = NULL;
		n = 0;
	}
	return n;
}

/* The entry an index slot points at. */
static size_t
entry_of(uint64_t v)
{
	return (size_t)(v & ENTRY_BITS) - 1;
}

/* Is id a key kept as its hash? */
static bool
hashed(const struct keyid *id)
{
	return id->len > KEYS_INLINE;
}

static bool
same_key(const struct keyid *a, const struct keyid *b)
{
	if (hashed(a) || hashed(b))
		return hashed(a) && hashed(b) &&
		    memcmp(a->b, b->b, sizeof(struct siphash_tag)) == 0;
	return a->len == b->len && memcmp(a->b, b->b, a->len) == 0;
}

/*
 * Who key[0..len) is to t, into id; the hash the index finds it by
 * returned.
 */
static uint64_t
identify(const struct keytab *t, const char *key, size_t len, struct keyid *id)
{
	struct siphash_tag tag;

	if (len <= KEYS_INLINE) {
		id->len = (unsigned char)len;
		if (len > 0)
			memcpy(id->b, key, len);
		return siphash24(&t->seed, key, len);
	}
	tag = siphash24_128(&t->seed, key, len);
	id->len = KEYS_HASHED;
	memcpy(id->b, &tag, sizeof tag);
	return tag.w[0];
}

/*
 * The index slot of key id (hash its identify), or the empty slot where
 * it would go.  Slots whose 32 bits of hash differ are passed over
 * without a look at their keys.
 */
static size_t
find(const struct keytab *t, uint64_t hash, const struct keyid *id)
{
	uint64_t tag = hash & ENTRY_BITS;
	size_t mask = t->cap - 1, i = (size_t)tag & mask;
	uint64_t v;

	while ((v = t->index[i]) != 0 &&
	    (v >> 32 != tag || !same_key(&t->ents[entry_of(v)].id, id)))
		i = (i + 1) & mask;
	return i;
}

/* The first empty slot from the home of the 32 bits of hash tag. */
static size_t
empty_slot(const uint64_t *index, size_t cap, uint64_t tag)
{
	size_t i = (size_t)tag & (cap - 1);

	while (index[i] != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/*
 * Empty slot hole, moving back the slots after it that could not be found
 * past an empty one (deletion for linear probing, without tombstones).
 */
static void
unlink_slot(struct keytab *t, size_t hole)
{
	size_t mask = t->cap - 1, i = hole, home;
	uint64_t v;

	while ((v = t->index[i = (i + 1) & mask]) != 0) {
		home = (size_t)(v >> 32) & mask;
		/* It moves if the hole lies between its home and it. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->index[hole] = v;
			t->ents[entry_of(v)].slot = (uint32_t)hole;
			hole = i;
		}
	}
	t->index[hole] = 0;
}

/* a + b, saturated to INT64_MAX, for b >= 0. */
static int64_t
add_sat(int64_t a, int64_t b)
{
	return a > 0 && b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* When bucket state st of rule r is full again: bucket_full_at from then. */
static int64_t
bucket_refill_ns(const struct bucket *r, const union keystate *st)
{
	uint64_t n = r->n, d = r->d, k = st->b.k, wait;

	/* k < n, and n * d < 2^63: k * d + n - 1 cannot wrap. */
	if (k == 0)
		wait = 0;
	else if (n == 0 || k >= n)
		wait = d;
	else
		wait = (k * d + n - 1) / n;
	if (wait > (uint64_t)INT64_MAX)
		return INT64_MAX;
	return add_sat(st->b.base_ns, (int64_t)wait);
}

/*
 * When the state st of rule r holds nothing a new key's would not: its
 * bucket is full again, or every release it counts is out of reach of a
 * window charged as late as the catch-up allows, or earlier than now.
 */
static int64_t
state_refill_ns(
    const struct keytab *t, const struct keyrule *r, const union keystate *st)
{
	const struct sliding *w = &r->sliding;
	const struct fixed *f = &r->fixed;
	uint64_t last;

	if (r->none || r->inf)
		return INT64_MIN;
	switch (t->kind) {
	case KEYS_SLIDING:
		if (st->s.count == 0)
			return INT64_MIN;
		last = (st->s.oldest + st->s.count - 1) % w->limit;
		return add_sat(
		    add_sat(st->s.times[last], w->width_ns), w->catchup_ns);
	case KEYS_FIXED:
		if (st->f.index == INT64_MIN)
			return INT64_MIN;
		return add_sat(
		    (st->f.index + 1) * f->width_ns - f->wall_offset_ns,
		    f->catchup_ns);
	default:
		return bucket_refill_ns(&r->bucket, st);
	}
}

/* When the state of entry e holds nothing a new key's would not. */
static int64_t
refill_ns(const struct keytab *t, const struct keyent *e)
{
	const struct keyrule *r = e->id.len == KEYS_STALE ? t->was_rules :
							    t->rules;

	return state_refill_ns(t, &r[e->rule], &e->st);
}

/* Release what state st of t holds apart: a window's times. */
static void
free_state(const struct keytab *t, union keystate *st)
{
	if (t->kind == KEYS_SLIDING) {
		free(st->s.times);
		st->s.times = NULL;
		st->s.count = st->s.oldest = 0;
	}
}

/* The state of a key with none yet, at now_ns. */
static union keystate
new_state(const struct keytab *t, int64_t now_ns)
{
	union keystate st;

	memset(&st, 0, sizeof st);
	if (t->kind == KEYS_FIXED)
		st.f.index = INT64_MIN;
	else if (t->kind == KEYS_BUCKET)
		st.b.base_ns = now_ns;
	return st;
}

/*
 * Times a ring of a window of limit units holds for count releases: a
 * power of two, to grow by doubling, up to the limit.
 */
static uint64_t
ring_cap(uint64_t count, uint64_t limit)
{
	uint64_t c = 1;

	if (count == 0)
		return 0;
	if (count >= limit)
		return limit;
	while (c < count)
		c <<= 1;
	return c < limit ? c : limit;
}

/* Make room in the ring of st for one more release; false without memory. */
static bool
ring_room(union keystate *st, uint64_t limit)
{
	uint64_t need = ring_cap(st->s.count + 1ULL, limit);
	int64_t *p;

	if (st->s.count >= limit ||
	    (st->s.times != NULL && need == ring_cap(st->s.count, limit)))
		return true;
	if ((p = realloc(st->s.times, need * sizeof *p)) == NULL)
		return false;
	st->s.times = p;
	return true;
}

/* Put e at entry i of the heap, and point its index slot at it. */
static void
place(struct keytab *t, size_t i, const struct keyent *e)
{
	t->ents[i] = *e;
	t->index[e->slot] = (t->index[e->slot] & ~ENTRY_BITS) | (i + 1);
}

/*
 * Restore the heap around entry i, whose refill time changed: up while
 * its parent refills later, else down while a child refills sooner.
 * Returns where it is now.
 */
static size_t
reheap(struct keytab *t, size_t i)
{
	struct keyent e = t->ents[i];
	int64_t at = refill_ns(t, &e), cat, rat;
	size_t up, c;

	for (; i > 0 && refill_ns(t, &t->ents[up = (i - 1) / 2]) > at; i = up)
		place(t, i, &t->ents[up]);
	for (; (c = 2 * i + 1) < t->live; i = c) {
		cat = refill_ns(t, &t->ents[c]);
		if (c + 1 < t->live &&
		    (rat = refill_ns(t, &t->ents[c + 1])) < cat) {
			c++;
			cat = rat;
		}
		if (cat >= at)
			break;
		place(t, i, &t->ents[c]);
	}
	place(t, i, &e);
	return i;
}

/* Forget the entries whose buckets are full again at now_ns. */
static void
forget_refilled(struct keytab *t, int64_t now_ns)
{
	while (t->live > 0 && refill_ns(t, &t->ents[0]) <= now_ns) {
		unlink_slot(t, t->ents[0].slot);
		free_state(t, &t->ents[0].st);
		if (--t->live > 0) {
			place(t, 0, &t->ents[t->live]);
			(void)reheap(t, 0);
		}
	}
}

/* Double the index.  -1 when it may not grow or memory runs out. */
static int
grow_index(struct keytab *t)
{
	size_t cap = t->cap * 2;
	uint64_t *index;

	if ((uint64_t)cap > KEYS_MAX_CAP || cap > SIZE_MAX / sizeof *index ||
	    (index = calloc(cap, sizeof *index)) == NULL)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t v = t->index[i];
		size_t s;

		if (v == 0)
			continue;
		s = empty_slot(index, cap, v >> 32);
		index[s] = v;
		t->ents[entry_of(v)].slot = (uint32_t)s;
	}
	free(t->index);
	t->index = index;
	t->cap = cap;
	return 0;
}

/*
 * Make room for one more key at now_ns, forgetting the refilled buckets
 * first; false if max_keys are still live or memory runs out.
 */
static bool
make_room(struct keytab *t, int64_t now_ns)
{
	size_t room;
	struct keyent *ents;

	forget_refilled(t, now_ns);
	if (t->live >= t->max_keys || t->live + 1 >= ENTRY_BITS)
		return false;
	if (t->live == t->room) {
		room = t->live < t->max_keys / 2 ? 2 * t->live : t->max_keys;
		if (room == 0 || room > SIZE_MAX / sizeof *ents ||
		    (ents = realloc(t->ents, room * sizeof *ents)) == NULL)
			return false;
		t->ents = ents;
		t->room = room;
	}
	return t->live + 1 <= t->cap / 2 || grow_index(t) == 0;
}

uint64_t
keys_worst_bytes(
    enum keys_kind kind, uint64_t max_keys, uint64_t limit, size_t nrules)
{
	/* An entry, four index slots (it doubles at half full), and a
	 * window's times with the allocator's overhead. */
	uint64_t per = sizeof(struct keyent) + 4 * sizeof(uint64_t);

	if (kind == KEYS_SLIDING)
		per += limit * sizeof(int64_t) + 16;
	else
		limit = 0;
	return (max_keys > UINT64_MAX / per ? UINT64_MAX : max_keys * per) +
	    nrules *
	    (sizeof(struct keyrule) + sizeof(union keystate) +
		limit * sizeof(int64_t));
}

/* The rule tiers give key[0..len): its tier's, or the rest's. */
static size_t
match_rule(const struct keytab *t, const char *key, size_t len)
{
	const struct tier *tier;

	if (t->tiers == NULL ||
	    (tier = tiers_match(t->tiers, key, len)) == NULL)
		return t->nrules - 1;
	return tier->index;
}

/*
 * The rule of key[0..len), of hash h and id (identify), which has no
 * entry of the current rules: remembered, or matched and remembered.
 */
static size_t
memo_rule(struct keytab *t, uint64_t h, const struct keyid *id, const char *key,
    size_t len)
{
	struct keymemo *m;

	if (t->memo == NULL)
		return match_rule(t, key, len);
	/* The index takes the low bits of h; the cache, the high. */
	m = &t->memo[(h >> 32) & (KEYS_MEMO - 1)];
	if (m->rule == UINT16_MAX || !same_key(&m->id, id)) {
		m->id = *id;
		m->rule = (uint16_t)match_rule(t, key, len);
	}
	return m->rule;
}

size_t
keys_rule_of(struct keytab *t, const char *key, size_t len)
{
	struct keyid id;
	uint64_t h, v;

	if (key == NULL)
		return t->open_rule;
	if (t->tiers == NULL)
		return t->nrules - 1;
	h = identify(t, key, len, &id);
	v = t->index[find(t, h, &id)];
	if (v != 0 && t->ents[entry_of(v)].id.len != KEYS_STALE)
		return t->ents[entry_of(v)].rule;
	return memo_rule(t, h, &id, key, len);
}

/* Forget the rules remembered: tiers now give others. */
static void
forget_memo(struct keytab *t)
{
	for (size_t i = 0; t->memo != NULL && i < KEYS_MEMO; i++)
		t->memo[i].rule = UINT16_MAX;
}

/* a * b as 128 bits: the high word in *hi, the low returned. */
static uint64_t
mul128(uint64_t a, uint64_t b, uint64_t *hi)
{
	uint64_t al = a & 0xffffffffU, ah = a >> 32;
	uint64_t bl = b & 0xffffffffU, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffU) + (hl & 0xffffffffU);

	*hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return (ll & 0xffffffffU) | mid << 32;
}

/* a * b against c * d, exactly: below, equal or above 0. */
static int
cmp_products(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t xh, yh, xl = mul128(a, b, &xh), yl = mul128(c, d, &yh);

	if (xh != yh)
		return xh < yh ? -1 : 1;
	return (xl > yl) - (xl < yl);
}

/*
 * Does rule a of t let less through than rule b: none before any limit,
 * any before none; then the lower rate, then the smaller burst (a
 * window's N)?
 */
static bool
stricter(
    const struct keytab *t, const struct keyrule *a, const struct keyrule *b)
{
	uint64_t an, ad, ab, bn, bd, bb;
	int c;

	if (a->none != b->none || a->inf != b->inf)
		return a->none > b->none || (!a->none && a->inf < b->inf);
	if (a->none || a->inf)
		return false;
	if (t->kind == KEYS_BUCKET) {
		an = a->bucket.n, ad = a->bucket.d, ab = a->bucket.burst;
		bn = b->bucket.n, bd = b->bucket.d, bb = b->bucket.burst;
	} else {
		const struct sliding *sa = &a->sliding, *sb = &b->sliding;
		const struct fixed *fa = &a->fixed, *fb = &b->fixed;

		ab = an = t->kind == KEYS_SLIDING ? sa->limit : fa->limit;
		ad = (uint64_t)(t->kind == KEYS_SLIDING ? sa->width_ns :
							  fa->width_ns);
		bb = bn = t->kind == KEYS_SLIDING ? sb->limit : fb->limit;
		bd = (uint64_t)(t->kind == KEYS_SLIDING ? sb->width_ns :
							  fb->width_ns);
	}
	c = cmp_products(an, bd, bn, ad);
	return c < 0 || (c == 0 && ab < bb);
}

/*
 * The strictest of the rules t's keys may follow: every tier's, and the
 * rest's unless a line '*' leaves no key to it.
 */
static size_t
strictest_rule(const struct keytab *t)
{
	size_t last = t->tiers != NULL && t->tiers->catchall != 0 ?
	    t->nrules - 2 :
	    t->nrules - 1;
	size_t best = last;

	for (size_t i = 0; i < last; i++)
		if (stricter(t, &t->rules[i], &t->rules[best]))
			best = i;
	return best;
}

static void select_overflow(struct keytab *t, size_t r);
static bool restate(const struct keytab *t, const struct keyrule *from,
    const struct keyrule *to, union keystate *st, int64_t now_ns);

/* Copy rules[0..n) with a fresh overflow state each, at now_ns, into t. */
static int
take_rules(struct keytab *t, const struct keyrule *rules, size_t n,
    const struct tiers *tiers, int64_t now_ns)
{
	struct keyrule *r = NULL;
	union keystate *o = NULL;

	if (n == 0 || n > KEYS_MAX_RULES ||
	    (tiers != NULL && tiers->ntiers + 1 != n) ||
	    (r = malloc(n * sizeof *r)) == NULL ||
	    (o = malloc(n * sizeof *o)) == NULL) {
		free(r);
		return -1;
	}
	memcpy(r, rules, n * sizeof *r);
	for (size_t i = 0; i < n; i++)
		o[i] = new_state(t, now_ns);
	t->rules = r;
	t->overflow = o;
	t->nrules = n;
	t->tiers = tiers;
	t->open_rule = strictest_rule(t);
	/* Without memory for it, each key's rule is matched anew. */
	if (tiers != NULL && t->memo == NULL)
		t->memo = malloc(KEYS_MEMO * sizeof *t->memo);
	forget_memo(t);
	return 0;
}

int
keys_init(struct keytab *t, enum keys_kind kind, const struct keyrule *rules,
    size_t nrules, const struct tiers *tiers, size_t max_keys,
    const struct siphash_key *seed, int64_t now_ns)
{
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->seed = *seed;
	t->max_keys = max_keys > 0 ? max_keys : 1;
	t->cap = KEYS_MIN_CAP;
	t->room = t->max_keys < KEYS_MIN_CAP / 2 ? t->max_keys :
						   KEYS_MIN_CAP / 2;
	t->index = calloc(t->cap, sizeof *t->index);
	t->ents = malloc(t->room * sizeof *t->ents);
	t->sel = SIZE_MAX;
	if (t->index == NULL || t->ents == NULL ||
	    take_rules(t, rules, nrules, tiers, now_ns) != 0) {
		free(t->index);
		free(t->ents);
		t->index = NULL;
		t->ents = NULL;
		return -1;
	}
	/* Before any key is selected, takes go to an overflow state: the
	 * strictest's, never none where a limit will do. */
	select_overflow(t, t->open_rule);
	return 0;
}

void
keys_free(struct keytab *t)
{
	for (size_t i = 0; i < t->live; i++)
		free_state(t, &t->ents[i].st);
	for (size_t i = 0; t->overflow != NULL && i < t->nrules; i++)
		free_state(t, &t->overflow[i]);
	if (t->sel == SIZE_MAX && !t->sel_overflow && t->kind == KEYS_SLIDING)
		free(t->cur_w.times); /* a new key's, not kept */
	free(t->index);
	free(t->ents);
	free(t->rules);
	free(t->was_rules);
	free(t->memo);
	free(t->overflow);
	t->memo = NULL;
	t->index = NULL;
	t->ents = NULL;
	t->rules = NULL;
	t->was_rules = NULL;
	t->overflow = NULL;
	t->live = 0;
}

/* Load state st of rule r into the selected limit of t. */
static void
load(struct keytab *t, size_t r, const union keystate *st)
{
	const struct keyrule *rule = &t->rules[r];

	t->sel_rule = r;
	t->cur_none = rule->none;
	t->cur_inf = rule->inf;
	switch (t->kind) {
	case KEYS_SLIDING:
		t->cur_w = rule->sliding;
		t->cur_w.times = st->s.times;
		t->cur_w.oldest = st->s.oldest;
		t->cur_w.count = st->s.count;
		break;
	case KEYS_FIXED:
		t->cur_f = rule->fixed;
		t->cur_f.index = st->f.index;
		t->cur_f.used = st->f.used;
		break;
	default:
		t->cur = rule->bucket;
		t->cur.base_ns = st->b.base_ns;
		t->cur.k = st->b.k;
		break;
	}
}

/* The selected limit of t as a state. */
static union keystate
saved(const struct keytab *t)
{
	union keystate st;

	memset(&st, 0, sizeof st);
	switch (t->kind) {
	case KEYS_SLIDING:
		st.s.times = t->cur_w.times;
		st.s.oldest = (uint32_t)t->cur_w.oldest;
		st.s.count = (uint32_t)t->cur_w.count;
		break;
	case KEYS_FIXED:
		st.f.index = t->cur_f.index;
		st.f.used = t->cur_f.used;
		break;
	default:
		st.b.base_ns = t->cur.base_ns;
		st.b.k = t->cur.k;
		break;
	}
	return st;
}

/*
 * Make room in the ring of state st of rule r for the next release; a
 * state that cannot have it lets nothing through.
 */
static void
ready_ring(struct keytab *t, size_t r, union keystate *st)
{
	if (t->kind == KEYS_SLIDING && !t->rules[r].none && !t->rules[r].inf &&
	    !ring_room(st, t->rules[r].sliding.limit))
		t->cur_none = true;
}

/* Select rule r's overflow state. */
static void
select_overflow(struct keytab *t, size_t r)
{
	t->sel_overflow = true;
	t->sel = SIZE_MAX;
	load(t, r, &t->overflow[r]);
	ready_ring(t, r, &t->overflow[r]);
	t->cur_w.times = t->overflow[r].s.times;
}

/*
 * Entry i, a hashed key whose rule is of the rules before the last
 * reload, is key[0..len): follow the rule it finds now, its state
 * re-rated as of the reload.  Where the entry is now.
 */
static size_t
rerate(struct keytab *t, size_t i, const char *key, size_t len)
{
	struct keyent *e = &t->ents[i];
	size_t r = memo_rule(t, t->sel_hash, &e->id, key, len);

	if (!restate(
		t, &t->was_rules[e->rule], &t->rules[r], &e->st, t->was_ns)) {
		free_state(t, &e->st);
		e->st = new_state(t, t->was_ns);
	}
	e->rule = (uint16_t)r;
	e->id.len = KEYS_HASHED;
	return reheap(t, i);
}

void
keys_select(struct keytab *t, const char *key, size_t len, int64_t now_ns)
{
	union keystate st;
	uint64_t v;
	size_t r;

	/* A new key's window that took nothing was not kept. */
	if (t->sel == SIZE_MAX && !t->sel_overflow && t->kind == KEYS_SLIDING)
		free(t->cur_w.times);
	t->sel_cut = key == NULL;
	if (t->sel_cut) {
		select_overflow(t, t->open_rule);
		return;
	}
	t->sel_hash = identify(t, key, len, &t->pend.id);
	t->sel_overflow = false;
	v = t->index[find(t, t->sel_hash, &t->pend.id)];
	if (v != 0) {
		struct keyent *e;

		t->sel = entry_of(v);
		if (t->ents[t->sel].id.len == KEYS_STALE)
			t->sel = rerate(t, t->sel, key, len);
		e = &t->ents[t->sel];
		load(t, e->rule, &e->st);
		ready_ring(t, e->rule, &e->st);
		t->cur_w.times = e->st.s.times;
		return;
	}
	/* A key with no state has a full bucket, an empty window. */
	t->sel = SIZE_MAX;
	r = memo_rule(t, t->sel_hash, &t->pend.id, key, len);
	if (!make_room(t, now_ns)) {
		select_overflow(t, r);
		return;
	}
	st = new_state(t, now_ns);
	load(t, r, &st);
	ready_ring(t, r, &st);
	t->cur_w.times = st.s.times;
	t->pend.rule = (uint16_t)r;
}

void
keys_select_record(
    struct keytab *t, const char *rec, size_t len, bool whole, int64_t now_ns)
{
	const char *key;
	size_t n = keys_of_record(&t->spec, rec, len, whole, &key);

	keys_select(t, key, n, now_ns);
}

void
keys_store(struct keytab *t, uint64_t taken, int64_t now_ns)
{
	struct keyent *e;
	int64_t was;
	uint64_t tag;

	(void)now_ns;
	if (t->sel_overflow) {
		t->overflow[t->sel_rule] = saved(t);
		t->overflowed += taken;
		if (t->sel_cut)
			t->cut += taken;
		return;
	}
	if (t->sel != SIZE_MAX) {
		e = &t->ents[t->sel];
		was = refill_ns(t, e);
		e->st = saved(t);
		if (refill_ns(t, e) != was || t->kind == KEYS_SLIDING)
			t->sel = reheap(t, t->sel);
		return;
	}
	/*
	 * Nothing taken by a new key: nothing to keep.  A bucket that
	 * gave units is kept even if it still reads full: what it gave out
	 * of its catch-up credit must not be given twice.  keys_select made
	 * room for it.
	 */
	if (taken == 0 || t->cur_none || t->cur_inf)
		return;
	tag = t->sel_hash & ENTRY_BITS;
	e = &t->ents[t->sel = t->live++];
	*e = t->pend;
	e->st = saved(t);
	e->slot = (uint32_t)empty_slot(t->index, t->cap, tag);
	t->index[e->slot] = tag << 32 | (t->sel + 1);
	t->sel = reheap(t, t->sel);
}

/*
 * State st of rule from, re-rated at now_ns to rule to (see keys_retune):
 * a bucket as bucket_retune has it; a fixed window keeps its count if it
 * is the window of now_ns, in the new windows as in the old; a sliding
 * window keeps the latest releases the new limit counts.  false, st
 * unchanged, when memory runs out.
 */
static bool
restate(const struct keytab *t, const struct keyrule *from,
    const struct keyrule *to, union keystate *st, int64_t now_ns)
{
	struct bucket b;
	uint64_t keep, cap, lim;
	int64_t *p = NULL;

	if (from->none || to->none || from->inf || to->inf) {
		free_state(t, st);
		*st = new_state(t, now_ns);
		return true;
	}
	switch (t->kind) {
	case KEYS_SLIDING:
		lim = from->sliding.limit;
		keep = st->s.count < to->sliding.limit ? st->s.count :
							 to->sliding.limit;
		cap = ring_cap(keep, to->sliding.limit);
		if (keep > 0 && (p = malloc(cap * sizeof *p)) == NULL)
			return false;
		for (uint64_t i = 0; i < keep; i++)
			p[i] = st->s.times[(st->s.oldest + st->s.count - keep +
					       i) %
			    lim];
		free(st->s.times);
		st->s.times = p;
		st->s.oldest = 0;
		st->s.count = (uint32_t)keep;
		return true;
	case KEYS_FIXED:
		if (st->f.index != INT64_MIN &&
		    fixed_window_of(&from->fixed, now_ns) == st->f.index)
			st->f.index = fixed_window_of(&to->fixed, now_ns);
		else
			*st = new_state(t, now_ns);
		return true;
	default:
		b = from->bucket;
		b.base_ns = st->b.base_ns;
		b.k = st->b.k;
		/* A full bucket is a new key's, which the new burst fills:
		 * whether it was forgotten yet must not matter. */
		if (bucket_full_at(&b, now_ns)) {
			*st = new_state(t, now_ns);
			return true;
		}
		bucket_retune(
		    &b, to->bucket.n, to->bucket.d, to->bucket.burst, now_ns);
		st->b.base_ns = b.base_ns;
		st->b.k = b.k;
		return true;
	}
}

/* Order the entries of t as a heap by refill time again, from scratch. */
static void
heapify(struct keytab *t)
{
	for (size_t i = t->live / 2; i-- > 0;)
		(void)reheap(t, i);
}

/*
 * The rule each of the live keys of t finds under tiers, of nrules, into
 * to: or SIZE_MAX for a hashed key, which cannot be matched without its
 * bytes.
 */
static void
rules_found(struct keytab *t, const struct tiers *tiers, size_t nrules,
    size_t *to, size_t live)
{
	const struct tiers *was = t->tiers;
	size_t nwas = t->nrules;

	t->tiers = tiers;
	t->nrules = nrules;
	for (size_t i = 0; i < live; i++) {
		const struct keyid *id = &t->ents[i].id;

		to[i] = hashed(id) ? SIZE_MAX : match_rule(t, id->b, id->len);
	}
	t->tiers = was;
	t->nrules = nwas;
}

/*
 * Entry e of rule r of the old rules follows rule to of t's (SIZE_MAX:
 * it is hashed and waits for its next record, still of the old rules,
 * which nold are) from now_ns.
 */
static void
follow(struct keytab *t, struct keyent *e, const struct keyrule *old,
    size_t nold, size_t to, int64_t now_ns)
{
	if (to == SIZE_MAX) {
		/* Still of the rules before the reload before: those go, and
		 * it starts afresh. */
		if (e->id.len == KEYS_STALE) {
			free_state(t, &e->st);
			e->st = new_state(t, now_ns);
			e->rule = (uint16_t)(nold - 1);
		}
		e->id.len = KEYS_STALE;
		return;
	}
	/* Nothing can fail here but a window's copy, whose key then starts
	 * afresh: it had released nothing that counts. */
	if (!restate(t, &old[e->rule], &t->rules[to], &e->st, now_ns)) {
		free_state(t, &e->st);
		e->st = new_state(t, now_ns);
	}
	e->rule = (uint16_t)to;
}

/*
 * The overflow states of old go to the rule of the same place in t, the
 * rest's to the rest's, re-rated at now_ns.
 */
static void
move_overflows(struct keytab *t, const struct keytab *old, int64_t now_ns)
{
	size_t nrules = t->nrules;

	for (size_t i = 0; i < old->nrules; i++) {
		size_t j = i + 1 == old->nrules ? nrules - 1 : i;

		if (j < nrules - 1 || i + 1 == old->nrules) {
			free_state(t, &t->overflow[j]);
			t->overflow[j] = old->overflow[i];
			if (!restate(t, &old->rules[i], &t->rules[j],
				&t->overflow[j], now_ns))
				free_state(t, &t->overflow[j]);
		} else {
			free_state(t, &old->overflow[i]);
		}
	}
}

int
keys_retune(struct keytab *t, const struct keyrule *rules, size_t nrules,
    const struct tiers *tiers, int64_t now_ns)
{
	struct keytab old = *t;
	size_t live = t->live, *to;

	if (nrules == 0 || nrules > KEYS_MAX_RULES ||
	    (to = malloc((live + 1) * sizeof *to)) == NULL)
		return -1;
	/* The rule each key finds among the new, before anything changes. */
	rules_found(t, tiers, nrules, to, live);
	if (take_rules(t, rules, nrules, tiers, now_ns) != 0) {
		free(to);
		return -1;
	}
	for (size_t i = 0; i < live; i++)
		follow(t, &t->ents[i], old.rules, old.nrules, to[i], now_ns);
	move_overflows(t, &old, now_ns);
	/* Hashed keys follow the old rules until their next record. */
	free(old.was_rules);
	t->was_rules = old.rules;
	t->was_ns = now_ns;
	free(old.overflow);
	free(to);
	heapify(t);
	if (t->sel == SIZE_MAX && !t->sel_overflow && t->kind == KEYS_SLIDING)
		free(t->cur_w.times);
	t->sel_cut = false;
	select_overflow(t, t->open_rule);
	return 0;
}
