/* Where --exec's command ends, made visible: an input FILE given to it. */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boundary.h"
#include "command.h"
#include "input.h"
#include "msg.h"
#include "signals.h"
#include "template.h"
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

/* Is w, whole, one of --exec's placeholders ({}, {#} or {N})? */
static bool
placeholder(const char *w)
{
	size_t n = template_placeholder(w);

	return n > 0 && w[n] == '\0';
}

/*
 * The command line of --exec given as one word ('echo {}'), or the
 * command and its placeholder given as input FILEs without --exec
 * (tbthrottle -r 2/s echo {}): exit 2, naming the fix.  Only a word that
 * is no file, and no command found, is taken for such a mistake.
 */
static void
command_words(const struct config *cfg)
{
	char msg[512];

	if (cfg->exec && strpbrk(cfg->exec_argv[0], " \t") != NULL &&
	    !command_found(cfg->exec_argv[0])) {
		snprintf(msg, sizeof msg,
		    "--exec '%s': a command and its arguments are words of "
		    "their own (--exec echo {}), or a shell line is given to "
		    "sh (--exec sh -c 'LINE')",
		    cfg->exec_argv[0]);
		msg_escape(msg, sizeof msg);
		errx(2, "%s", msg);
	}
	for (int i = 0; !cfg->exec && i < cfg->nfiles; i++) {
		const char *w = cfg->files[i];

		if (input_exists(w) || (!placeholder(w) && !command_found(w)))
			continue;
		snprintf(msg, sizeof msg,
		    placeholder(w) ?
			"'%s' is no file: a command's record is {} after "
			"--exec: give --exec CMD [ARG...] {}" :
			"'%s' is no file but a command: to run it for each "
			"record, give --exec %s [ARG...]",
		    w, w);
		msg_escape(msg, sizeof msg);
		errx(2, "%s", msg);
	}
}

bool
boundary_start(const struct config *cfg)
{
	const char *file;

	command_words(cfg);
	if ((file = file_given(cfg)) == NULL)
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
