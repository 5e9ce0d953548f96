/*
 * The file of a --shared bucket, as the files that keep it share it
 * (shared.h is what the rest of tbthrottle sees).
 */
#ifndef SHAREDFILE_H
#define SHAREDFILE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gcra.h"

#define SHARED_MAGIC 0x3653484254425400ULL /* "\0TBTBHS6" */
/* The file's last word: no byte of it is 0, so a file cut short anywhere
 * in it reads otherwise (bytes past the end of a file read as 0). */
#define SHARED_END 0x444e454b43554254ULL /* "TBUCKEND" */
/* How often a process looks at the file's size. */
#define SHARED_CHECK_NS 1000000000LL
/* Age at which a creator's temporary file is stale whoever has its pid. */
#define SHARED_TEMP_STALE_S 10

/*
 * The file.  tat is the whole token state, changed only by compare and
 * swap: no lock, so a process killed at any point leaves it consistent.
 * The file appears whole, written before it is linked into place.  Its
 * time is the wall clock's, from epoch_ns (when it was made, ns since
 * 1970): a bucket outlives a boot, and every process reads it the same.
 */
struct shared_state {
	_Atomic uint64_t magic;
	uint64_t n, d, burst;
	uint64_t bytes; /* bit 0: units are bytes (-c); bit 1: a fixed window */
	int64_t epoch_ns;
	char rate_text[40];
	/* -a fixed: the zone of the windows' calendar (--tz), "UTC" by
	 * default; a bucket: empty. */
	char zone[64];
	_Atomic int64_t tat;
	_Atomic uint64_t adapt; /* --adapt's last cut (adapt_word); 0: none */
	_Atomic uint64_t end;	/* SHARED_END */
};

/* Bit 1 of the file's bytes word: a fixed window, not a bucket. */
#define KIND_FIXED 2

/*
 * -a fixed: the word holds the window of the latest booking, counted from
 * the window of UTC a day before the file was made (WIN_BASE_NS: no
 * zone's window of then comes before it), above the units booked in it
 * (WIN_BITS).  Windows are width_ns wide, aligned to the multiples of it
 * of the zone's local time (zonemap.h; UTC's wall clock by default), as
 * fixed-window quotas count.
 */
#define WIN_BASE_NS (86400 * 1000000000LL)
#define WIN_BITS 20
#define WIN_COUNT(w) ((uint64_t)(w) & ((UINT64_C(1) << WIN_BITS) - 1))
#define WIN_INDEX(w) ((int64_t)(w) >> WIN_BITS)
#define WIN_WORD(i, c) ((int64_t)(i) << WIN_BITS | (int64_t)(c))
#define WIN_INDEX_MAX (GCRA_MAX_SCALED >> WIN_BITS)
/* Windows booked ahead of now that a whole file may hold. */
#define WIN_AHEAD_MAX 1000000
/* A unit due in the last of this of its window counts in the next. */
#define WIN_GUARD_NS 20000000LL

/* Map the file open on fd (path names it), checked to be ours and whole. */
struct shared_state *shared_map(
    int fd, const char *path, char *err, size_t errsz);

/* The state directory (rundir_state: given, else the user's) into dir. */
int shared_dir(
    const char *given, char *dir, size_t size, char *err, size_t errsz);

#endif
