/* A batch: the units at the head, booked together in one round trip. */
#include "batch.h"

size_t
batch_plan(struct batch *bt, const struct framer *f, const struct view *v,
    size_t off, uint64_t per, uint64_t room, size_t max, int64_t first_ns)
{
	size_t want = per > SIZE_MAX ? SIZE_MAX : (size_t)per;
	size_t n = 0;
	struct booking *b;

	if (max > BATCH_MAX)
		max = BATCH_MAX;
	while (n < max && off < v->len) {
		size_t units;
		size_t bytes = policy_span(
		    f, v->b + off, v->len - off, v->eof, want, room, &units);

		if (units == 0)
			break;
		b = &bt->b[n];
		b->rec = v->b + off;
		b->bytes = bytes;
		b->units = units;
		b->at_ns = n == 0 ? first_ns : v->read_ns;
		b->outgrown = false;
		b->key = NULL;
		b->key_len = 0;
		b->rate = NULL;
		off += bytes;
		n++;
	}
	bt->n = n;
	bt->done = 0;
	return n;
}

void
batch_booked(struct batch *bt, size_t n)
{
	if (n < bt->n)
		bt->n = n;
}

size_t
batch_due(struct batch *bt, int64_t now_ns, uint64_t *units, int64_t *due_ns)
{
	size_t bytes = 0, i = bt->done;

	*units = 0;
	*due_ns = i < bt->n ? bt->b[i].due_ns : INT64_MAX;
	for (; i < bt->n && bt->b[i].due_ns <= now_ns; i++) {
		bytes += bt->b[i].bytes;
		*units += bt->b[i].units;
	}
	bt->done = i;
	return bytes;
}
