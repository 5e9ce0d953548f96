/* The stream: the input held between reading and release, and its counts. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "signals.h"
#include "splice.h"
#include "stream.h"

void
stream_open(struct stream *s, size_t cap, const struct framer *f, char **files,
    int nfiles, const char *drop_to, struct stats *st, int64_t start_ns)
{
	int outs[2] = { STDOUT_FILENO, -1 };

	*s = (struct stream){ .cap = cap,
		.framer = *f,
		.st = st,
		.drop_fd = -1,
		.drop_name = drop_to,
		.ready_ns = start_ns,
		.read_ns = start_ns };
	if ((s->buf = malloc(cap)) == NULL)
		err(1, "buffer of %zu bytes", cap);
	if (drop_to != NULL && (s->drop_fd = output_open_append(drop_to)) < 0)
		err(1, "%s", drop_to);
	outs[1] = s->drop_fd;
	input_init(&s->in, files, nfiles, outs, 2);
}

int
stream_close(struct stream *s)
{
	int status = s->in.status;

	input_close(&s->in);
	if (s->drop_fd >= 0 && close(s->drop_fd) != 0) {
		warn("%s", s->drop_name);
		status = 1;
	}
	free(s->buf);
	s->buf = NULL;
	return status;
}

void
stream_view(const struct stream *s, struct view *v)
{
	*v = (struct view){ .b = s->buf + s->head + s->unsent,
		.len = s->tail - s->head - s->unsent,
		.eof = s->eof,
		.full = s->tail - s->head == s->cap,
		.ready_ns = s->ready_ns,
		.read_ns = s->read_ns };
}

void
stream_fit(const struct stream *s, struct view *v, size_t units)
{
	size_t got, n = framer_span(&s->framer, v->b, v->len, units, &got);

	if (got == units && n < v->len) {
		v->len = n;
		v->eof = v->full = false;
	}
}

void
stream_tally(struct stream *s, stats_tally_fn *tally, void *ctx)
{
	s->tally = tally;
	s->tally_ctx = ctx;
}

uint64_t
stream_total_bytes(const struct stream *s)
{
	return input_total_bytes(&s->in);
}

uint64_t
stream_total_records(
    const struct stream *s, unsigned char delim, uint64_t most_bytes)
{
	return input_total_records(&s->in, delim, most_bytes);
}

size_t
stream_cap(const struct stream *s)
{
	return s->cap;
}

bool
stream_empty(const struct stream *s)
{
	return s->head == s->tail;
}

bool
stream_at_end(const struct stream *s)
{
	return s->eof;
}

bool
stream_out_gone(const struct stream *s)
{
	return s->out_gone;
}

bool
stream_cut(const struct stream *s)
{
	return s->unsent > 0;
}

bool
stream_in_long(const struct stream *s)
{
	return s->longrec != LONG_NONE;
}

bool
stream_drop_open(const struct stream *s)
{
	return s->drop_open;
}

/* bytes left the head. */
static void
consume(struct stream *s, size_t bytes)
{
	s->head += bytes;
	if (s->head == s->tail) {
		s->head = s->tail = s->counted = 0;
		s->held_in = false;
	} else if (s->counted < s->head) {
		s->counted = s->head;
	}
}

/* The bytes held in the input are read into the buffer after all. */
static void
take_held(struct stream *s)
{
	size_t want = s->tail - s->head, n;

	if (!s->held_in)
		return;
	n = input_take(&s->in, s->buf + s->head, want);
	s->held_in = false;
	/* What the input no longer had was never there. */
	s->tail -= want - n;
	s->st->bytes_in -= want - n;
	if (s->counted > s->tail)
		s->counted = s->tail;
	consume(s, 0);
}

/*
 * Splice the first bytes of those held in the input to standard output;
 * false when the output's reader has gone.
 */
static bool
send_held(struct stream *s, size_t bytes)
{
	bool gone;
	size_t n = input_splice_out(&s->in, bytes, &gone);

	s->st->bytes_out += n;
	s->st->units_out += n; /* only bytes are held in the input */
	consume(s, n);
	if (gone) {
		s->out_gone = true;
		return false;
	}
	if (n == bytes)
		return true;
	if (signals_stop_requested()) {
		s->unsent = bytes - n; /* they stay in the input */
		return true;
	}
	/* Splicing failed: read and write the rest.  Or the input ended
	 * before them: the rest was never there. */
	take_held(s);
	n = bytes - n < s->tail - s->head ? bytes - n : s->tail - s->head;
	return n == 0 || stream_send(s, n, n);
}

