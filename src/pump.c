/* The I/O pump: read input, frame units, wait for tokens, write. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "input.h"
#include "output.h"
#include "pump.h"
#include "signals.h"
#include "stats.h"
#include "splice.h"

static char buf[PUMP_BUF_BYTES];
/* Unreleased input is buf[head..tail); the report reads these too. */
static size_t head, tail;
static bool paid, eof;
/* The pump running, and how it counts what is waiting (pump_watch). */
static const struct pump *cur;
static void (*waiting_fn)(void);

/* Count what is read but not yet released into the stats. */
static void
count_waiting(void)
{
	struct stats *st = cur->stats;
	const char *b = buf + head;
	size_t len = tail - head, n;

	/* A partial record waits too, unless it is the long one being
	 * streamed, which was counted out when it got its token. */
	n = framer_count(&cur->framer, b, len, !paid);
	if (paid && !cur->framer.bytes && n > 0)
		n--;
	st->units_waiting = n;
	st->bytes_waiting = len;
}

/* The report, on SIGUSR1 and for --stats. */
static void
report(void *arg)
{
	(void)arg;
	waiting_fn();
	stats_print(cur->stats, clock_now_ns(), cur->stats_json,
	    stderr);
}

/* The live status line of --progress. */
static void
tick(void *arg)
{
	(void)arg;
	waiting_fn();
	stats_progress(cur->stats, clock_now_ns(), false, stderr);
}

void
pump_watch(const struct pump *p, void (*waiting)(void))
{
	cur = p;
	waiting_fn = waiting;
	signals_on_report(report, NULL);
	if (p->progress)
		signals_on_tick(tick, NULL, PUMP_PROGRESS_MS);
}

void
pump_report_end(void)
{
	if (cur->progress) {
		waiting_fn();
		stats_progress(cur->stats, clock_now_ns(), true, stderr);
	}
	if (cur->stats_at_exit)
		report(NULL);
}

/* Write n bytes holding units whole units from the head of the buffer. */
static void
release(size_t n, size_t units)
{
	output_release(cur->stats, buf + head, n, units);
	head += n;
}

/* Counts live changes of the limits, and when the last was made. */
static unsigned changes;
static int64_t changed_ns = INT64_MIN;

void
pump_limits_changed(int64_t now_ns)
{
	changes++;
	changed_ns = now_ns;
}

int64_t
pump_changed_ns(void)
{
	return changed_ns;
}

enum wake
pump_sleep_until(int64_t deadline_ns)
{
	unsigned seen = changes;

	/* A stop or a change asked for just before: do not sleep on a
	 * stale deadline. */
	if (signals_stop_requested())
		return WAKE_STOP;
	signals_poll_report();
	if (changes != seen)
		return WAKE_CHANGED;
	while (clock_sleep_until(deadline_ns) == EINTR) {
		if (signals_stop_requested())
			return WAKE_STOP;
		signals_poll_report();
		if (changes != seen)
			return WAKE_CHANGED;
	}
	return WAKE_DUE;
}

/*
 * Bytes at b[0..len) taken by at most max units.  At end of input a final
 * record without a delimiter is a unit too.
 */
static size_t
span(const struct framer *f, const char *b, size_t len, bool at_eof, size_t max,
    size_t *units)
{
	size_t n = framer_span(f, b, len, max, units);

	if (at_eof && n < len && *units < max) {
		(*units)++;
		n = len;
	}
	return n;
}

/*
 * Bytes at b[0..len) taken by at most max units that fit in room bytes;
 * when the first unit alone is bigger, that unit.
 */
static size_t
span_fit(const struct framer *f, const char *b, size_t len, bool at_eof,
    size_t max, uint64_t room, size_t *units)
{
	size_t lim = room < len ? (size_t)room : len;
	size_t n = span(f, b, lim, at_eof && lim == len, max, units);

	if (*units == 0 && max > 0)
		n = span(f, b, len, at_eof, 1, units);
	return n;
}

/* After one step of the shaping loop: go round again (something was sent,
 * or the limits changed), read more input, or stop. */
enum step { STEP_AGAIN, STEP_READ, STEP_STOP };

/*
 * Wait for the tokens of the units at the head of the buffer, waiting
 * since ready_ns, and release what the limits then allow.  STEP_READ when
 * there is no whole unit to wait for.
 */
