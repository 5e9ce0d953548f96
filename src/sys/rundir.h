/* The private directory of a user's running tbthrottles. */
#ifndef RUNDIR_H
#define RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Candidate number which (0, 1, ...) for the directory, into out, in
 * order: $XDG_RUNTIME_DIR/tbthrottle when that is set to a directory of
 * ours closed to others, /run/user/UID/tbthrottle when that directory is
 * ours and closed to others, $HOME/.cache/tbthrottle/HOST-BOOT when HOME
 * is set (HOST this host's name, BOOT this boot's key).  None of them can
 * be made by another user first.  -1 past the last.
 */
int rundir_candidate(int which, char *out, size_t size);

/* Is dir ours alone: a directory, not a link, owned by us, closed to all? */
bool rundir_private(const char *dir);

/*
 * The directory to create files in, made (mode 0700, with its parents
 * under HOME) if need be, into out.  -1 when there is none, -2 when it
 * is not private, -3 when HOME or HOME/.cache is not a directory of ours
 * that only we may write in (out names the one at fault).
 */
int rundir_make(char *out, size_t size);

/*
 * The directory of state kept between runs and boots (shared buckets),
 * made (mode 0700, with its missing parents) if need be, into out: given
 * (--state-dir) when not NULL, else $XDG_STATE_HOME/tbthrottle/HOST,
 * else $HOME/.local/state/tbthrottle/HOST (HOST this host's name: a home
 * shared by hosts holds a directory for each, as a file mapped on two
 * hosts is not one).  0, or -1 when there is none (out says why, or is
 * empty: no HOME), -2 when it is not private, -3 when a parent is not a
 * directory of ours that only we may write in (out names the one).
 */
int rundir_state(const char *given, char *out, size_t size);

/*
 * Remove each entry of dir (a file, or a directory of files) for which
 * stale(descriptor of dir, name, arg) holds.
 */
void rundir_sweep(
    const char *dir, bool (*stale)(int, const char *, void *), void *arg);

#endif