/*
 * Tell s->tally of each record that is whole in the buffer (or ends the
 * input) and was not told of yet: it waits.  The bytes that end a long
 * record already told of are passed over.
 */
static void
count_held(struct stream *s)
{
	const char *b, *end = s->buf + s->tail, *nl;

	if (s->tally == NULL || s->framer.bytes)
		return;
	for (b = s->buf + s->counted; b < end; b = nl) {
		nl = memchr(b, s->framer.delim, (size_t)(end - b));
		if (nl == NULL && !s->eof) {
			if (s->long_open)
				b = end;
			break;
		}
		nl = nl != NULL ? nl + 1 : end;
		if (s->long_open)
			s->long_open = false;
		else
			s->tally(s->tally_ctx, b, (size_t)(nl - b), true,
			    STATS_WAITING);
	}
	s->counted = (size_t)(b - s->buf);
}

/*
 * Tell s->tally of the first units records at b[0..bytes): fate.  Each
 * whole one was told it waits before, by count_held.  A last one cut
 * short (dropped in pieces) was not: it is told it waits, then its fate,
 * and the rest of it, when it comes, is no record of its own.
 */
static void
tally(struct stream *s, const char *b, size_t bytes, uint64_t units,
    enum stats_fate fate)
{
	const char *end = b + bytes, *nl;
	bool whole;

	if (s->tally == NULL || s->framer.bytes)
		return;
	count_held(s);
	for (; units > 0 && b < end; units--, b = nl) {
		nl = memchr(b, s->framer.delim, (size_t)(end - b));
		whole = nl != NULL || (s->eof && end == s->buf + s->tail);
		nl = nl != NULL ? nl + 1 : end;
		if (!whole) {
			s->tally(s->tally_ctx, b, (size_t)(nl - b), false,
			    STATS_WAITING);
			s->long_open = true;
		}
		s->tally(s->tally_ctx, b, (size_t)(nl - b), whole, fate);
	}
}

/*
 * The whole records held and not yet released or dropped: their bytes,
 * from buf + *off.  The rest of a record already counted (a long one being
 * moved, or one partly in the drop file) is not among them, nor a last
 * record whose end has not been read.
 */
static size_t
held_whole(const struct stream *s, size_t *off)
{
	const char *b = s->buf + s->head, *end;
	size_t len = s->tail - s->head, skip = 0;

	if (s->longrec != LONG_NONE || s->drop_open) {
		end = memchr(b, s->framer.delim, len);
		skip = end != NULL ? (size_t)(end - b) + 1 : len;
	}
	*off = s->head + skip;
	if (s->eof)
		return len - skip;
	return framer_whole(&s->framer, b + skip, len - skip);
}

void
stream_count_waiting(struct stream *s)
{
	size_t off, n = held_whole(s, &off);

	s->st->units_waiting = framer_count(
	    &s->framer, s->buf + off, n, s->eof);
	s->st->bytes_waiting = s->tail - s->head;
	/* The tiers' counts are kept as records come and go: each record
	 * not yet told of is told now, and none twice. */
	count_held(s);
}

/*
 * Write the bytes at the head, holding units units; mid: they continue a
 * record begun.  As stream_send.
 */
static bool
send_run(struct stream *s, size_t bytes, uint64_t units, bool mid)
{
	const char *b = s->buf + s->head;
	ssize_t n;

	if (s->unsent > 0) {
		s->unsent += bytes; /* nothing may pass those left */
		return true;
	}
	if (s->held_in && !s->out_gone)
		return send_held(s, bytes);
	if (s->out_gone ||
	    (n = output_send(
		 b, bytes, s->framer.bytes ? -1 : s->framer.delim, mid)) < 0) {
		/* The reader went away: what was not written still waits. */
		s->out_gone = true;
		return false;
	}
	if ((size_t)n < bytes) {
		/* A stop cut the run at a boundary: the rest waits. */
		units = framer_count(&s->framer, b, (size_t)n, false);
		s->unsent = bytes - (size_t)n;
	}
	s->st->bytes_out += (uint64_t)n;
	s->st->units_out += units;
	tally(s, b, (size_t)n, units, STATS_OUT);
	consume(s, (size_t)n);
	return true;
}

