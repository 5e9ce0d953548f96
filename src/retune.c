/* Live changes (-R): asking a running tbthrottle, and answering. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "engine.h"
#include "retune.h"
#include "signals.h"

/*
 * Apply the live change in req (CONTROL_MAGIC, then a line "RATE\tBURST"
 * per limit, BURST empty to keep it) to the first limits of r, checked as
 * the command line would be.  The reply goes to reply[0..size).
 */
static void
apply_change(struct limits *L, char *req, char *reply, size_t size)
{
	const struct config *cfg = L->cfg;
	struct config new;
	char opt_r[] = "-r", opt_b[] = "-b", opt_a[] = "-a", opt_mode[] = "-l";
	char alg_token[] = "token", alg_leaky[] = "leaky", self[] = "tbthrottle";
	char *argv[4 + 4 * MAX_LIMITS + 1], *line, *save = NULL, why[512];
	char kept[MAX_LIMITS][24];
	int argc = 0, n = 0;
	int64_t now_ns;

	const char *why_not;

	if (!limits_retunable(L, &why_not)) {
		snprintf(reply, size, "error: %s\n", why_not);
		return;
	}
	if (cfg->mode == UNIT_BYTES)
		opt_mode[1] = 'c';
	argv[argc++] = self;
	argv[argc++] = opt_mode;
	argv[argc++] = opt_a;
	argv[argc++] = cfg->algorithm == ALG_LEAKY ? alg_leaky : alg_token;
	for (line = strtok_r(req + strlen(CONTROL_MAGIC), "\n", &save);
	    line != NULL && n < MAX_LIMITS && n < cfg->nlimits;
	    line = strtok_r(NULL, "\n", &save)) {
		char *burst = strchr(line, '\t');

		if (burst != NULL)
			*burst++ = '\0';
		if ((burst == NULL || *burst == '\0') &&
		    cfg->algorithm == ALG_TOKEN) {
			/* No -b: the burst stays, checked at the new rate. */
			snprintf(kept[n], sizeof kept[n], "%llu",
			    (unsigned long long)L->now[n].burst);
			burst = kept[n];
		}
		argv[argc++] = opt_r;
		argv[argc++] = line;
		if (burst != NULL && *burst != '\0') {
			argv[argc++] = opt_b;
			argv[argc++] = burst;
		}
		n++;
	}
	argv[argc] = NULL;
	if (n == 0 || line != NULL) {
		snprintf(reply, size, "error: this tbthrottle has %d limit%s "
		    "(-r) to change\n", cfg->nlimits, cfg->nlimits == 1 ?
		    "" : "s");
		return;
	}
	if (options_parse(&new, argc, argv, why, sizeof why) != OPT_RUN) {
		snprintf(reply, size, "error: %s\n", why);
		return;
	}
	if (new.rate.inf) {
		snprintf(reply, size, "error: a running limit cannot be lifted "
		    "with -r inf\n");
		return;
	}
	now_ns = clock_now_ns();
	for (int i = 0; i < n; i++)
		limits_retune(L, i, &new.limits[i], now_ns);
	engine_limits_changed(now_ns);
	snprintf(reply, size, "ok\n");
}

/* SIGUSR2: a live change may be waiting in the control file. */
static void
on_control(void *arg)
{
	char req[CONTROL_MAX], reply[600];

	if (control_request(req, sizeof req) < 0)
		return;
	apply_change(arg, req, reply, sizeof reply);
	control_reply(reply);
}

void
retune_serve(struct limits *L)
{
	/* SIGUSR2 never kills us; with a rate it asks for a change. */
	signals_on_control(on_control, L);
	if (L->gate.limit != NULL && control_serve() == 0) {
		signals_on_death(control_remove);
		atexit(control_remove);
	}
}

void
retune_stop(void)
{
	control_remove();
}

int
retune_send(const struct config *cfg)
{
	char req[CONTROL_MAX], reply[600];
	size_t len = (size_t)snprintf(req, sizeof req, "%s", CONTROL_MAGIC);

	for (int i = 0; i < cfg->ncontrol && len < sizeof req; i++)
		len += (size_t)snprintf(req + len, sizeof req - len, "%s\t%s\n",
		    cfg->control_rates[i], cfg->control_bursts[i] != NULL ?
		    cfg->control_bursts[i] : "");
	if (len >= sizeof req) {
		warnx("-R: the request is too long");
		return 2;
	}
	if (control_send((pid_t)cfg->control_pid, req, reply,
	    sizeof reply) != 0) {
		warnx("%s", reply);
		return 1;
	}
	if (strncmp(reply, "ok", 2) == 0)
		return 0;
	warnx("process %ld: %s", cfg->control_pid,
	    strncmp(reply, "error: ", 7) == 0 ? reply + 7 : reply);
	return 2;
}

