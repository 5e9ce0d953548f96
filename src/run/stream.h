/* The stream: the input held between reading and release, and its counts. */
#ifndef STREAM_H
#define STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "framer.h"
#include "input.h"
#include "policy.h"
#include "resume.h"
#include "stats.h"

/* What happens to the long record at the head, if there is one. */
enum longrec { LONG_NONE, LONG_PASS, LONG_DROP };

/*
 * Unreleased input is buf[head..tail).  A record longer than the buffer,
 * once judged, streams out (or is dropped) as it arrives.  Every byte and
 * unit that leaves is counted in st.
 */
struct stream {
	char *buf;
	size_t cap, head, tail;
	bool eof;
	bool out_gone;	/* the output's reader went away */
	bool drop_open; /* the drop file holds part of a record */
	bool held_in;	/* buf[head..tail) is still in the input, unread:
			 * it is spliced out when sent */
	size_t unsent;	/* at the head: whole records released that a stop
			 * left unwritten; policies no longer see them, and
			 * nothing more is written */
	enum longrec longrec;
	struct framer framer;
	struct input in;
	struct stats *st;
	int drop_fd; /* -1: dropped units are discarded */
	const char *drop_name;
	int64_t ready_ns;      /* since when the input has been waiting */
	int64_t read_ns;       /* when the last bytes arrived */
	stats_tally_fn *tally; /* NULL, or told each record's fate */
	void *tally_ctx;
	size_t counted;	       /* buf[head..counted) told to tally as waiting */
	bool long_open;	       /* buf[counted..] goes on a long record, told */
	struct resume *resume; /* NULL, or records to take out as read */
	size_t unlooked; /* the bytes at the tail resume has not looked at */
	bool end_passes; /* --loop: a pass's last record ends with the
			  * delimiter, which the input may lack */
};

/*
 * Start a stream of cap bytes over files[0..nfiles) (standard input if
 * none), framed by f, counting in st, started at start_ns.  Dropped units
 * are appended to drop_to when it is not NULL; an error opening it ends
 * the process with status 1.
 */
void stream_open(struct stream *s, size_t cap, const struct framer *f,
    char **files, int nfiles, const char *drop_to, struct stats *st,
    int64_t start_ns);

/*
 * Take the records r says are done out of the input as it is read
 * (--resume), before anything else sees them: they are neither input nor
 * output, counted in s->st as skipped.
 */
void stream_resume(struct stream *s, struct resume *r);

/* Close the input and the drop file; returns the exit status so far. */
int stream_close(struct stream *s);

/* What the policies see of s. */
void stream_view(const struct stream *s, struct view *v);

/*
 * Cut v, what the policies see of s, to its first units records (when
 * it holds more): no more than a sink can take now.
 */
void stream_fit(const struct stream *s, struct view *v, size_t units);

/* Tell tally(ctx, ...) of each record's fate (tiercounts_tally), or NULL. */
void stream_tally(struct stream *s, stats_tally_fn *tally, void *ctx);

/* The bytes of every operand, where that is known (-P); else 0. */
uint64_t stream_total_bytes(const struct stream *s);

/* The records of its input, read ahead when it is regular files of at
 * most most_bytes (input_total_records); else 0. */
uint64_t stream_total_records(
    const struct stream *s, unsigned char delim, uint64_t most_bytes);

/* The size of the buffer: a record longer is streamed, never held whole. */
size_t stream_cap(const struct stream *s);

/* Does s hold nothing (all that was read was released or dropped)? */
bool stream_empty(const struct stream *s);

/* Was the end of all input read? */
bool stream_at_end(const struct stream *s);

/* Has the output's reader gone away? */
bool stream_out_gone(const struct stream *s);

/* Did a stop leave records released but unsent (s->unsent)?  Nothing
 * more goes then. */
bool stream_cut(const struct stream *s);

/* Is a record longer than the buffer being moved (sent or dropped)? */
bool stream_in_long(const struct stream *s);

/* Does the drop file hold part of a record, whose rest a stop waits for? */
bool stream_drop_open(const struct stream *s);