void
stream_recount(struct stream *s)
{
	if (s->tally == NULL)
		return;
	s->tally(s->tally_ctx, NULL, 0, true, STATS_WAITING);
	s->counted = s->head;
	/* The bytes at the head may go on a long record told of. */
	s->long_open = s->longrec != LONG_NONE;
}

bool
stream_send(struct stream *s, size_t bytes, uint64_t units)
{
	return send_run(s, bytes, units, false);
}

/*
 * Take the bytes at offset off from the head out of the buffer, moving
 * those before them or those after, whichever are fewer: a record that
 * leaves from behind others that wait (--order key) moves only them.
 */
static void
cut_out(struct stream *s, size_t off, size_t bytes)
{
	char *at = s->buf + s->head + off;
	size_t after = s->tail - (s->head + off + bytes);

	if (off == 0) {
		consume(s, bytes);
		return;
	}
	/* Whole records, told of: count_held had passed them. */
	if (off < after) {
		memmove(s->buf + s->head + bytes, s->buf + s->head, off);
		if (s->counted <= s->head + off + bytes)
			s->counted = s->head + off + bytes;
		s->head += bytes;
		return;
	}
	memmove(at, at + bytes, after);
	s->tail -= bytes;
	s->counted = s->counted > s->head + off + bytes ? s->counted - bytes :
							  s->head + off;
}

bool
stream_send_at(struct stream *s, size_t off, size_t bytes, uint64_t units)
{
	char *at = s->buf + s->head + off;
	ssize_t n;

	if (off == 0)
		return stream_send(s, bytes, units);
	if (s->unsent > 0)
		return true; /* a stop cut a write: nothing more passes */
	if (s->out_gone ||
	    (n = output_send(at, bytes, s->framer.delim, false)) < 0) {
		s->out_gone = true;
		return false;
	}
	/* A stop may have ended it at a record boundary. */
	units = framer_count(&s->framer, at, (size_t)n, false);
	s->st->bytes_out += (uint64_t)n;
	s->st->units_out += units;
	tally(s, at, (size_t)n, units, STATS_OUT);
	cut_out(s, off, (size_t)n);
	return true;
}

void
stream_hand(struct stream *s, size_t bytes,
    enum stream_fate (*sink)(void *ctx, const char *rec, size_t len), void *ctx)
{
	const char *b, *nl;
	size_t len;

	if (s->unsent > 0) {
		s->unsent += bytes; /* nothing may pass those kept */
		return;
	}
	while (bytes > 0) {
		b = s->buf + s->head;
		nl = memchr(b, s->framer.delim, bytes);
		len = nl != NULL ? (size_t)(nl - b) + 1 : bytes;
		switch (sink(ctx, b, nl != NULL ? len - 1 : len)) {
		case STREAM_TAKEN:
			s->st->bytes_out += len;
			s->st->units_out++;
			tally(s, b, len, 1, STATS_OUT);
			consume(s, len);
			break;
		case STREAM_REFUSED:
			stream_drop(s, 0, len, 1);
			break;
		case STREAM_KEPT:
			s->unsent = bytes;
			return;
		}
		bytes -= len;
	}
}

void
stream_drop(struct stream *s, size_t off, size_t bytes, uint64_t units)
{
	char *at;

	take_held(s);
	off += s->unsent; /* from the head of the view */
	at = s->buf + s->head + off;
	if (s->drop_fd >= 0)
		(void)output_write(s->drop_fd, at, bytes, s->drop_name);
	/* Part of a record in the drop file: a stop waits for the rest. */
	if (bytes > 0 && !s->framer.bytes)
		s->drop_open = (unsigned char)at[bytes - 1] !=
			s->framer.delim &&
		    !(s->eof && off + bytes == s->tail - s->head);
	input_hold_stop(&s->in, s->drop_open || s->longrec != LONG_NONE);
	s->st->bytes_dropped += bytes;
	s->st->units_dropped += units;
	tally(s, at, bytes, units, STATS_DROPPED);
	cut_out(s, off, bytes);
}

void
stream_resume(struct stream *s, struct resume *r)
{
	s->resume = r;
	s->unlooked = s->tail - s->head;
}

/*
 * Take the records s->resume says are done out of the bytes at the tail
 * it has not looked at, got of them just read; none while a record longer
 * than the buffer goes (it is counted when it begins).
 */
