/* A bounded queue: read ahead while units wait for tokens, at most N. */
#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "input.h"
#include "output.h"
#include "queue.h"
#include "signals.h"

static char buf[QUEUE_BUF_BYTES];
/*
 * buf[head..judged) holds the queued units, buf[judged..tail) input read
 * but not yet admitted to the queue (back-pressure: the queue was full).
 */
static size_t head, judged, tail;
/* When each queued unit arrived, oldest first, in a ring. */
static int64_t *arrived;
static size_t ring, first, queued;
static bool open_record;	/* the last admitted record is unfinished */
static bool open_ok;		/* ... and is queued, not dropped */
static bool paid;		/* the head record outgrew buf and has its token */
static bool eof;
static uint64_t max_queued;
static bool dropping;
static int drop_fd;
static const char *drop_name;
static const struct pump *cur;

static void
count_waiting(void)
{
	struct stats *st = cur->stats;

	st->units_waiting = queued + framer_count(&cur->framer, buf + judged,
	    tail - judged, true);
	st->bytes_waiting = tail - head;
}

/* Divert buf[from..to) to the drop file, or discard it. */
static void
divert(size_t from, size_t to)
{
	if (drop_fd >= 0)
		write_all(drop_fd, buf + from, to - from, drop_name);
	cur->stats->bytes_dropped += to - from;
}

/*
 * Admit the input in buf[judged..tail) at t_ns: each record is queued
 * when fewer than max_queued wait, else dropped, or, without dropping,
 * left unread until there is room.  Dropped bytes leave the buffer.
 */
static void
admit(int64_t t_ns)
{
	size_t r = judged, w = judged, drop_from = 0;
	bool in_drop = false;

	while (r < tail) {
		const char *q;
		size_t len;

		if (!open_record) {
			if (queued >= max_queued && !dropping)
				break;
			open_ok = queued < max_queued;
			if (open_ok) {
				arrived[(first + queued) % ring] = t_ns;
				queued++;
			} else {
				cur->stats->units_dropped++;
			}
			open_record = true;
		}
		q = memchr(buf + r, cur->framer.delim, tail - r);
		len = q != NULL ? (size_t)(q - (buf + r)) + 1 : tail - r;
		if (open_ok) {
			if (in_drop) {
				divert(drop_from, r);
				in_drop = false;
			}
			if (w != r)
				memmove(buf + w, buf + r, len);
			w += len;
		} else if (!in_drop) {
			drop_from = r;
			in_drop = true;
		}
		if (q != NULL)
			open_record = false;
		r += len;
	}
	if (in_drop)
		divert(drop_from, r);
	if (w != r)
		memmove(buf + w, buf + r, tail - r);
	tail -= r - w;
	judged = w;
}

/* Write the n bytes at the head, holding units whole units. */
static void
release(size_t n, size_t units)
{
	output_release(cur->stats, buf + head, n, units);
	head += n;
	first = (first + units) % ring;
	queued -= units;
}

/*
 * Bytes of at most max whole queued units at the head; at the end of
 * input an unfinished last record is whole.
 */
static size_t
head_units(size_t max, size_t *units)
{
	size_t len = judged - head;
	size_t n = framer_span(&cur->framer, buf + head, len, max, units);

	if (eof && judged == tail && n < len && *units < max) {
		(*units)++;
		n = len;
	}
	return n;
}

/*
 * Release what is due at the head of the queue.  Returns true if it
 * wrote anything; otherwise *due_ns is when the head is due, or INT64_MAX
 * when it is not whole yet.
 */
static bool
release_due(int64_t *due_ns)
{
	struct stats *st = cur->stats;
	size_t want = cur->quantum > SIZE_MAX ? SIZE_MAX : (size_t)cur->quantum;
	size_t units, n;
	int64_t now_ns;

	*due_ns = INT64_MAX;
	if (paid) {
		/* Stream the long record to its end. */
		n = framer_span(&cur->framer, buf + head, judged - head, 1,
		    &units);
		if (units == 1 || (eof && judged == tail)) {
			paid = false;
			n = units == 1 ? n : judged - head;
		} else {
			n = judged - head;
		}
		if (n == 0)
			return false;
		release(n, 0);
		return true;
	}
	if (queued == 0)
		return false;
	(void)head_units(want, &units);
	if (units == 0 && !(head == 0 && judged == sizeof buf))
		return false;	/* the head record is still arriving */
	if (units == 0)
		units = 1;	/* it outgrew the buffer: pay, then stream */
	*due_ns = limiter_ready_at(cur->limit, arrived[first], units);
	if ((now_ns = clock_now_ns()) < *due_ns) {
		st->next_due_ns = *due_ns;
		return false;
	}
	st->next_due_ns = 0;
	if (now_ns - *due_ns > st->max_late_ns)
		st->max_late_ns = now_ns - *due_ns;
	want = (size_t)limiter_avail(cur->limit, arrived[first], now_ns);
	n = head_units(want, &units);
	if (units == 0) {
		/* It leaves the queue now and streams out from here. */
		(void)limiter_take(cur->limit, arrived[first], now_ns, 1);
		first = (first + 1) % ring;
		queued--;
		st->units_out++;
		paid = true;
		return true;
	}
	(void)limiter_take(cur->limit, arrived[first], now_ns, units);
	release(n, units);
	return true;
}

int
queue_run(const struct pump *p, uint64_t max_units, bool drop, int fd,
    const char *name)
{
	struct input in;
	struct stats *st = p->stats;

	cur = p;
	max_queued = max_units;
	dropping = drop;
	drop_fd = fd;
	drop_name = name;
	head = judged = tail = first = queued = 0;
	open_record = paid = eof = false;
	ring = max_units < QUEUE_BUF_BYTES ? (size_t)max_units :
	    QUEUE_BUF_BYTES;
	if ((arrived = calloc(ring, sizeof *arrived)) == NULL)
		err(1, "queue of %zu units", ring);
	input_init(&in, p->files, p->nfiles);
	pump_watch(p, count_waiting);

	while (!signals_stop_requested()) {
		int64_t due_ns;
		ssize_t got;
		bool can_read;
		int rc;

		signals_poll_report();
		if (judged < tail)
			admit(clock_now_ns());
		if (release_due(&due_ns))
			continue;
		if (tail == sizeof buf && head > 0) {
			memmove(buf, buf + head, tail - head);
			judged -= head;
			tail -= head;
			head = 0;
		}
		can_read = !eof && tail < sizeof buf &&
		    (dropping || queued < max_queued || open_record);
		if (!can_read) {
			/* Nothing to read and nothing due: everything read
			 * is out (a queued unit is always due). */
			if (due_ns == INT64_MAX)
				break;
			if (pump_sleep_until(due_ns) == WAKE_STOP)
				break;
			continue;
		}
		if (!input_open(&in)) {
			eof = true;
			continue;
		}
		rc = clock_wait_input(in.fd, due_ns);
		if (rc == EINTR || rc == 0)
			continue;
		if ((got = input_read(&in, buf + tail, sizeof buf - tail,
		    NULL)) < 0)
			break;
		eof = got == 0;
		tail += (size_t)got;
		st->bytes_in += (uint64_t)got;
		admit(clock_now_ns());
	}
	input_close(&in);
	pump_report_end();
	free(arrived);
	return in.status;
}
