/* Zero-copy pass-through with splice(2) where the OS has it. */
#ifndef SPLICE_H
#define SPLICE_H

#include <sys/types.h>

#include "piperoom.h"

/* Returned by splice_move when splice(2) cannot join these descriptors. */
#define SPLICE_UNSUPPORTED (-2)

/*
 * Move up to len bytes from in_fd to out_fd inside the kernel.  Returns
 * the bytes moved, 0 at end of input, -1 with errno set (EINTR, EAGAIN,
 * EPIPE, ...), or SPLICE_UNSUPPORTED when the caller must fall back to
 * read(2) and write(2); nothing has been moved then.
 */
ssize_t splice_move(int in_fd, int out_fd, size_t len);

/*
 * Bytes waiting in the pipe fd, readable without blocking; -1 when the
 * OS cannot tell (then nothing may be spliced on its word).
 */
ssize_t splice_pending(int fd);

/*
 * Bytes the pipe fd, written to, takes now without blocking, at least (a
 * write of no more fills whole pages it has free), when written holds
 * the writes to it (see piperoom_free: 0 when some were not in it); -1
 * when the OS cannot tell or fd is no pipe.
 */
ssize_t splice_pipe_room(int fd, struct piperoom *written);

/* The size of a new pipe on Linux. */
#define SPLICE_DEFAULT_PIPE_BYTES 65536

/*
 * Ask that the pipe fd hold at least bytes, unless it was made smaller
 * than the default; quietly nothing if it can't.
 */
void splice_grow_pipe(int fd, size_t bytes);

#endif