static void
resume_look(struct stream *s, size_t got)
{
	size_t from, kept, looked;

	s->unlooked += got;
	if (s->resume == NULL || s->longrec != LONG_NONE)
		return;
	from = s->tail - s->unlooked;
	if (resume_filter(s->resume, &s->framer, s->buf + from, s->unlooked,
		s->eof, &kept, &looked) != 0)
		err(1, "--resume: memory for the numbers of the records kept");
	s->st->bytes_in -= s->unlooked - kept;
	s->st->bytes_skipped += s->unlooked - kept;
	s->st->units_skipped = s->resume->skipped;
	s->tail = from + kept;
	s->unlooked = kept - looked;
}

void
stream_begin_long(struct stream *s, bool pass, uint64_t units)
{
	s->longrec = pass ? LONG_PASS : LONG_DROP;
	if (s->resume != NULL && resume_pass(s->resume) != 0)
		err(1, "--resume: memory for the numbers of the records kept");
	/* A stop waits for the record's end. */
	input_hold_stop(&s->in, true);
	if (pass)
		s->st->units_out += units;
	else
		s->st->units_dropped += units;
	/* Not whole, it was not told it waits: it is now, then its fate;
	 * the end of it, when it comes, is not a record of its own. */
	if (s->tally != NULL && !s->framer.bytes && units > 0) {
		s->tally(s->tally_ctx, s->buf + s->head, s->tail - s->head,
		    false, STATS_WAITING);
		s->tally(s->tally_ctx, s->buf + s->head, s->tail - s->head,
		    false, pass ? STATS_OUT : STATS_DROPPED);
		s->counted = s->head;
		s->long_open = true;
	}
}

size_t
stream_move_long(struct stream *s, struct moved *m)
{
	size_t len = s->tail - s->head, units;
	size_t n = framer_span(&s->framer, s->buf + s->head, len, 1, &units);

	*m = (struct moved){ .pass = s->longrec == LONG_PASS,
		.ended = units == 1 || s->eof,
		.ready_ns = s->ready_ns,
		.read_ns = s->read_ns };
	if (m->ended) {
		s->longrec = LONG_NONE; /* its end is here */
		input_hold_stop(&s->in, s->drop_open);
	}
	if (units == 0)
		n = len;
	/* What came after its end was not looked at: it is now, before
	 * the counts of what is held see it. */
	if (m->ended && s->resume != NULL) {
		s->unlooked = 0;
		resume_look(s, s->tail - s->head - n);
	}
	if (!m->pass)
		stream_drop(s, 0, n, 0);
	else if (!send_run(s, n, 0, true))
		return 0;
	/* Its end left before count_held saw it: what follows is new. */
	if (m->ended && s->long_open) {
		s->long_open = false;
		s->counted = s->head;
	}
	m->bytes = n;
	return n;
}

void
stream_rewind(struct stream *s, int64_t now_ns)
{
	input_rewind(&s->in);
	s->eof = false;
	s->ready_ns = s->read_ns = now_ns;
}

/*
 * The input ended: with end_passes, a last record without its delimiter
 * is given one, counted as read, so that the pass after it never runs
 * on into it.  The bytes added: 0 or 1.
 */
static ssize_t
end_pass(struct stream *s)
{
	if (!s->end_passes || s->framer.bytes || s->head == s->tail ||
	    s->tail == s->cap ||
	    (unsigned char)s->buf[s->tail - 1] == s->framer.delim ||
	    s->longrec != LONG_NONE || s->long_open)
		return 0;
	s->buf[s->tail] = (char)s->framer.delim;
	return 1;
}

ssize_t
stream_fill(struct stream *s, bool fresh)
{
	bool waited = false;
	ssize_t got;
	int64_t now_ns;

	take_held(s);
	/* The room before the head is taken back when it is more than the
	 * room after the tail: a record that left from among those held
	 * freed the one or the other, and reads should not shrink. */
	if (s->head > 0 && s->head >= s->cap - s->tail) {
		memmove(s->buf, s->buf + s->head, s->tail - s->head);
		s->tail -= s->head;
		s->counted -= s->counted > s->head ? s->head : s->counted;
		s->head = 0;
	}
	/*
	 * Units are ready from the time they arrive.  Data that was already
	 * waiting when we came for it has been ready since we last knew, so
	 * the schedule keeps its place; only data we had to wait for starts
	 * afresh, as after an idle period.  The first bytes of all are ready
	 * from when they were read: before, nothing was known of them (a slow
	 * start would else count as time they waited).
	 */
	got = input_read(
	    &s->in, s->buf + s->tail, s->cap - s->tail, fresh ? &waited : NULL);
	if (got < 0)
		return -1;
	now_ns = clock_now_ns();
	if (got == 0) {
		s->eof = true;
		got = end_pass(s);
	}
	if (s->st->bytes_in == 0)
		waited = true;
	s->tail += (size_t)got;
	s->st->bytes_in += (uint64_t)got;
	resume_look(s, (size_t)got);
	s->read_ns = now_ns;
	if (waited)
		s->ready_ns = now_ns;
	return got;
}

