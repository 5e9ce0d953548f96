/* Replaying (--replay): records leave at their own timestamps; pure. */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "stats.h"
#include "timestamp.h"

/*
 * The schedule of a replay at speed num/den (record time per real time):
 * a record of time ts is due at anchor_ns + (ts - anchor_ts) * den / num,
 * rounded up, so that no record is ever early and no error accumulates.
 * The anchor is the first timed record's release; a cut gap (max_gap_ns)
 * or a change of speed moves it, and never moves a release back.
 */
struct replay_schedule {
	uint64_t num, den;  /* speed, num / den, num * den < 2^63 */
	int64_t max_gap_ns; /* longest wait between two records, or -1 */
	bool anchored;	    /* a timed record has gone */
	int64_t anchor_ns;  /* when the record of anchor_ts was due */
	int64_t anchor_ts;  /* its timestamp, ns */
	bool have_last;	    /* a record has gone, due at last_due_ns */
	int64_t last_due_ns;
	bool have_high;	 /* a timed record has gone: */
	int64_t high_ts; /* the latest timestamp so far */
};

/* When one record is due, as replay_plan decided it. */
struct replay_slot {
	int64_t due_ns;
	bool timed; /* it has a timestamp, ts */
	int64_t ts;
	bool out_of_order; /* ts is before a timestamp gone before */
	bool reanchor;	   /* the schedule starts again at (due_ns, ts) */
};

/* Start s at speed num/den with at most max_gap_ns between records. */
void replay_schedule_init(
    struct replay_schedule *s, uint64_t num, uint64_t den, int64_t max_gap_ns);

/*
 * When the next record is due, asked at now_ns, into *slot: a record
 * without a timestamp (timed false) right after the one before it, the
 * first timed one at once, any other at its place in the schedule, no
 * earlier than the one before it and no more than max_gap_ns after it.
 * Changes nothing: replay_commit does, once the record goes.
 */
void replay_plan(const struct replay_schedule *s, bool timed, int64_t ts,
    int64_t now_ns, struct replay_slot *slot);

/*
 * The input comes again from its start (--loop): its first timed record
 * starts the schedule afresh, gap_ns after the last record went (or at
 * once, if later).
 */
void replay_schedule_loop(struct replay_schedule *s, int64_t gap_ns);

/* The record slot was planned for went (or was dropped). */
void replay_commit(struct replay_schedule *s, const struct replay_slot *slot);

/*
 * Change the speed to num/den at now_ns, keeping the place: the record
 * time the schedule had reached at now_ns is due at now_ns, the rest at
 * the new speed from there.
 */
void replay_set_speed(
    struct replay_schedule *s, uint64_t num, uint64_t den, int64_t now_ns);

/* Records a replay looks through for a timestamp before it gives up. */
#define REPLAY_PROBE 100

/*
 * The replay policy: the schedule, the timestamps of the records and the
 * record at the head, read once and planned until it goes.
 */
struct replay {
	const struct gate *gate;
	struct timestamp_format *fmt;
	bool found;	     /* a timed record was seen among the first */
	int64_t loop_gap_ns; /* --loop-gap */
	char why[848];	     /* why it stopped (no timestamp), for ACT_FAIL */
	char note[256];	     /* what it is timed by, to say once, or "" */
	bool noted;
	struct replay_schedule sched;
	struct stats_replay *stats; /* counts, lateness; may be NULL */
	bool drop;		    /* what the ceiling refuses is dropped */
	/* The head record, once read: */
	bool parsed;
	bool outgrown; /* longer than the buffer: it streams */
	size_t bytes;  /* with its delimiter */
	bool timed;
	int64_t ts;
	/* ... and once planned: */
	bool booked;
	struct replay_slot slot;
	struct booking b; /* as the ceiling is asked: from the slot's time or
			   * later */
	int64_t due_ns;	  /* the later of the slot and the ceiling */
};

/*
 * Replay by timestamps read with fmt (kept, not copied), each record
 * leaving when the schedule says, and when the limits of gate g (the
 * ceiling, if any) allow it: at the later of the two.  With drop, a
 * record the ceiling cannot carry at its time is dropped, not delayed.
 * Records of bytes mode are not replayed: the caller refuses -c.
 */
void replay_policy(struct policy *p, struct replay *r, const struct gate *g,
    struct timestamp_format *fmt, const struct replay_schedule *sched,
    bool drop, struct stats_replay *stats);

/* What -s calls the format of fmt; NULL until one is found. */
const char *replay_format_name(const struct timestamp_format *fmt);

/*
 * Into note, the line that says which JSON key fmt found the first timed
 * record rec[0..len) by, and which others hold a time; "" when the key
 * was given or the record is no JSON.
 */
void replay_note(const struct timestamp_format *fmt, const char *rec,
    size_t len, char *note, size_t size);

/*
 * Into buf, why fmt found no timestamp in rec[0..len), the first record:
 * "(its text where one was looked for); looked for the formats tried:
 * give ..." -- the end of a message, not yet escaped.
 */
const char *replay_missing(const struct timestamp_format *fmt, const char *rec,
    size_t len, char *buf, size_t size);

/* Wait gap_ns between passes of --loop (0 by default). */
void replay_loop_gap(struct replay *r, int64_t gap_ns);

/* Change a running replay's speed at now_ns (see replay_set_speed). */
void replay_speed(struct replay *r, uint64_t num, uint64_t den, int64_t now_ns);

#endif
