/* Per-key limits: a small state per live key, by rule; pure, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "keys.h"
#include "keytab.h"

/* Slots of the index to start with; it doubles to stay at most half full. */
#define KEYS_MIN_CAP 1024

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
	    keyrules_take(t, rules, nrules, tiers, now_ns) != 0) {
		free(t->index);
		free(t->ents);
		t->index = NULL;
		t->ents = NULL;
		return -1;
	}
	/* Before any key is selected, takes go to an overflow state: the
	 * strictest's, never none where a limit will do. */
	keys_select_overflow(t, t->open_rule);
	return 0;
}

void
keys_free(struct keytab *t)
{
	for (size_t i = 0; i < t->live; i++)
		keyindex_free_state(t, &t->ents[i].st);
	for (size_t i = 0; t->overflow != NULL && i < t->nrules; i++)
		keyindex_free_state(t, &t->overflow[i]);
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
	    !keyindex_ring_room(st, t->rules[r].sliding.limit))
		t->cur_none = true;
}

/* Select rule r's overflow state. */
void
keys_select_overflow(struct keytab *t, size_t r)
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
	size_t r = keyrules_memo(t, t->sel_hash, &e->id, key, len);

	if (!keyrules_restate(
		t, &t->was_rules[e->rule], &t->rules[r], &e->st, t->was_ns)) {
		keyindex_free_state(t, &e->st);
		e->st = keyindex_new_state(t, t->was_ns);
	}
	e->rule = (uint16_t)r;
	e->id.len = KEYS_HASHED;
	return keyindex_reheap(t, i);
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
		keys_select_overflow(t, t->open_rule);
		return;
	}
	t->sel_hash = keyindex_identify(t, key, len, &t->pend.id);
	t->sel_overflow = false;
	v = t->index[keyindex_find(t, t->sel_hash, &t->pend.id)];
	if (v != 0) {
		struct keyent *e;

		t->sel = keyindex_entry(v);
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
	r = keyrules_memo(t, t->sel_hash, &t->pend.id, key, len);
	if (!keyindex_make_room(t, now_ns)) {
		keys_select_overflow(t, r);
		return;
	}
	st = keyindex_new_state(t, now_ns);
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
		was = keyindex_refill_ns(t, e);
		e->st = saved(t);
		if (keyindex_refill_ns(t, e) != was || t->kind == KEYS_SLIDING)
			t->sel = keyindex_reheap(t, t->sel);
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
	e->slot = (uint32_t)keyindex_empty_slot(t->index, t->cap, tag);
	t->index[e->slot] = tag << 32 | (t->sel + 1);
	t->sel = keyindex_reheap(t, t->sel);
}
