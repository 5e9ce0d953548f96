/*
 * --exec: what the commands write to their standard output and error,
 * passed on in whole lines (so that those of commands running at once
 * never mix within a line), a command's all at once when it ends
 * (--group), or left to them (--ungroup); each line tagged with its
 * record (--tag, --tagstring) if asked.
 */
#ifndef JOBOUTPUT_H
#define JOBOUTPUT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* How the commands' output reaches ours. */
enum output_mode {
	OUTPUT_DIRECT, /* their own: our standard output and error */
	OUTPUT_LINES,  /* through pipes, passed on a whole line at a time */
	OUTPUT_GROUP   /* into files, passed on whole once each ends */
};

/* A line held longer than this is passed on in pieces. */
#define OUTPUT_LINE_MAX (1024 * 1024)

/* One pipe being read: a command's standard output or error. */
struct capture {
	int fd;	   /* its read end, non-blocking; -1 once closed */
	int to;	   /* where it goes: 1 or 2 */
	char *tag; /* its prefix, a tab after it; NULL: none */
	size_t tag_len;
	char *buf; /* what came of a line not yet ended */
	size_t len, cap;
	bool bol; /* what comes next starts a line */
};

struct joboutput {
	enum output_mode mode;
	bool tag;	     /* lines tagged */
	struct capture *cap; /* OUTPUT_LINES: the pipes open */
	size_t ncap, capcap;
	int made[2];	    /* the read ends the last joboutput_open made */
	struct pollfd *pfd; /* what the waits watch of them */
	int (*file)[2];	    /* OUTPUT_GROUP: each slot's two files */
	char **ftag;	    /* and its tag */
	size_t *ftag_len;
	unsigned max; /* slots */
	bool gone[3]; /* [1], [2]: that output of ours is gone */
	int status;   /* 1 once a write of ours failed */
};

/*
 * Pass on the output of max commands at once by mode, tagged if tag.
 * The waits of clock.h read the pipes while they last.  Raises the limit
 * of open files if their pipes need it; when it cannot be, one line and
 * exit 2.  0, or -1 with errno set.
 */
int joboutput_init(
    struct joboutput *o, enum output_mode mode, bool tag, unsigned max);

/*
 * Where the command for slot gets its standard output and error: out[0]
 * and out[1] (-1: ours), made now, tagged tag[0..tag_len) (ignored when
 * not tagged).  0, or an errno.
 */
int joboutput_open(struct joboutput *o, unsigned slot, const char *tag,
    size_t tag_len, int out[2]);

/* The command was started (started) or not: our copies of out closed. */
void joboutput_spawned(
    struct joboutput *o, unsigned slot, const int out[2], bool started);

/* The command of slot ended: with --group, its output passed on. */
void joboutput_ended(struct joboutput *o, unsigned slot);

/*
 * Every command ended: what their pipes still hold passed on, a line
 * left unended last; the pipes closed (what a command left running in
 * the background writes after this is not read).  1 when a write of
 * ours failed, else 0.
 */
int joboutput_finish(struct joboutput *o);

void joboutput_free(struct joboutput *o);

#endif
