/* Policies: what each waiting unit does next; pure, time is an argument. */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framer.h"
#include "gate.h"

/* The input the engine holds and has not yet released, as policies see it. */
struct view {
	const char *b; /* the oldest unreleased byte */
	size_t len;
	bool eof;	  /* no more input will come */
	bool full;	  /* no more fits: len is the buffer's size */
	int64_t ready_ns; /* since when the input has been waiting */
	int64_t read_ns;  /* when the latest bytes arrived */
};

enum act {
	ACT_READ, /* read more input; at the end of input, stop */
	ACT_WAIT, /* wait until due_ns, reading meanwhile if read */
	ACT_SEND, /* write bytes at the head, holding units units */
	ACT_DROP, /* drop bytes at offset off, holding units units */
	ACT_LONG, /* the head record outgrew the buffer: send or drop it
			 * (pass) whole as it arrives */
	ACT_FAIL  /* the policy cannot go on (why says why): the run stops,
			 * what is held waiting, and exits 1 */
};

struct action {
	enum act kind;
	size_t off;
	size_t bytes;
	uint64_t units;
	int64_t due_ns;	  /* WAIT: until when (INT64_MAX: for input only);
			 * SEND, LONG: when it was due, or INT64_MIN */
	bool read;	  /* WAIT: read input meanwhile */
	bool pass;	  /* LONG: the record goes out, else it is dropped */
	const char *why;  /* FAIL: a line, kept by the policy */
	const char *note; /* NULL, or a line to say on stderr first, kept by
			   * the policy */
};

/*
 * How a policy's reads may take bytes when nothing is held: into the
 * buffer; or, with bytes that need no framing, round it (splice: they go
 * out at once), or left in the input to be spliced out when sent (claim:
 * they need only be counted).
 */
enum read_mode { READ_COPY, READ_SPLICE, READ_CLAIM };

/* Bytes of a long record that left, as a policy is told of them. */
struct moved {
	size_t bytes;
	bool pass;	  /* they went out; else they were dropped */
	bool ended;	  /* the record's end was among them */
	int64_t ready_ns; /* the input's, as in struct view */
	int64_t read_ns;
};

/*
 * A policy decides, from the view and the time now_ns, the next action.
 * It assumes the engine carries out each action before asking again, and
 * keeps its own state accordingly.  It never reads, writes or sleeps.
 */
struct policy {
	void *self;
	void (*next)(
	    void *self, const struct view *v, int64_t now_ns, struct action *a);
	/* NULL, or: bytes of a long record left at now_ns. */
	void (*streamed)(void *self, const struct moved *m, int64_t now_ns);
	/* NULL, or: the limits changed at now_ns; forget any decision made
	 * before. */
	void (*retuned)(void *self, int64_t now_ns);
	/* NULL, or: has next decided on units (taken their tokens) that it
	 * has not yet handed out as actions? */
	bool (*owes)(const void *self);
	bool uses_ready;     /* next reads v->ready_ns */
	enum read_mode read; /* how its reads take bytes */
	/* NULL, or: all the input went, and it comes again from its start
	 * at now_ns (--loop). */
	void (*rewound)(void *self, int64_t now_ns);
};

static inline void
policy_next(const struct policy *p, const struct view *v, int64_t now_ns,
    struct action *a)
{
	p->next(p->self, v, now_ns, a);
}

/*
 * Bytes at b[0..len) taken by at most max units that fit in room bytes;
 * when the first unit alone is bigger, that unit.  At the end of input
 * (at_eof) a final record without a delimiter is a unit too.  The count
 * of units is stored in *units.
 */
size_t policy_span(const struct framer *f, const char *b, size_t len,
    bool at_eof, size_t max, uint64_t room, size_t *units);

/*
 * policy_span of b[0..len) when its first done bytes, holding done_units
 * units (at most max, within room), were already spanned: the same result,
 * scanning only what follows them.
 */
size_t policy_span_on(const struct framer *f, const char *b, size_t len,
    bool at_eof, size_t max, uint64_t room, size_t done, size_t done_units,
    size_t *units);

/* Act a: stop the run, exit 1, for the reason why (kept by the caller). */
void policy_fail(struct action *a, const char *why);

/* Act a: read more input (as the policy's read mode says). */
void policy_read(struct action *a);

/* Act a: wait until due_ns, reading meanwhile if read. */
void policy_wait(struct action *a, int64_t due_ns, bool read);

/* Act a: send or drop bytes at off holding units units, due at due_ns. */
void policy_move(struct action *a, enum act kind, size_t off, size_t bytes,
    uint64_t units, int64_t due_ns);

/* Every unit passes at once (no limit): the policy of -r inf. */
void pass_policy(struct policy *p, struct gate *g);

#endif
