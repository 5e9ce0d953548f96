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
 * per limit, BURST empty to keep it) to the first limits of L, checked as
 * the command line would be.  The reply goes to reply[0..size).
 */
static void
apply_change(struct limits *L, char *req, char *reply, size_t size)
{
	const struct config *cfg = L->cfg;
	struct limit new[MAX_LIMITS];
	const char *rates[MAX_LIMITS], *bursts[MAX_LIMITS], *why_not;
	char kept[MAX_LIMITS][24], why[512], *line, *save = NULL;
	int n = 0;
	int64_t now_ns;

	if (!limits_retunable(L, &why_not)) {
		snprintf(reply, size, "error: %s\n", why_not);
		return;
	}
	for (line = strtok_r(req + strlen(CONTROL_MAGIC), "\n", &save);
	    line != NULL && n < MAX_LIMITS && n < cfg->nlimits;
	    line = strtok_r(NULL, "\n", &save)) {
		char *burst = strchr(line, '\t');

		if (burst != NULL)
			*burst++ = '\0';
		if (burst != NULL && *burst == '\0')
			burst = NULL;
		if (burst == NULL && cfg->algorithm == ALG_TOKEN) {
			/* No -b: the burst stays, checked at the new rate. */
			snprintf(kept[n], sizeof kept[n], "%llu",
			    (unsigned long long)L->now[n].burst);
			burst = kept[n];
		}
		rates[n] = line;
		bursts[n++] = burst;
	}
	if (n == 0 || line != NULL) {
		snprintf(reply, size, "error: this tbthrottle has %d limit%s "
		    "(-r) to change\n", cfg->nlimits, cfg->nlimits == 1 ?
		    "" : "s");
		return;
	}
	/* Last to first, and inf refused, as on the command line. */
	for (int i = n - 1; i >= 0; i--) {
		if (limit_parse(rates[i], bursts[i], NULL, cfg->mode,
		    cfg->algorithm, &new[i], why, sizeof why) != 0) {
			snprintf(reply, size, "error: %s\n", why);
			return;
		}
		if (new[i].rate.inf) {
			snprintf(reply, size, "error: %s\n", n > 1 ?
			    "-r inf cannot be combined with other rates" :
			    "a running limit cannot be lifted with -r inf");
			return;
		}
	}
	now_ns = clock_now_ns();
	for (int i = 0; i < n; i++)
		limits_retune(L, i, &new[i], now_ns);
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

