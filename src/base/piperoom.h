/* Room in a pipe: the pages the latest writes to it may hold; pure. */
#ifndef PIPEROOM_H
#define PIPEROOM_H

#include <stddef.h>

/* Writes remembered: more than the pages of the largest pipe Linux makes
 * by default (1 MiB). */
#define PIPEROOM_WRITES 512

/*
 * The sizes of the latest writes to a pipe, whose unread bytes are the
 * last of them when no one else writes to it.  A pipe is a ring of pages,
 * and a write of len bytes takes at most ceil(len / page) of them however
 * full they are (Linux merges only a write's first len % page bytes into
 * the page before, and starts a page for the rest), so the bytes of a few
 * writes may fill a pipe: 16 of 2049 bytes fill 64 KiB.
 */
struct piperoom {
	size_t len[PIPEROOM_WRITES]; /* a ring, the newest at next - 1 */
	size_t next, n;
};

/* Remember a write of len bytes, len > 0. */
void piperoom_wrote(struct piperoom *r, size_t len);

/*
 * The bytes a pipe of pages pages of page bytes takes without waiting, at
 * least, when queued bytes in it are unread: its pages that none of the
 * writes those bytes came from may hold, in bytes.  All of it when it is
 * empty (the writes remembered are then forgotten); 0 when the writes
 * remembered do not hold queued bytes (some were not r's).
 */
size_t piperoom_free(
    struct piperoom *r, size_t queued, size_t page, size_t pages);

#endif
