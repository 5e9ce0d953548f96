/*
 * The file of a --shared bucket, as the files that keep it share it
 * (shared.h is what the rest of tbthrottle sees).
 */
#ifndef SHAREDFILE_H
#define SHAREDFILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcra.h"
#include "slidering.h"

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
	uint64_t bytes; /* bit 0: units are bytes (-c); bit 1: a fixed window;
			   bit 2: a sliding one */
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

/*
 * -a sliding (bit 2 of bytes): tat holds head, the units booked so far,
 * and the header is followed by the ring of the last n release times
 * (slidering.h), then by SHARED_END again, so that a file cut short
 * anywhere reads otherwise: the file is shared_file_bytes long, 8 bytes
 * a unit of the window.  The ring is changed only under the lock of
 * shared_lock, which the kernel releases for a process killed holding it.
 */
#define KIND_SLIDING 4
#define SLIDE_RING(st) ((int64_t *)((st) + 1))
/* The last word after the ring r of n (as mapped: not the header's n,
 * which a process may have written over). */
#define SLIDE_END(r) ((_Atomic uint64_t *)((r)->t + (r)->n))

struct shared;
struct gate_backend;

/*
 * Map the file open on fd (path names it), checked to be ours and whole:
 * its size into *bytes.
 */
struct shared_state *shared_map(
    int fd, const char *path, size_t *bytes, char *err, size_t errsz);

/* The size of a file of header h: 0 for a window of no size it may have. */
size_t shared_file_bytes(const struct shared_state *h);

/*
 * Write what follows the header init in a new file, on fd after it: a
 * sliding window's empty ring and its last word.  0, or -1 (errno).
 */
int shared_write_ring(int fd, const struct shared_state *init);

/*
 * Lock the file open on fd (type F_WRLCK or F_RDLCK, waiting its turn)
 * or unlock it (F_UNLCK): a lock of its first byte.  0, or -1 (errno).
 */
int shared_lock(int fd, short type);

/* The ring of the sliding window whose file's header is st, into r. */
void shared_ring_of(struct slidering *r, struct shared_state *st);

/*
 * Is the sliding window of header st, its ring r, whole, no stamp later
 * than a million windows past now_ns (the file's time)?  Under the lock.
 */
bool shared_ring_sound(
    const struct slidering *r, struct shared_state *st, int64_t now_ns);

/* -a sliding: set up s's ring, checked sound.  0, or -1 with why in err. */
int shared_slide_open(struct shared *s, char *err, size_t errsz);

/* The gate's backend over s's sliding window: be's plan, judge, went. */
void shared_slide_backend(struct gate_backend *be);

/* The file was found damaged, or of another size: say which, exit 1. */
_Noreturn void shared_damaged(const struct shared *s);

/* Once a second, at a booking at now_ns: is the file still its size? */
void shared_check_size(struct shared *s, int64_t now_ns);

/* The state directory (rundir_state: given, else the user's) into dir. */
int shared_dir(
    const char *given, char *dir, size_t size, char *err, size_t errsz);

#endif
