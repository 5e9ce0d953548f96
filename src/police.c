/* Policing: units that find no token on arrival are dropped, not delayed. */
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "input.h"
#include "output.h"
#include "police.h"
#include "signals.h"

static char buf[PUMP_BUF_BYTES];
/* Undecided or unfinished input is buf[head..tail). */
static size_t head, tail;
static bool open_record;	/* buf[head] continues a judged record */
static int64_t first_ns;	/* when the unjudged record at tail began */
static bool first_ns_set;
static const struct pump *cur;

/* Only a record still arriving waits; it is counted once judged. */
static void
count_waiting(void)
{
	struct stats *st = cur->stats;
	size_t len = tail - head;

	st->units_waiting = len > 0 && !open_record && !cur->framer.bytes;
	st->bytes_waiting = len;
}

/*
 * Send n bytes from the head of the buffer to the output (ok) or to the
 * drop file, discarding them when there is none.
 */
static void
route(bool ok, size_t n, int drop_fd, const char *drop_name)
{
	struct stats *st = cur->stats;

	if (ok) {
		output_release(st, buf + head, n, 0);
	} else {
		if (drop_fd >= 0)
			write_all(drop_fd, buf + head, n, drop_name);
		st->bytes_dropped += n;
	}
	head += n;
}

/*
 * Judge a record of cost bytes whose first byte arrived at t_ns: does it
 * find a token, and room in the byte limit?  A record longer than the
 * byte burst needs a full bucket and leaves it in debt.  Nothing is
 * charged unless both allow it.
 */
static bool
judge(int64_t t_ns, size_t cost)
{
	const struct pump *p = cur;
	struct bucket *bb = p->byte_limit;
	bool ok = true;

	if (bb != NULL)
		ok = bucket_avail(bb, t_ns, t_ns) >= (cost < bb->burst ?
		    cost : bb->burst);
	/* take decides: a bucket shared with other processes may be
	 * emptied between a look and the take. */
	if (ok && p->limit != NULL)
		ok = limiter_take(p->limit, t_ns, t_ns, 1) == 1;
	if (ok) {
		if (bb != NULL)
			bucket_charge(bb, t_ns, t_ns, cost);
		p->stats->units_out++;
	} else {
		p->stats->units_dropped++;
	}
	return ok;
}

/*
 * Route the records in buf[head..tail), the last bytes of which arrived at
 * t_ns.  A record is judged at the time its first byte arrived, once its
 * length is known: when it is whole, at the end of input, or when it fills
 * the buffer (a long record is judged on its first buffer of bytes, and
 * the rest are charged as they pass).  Consecutive records with the same
 * verdict go out in one write.
 */
static void
police_records(int64_t t_ns, bool eof, bool *ok, int drop_fd,
    const char *drop_name)
{
	const struct framer *f = &cur->framer;
	size_t run = 0;		/* bytes from head judged *ok, not yet sent */

	while (head + run < tail) {
		const char *p = buf + head + run, *q;
		size_t len = tail - head - run, size;
		bool verdict, whole;

		q = memchr(p, f->delim, len);
		whole = q != NULL || eof;
		size = q != NULL ? (size_t)(q - p) + 1 : len;
		if (open_record) {
			verdict = *ok;
			if (verdict && cur->byte_limit != NULL)
				bucket_charge(cur->byte_limit, t_ns, t_ns,
				    size);
		} else if (whole || (head + run == 0 && tail == sizeof buf)) {
			int64_t at = first_ns_set ? first_ns : t_ns;

			/* Not before a live change: the limits know nothing
			 * of the time before it. */
			if (at < pump_changed_ns())
				at = pump_changed_ns();

			if (cur->select != NULL)
				cur->select(cur->select_ctx, p, size, at);
			verdict = judge(at, size);
			first_ns_set = false;
		} else {
			/* Wait for the rest of it, remembering when it
			 * started. */
			if (!first_ns_set) {
				first_ns = t_ns;
				first_ns_set = true;
			}
			break;
		}
		if (run > 0 && verdict != *ok) {
			route(*ok, run, drop_fd, drop_name);
			run = 0;
		}
		*ok = verdict;
		run += size;
		open_record = !whole;
	}
	if (run > 0)
		route(*ok, run, drop_fd, drop_name);
}

int
police_run(const struct pump *p, int drop_fd, const char *drop_name)
{
	struct input in;
	struct stats *st = p->stats;
	bool eof = false, ok = true;

	cur = p;
	head = tail = 0;
	open_record = first_ns_set = false;
	input_init(&in, p->files, p->nfiles);
	pump_watch(p, count_waiting);

	while (!eof && !signals_stop_requested()) {
		ssize_t got;
		int64_t t_ns;

		signals_poll_report();
		if (head > 0) {
			memmove(buf, buf + head, tail - head);
			tail -= head;
			head = 0;
		}
		if ((got = input_read(&in, buf + tail, sizeof buf - tail,
		    NULL)) < 0)
			break;
		t_ns = clock_now_ns();
		eof = got == 0;
		tail += (size_t)got;
		st->bytes_in += (uint64_t)got;
		if (p->framer.bytes) {
			/* Every byte of a read arrived together. */
			size_t n = (size_t)limiter_take(p->limit, t_ns, t_ns,
			    tail - head);

			st->units_out += n;
			st->units_dropped += tail - head - n;
			if (n > 0)
				route(true, n, drop_fd, drop_name);
			if (head < tail)
				route(false, tail - head, drop_fd, drop_name);
		} else {
			police_records(t_ns, eof, &ok, drop_fd, drop_name);
		}
	}
	input_close(&in);
	pump_report_end();
	return in.status;
}
