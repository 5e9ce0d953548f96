/* Passing: with no limit on units, every whole unit goes at once. */
#include "policy.h"

static void
pass_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	const struct gate *g = self;
	const struct framer *f = &g->framer;
	size_t n = v->eof ? v->len : framer_whole(f, v->b, v->len);

	(void)now_ns;
	if (n > 0)
		policy_move(a, ACT_SEND, 0, n, framer_count(f, v->b, n, v->eof),
		    INT64_MIN);
	else if (v->full)
		policy_move(a, ACT_LONG, 0, 0, 1, INT64_MIN);
	else
		policy_read(a);
}

void
pass_policy(struct policy *p, struct gate *g)
{
	/* Bytes need no framing: they may go round the buffer. */
	*p = (struct policy){ .self = g,
		.next = pass_next,
		.read = g->framer.bytes ? READ_SPLICE : READ_COPY };
}
