/* Which rule each key follows (its tier, remembered), the strictest, and
 * the rules changed in a run: every state re-rated; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "keytab.h"

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
size_t
keyrules_memo(struct keytab *t, uint64_t h, const struct keyid *id,
    const char *key, size_t len)
{
	struct keymemo *m;

	if (t->memo == NULL)
		return match_rule(t, key, len);
	/* The index takes the low bits of h; the cache, the high. */
	m = &t->memo[(h >> 32) & (KEYS_MEMO - 1)];
	if (m->rule == UINT16_MAX || !keyindex_same(&m->id, id)) {
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
	h = keyindex_identify(t, key, len, &id);
	v = t->index[keyindex_find(t, h, &id)];
	if (v != 0 && t->ents[keyindex_entry(v)].id.len != KEYS_STALE)
		return t->ents[keyindex_entry(v)].rule;
	return keyrules_memo(t, h, &id, key, len);
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

/* Copy rules[0..n) with a fresh overflow state each, at now_ns, into t. */
int
keyrules_take(struct keytab *t, const struct keyrule *rules, size_t n,
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
		o[i] = keyindex_new_state(t, now_ns);
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

/*
 * State st of rule from, re-rated at now_ns to rule to (see keys_retune):
 * a bucket as bucket_retune has it; a fixed window keeps its count if it
 * is the window of now_ns, in the new windows as in the old; a sliding
 * window keeps the latest releases the new limit counts.  false, st
 * unchanged, when memory runs out.
 */
bool
keyrules_restate(const struct keytab *t, const struct keyrule *from,
    const struct keyrule *to, union keystate *st, int64_t now_ns)
{
	struct bucket b;
	uint64_t keep, cap, lim;
	int64_t *p = NULL;

	if (from->none || to->none || from->inf || to->inf) {
		keyindex_free_state(t, st);
		*st = keyindex_new_state(t, now_ns);
		return true;
	}
	switch (t->kind) {
	case KEYS_SLIDING:
		lim = from->sliding.limit;
		keep = st->s.count < to->sliding.limit ? st->s.count :
							 to->sliding.limit;
		cap = keyindex_ring_cap(keep, to->sliding.limit);
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
			*st = keyindex_new_state(t, now_ns);
		return true;
	default:
		b = from->bucket;
		b.base_ns = st->b.base_ns;
		b.k = st->b.k;
		/* A full bucket is a new key's, which the new burst fills:
		 * whether it was forgotten yet must not matter. */
		if (bucket_full_at(&b, now_ns)) {
			*st = keyindex_new_state(t, now_ns);
			return true;
		}
		bucket_retune(
		    &b, to->bucket.n, to->bucket.d, to->bucket.burst, now_ns);
		st->b.base_ns = b.base_ns;
		st->b.k = b.k;
		return true;
	}
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

		to[i] = keyindex_hashed(id) ? SIZE_MAX :
					      match_rule(t, id->b, id->len);
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
			keyindex_free_state(t, &e->st);
			e->st = keyindex_new_state(t, now_ns);
			e->rule = (uint16_t)(nold - 1);
		}
		e->id.len = KEYS_STALE;
		return;
	}
	/* Nothing can fail here but a window's copy, whose key then starts
	 * afresh: it had released nothing that counts. */
	if (!keyrules_restate(
		t, &old[e->rule], &t->rules[to], &e->st, now_ns)) {
		keyindex_free_state(t, &e->st);
		e->st = keyindex_new_state(t, now_ns);
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
			keyindex_free_state(t, &t->overflow[j]);
			t->overflow[j] = old->overflow[i];
			if (!keyrules_restate(t, &old->rules[i], &t->rules[j],
				&t->overflow[j], now_ns))
				keyindex_free_state(t, &t->overflow[j]);
		} else {
			keyindex_free_state(t, &old->overflow[i]);
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
	if (keyrules_take(t, rules, nrules, tiers, now_ns) != 0) {
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
	keyindex_heapify(t);
	if (t->sel == SIZE_MAX && !t->sel_overflow && t->kind == KEYS_SLIDING)
		free(t->cur_w.times);
	t->sel_cut = false;
	keys_select_overflow(t, t->open_rule);
	return 0;
}
