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
	write_all(STDOUT_FILENO, buf + head, n, NULL);
	head += n;
	cur->stats->bytes_out += n;
	cur->stats->units_out += units;
}

/* Sleep to deadline_ns; false if a stop was requested meanwhile. */
static bool
sleep_until(int64_t deadline_ns)
{
	while (clock_sleep_until(deadline_ns) == EINTR) {
		if (signals_stop_requested())
			return false;
		signals_poll_report();
	}
	return true;
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

int
pump_run(const struct pump *p)
{
	struct input in;
	const struct framer *f = &p->framer;
	struct stats *st = p->stats;
	size_t units, n;
	int64_t ready_ns = p->start_ns, now_ns;
	bool fresh;

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
			release(pending, 0);
			if (!paid)
				continue;
		} else if (p->limit == NULL) {
			n = eof ? pending : framer_whole(f, buf + head, pending);
			if (n == 0 && pending == sizeof buf) {
				paid = true;	/* a record longer than buf */
				st->units_out++;
				continue;
			}
			release(n, framer_count(f, buf + head, n, eof));
		} else {
			size_t want = p->quantum > SIZE_MAX ? SIZE_MAX :
			    (size_t)p->quantum;

			(void)span(f, buf + head, pending, eof, want, &units);
			if (units == 0 && pending == sizeof buf) {
				/* A record longer than the buffer: pay for it
				 * now, then let it through without waiting. */
				units = 1;
				paid = true;
			}
			if (units > 0) {
				int64_t due = limiter_ready_at(p->limit,
				    ready_ns, units);

				if ((now_ns = clock_now_ns()) < due) {
					st->next_due_ns = due;
					if (!sleep_until(due))
						break;
					st->next_due_ns = 0;
					now_ns = clock_now_ns();
				}
				if (now_ns - due > st->max_late_ns)
					st->max_late_ns = now_ns - due;
				if (paid) {
					(void)limiter_take(p->limit, ready_ns,
					    now_ns, 1);
					st->units_out++;
					continue;
				}
				want = (size_t)limiter_avail(p->limit,
				    ready_ns, now_ns);
				n = span(f, buf + head, pending, eof, want,
				    &units);
				(void)limiter_take(p->limit, ready_ns,
				    now_ns, units);
				release(n, units);
				continue;
			}
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
		if (p->limit == NULL && f->bytes && head == tail &&
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
		    p->limit != NULL ? &fresh : NULL);
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
