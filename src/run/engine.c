/* The engine: the one loop that reads, waits, and hands records to a sink. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "engine.h"
#include "output.h"
#include "progressline.h"
#include "signals.h"
#include "stream.h"

/* How a wait ended. */
enum wake { WAKE_DUE, WAKE_STOP, WAKE_CHANGED, WAKE_INPUT };

/* A run: what the engine works on, and what reports read. */
struct run {
	const struct engine *e;
	const struct policy *pol;
	struct stream s;
	unsigned seen;	     /* changes of the limits applied */
	bool started;	     /* the input and output are open */
	bool ended;	     /* the last report is made */
	bool full;	     /* records waited for room in the sink... */
	int64_t room_ns;     /* ... until then */
	enum wake woke;	     /* how the wait under way ended */
	bool failed;	     /* the policy could not go on */
	uint64_t pass;	     /* --loop: passes begun again */
	uint64_t pass_bytes; /* bytes in when the last pass began */
	int64_t again_ns;    /* the sink's next record to go again, or
			      * INT64_MIN for none (sink's again) */
};

/* The run: one per process, as reports and requests reach it by signal. */
static struct run run;

/* Counts live changes of the limits, and when the last was made. */
static unsigned changes;
static int64_t changed_ns;

void
engine_limits_changed(int64_t now_ns)
{
	changes++;
	changed_ns = now_ns;
	/* The tiers of the records held may be others now. */
	stream_recount(&run.s);
}

/* The report, on SIGUSR1 and for --stats: every tier's count. */
static void
report(void *arg)
{
	static char piece[STATS_PIECE_MAX];
	struct run *r = arg;

	stream_count_waiting(&r->s);
	stats_report(r->e->stats, clock_now_ns(), r->e->stats_json, piece,
	    sizeof piece, output_say);
}

size_t
engine_report(char *buf, size_t size, bool json)
{
	stream_count_waiting(&run.s);
	return stats_format(run.e->stats, clock_now_ns(), json, buf, size);
}

size_t
engine_status(char *buf, size_t size, bool json)
{
	stream_count_waiting(&run.s);
	return stats_format_status(
	    run.e->stats, clock_now_ns(), json, buf, size);
}

/* The longest wait for room in the sink between looks (for a signal
 * missed). */
#define ENGINE_ROOM_NS 1000000000
/* -P counts the records of input files up to this size before the run:
 * about 0.06 s from the page cache on a 2-core machine
 * (bench/countahead.sh). */
#define COUNT_AHEAD (256ULL << 20)

/* Handle the signals that arrived; what they mean for a wait. */
static enum wake
interrupted(unsigned seen)
{
	if (signals_stop_requested())
		return WAKE_STOP;
	signals_dispatch();
	return changes != seen ? WAKE_CHANGED : WAKE_DUE;
}

/* A wait's look at the signals that came: true when it is over. */
static bool
woken(void *arg)
{
	struct run *r = arg;

	r->woke = interrupted(r->seen);
	return r->woke != WAKE_DUE;
}

/*
 * Wait until deadline_ns, and with read until input arrives too, printing
 * reports as they are asked for.  Returns early when a stop was
 * requested, or when the limits changed, so the deadline is stale.
 */
static enum wake
wait_until(struct run *r, int64_t deadline_ns, bool read)
{
	enum wake w = interrupted(r->seen);
	int rc;

	/* A stop or a change asked for just before: do not wait on a stale
	 * deadline. */
	if (w != WAKE_DUE)
		return w;
	/* A record to go again is due before: it is put back then. */
	if (r->again_ns != INT64_MIN && r->again_ns < deadline_ns)
		deadline_ns = r->again_ns;
	if (read) {
		rc = stream_wait_input(&r->s, deadline_ns);
		if (rc == EINTR)
			return interrupted(r->seen);
		return rc == 0 ? WAKE_DUE : WAKE_INPUT;
	}
	r->woke = WAKE_DUE;
	r->e->sink->wait(r->e->sink, deadline_ns, woken, r);
	return r->woke;
}

/*
 * All the input was read and released: with --loop, read it again for
 * the next pass; false when there is none.
 */
