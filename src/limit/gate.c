/* The gate: the one way the policies ask the limits; pure, time an argument. */
#include "gate.h"

/*
 * Bookings worth one call: as the units' limit says, but one at a time
 * with a byte limit, whose bucket is here.
 */
static void
set_batch(struct gate *g)
{
	g->batch = g->units != NULL && g->bytes == NULL && g->total == NULL &&
		g->units->batch > 1 ?
	    g->units->batch :
	    1;
}

void
gate_init(struct gate *g, const struct framer *f, uint64_t quantum)
{
	*g = (struct gate){ .framer = *f,
		.quantum = quantum > 0 ? quantum : 1,
		.room = UINT64_MAX,
		.batch = 1 };
}

void
gate_set_units(struct gate *g, const struct gate_backend *be)
{
	g->units = be;
	set_batch(g);
}

void
gate_set_total(struct gate *g, const struct gate_backend *be)
{
	g->total = be;
	set_batch(g);
}

void
gate_set_bytes(struct gate *g, struct bucket *b, uint64_t quantum)
{
	g->bytes = b;
	g->room = quantum < b->burst ? quantum : b->burst;
	set_batch(g);
}

size_t
gate_key(const struct gate *g, const struct booking *b, const char **key)
{
	*key = NULL;
	if (g->units == NULL || g->units->key == NULL)
		return SIZE_MAX;
	return g->units->key(g->units->self, b, key);
}

bool
gate_limits(const struct gate *g)
{
	return g->units != NULL || g->total != NULL || g->bytes != NULL;
}

/*
 * The bytes the byte limit asks of b: its length, but at most the burst;
 * a record longer than the buffer, whose length is not known yet, the
 * whole burst.
 */
static uint64_t
cost(const struct gate *g, const struct booking *b)
{
	return b->outgrown || b->bytes > g->bytes->burst ? g->bytes->burst :
							   b->bytes;
}

size_t
gate_plan_units(
    const struct gate *g, struct booking *b, size_t n, int64_t now_ns)
{
	if (g->units != NULL)
		return g->units->plan(g->units->self, b, n, now_ns);
	for (size_t i = 0; i < n; i++)
		b[i].due_ns = b[i].at_ns;
	return n;
}

int64_t
gate_shared_due(const struct gate *g, const struct booking *b, int64_t now_ns)
{
	int64_t due = INT64_MIN, t;

	if (g->total != NULL) {
		/* The total only looks. */
		struct booking all = *b;

		(void)g->total->plan(g->total->self, &all, 1, now_ns);
		due = all.due_ns;
	}
	if (g->bytes != NULL &&
	    (t = bucket_ready_at(g->bytes, b->at_ns, cost(g, b))) > due)
		due = t;
	return due;
}

size_t
gate_plan(const struct gate *g, struct booking *b, size_t n, int64_t now_ns)
{
	size_t k = gate_plan_units(g, b, n, now_ns);
	int64_t t;

	for (size_t i = 0; i < k; i++)
		if ((t = gate_shared_due(g, &b[i], now_ns)) > b[i].due_ns)
			b[i].due_ns = t;
	return k;
}

/*
 * Judge b alone, byte limit first, then the total: a record either
 * refuses takes no unit.  False when a stop came first.
 */
static bool
judge_one(const struct gate *g, struct booking *b)
{
	if ((g->bytes != NULL &&
		bucket_avail(g->bytes, b->at_ns, b->at_ns) < cost(g, b)) ||
	    (g->total != NULL &&
		g->total->grant(g->total->self, b, b->at_ns) < b->units)) {
		b->taken = 0;
		return true;
	}
	if (g->units == NULL)
		b->taken = b->units;
	else if (g->units->judge(g->units->self, b, 1) == 0)
		return false;
	if (g->total != NULL && b->taken > 0)
		g->total->take(g->total->self, b, b->taken, b->at_ns);
	/* An outgrown record's bytes are charged as they pass. */
	if (g->bytes != NULL && b->taken > 0 && !b->outgrown)
		bucket_charge(g->bytes, b->at_ns, b->at_ns, b->bytes);
	return true;
}

size_t
gate_judge_each(const struct gate *g, struct booking *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && judge_one(g, &b[i]); i++)
		;
	return i;
}

void
gate_went(const struct gate *g, uint64_t units, uint64_t bytes, int64_t at_ns)
{
	/* A limit that holds was booked in line with others': told only if
	 * it asks (a shared window, of a unit that went in a later one). */
	if (units > 0 && g->units != NULL && g->units->went != NULL)
		g->units->went(g->units->self, units, at_ns);
	if (units > 0 && g->total != NULL && g->total->went != NULL)
		g->total->went(g->total->self, units, at_ns);
	if (bytes > 0 && g->bytes != NULL)
		bucket_went(g->bytes, bytes, at_ns);
}

bool
gate_alone(const struct gate *g)
{
	return g->units != NULL && !g->units->holds && g->units->key != NULL &&
	    g->units->went != NULL;
}

void
gate_streamed(
    const struct gate *g, int64_t at_ns, int64_t now_ns, uint64_t bytes)
{
	if (g->bytes != NULL && bytes > 0)
		bucket_charge(g->bytes, at_ns, now_ns, bytes);
}

size_t
gate_held(
    const struct gate *g, const struct booking *b, size_t n, int64_t until_ns)
{
	size_t i = 0;

	if (g->units == NULL || !g->units->holds)
		return 0;
	while (i < n && b[i].due_ns <= until_ns)
		i++;
	return i;
}
