/* --name: a run's name, a link to its socket, held by a lock while it lives. */
#ifndef NAME_H
#define NAME_H

#include <stddef.h>

/*
 * Take name for the run of process pid, whose socket is in the private
 * directory dir: lock the name's lock file there for as long as the run
 * lives (the lock, not the link, says who has the name: the system drops
 * it when the run ends, however it ends), then link name.NAME to the
 * socket, in place of a link whose run is gone.  0; -1 with the reason in
 * why when another live run of ours holds the name, or it cannot be had.
 */
int name_claim(
    const char *dir, const char *name, long pid, char *why, size_t size);

/* Give the name up: remove the link, then the lock file; async-signal-safe. */
void name_release(void);

/*
 * Remove the links in dir to process pid that no live run holds: left by
 * a run that had pid before, they must not lead requests to the run that
 * has it now.
 */
void name_forget(const char *dir, long pid);

/* Remove the link of name in dir when no live run holds the name. */
void name_drop(const char *dir, const char *name);

/* The name whose link in dir leads to process pid, into out ("" if none). */
void name_of(const char *dir, long pid, char *out, size_t size);

#endif