static bool
loop_again(struct run *r)
{
	/* A pass that read nothing would read nothing again, at once. */
	if (r->pol->rewound == NULL || !stream_empty(&r->s) ||
	    (r->e->loops != UINT64_MAX && r->pass >= r->e->loops) ||
	    r->e->stats->bytes_in == r->pass_bytes)
		return false;
	r->pass++;
	r->pass_bytes = r->e->stats->bytes_in;
	stream_rewind(&r->s, clock_now_ns());
	r->pol->rewound(r->pol->self, clock_now_ns());
	return true;
}

/* Read more input, as the policy's reads may take it; false to stop. */
static bool
read_more(struct run *r, enum read_mode mode)
{
	if (stream_at_end(&r->s)) {
		if (loop_again(r))
			return true;
		/* Records may still come back to go again: wait for them. */
		if (r->again_ns == INT64_MIN)
			return false;
		return wait_until(r, clock_now_ns() + ENGINE_ROOM_NS, false) !=
		    WAKE_STOP;
	}
	/* A record may be due to go again (or the sink to act, or a
	 * command's end to bring one back) before any input comes: wait for
	 * whichever is first. */
	if (r->again_ns != INT64_MIN) {
		enum wake w = wait_until(r, r->again_ns, true);

		if (w != WAKE_INPUT)
			return w != WAKE_STOP;
	}
	return stream_read(&r->s, mode, r->pol->uses_ready) >= 0;
}

/* Note how late units due at due_ns went at now_ns. */
static void
note_late(struct stats *st, int64_t due_ns, int64_t now_ns)
{
	st->next_due_ns = 0;
	if (due_ns != INT64_MIN && now_ns - due_ns > st->max_late_ns)
		st->max_late_ns = now_ns - due_ns;
}

/* Carry out action a, decided at now_ns; false to stop. */
static bool
act(struct run *r, const struct action *a, int64_t now_ns)
{
	struct stats *st = r->e->stats;
	enum wake w;

	if (a->note != NULL)
		warnx("%s", a->note);
	switch (a->kind) {
	case ACT_SEND:
		note_late(st, a->due_ns, now_ns);
		r->e->sink->send(r->e->sink, &r->s, a);
		return true;
	case ACT_DROP:
		stream_drop(&r->s, a->off, a->bytes, a->units);
		return true;
	case ACT_LONG:
		note_late(st, a->due_ns, now_ns);
		if (a->pass)
			r->e->sink->send(r->e->sink, &r->s, a);
		else
			stream_begin_long(&r->s, false, a->units);
		return true;
	case ACT_WAIT:
		st->next_due_ns = a->due_ns == INT64_MAX ? 0 : a->due_ns;
		w = wait_until(r, a->due_ns, a->read);
		if (w == WAKE_INPUT)
			return stream_fill(&r->s, r->pol->uses_ready) >= 0;
		return w != WAKE_STOP;
	case ACT_READ:
		return read_more(r, r->pol->read);
	case ACT_FAIL:
		warnx("%s", a->why);
		r->failed = true;
		return false;
	}
	return false;
}

/* Move what is held of a long record; false when more must be read. */
static bool
move_long(struct run *r)
{
	struct moved m;
	size_t n;

	progress_around(false);
	n = stream_move_long(&r->s, &m);
	progress_around(true);
	if (n == 0)
		return !stream_in_long(&r->s);
	if (r->pol->streamed != NULL)
		r->pol->streamed(r->pol->self, &m, clock_now_ns());
	return true;
}

/*
 * A stop came: carry out what the policy has already decided (tokens
 * taken, verdicts given), unless the output took no more, then set aside
 * a copy of the whole records still held where dropped records go.  They
 * count as waiting.
 */
static void
settle(struct run *r)
{
	struct action a;
	struct view v;

	while (r->pol->owes != NULL && r->pol->owes(r->pol->self) &&
	    !stream_out_gone(&r->s) && !stream_cut(&r->s)) {
		stream_view(&r->s, &v);
		policy_next(r->pol, &v, clock_now_ns(), &a);
		if (a.kind != ACT_SEND && a.kind != ACT_DROP)
			break;
		(void)act(r, &a, clock_now_ns());
	}
	stream_spill(&r->s);
}

/*
 * A stop came while the drop file holds part of a record: drop the rest
 * of it as it arrives, and release nothing meanwhile.  False when done.
 */
static bool
finish_drop(struct run *r)
{
	struct action a;
	struct view v;

	stream_view(&r->s, &v);
	policy_next(r->pol, &v, clock_now_ns(), &a);
	if (a.kind == ACT_DROP)
		return act(r, &a, clock_now_ns());
	return read_more(r, READ_COPY);
}