static enum step
shape(const struct pump *p, int64_t ready_ns)
{
	const struct framer *f = &p->framer;
	struct stats *st = p->stats;
	struct bucket *bb = p->byte_limit;
	size_t pending = tail - head, want, units, n;
	uint64_t room = UINT64_MAX;
	int64_t due = ready_ns, now_ns;
	bool outgrown, reserved = false;

	want = p->quantum > SIZE_MAX ? SIZE_MAX : (size_t)p->quantum;
	if (bb != NULL)
		room = p->byte_quantum < bb->burst ? p->byte_quantum :
		    bb->burst;
	n = span_fit(f, buf + head, pending, eof, want, room, &units);
	/* A record longer than the buffer: pay for it, then let it through
	 * without waiting; its bytes are charged as they pass. */
	outgrown = units == 0 && pending == sizeof buf;
	if (outgrown)
		units = 1;
	if (units == 0)
		return STEP_READ;

	now_ns = clock_now_ns();
	/* Per key, one record at a time: the next may have another key. */
	if (p->select != NULL)
		p->select(p->select_ctx, buf + head, outgrown ? pending : n,
		    now_ns);
	if (p->limit != NULL && p->limit->reserve != NULL) {
		/* A bucket shared with other processes: book a place in
		 * line now, so that all are served in order. */
		due = limiter_reserve(p->limit, now_ns, outgrown ? 1 : units);
		reserved = true;
	} else if (p->limit != NULL) {
		due = limiter_ready_at(p->limit, ready_ns, units);
	}
	if (bb != NULL) {
		/* A record that outgrew the buffer is longer than the burst
		 * would ever be useful for: it waits for a full bucket. */
		uint64_t cost = outgrown || n > bb->burst ? bb->burst : n;
		int64_t bdue = bucket_ready_at(bb, ready_ns, cost);

		if (bdue > due)
			due = bdue;
	}
	if (now_ns < due && (now_ns = clock_now_ns()) < due) {
		enum wake w;

		st->next_due_ns = due;
		w = pump_sleep_until(due);
		st->next_due_ns = 0;
		if (w != WAKE_DUE)	/* stopping, or due again afresh */
			return w == WAKE_STOP ? STEP_STOP : STEP_AGAIN;
		now_ns = clock_now_ns();
	}
	if (now_ns - due > st->max_late_ns)
		st->max_late_ns = now_ns - due;
	if (outgrown) {
		if (p->limit != NULL && !reserved)
			(void)limiter_take(p->limit, ready_ns, now_ns, 1);
		st->units_out++;
		paid = true;
		return STEP_AGAIN;
	}

	if (reserved) {
		/* Exactly what was booked. */
		if (bb != NULL)
			bucket_charge(bb, ready_ns, now_ns, n);
		release(n, units);
		return STEP_AGAIN;
	}
	/* Release all that is due by now, not only what was waited for. */
	want = p->limit == NULL ? SIZE_MAX :
	    (size_t)limiter_avail(p->limit, ready_ns, now_ns);
	if (p->select != NULL && want > 1)
		want = 1;
	if (bb != NULL)
		room = bucket_avail(bb, ready_ns, now_ns);
	n = span_fit(f, buf + head, pending, eof, want, room, &units);
	if (p->limit != NULL)
		(void)limiter_take(p->limit, ready_ns, now_ns, units);
	if (bb != NULL)
		bucket_charge(bb, ready_ns, now_ns, n);
	release(n, units);
	return STEP_AGAIN;
}

int
pump_run(const struct pump *p)
{
	struct input in;
	const struct framer *f = &p->framer;
	struct stats *st = p->stats;
	size_t units, n;
	int64_t ready_ns = p->start_ns;
	bool limited = p->limit != NULL || p->byte_limit != NULL, fresh;

	head = tail = 0;
	paid = eof = false;
	input_init(&in, p->files, p->nfiles);
	pump_watch(p, count_waiting);

	while (!signals_stop_requested()) {
		size_t pending = tail - head;
		ssize_t got;

		signals_poll_report();
		if (paid) {
			/* The head record is longer than the buffer and has
			 * its token: stream it to its end. */
			n = framer_span(f, buf + head, pending, 1, &units);
			if (units == 1) {
				paid = false;
				pending = n;
			}
			if (p->byte_limit != NULL)
				bucket_charge(p->byte_limit, ready_ns,
				    clock_now_ns(), pending);
			release(pending, 0);
			if (!paid)
				continue;
		} else if (!limited) {
			n = eof ? pending : framer_whole(f, buf + head, pending);
			if (n == 0 && pending == sizeof buf) {
				paid = true;	/* a record longer than buf */
				st->units_out++;
				continue;
			}
			release(n, framer_count(f, buf + head, n, eof));
		} else {
			enum step step = shape(p, ready_ns);

			if (step == STEP_STOP)
				break;
			if (step == STEP_AGAIN)
				continue;
		}

		if (head == tail) {
			head = tail = 0;
			if (eof)
				break;
		} else if (eof) {
			continue;
		}
		if (tail == sizeof buf && head > 0) {
			memmove(buf, buf + head, tail - head);
			tail -= head;
			head = 0;
		}
		if (!limited && f->bytes && head == tail &&
		    !in.no_splice) {
			got = input_splice(&in);
			if (got == -1)
				break;
			if (got == 0)
				eof = true;
			if (got > 0) {
				st->bytes_in += (uint64_t)got;
				st->bytes_out += (uint64_t)got;
				st->units_out += (uint64_t)got;
			}
			if (got != SPLICE_UNSUPPORTED)
				continue;
		}
		/*
		 * Units are ready from the time they arrive.  Data that was
		 * already waiting when we came for it has been ready since we
		 * last knew, so the schedule keeps its place; only data we had
		 * to wait for starts afresh, as after an idle period.
		 */
		fresh = false;
		got = input_read(&in, buf + tail, sizeof buf - tail,
		    limited ? &fresh : NULL);
		if (got < 0)
			break;
		if (got == 0)
			eof = true;
		tail += (size_t)got;
		st->bytes_in += (uint64_t)got;
		if (fresh)
			ready_ns = clock_now_ns();
	}
	input_close(&in);
	pump_report_end();
	return in.status;
}
