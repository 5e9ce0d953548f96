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
		write_all(STDOUT_FILENO, buf + head, n, NULL);
		st->bytes_out += n;
	} else {
		if (drop_fd >= 0)
			write_all(drop_fd, buf + head, n, drop_name);
		st->bytes_dropped += n;
	}
	head += n;
}

/* Judge one unit that arrived at t_ns: does it find a token? */
static bool
judge(int64_t t_ns)
{
	bool ok = limiter_take(cur->limit, t_ns, t_ns, 1) == 1;

	if (ok)
		cur->stats->units_out++;
	else
		cur->stats->units_dropped++;
	return ok;
}

/*
 * Route the records in buf[head..tail) that arrived by t_ns.  Consecutive
 * records with the same verdict go out in one write.
 */
static void
police_records(int64_t t_ns, bool eof, bool *ok, int drop_fd,
    const char *drop_name)
{
	const struct framer *f = &cur->framer;
	size_t run = 0;		/* bytes from head judged *ok, not yet sent */

	while (head + run < tail) {
		const char *p = buf + head + run, *q;
		size_t len = tail - head - run;
		bool verdict;

		verdict = open_record ? *ok : judge(t_ns);
		if (run > 0 && verdict != *ok) {
			route(*ok, run, drop_fd, drop_name);
			run = 0;
		}
		*ok = verdict;
		open_record = true;
		if ((q = memchr(p, f->delim, len)) != NULL) {
			run += (size_t)(q - p) + 1;
			open_record = false;
		} else if (eof || (head == 0 && tail == sizeof buf)) {
			/* The last record, or one longer than the buffer:
			 * it goes on under the same verdict. */
			run += len;
			open_record = !eof;
		} else {
			break;		/* wait for the rest of it */
		}
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
	open_record = false;
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