/*
 * What the policy may see of v: no more records than the sink has room
 * for now, so that no token is taken for a record before it can go.
 * False when it has none.
 */
static bool
fit_room(struct run *r, struct view *v, size_t room)
{
	if (room == 0) {
		r->full = true;
		return false;
	}
	if (r->full) {
		r->full = false;
		r->room_ns = clock_now_ns();
	}
	if (room == SINK_ANY)
		return true;
	/*
	 * What waited for room came, for the limits, when room came: a
	 * start a full sink held back is not late (its place in the
	 * schedule kept by --catch-up), and --drop judges it as of then.
	 */
	if (v->ready_ns < r->room_ns)
		v->ready_ns = r->room_ns;
	if (v->read_ns < r->room_ns)
		v->read_ns = r->room_ns;
	stream_fit(&r->s, v, room);
	return true;
}

/* One turn of the loop; false to stop. */
static bool
turn(struct run *r)
{
	struct action a;
	struct view v;
	int64_t now_ns;
	size_t room;

	signals_dispatch();
	if (changes != r->seen) {
		r->seen = changes;
		if (r->pol->retuned != NULL)
			r->pol->retuned(r->pol->self, changed_ns);
	}
	if (stream_out_gone(&r->s))
		return false;
	if (stream_in_long(&r->s)) /* whole, even if a stop came */
		return move_long(r) || read_more(r, READ_COPY);
	if (signals_stop_requested())
		return stream_drop_open(&r->s) && finish_drop(r);
	if (r->e->sink->again != NULL)
		r->again_ns = r->e->sink->again(
		    r->e->sink, &r->s, clock_now_ns());
	stream_view(&r->s, &v);
	if (!r->e->sink->room(r->e->sink, &room))
		return false; /* nothing will ever go */
	if (!fit_room(r, &v, room))
		return wait_until(r, clock_now_ns() + ENGINE_ROOM_NS, false) !=
		    WAKE_STOP;
	now_ns = clock_now_ns();
	policy_next(r->pol, &v, now_ns, &a);
	return act(r, &a, now_ns);
}

/* The last line of -P and the report of -s, once, as a run ends. */
static void
finish(struct run *r)
{
	if (!r->started || r->ended)
		return;
	r->ended = true;
	if (r->e->progress)
		progress_draw(true);
	if (r->e->stats_at_exit)
		report(r);
}

/*
 * A run that ends on an error after it started (err(3) calls exit: a
 * write error, Redis refusing it, --redis-fallback fail) reports as one
 * that ends normally; the counts are as the error left them.
 */
static void
finish_at_exit(void)
{
	finish(&run);
}

int
engine_run(const struct engine *e)
{
	static bool hooked;
	size_t room;
	int worst, status;

	run = (struct run){
		.e = e, .pol = e->policy, .seen = changes, .again_ns = INT64_MIN
	};
	/* Reports may be asked for while a drop FIFO waits for a reader. */
	signals_hook(SIGNALS_REPORT, report, &run, 0);
	progress_start(&run.s, e->stats, e->progress);
	stream_open(&run.s, e->buf_bytes, &e->framer, e->files, e->nfiles,
	    e->drop_to, e->stats, e->start_ns);
	run.s.end_passes = e->loops > 0;
	if (e->progress)
		e->stats->bytes_total = stream_total_bytes(&run.s);
	/* -P's ETA counts records when it can read them ahead quickly. */
	if (e->progress)
		e->stats->units_total = e->framer.bytes ?
		    e->stats->bytes_total :
		    stream_total_records(&run.s, e->framer.delim, COUNT_AHEAD);
	stream_tally(&run.s, e->tally, e->tally_ctx);
	if (e->resume != NULL)
		stream_resume(&run.s, e->resume);
	run.started = true;
	if (!hooked && (e->progress || e->stats_at_exit))
		hooked = atexit(finish_at_exit) == 0;
	while (turn(&run))
		;
	if (signals_stop_requested() || !e->sink->room(e->sink, &room))
		settle(&run);
	else if (run.failed)
		stream_spill(&run.s);
	worst = e->sink->finish(e->sink);
	finish(&run);
	status = stream_close(&run.s) | run.failed;
	return worst != 0 ? worst : status;
}
