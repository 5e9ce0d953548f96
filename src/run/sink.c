/* The sink of a plain run: released records written to standard output. */
#include <errno.h>

#include "clock.h"
#include "progressline.h"
#include "sink.h"

void
sink_went(const struct sink *k, uint64_t units, uint64_t bytes)
{
	if (k->gate != NULL && gate_limits(k->gate))
		gate_went(k->gate, units, bytes, clock_now_ns());
}

void
sink_sleep(int64_t deadline_ns, bool (*woken)(void *ctx), void *ctx)
{
	while (clock_sleep_until(deadline_ns) == EINTR)
		if (woken(ctx))
			return;
}

/* Standard output takes whatever is released, at once. */
static bool
out_room(struct sink *k, size_t *units)
{
	(void)k;
	*units = SINK_ANY;
	return true;
}

/* Write what a releases, -P's line kept clear of it. */
static void
out_send(struct sink *k, struct stream *s, const struct action *a)
{
	if (a->kind == ACT_LONG) {
		stream_begin_long(s, true, a->units);
		return;
	}
	progress_around(false);
	(void)stream_send_at(s, a->off, a->bytes, a->units);
	sink_went(k, a->units, a->bytes);
	progress_around(true);
}

/* Nothing frees room here: a plain sleep. */
static void
out_wait(struct sink *k, int64_t deadline_ns, bool (*woken)(void *), void *ctx)
{
	(void)k;
	sink_sleep(deadline_ns, woken, ctx);
}

/* Every write was whole before it returned. */
static int
out_finish(struct sink *k)
{
	(void)k;
	return 0;
}

void
sink_stdout(struct sink *k, const struct gate *g)
{
	*k = (struct sink){ .gate = g,
		.room = out_room,
		.send = out_send,
		.wait = out_wait,
		.finish = out_finish };
}