static ssize_t
stream_claim(struct stream *s, bool fresh)
{
	bool waited = false;
	ssize_t got;
	int64_t now_ns;

	/* Held bytes of one operand only: the next may not be spliceable. */
	if (!s->framer.bytes || s->head != s->tail)
		return stream_fill(s, fresh);
	got = input_peek(&s->in, s->cap, fresh ? &waited : NULL);
	now_ns = clock_now_ns();
	if (s->st->bytes_in == 0) /* as stream_fill says */
		waited = true;
	if (waited)
		s->ready_ns = now_ns;
	if (got == SPLICE_UNSUPPORTED)
		return stream_fill(s, fresh && !waited);
	if (got < 0)
		return -1;
	if (got == 0)
		s->eof = true;
	s->tail = (size_t)got;
	s->held_in = got > 0;
	s->st->bytes_in += (uint64_t)got;
	s->read_ns = now_ns;
	return got;
}

static ssize_t
stream_splice(struct stream *s)
{
	ssize_t got = input_splice(&s->in);

	if (got == 0)
		s->eof = true;
	if (got > 0) {
		s->st->bytes_in += (uint64_t)got;
		s->st->bytes_out += (uint64_t)got;
		s->st->units_out += (uint64_t)got;
	}
	return got;
}

ssize_t
stream_read(struct stream *s, enum read_mode mode, bool fresh)
{
	ssize_t got;

	if (mode == READ_CLAIM)
		return stream_claim(s, fresh);
	/* Round the buffer only when it holds nothing to keep in order. */
	if (mode == READ_SPLICE && s->tail == s->head && !s->in.no_splice) {
		got = stream_splice(s);
		if (got != SPLICE_UNSUPPORTED)
			return got;
	}
	return stream_fill(s, fresh);
}

int
stream_wait_input(struct stream *s, int64_t deadline_ns)
{
	if (!input_open(&s->in)) {
		if (s->in.stopped)
			return EINTR;
		s->eof = true;
		return -1;
	}
	return clock_wait_fd(s->in.fd, POLLIN, deadline_ns);
}

void
stream_spill(struct stream *s)
{
	size_t off, n;

	/* Bytes held in the input stay there, for whoever reads it next. */
	if (s->held_in || s->drop_fd < 0)
		return;
	n = held_whole(s, &off);
	if (n > 0)
		(void)output_write(s->drop_fd, s->buf + off, n, s->drop_name);
}

bool
stream_inject(struct stream *s, const char *rec, size_t len, int64_t now_ns,
    size_t *before)
{
	size_t whole, at, need = len + 1;

	if (s->longrec != LONG_NONE || s->long_open || s->held_in ||
	    s->unsent > 0 || s->framer.bytes)
		return false;
	whole = framer_whole(&s->framer, s->buf + s->head, s->tail - s->head);
	/* At the end of the input a last record without its delimiter is
	 * whole, and the policy may have booked it as it is: the record put
	 * back waits until it has gone. */
	if (s->eof && whole < s->tail - s->head)
		return false;
	if (s->cap - (s->tail - s->head) < need)
		return false;
	if (s->cap - s->tail < need) {
		memmove(s->buf, s->buf + s->head, s->tail - s->head);
		s->tail -= s->head;
		s->counted -= s->counted > s->head ? s->head : s->counted;
		s->head = 0;
	}
	if (s->head == s->tail)
		s->ready_ns = now_ns;
	at = s->head + whole;
	/* Before a record not yet whole: the record put back is whole. */
	memmove(s->buf + at + len + 1, s->buf + at, s->tail - at);
	memcpy(s->buf + at, rec, len);
	s->buf[at + len] = (char)s->framer.delim;
	s->tail += len + 1;
	s->read_ns = now_ns;
	*before = framer_count(
	    &s->framer, s->buf + s->head, at - s->head, false);
	return true;
}
