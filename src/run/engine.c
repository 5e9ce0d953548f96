/* The engine: the one loop that reads, waits, writes and handles signals. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "engine.h"
#include "output.h"
#include "progress.h"
#include "signals.h"
#include "stream.h"

/* A run: what the engine works on, and what reports read. */
struct run {
	const struct engine *e;
	const struct policy *pol;
	struct stream s;
	unsigned seen;	      /* changes of the limits applied */
	bool started;	      /* the input and output are open */
	bool ended;	      /* the last report is made */
	uint64_t jobs_ended;  /* --exec: commands seen to end */
	bool slots_full;      /* --exec: records waited for a slot... */
	int64_t slot_free_ns; /* ... until then */
	bool failed;	      /* the policy could not go on */
	uint64_t pass;	      /* --loop: passes begun again */
	uint64_t pass_bytes;  /* bytes in when the last pass began */
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

/* How a wait ended. */
enum wake { WAKE_DUE, WAKE_STOP, WAKE_CHANGED, WAKE_INPUT };

/* The longest wait for a command to end between looks (for a SIGCHLD
 * missed). */
#define ENGINE_REAP_NS 1000000000

/* Handle the signals that arrived; what they mean for a wait. */
static enum wake
interrupted(unsigned seen)
{
	if (signals_stop_requested())
		return WAKE_STOP;
	signals_dispatch();
	return changes != seen ? WAKE_CHANGED : WAKE_DUE;
}

/* With --exec, did a command end since the engine last looked (its slot
 * may take the next record now)? */
static bool
slot_freed(struct run *r)
{
	struct jobs *j = r->e->jobs;
	uint64_t ended;

	if (j == NULL)
		return false;
	ended = j->counts.succeeded + j->counts.failed;
	if (ended == r->jobs_ended)
		return false;
	r->jobs_ended = ended;
	return true;
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
	if (read) {
		rc = stream_wait_input(&r->s, deadline_ns);
		if (rc == EINTR)
			return interrupted(r->seen);
		return rc == 0 ? WAKE_DUE : WAKE_INPUT;
	}
	while (clock_sleep_until(deadline_ns) == EINTR)
		if ((w = interrupted(r->seen)) != WAKE_DUE || slot_freed(r))
			return w;
	return WAKE_DUE;
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
	if (stream_at_end(&r->s))
		return loop_again(r);
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

/*
 * The units of a send, in bytes, went by now: the limits count them as
 * of then (the time taken after the write, or the spawn, is no earlier
 * than when they really went).
 */
static void
went(struct run *r, uint64_t units, uint64_t bytes)
{
	const struct gate *g = r->e->gate;

	if (g != NULL && gate_limits(g))
		gate_went(g, units, bytes, clock_now_ns());
}

/* The records of a send being handed to --exec, and what is left of it. */
struct handing {
	struct run *r;
	uint64_t units;
	uint64_t bytes;
};

/*
 * Start the command for rec[0..len); once it has started (posix_spawn
 * returns after the exec), the limits learn so of it and of the records
 * after it, which start later still.
 */
static enum stream_fate
start_one(void *ctx, const char *rec, size_t len)
{
	struct handing *h = ctx;
	enum stream_fate fate = jobs_hand(h->r->e->jobs, rec, len);

	if (fate == STREAM_KEPT)
		return fate;
	went(h->r, h->units, h->bytes);
	h->units -= h->units > 0 ? 1 : 0;
	/* Its delimiter too; the last record may have none. */
	h->bytes -= h->bytes > len + 1 ? len + 1 : h->bytes;
	return fate;
}

/* Carry out action a, decided at now_ns; false to stop. */
static bool
act(struct run *r, const struct action *a, int64_t now_ns)
{
	struct stats *st = r->e->stats;
	enum wake w;

	switch (a->kind) {
	case ACT_SEND:
		note_late(st, a->due_ns, now_ns);
		if (r->e->jobs != NULL) {
			struct handing h = { r, a->units, a->bytes };

			stream_hand(&r->s, a->bytes, start_one, &h);
			return true;
		}
		progress_around(false);
		(void)stream_send_at(&r->s, a->off, a->bytes, a->units);
		went(r, a->units, a->bytes);
		progress_around(true);
		return true;
	case ACT_DROP:
		stream_drop(&r->s, a->off, a->bytes, a->units);
		return true;
	case ACT_LONG:
		note_late(st, a->due_ns, now_ns);
		if (r->e->jobs != NULL && a->pass) {
			/* No argument holds it: it is dropped, whole. */
			jobs_outgrown(r->e->jobs, stream_cap(&r->s));
			stream_begin_long(&r->s, false, a->units);
			return true;
		}
		stream_begin_long(&r->s, a->pass, a->units);
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
 * With --exec, what the policy may see of v: no more records than there
 * are free slots, so that no token is taken for a record before its
 * command can start.  False when no slot is free (or none ever will be).
 */
static bool
fit_slots(struct run *r, struct view *v)
{
	unsigned room;

	if (r->e->jobs == NULL)
		return true;
	if ((room = jobs_room(r->e->jobs)) == 0)
		return false;
	/*
	 * What waited for a slot came, for the limits, when the slot freed:
	 * a start a slot held back is not late (its place in the schedule
	 * kept by --catch-up), and --drop judges it as of then.
	 */
	if (v->ready_ns < r->slot_free_ns)
		v->ready_ns = r->slot_free_ns;
	if (v->read_ns < r->slot_free_ns)
		v->read_ns = r->slot_free_ns;
	stream_fit(&r->s, v, room);
	return true;
}

/* All slots are taken: wait for a command to end; false to stop. */
static bool
wait_slot(struct run *r)
{
	if (r->e->jobs->halted)
		return false;
	return wait_until(r, clock_now_ns() + ENGINE_REAP_NS, false) !=
	    WAKE_STOP;
}

/* One turn of the loop; false to stop. */
static bool
turn(struct run *r)
{
	struct action a;
	struct view v;
	int64_t now_ns;

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
	stream_view(&r->s, &v);
	if (r->slots_full && r->e->jobs != NULL && jobs_room(r->e->jobs) > 0) {
		r->slots_full = false;
		r->slot_free_ns = clock_now_ns();
	}
	if (!fit_slots(r, &v)) {
		r->slots_full = true;
		return wait_slot(r);
	}
	now_ns = clock_now_ns();
	policy_next(r->pol, &v, now_ns, &a);
	return act(r, &a, now_ns);
}

/*
 * The commands still running end in their own time: wait for them,
 * reports and all.  A second stop signal sends them SIGTERM and ends the
 * wait, and the run, at once: nothing is half written here, so the last
 * reports are still made.
 */
static void
wait_jobs(struct jobs *j)
{
	if (j == NULL)
		return;
	signals_hold_second_stop(true);
	while (j->running > 0 && signals_second_stop() == 0) {
		/* A stop asked for does not end this wait: it is what
		 * waits for them. */
		if (clock_sleep_until(clock_now_ns() + ENGINE_REAP_NS) == EINTR)
			signals_dispatch();
		jobs_reap(j);
	}
	signals_hold_second_stop(false);
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

	run = (struct run){ .e = e, .pol = e->policy, .seen = changes };
	/* Reports may be asked for while a drop FIFO waits for a reader. */
	signals_hook(SIGNALS_REPORT, report, &run, 0);
	progress_start(&run.s, e->stats, e->progress);
	stream_open(&run.s, e->buf_bytes, &e->framer, e->files, e->nfiles,
	    e->drop_to, e->stats, e->start_ns);
	if (e->progress)
		e->stats->bytes_total = stream_total_bytes(&run.s);
	stream_tally(&run.s, e->tally, e->tally_ctx);
	run.started = true;
	if (!hooked && (e->progress || e->stats_at_exit))
		hooked = atexit(finish_at_exit) == 0;
	while (turn(&run))
		;
	if (signals_stop_requested() || (e->jobs != NULL && e->jobs->halted))
		settle(&run);
	else if (run.failed)
		stream_spill(&run.s);
	wait_jobs(e->jobs);
	finish(&run);
	return stream_close(&run.s) | run.failed;
}
