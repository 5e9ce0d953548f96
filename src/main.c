/* tbthrottle: release input a record at a time at a set rate. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "input.h"
#include "options.h"
#include "retune.h"
#include "setup.h"
#include "signals.h"
#include "stdfd.h"
#include "tls.h"

/* What --version says of a build without the paths only Linux has. */
#ifdef TB_PORTABLE
#define PORTABLE_NOTE "; portable build"
#else
#define PORTABLE_NOTE ""
#endif

/* Run cfg: set up its limits, policy and sink, then let the engine run. */
static int
run(const struct config *cfg)
{
	static struct setup u;
	int status;

	clock_init();
	signals_init();
	if (cfg->take)
		return setup_take(cfg);
	if (cfg->show || cfg->reset)
		return setup_show(cfg);
	if (cfg->dry_run)
		return setup_dry_run(cfg);
	setup_run(&u, cfg);
	retune_serve(&u.limits, cfg->name);
	status = engine_run(&u.engine);
	setup_end(&u, cfg);
	retune_stop();
	signals_finish();
	return status;
}

/* --help or --version to standard output; the exit status. */
static int
say(enum parse_result parsed)
{
	if (parsed == OPT_HELP)
		options_usage(stdout);
	else
		printf("tbthrottle %s (Redis support: %s; TLS: %s%s); ISC "
		       "licence, see LICENSE\n",
		    TBTHROTTLE_VERSION, redis_available() ? "yes" : "no",
		    redis_available() && tls_available() ? "yes" : "no",
		    PORTABLE_NOTE);
	return fflush(stdout) == 0 ? 0 : 1;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	char why[512];
	enum parse_result parsed;

	stdfd_guard();
	options_file_test(input_exists);
	parsed = options_parse(&cfg, argc, argv, why, sizeof why);
	/* Nothing can be written where nothing is open. */
	if (stdfd_closed(STDOUT_FILENO) && parsed != OPT_ERROR &&
	    (parsed != OPT_RUN || cfg.control_target == NULL ||
		cfg.ncontrol == 0)) {
		warnx("write error: %s", strerror(EBADF));
		return 1;
	}
	if (parsed == OPT_ERROR) {
		fprintf(stderr, "tbthrottle: %s\n", why);
		return 2;
	}
	if (parsed != OPT_RUN)
		return say(parsed);
	setup_warn(&cfg);
	if (cfg.list)
		return retune_list(cfg.list_json);
	if (cfg.control_target != NULL)
		return retune_send(&cfg);
	return run(&cfg);
}
