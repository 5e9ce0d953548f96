/* The private directory of a user's running tbthrottles. */
#ifndef RUNDIR_H
#define RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Candidate number which (0, 1, ...) for the directory, into out, in
 * order: $XDG_RUNTIME_DIR/tbthrottle when that is set,
 * /run/user/UID/tbthrottle when that directory exists,
 * /dev/shm/tbthrottle-UID, /tmp/tbthrottle-UID.  -1 past the last.
 */
int	rundir_candidate(int which, char *out, size_t size);

/* Is dir ours alone: a directory, not a link, owned by us, closed to all? */
bool	rundir_private(const char *dir);

/*
 * The directory to create files in, made (mode 0700) if need be, into
 * out.  -1 when there is none, -2 when it is not private (out names it).
 */
int	rundir_make(char *out, size_t size);

#endif
