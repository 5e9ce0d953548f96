/* -P: the live status line of a run, kept clear of the output. */
#ifndef PROGRESSLINE_H
#define PROGRESSLINE_H

#include <stdbool.h>

#include "stats.h"
#include "stream.h"

/* How often --progress redraws its line. */
#define PROGRESS_MS 250

/*
 * Start the line of a run whose input s holds and whose counts st keeps,
 * when on: it fits the terminal of standard error, follows it when
 * resized, and is drawn every PROGRESS_MS.  Off, progress_around only
 * notes the output.
 */
void progress_start(struct stream *s, const struct stats *st, bool on);

/* Draw the line now; done ends it (the run's last). */
void progress_draw(bool done);

/*
 * Output is about to reach standard output (done: has reached it): when
 * that is the line's terminal, the line is cleared first and drawn again
 * after, and no tick draws it meanwhile.
 */
void progress_around(bool done);

/* The same for output to fd: standard error is the line's own terminal. */
void progress_around_fd(int fd, bool done);

#endif
