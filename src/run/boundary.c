/* Where --exec's command ends, made visible: an input FILE given to it. */
#include <err.h>
#include <stdio.h>
#include <unistd.h>

#include "boundary.h"
#include "input.h"
#include "msg.h"
#include "signals.h"
#include "stdfd.h"

/*
 * The last argument of --exec's command that names a regular file, when
 * the records come from standard input; else NULL.  Typed last, after
 * the command, an input FILE is the command's (tbthrottle -r 2/s --exec
 * curl -fsSO urls.txt).
 */
static const char *
file_given(const struct config *cfg)
{
	if (!cfg->exec || cfg->nfiles > 0)
		return NULL;
	for (int i = cfg->exec_argc - 1; i >= 1; i--)
		if (input_regular(cfg->exec_argv[i]))
			return cfg->exec_argv[i];
	return NULL;
}

/* Say that file is the command's, on one line; with status, exit. */
static void
say(const struct config *cfg, const char *file, int status)
{
	char msg[512];

	snprintf(msg, sizeof msg,
	    "%s is an argument of %s: give input FILEs before --exec, or "
	    "after ';'",
	    file, cfg->exec_argv[0]);
	msg_escape(msg, sizeof msg);
	if (status != 0)
		errx(status, "%s", msg);
	warnx("%s", msg);
}

bool
boundary_start(const struct config *cfg)
{
	const char *file = file_given(cfg);

	if (file == NULL)
		return false;
	/* Nothing could ever be read: a usage mistake, as from cron. */
	if (stdfd_is_null(STDIN_FILENO))
		say(cfg, file, 2);
	/* Someone may yet type records: say it, and read on. */
	if (!isatty(STDIN_FILENO))
		return false;
	say(cfg, file, 0);
	return true;
}

void
boundary_end(const struct config *cfg, const struct stats *st, bool said)
{
	const char *file;

	/* An empty pipe is input too: a warning, the status as it was. */
	if (said || st->bytes_in + st->bytes_skipped != 0 ||
	    signals_stop_requested())
		return;
	if ((file = file_given(cfg)) != NULL)
		say(cfg, file, 0);
}
