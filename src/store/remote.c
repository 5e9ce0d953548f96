/* A limit kept in Redis behind the gate: keys, tiers and bookings for it. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "remote.h"

/*
 * The key in Redis of the keys cut at the buffer: the record delimiter
 * alone, which no key holds, so that they share one bucket.
 */
static const char *
cut_key(const struct remote *rm, const char *key, size_t *len)
{
	if (key != NULL)
		return key;
	*len = 1;
	return &rm->delim;
}

/* Choose b's key in the table of local limits (--redis-fallback local). */
static void
select_local(void *ctx, const struct booking *b)
{
	struct remote *rm = ctx;

	keys_select(
	    rm->kt, b->key == &rm->delim ? NULL : b->key, b->key_len, b->at_ns);
}

/* Each record's key (with -k) and its tier's rate. */
static void
key_all(struct remote *rm, struct booking *b, size_t n)
{
	for (size_t i = 0; rm->kt != NULL && i < n; i++) {
		b[i].key_len = keys_of_record(&rm->kt->spec, b[i].rec,
		    b[i].bytes, !b[i].outgrown, &b[i].key);
		b[i].rate = rm->rates != NULL ?
		    &rm->rates[keys_rule_of(rm->kt, b[i].key, b[i].key_len)] :
		    NULL;
		b[i].key = cut_key(rm, b[i].key, &b[i].key_len);
	}
}

static size_t
rm_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	struct remote *rm = self;

	key_all(rm, b, n);
	return redis_book(rm->redis, b, n, false, now_ns, rm->ahead_ns,
	    rm->kt != NULL ? select_local : NULL, rm);
}

static size_t
rm_judge(void *self, struct booking *b, size_t n)
{
	struct remote *rm = self;

	if (n == 0)
		return 0;
	key_all(rm, b, n);
	return redis_book(rm->redis, b, n, true, b[0].at_ns, rm->ahead_ns,
	    rm->kt != NULL ? select_local : NULL, rm);
}

void
remote_backend(struct gate_backend *be, struct remote *rm)
{
	*be = (struct gate_backend){ .self = rm,
		.plan = rm_plan,
		.judge = rm_judge,
		.holds = true,
		.batch = REDIS_BATCH_MAX };
}

void
remote_tiers(struct remote *rm, const struct tiers *t, char *id, size_t size)
{
	static const struct siphash_key fixed_key = { { 0, 0 } };
	size_t n = rm->kt->nrules;
	uint64_t h = 0;
	char one[TIERS_LINE_MAX + 96];

	free(rm->rates);
	if ((rm->rates = calloc(n, sizeof *rm->rates)) == NULL)
		err(1, "tiers");
	for (size_t i = 0; i < n; i++) {
		const struct keyrule *r = &rm->kt->rules[i];
		const struct bucket *b = &r->bucket;
		int len;

		/* A window's tier: its N a width, as the script reads one. */
		if (rm->kt->kind == KEYS_FIXED && !r->none && !r->inf)
			redis_rate_window(&rm->rates[i], r->fixed.limit,
			    (uint64_t)r->fixed.width_ns);
		else if (rm->kt->kind == KEYS_SLIDING && !r->none && !r->inf)
			redis_rate_window(&rm->rates[i], r->sliding.limit,
			    (uint64_t)r->sliding.width_ns);
		else
			redis_rate_init(&rm->rates[i], b->n, b->d, b->burst,
			    r->none, r->inf);
		len = snprintf(one, sizeof one, "%s%c%s%c%s%c%llu",
		    i < t->ntiers ? t->tier[i].pattern : "", 0,
		    rm->rates[i].interval, 0, rm->rates[i].burst, 0,
		    (unsigned long long)h);
		h = siphash24(&fixed_key, one, (size_t)len);
	}
	snprintf(id, size, "tiers %016llx", (unsigned long long)h);
}

void
remote_free(struct remote *rm)
{
	free(rm->rates);
	rm->rates = NULL;
	redis_close(rm->redis);
	rm->redis = NULL;
}
