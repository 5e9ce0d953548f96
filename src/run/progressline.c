/* -P: the live status line of a run, kept clear of the output. */
#include <signal.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "progressline.h"
#include "signals.h"
#include "stdfd.h"

/* The line of the run: one per process, as the signals reach it. */
static struct progress {
	struct stream *s;
	const struct stats *st;
	size_t cols;	/* the width of the terminal, or 0 */
	bool share_tty; /* the line and the output share a terminal */
	bool on;	/* the line is drawn */
	bool writing;	/* output is being written */
} line;

/* The terminal's size changed since the line was last drawn. */
static volatile sig_atomic_t resized;

/* SIGWINCH: the line is fitted again when next drawn.  Signal-safe. */
static void
on_resize(void *arg)
{
	(void)arg;
	resized = 1;
}

void
progress_draw(bool done)
{
	char text[STATS_LINE_MAX];

	if (resized) {
		resized = 0;
		line.cols = stdfd_columns(STDERR_FILENO);
	}
	stream_count_waiting(line.s);
	output_say(text,
	    stats_format_progress(
		line.st, clock_now_ns(), done, line.cols, text, sizeof text));
}

/* The line, every PROGRESS_MS: not in the middle of output. */
static void
tick(void *arg)
{
	(void)arg;
	if (line.writing && line.share_tty)
		return;
	/* A terminal that takes nothing now (stopped by ^S) would hold the
	 * run up: the line waits for the next tick instead. */
	if (!clock_fd_ready(STDERR_FILENO, POLLOUT))
		return;
	progress_draw(false);
}

void
progress_around(bool done)
{
	line.writing = !done;
	if (!line.share_tty)
		return;
	if (done)
		tick(NULL);
	else
		output_say(STATS_CLEAR, sizeof STATS_CLEAR - 1);
}

void
progress_around_fd(int fd, bool done)
{
	if (fd != STDERR_FILENO || !line.on || line.share_tty) {
		progress_around(done);
		return;
	}
	/* The line's own terminal, whatever standard output is. */
	line.writing = !done;
	if (done)
		tick(NULL);
	else
		output_say(STATS_CLEAR, sizeof STATS_CLEAR - 1);
}

void
progress_start(struct stream *s, const struct stats *st, bool on)
{
	line = (struct progress){ .s = s,
		.st = st,
		.share_tty = on && stdfd_same_tty(STDOUT_FILENO, STDERR_FILENO),
		.on = on };
	if (!on)
		return;
	/* The line fits the terminal, and follows it when resized. */
	signals_hook(SIGNALS_RESIZE, on_resize, NULL, 0);
	line.cols = stdfd_columns(STDERR_FILENO);
	signals_hook(SIGNALS_TICK, tick, NULL, PROGRESS_MS);
}
