/* A token bucket shared by processes: one word in a file mapped in memory. */
#ifndef SHARED_H
#define SHARED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gcra.h"
#include "gate.h"
#include "slidering.h"

struct shared_state;
struct zonemap;

/* What a run asks of a shared bucket. */
struct shared_spec {
	const char *name; /* checked by options_parse */
	uint64_t n, d;	  /* n units every d ns; -a fixed: a window of d ns */
	uint64_t burst;	  /* a bucket's (not a window's) */
	bool fixed;	  /* -a fixed: n units a calendar window of d ns */
	bool sliding;	  /* -a sliding: n units in any d ns */
	bool bytes;	  /* units are bytes (-c) */
	const char *rate_text; /* as given, for errors */
	const char *dir;       /* --state-dir, or NULL */
	/* -a fixed: the calendar of the windows (--tz), or NULL for UTC. */
	const struct zonemap *zone;
};

struct shared {
	struct gcra g;
	uint64_t d0;	  /* a unit's interval at the bucket's -r */
	int64_t epoch_ns; /* the file's time 0, on the monotonic clock */
	int64_t wall_ns;  /* the wall clock minus the monotonic, at open */
	/* -a fixed: N a window, its width, the window the file counts from
	 * (WIN_BASE_NS), the guard at a window's end, the window of this
	 * process's last booking, and the zone whose calendar they follow. */
	uint64_t win_n;
	int64_t width_ns, base, guard_ns, last_idx;
	const struct zonemap *zone;
	/* -a sliding: the ring of release times in the file (ring.t NULL
	 * for the other kinds), and the entries this process booked last,
	 * mine_lo .. mine_hi - 1, stamped mine_ns. */
	struct slidering ring;
	uint64_t mine_lo, mine_hi;
	int64_t mine_ns;
	struct shared_state *st; /* the mapped file */
	size_t map_bytes;	 /* its size, all mapped */
	int fd;			 /* the file, open for its size and lock */
	int64_t check_ns;	 /* when to look at its size next */
	char path[4096];
	char what[4096 + 96];	  /* "shared bucket 'NAME' (PATH)" */
	char bus_msg[4096 + 160]; /* the line if the file is cut short */
};

/*
 * Open the shared bucket sp asks for, creating it full if it does not
 * exist, in the state directory (rundir_state: sp->dir when not NULL),
 * where it outlives a boot; a creator killed at any instant leaves a
 * whole bucket or none.  With sp->fixed it is a fixed window: at most n
 * units in each calendar window of d ns; with sp->sliding, a sliding
 * window: at most n in any d ns.  Returns 0, or -1 with the reason in
 * err.
 */
int shared_open(
    struct shared *s, const struct shared_spec *sp, char *err, size_t errsz);
/* The most records a shared window counts (a sliding one keeps 8 bytes
 * each in its file), and its least width: 2^41 windows of it outlast a
 * file (69 years). */
#define SHARED_WINDOW_MAX 1000000
#define SHARED_WINDOW_MIN_NS 1000000

/*
 * --show: what the bucket name (in the state directory, dir when not
 * NULL) holds now, on out: two lines (or with json one JSON object): its
 * limit, and the tokens left and when the next comes, or the records of
 * the window and when the next window starts, or those of the sliding
 * window's last width and when the next may go.  0, or -1 with the reason
 * in err (no such bucket, not private, damaged).
 */
int shared_show(const char *name, const char *dir, bool json, FILE *out,
    char *err, size_t errsz);

/*
 * --reset: a clean budget for the bucket name: full, or an empty window,
 * at once, for the processes using it too.  0, or -1 with why in err.
 */
int shared_reset(const char *name, const char *dir, char *err, size_t errsz);

/*
 * The gate's backend over s: a plan books units in line with the other
 * processes (it holds them), to go when it says; a judge grants a unit
 * only if the bucket holds it when the atomic update lands.  A bucket
 * file damaged or cut short while in use ends the process with status 1
 * and one line naming it.
 */
void shared_backend(struct gate_backend *be, struct shared *s);

/*
 * --adapt: offer the cut w (adapt_word) to the processes sharing s; the
 * latest cut the bucket holds, w when it is the latest.  shared_adapt_cut
 * (s, 0) reads it.
 */
uint64_t shared_adapt_cut(struct shared *s, uint64_t w);

/*
 * --adapt: this process books at n units every d ns from now on, a rate
 * slowed from the bucket's -r (as every process sharing it does, from
 * the same cut); the state shared is time, so it stays whole.
 */
void shared_retune(struct shared *s, uint64_t n, uint64_t d);

/*
 * --adapt: the server asked that nothing be sent before until_ns (its
 * Retry-After): the bucket is empty until then, for every process.
 */
void shared_hold(struct shared *s, int64_t until_ns);

#endif