/*
 * Write the bytes at the head, holding units units.  False when the
 * output's reader has gone: they stay, waiting, and a stop is asked for.
 * A stop meanwhile ends the write at a record boundary (output_send): the
 * rest stays, unsent, and counts as waiting.
 */
bool stream_send(struct stream *s, size_t bytes, uint64_t units);

/*
 * stream_send of whole records at offset off from the head of what the
 * policies see (off 0: at the head), the bytes after them moving up.
 */
bool stream_send_at(struct stream *s, size_t off, size_t bytes, uint64_t units);

/* What became of a record handed to a sink (stream_hand). */
enum stream_fate {
	STREAM_TAKEN,	/* it went: counted out */
	STREAM_REFUSED, /* it can never go: dropped */
	STREAM_KEPT	/* not now: it and those after it stay, unsent */
};

/*
 * stream_send of the records at the head, each handed to sink(ctx, rec,
 * len) without its delimiter instead of written.  Records the sink keeps
 * stay at the head, unsent, as a stop leaves them.
 */
void stream_hand(struct stream *s, size_t bytes,
    enum stream_fate (*sink)(void *ctx, const char *rec, size_t len),
    void *ctx);

/* Drop the bytes at offset off from the head, holding units units. */
void stream_drop(struct stream *s, size_t off, size_t bytes, uint64_t units);

/* The head record outgrew the buffer: count it, then send or drop it. */
void stream_begin_long(struct stream *s, bool pass, uint64_t units);

/*
 * Move what is held of the long record at the head; returns the bytes
 * moved (0: read more, or the output has gone), and tells m of them:
 * whether they were sent, and whether the record's end was among them.
 */
size_t stream_move_long(struct stream *s, struct moved *m);

/*
 * At a stop: append the whole records held (read, not yet released or
 * dropped) to the drop file, if there is one.  They still count as
 * waiting: nothing decided their fate.  A record not yet whole is left
 * out, as stream_count_waiting leaves it out.
 */
void stream_spill(struct stream *s);

/*
 * Count what s holds as waiting in s->st: units, the whole records
 * stream_spill would set aside (a record whose end has not been read is
 * no unit yet; at the end of input it is); bytes, every byte held.  And
 * tell s->tally of each record held that it was not told of yet: it waits
 * (until it is told of its fate).  Each record is told once, so this
 * costs a count of the delimiters held and the records read since it was
 * last called.
 */
void stream_count_waiting(struct stream *s);

/*
 * The limits changed (their tiers, maybe): s->tally forgets what waits,
 * and is told of every record held again when next asked.
 */
void stream_recount(struct stream *s);

/*
 * All the input was read and released: read it again from its first
 * operand (--loop), as if it had come at now_ns.
 */
void stream_rewind(struct stream *s, int64_t now_ns);

/*
 * Read more input at the tail; with fresh, input that had to be waited
 * for starts a new wait (ready_ns).  Returns the bytes read, 0 at the end
 * of all input, -1 when a stop was requested.
 */
ssize_t stream_fill(struct stream *s, bool fresh);

/*
 * Read more input as mode says (see enum read_mode): with READ_CLAIM, in
 * byte mode, where nobody looks at the bytes, when they can be spliced
 * out later they are left in the input and only counted (held_in); with
 * READ_SPLICE, when nothing is held, they are moved straight to standard
 * output, round the buffer (as input_splice); else they are read as
 * stream_fill reads them, fresh as for it.  Returns as stream_fill.
 */
ssize_t stream_read(struct stream *s, enum read_mode mode, bool fresh);

/*
 * Put rec[0..len) back among the records held, at now_ns, as if read
 * after the whole ones (before a record not yet whole): a record to be
 * released again, booked as any other.  It is not counted as input.
 * *before: the records held ahead of it.  False when there is no room
 * now, a record longer than the buffer is under way, or the input ended
 * on a record without its delimiter that has not gone yet (try later).
 */
bool stream_inject(struct stream *s, const char *rec, size_t len,
    int64_t now_ns, size_t *before);

/*
 * Wait until input can be read or deadline_ns; as clock_wait_fd, or -1
 * when there is no more input (eof is then set).
 */
int stream_wait_input(struct stream *s, int64_t deadline_ns);

#endif
