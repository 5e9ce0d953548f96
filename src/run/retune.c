/* Live changes (-R): asking a running tbthrottle, and answering. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "clock.h"
#include "control.h"
#include "engine.h"
#include "retune.h"
#include "signals.h"
#include "spec.h"

/* The replay whose speed -R may change, or NULL. */
static struct replay *replaying;

void
retune_replay(struct replay *r)
{
	replaying = r;
}

/* Change the speed of the replay to the one in text, at once. */
static void
apply_speed(const char *text, char *reply, size_t size)
{
	uint64_t num, den;
	char why[512];
	int64_t now_ns;

	if (replaying == NULL) {
		snprintf(reply, size,
		    "error: this tbthrottle is not "
		    "replaying (--replay)\n");
		return;
	}
	if (spec_speed_parse(text, &num, &den, why, sizeof why) != 0) {
		snprintf(reply, size, "error: %s\n", why);
		return;
	}
	now_ns = clock_now_ns();
	replay_speed(replaying, num, den, now_ns);
	engine_limits_changed(now_ns);
	snprintf(reply, size, "ok: replaying at speed %s\n", text);
}

/*
 * Apply the live change in req (a line "RATE\tBURST" per limit, BURST
 * empty to keep it) to the first limits of L, checked as
 * the command line would be.  The reply goes to reply[0..size).
 */
/*
 * Check the new limits asked for, rates[0..n) and bursts[0..n), as the
 * command line would, into new; 0, or -1 with the error in reply.
 */
static int
check_change(const struct config *cfg, const char **rates, const char **bursts,
    int n, struct limit *new, char *reply, size_t size)
{
	char why[512];

	/* Last to first, and inf refused, as on the command line. */
	for (int i = n - 1; i >= 0; i--) {
		if (spec_limit_parse(rates[i], bursts[i], NULL, cfg->mode,
			cfg->algorithm, &new[i], why, sizeof why) != 0) {
			snprintf(reply, size, "error: %s\n", why);
			return -1;
		}
		if (new[i].rate.inf) {
			snprintf(reply, size, "error: %s\n",
			    n > 1 ?
				"-r inf cannot be combined with other rates" :
				"a running limit cannot be lifted with -r inf");
			return -1;
		}
	}
	return 0;
}

static void
apply_change(struct limits *L, char *req, char *reply, size_t size)
{
	const struct config *cfg = L->cfg;
	struct limit new[MAX_LIMITS];
	const char *rates[MAX_LIMITS], *bursts[MAX_LIMITS], *why_not;
	char kept[MAX_LIMITS][24], *line, *save = NULL;
	char was[sizeof L->stats->limit.text] = "";
	int n = 0;
	int64_t now_ns;

	if (!build_retunable(L, &why_not)) {
		snprintf(reply, size, "error: %s\n", why_not);
		return;
	}
	for (line = strtok_r(req, "\n", &save);
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
		snprintf(reply, size,
		    "error: this tbthrottle has %d limit%s "
		    "(-r) to change\n",
		    cfg->nlimits, cfg->nlimits == 1 ? "" : "s");
		return;
	}
	if (check_change(cfg, rates, bursts, n, new, reply, size) != 0)
		return;
	if (L->stats != NULL)
		snprintf(was, sizeof was, "%s", L->stats->limit.text);
	now_ns = clock_now_ns();
	for (int i = 0; i < n; i++)
		build_retune(L, i, &new[i], now_ns);
	engine_limits_changed(now_ns);
	if (L->stats != NULL)
		snprintf(reply, size, "ok: %s (was %s)\n", L->stats->limit.text,
		    was);
	else
		snprintf(reply, size, "ok\n");
}

/*
 * Must req wait for the booking under way to end: would it change the
 * limits of L (its tiers), or the replay's speed, while L is busy?  A
 * request refused whatever the time is refused at once.  (A retune is of
 * plain buckets, never busy.)
 */
static bool
must_wait(const struct limits *L, const char *req)
{
	if (!build_busy(L))
		return false;
	if (strncmp(req, "speed ", 6) == 0)
		return replaying != NULL;
	return strcmp(req, "reload\n") == 0 && L->cfg->tiers_file != NULL;
}

/*
 * Answer the request req (its first line says what it asks); false when
 * it asks for a change while the limits are in the middle of a booking
 * (waiting for Redis, which lets requests in): it must wait for its end.
 */
static bool
answer(void *arg, const char *req, char *reply, size_t size)
{
	char change[CONTROL_MAX];

	if (must_wait(arg, req))
		return false;
	if (strncmp(req, "speed ", 6) == 0) {
		snprintf(change, sizeof change, "%.*s",
		    (int)strcspn(req + 6, "\n"), req + 6);
		apply_speed(change, reply, size);
	} else if (strncmp(req, "retune\n", 7) == 0) {
		snprintf(change, sizeof change, "%s", req + 7);
		apply_change(arg, change, reply, size);
	} else if (strcmp(req, "stats\n") == 0 ||
	    strcmp(req, "stats json\n") == 0) {
		(void)engine_report(reply, size, req[5] == ' ');
	} else if (strcmp(req, "reload\n") == 0) {
		int64_t now_ns = clock_now_ns();

		build_reload(arg, now_ns, reply, size);
		if (strncmp(reply, "ok", 2) == 0)
			engine_limits_changed(now_ns);
	} else if (strcmp(req, "status\n") == 0 ||
	    strcmp(req, "status json\n") == 0) {
		(void)engine_status(reply, size, req[6] == ' ');
	} else {
		snprintf(reply, size,
		    "error: not a request tbthrottle "
		    "knows\n");
	}
	return true;
}

/*
 * SIGIO, or a wait that saw it: requests may be waiting.  One held for
 * later is offered again at the next poll, the first outside the booking
 * being the engine's own.
 */
static void
on_control(void *arg)
{
	if (control_answer(answer, arg))
		signals_request(SIGNALS_CONTROL);
}

/* A wait saw a request come on the control socket. */
static void
request_control(void)
{
	signals_request(SIGNALS_CONTROL);
}

/* The process dies of a signal: its control socket goes with it. */
static void
remove_at_death(void *arg)
{
	(void)arg;
	control_remove();
}

void
retune_serve(struct limits *L, const char *name)
{
	char why[512];
	int rc;

	/* SIGIO never kills us; it says a request may be waiting. */
	signals_hook(SIGNALS_CONTROL, on_control, L, 0);
	if (L->gate.units == NULL && replaying == NULL && name == NULL)
		return; /* nothing to change, and no name to answer to */
	rc = control_serve(name, why, sizeof why);
	if (rc == -2)
		errx(1, "%s", why);
	if (rc == 0) {
		signals_hook(SIGNALS_DEATH, remove_at_death, NULL, 0);
		atexit(control_remove);
		clock_watch(control_watch, request_control);
	}
}

void
retune_stop(void)
{
	clock_watch(NULL, NULL);
	control_remove();
}

/* Say why target refused: "process N: ..." or "NAME: ...". */
static void
refused(const char *target, const char *reply)
{
	const char *why = strncmp(reply, "error: ", 7) == 0 ? reply + 7 : reply;
	int len = (int)strcspn(why, "\n");

	if (target[strspn(target, "0123456789")] == '\0')
		warnx("process %s: %.*s", target, len, why);
	else
		warnx("%s: %.*s", target, len, why);
}

int
retune_send(const struct config *cfg)
{
	char req[CONTROL_MAX], reply[CONTROL_MAX];
	size_t len;

	if (cfg->control_reload)
		len = (size_t)snprintf(req, sizeof req, "reload\n");
	else if (cfg->control_speed != NULL)
		len = (size_t)snprintf(
		    req, sizeof req, "speed %s\n", cfg->control_speed);
	else if (cfg->ncontrol == 0) /* --stats */
		len = (size_t)snprintf(req, sizeof req, "stats%s\n",
		    cfg->stats_json ? " json" : "");
	else
		len = (size_t)snprintf(req, sizeof req, "retune\n");
	for (int i = 0; i < cfg->ncontrol && len < sizeof req; i++)
		len += (size_t)snprintf(req + len, sizeof req - len, "%s\t%s\n",
		    cfg->control_rates[i],
		    cfg->control_bursts[i] != NULL ? cfg->control_bursts[i] :
						     "");
	if (len >= sizeof req) {
		warnx("-R: the request is too long");
		return 2;
	}
	if (ask_one(cfg->control_target, req, reply, sizeof reply) != 0) {
		warnx("%s", reply);
		return 1;
	}
	if (cfg->ncontrol == 0 && !cfg->control_reload &&
	    cfg->control_speed == NULL && strncmp(reply, "error: ", 7) != 0) {
		fputs(reply, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (strncmp(reply, "ok", 2) == 0) {
		/* What it changed, in one line: "ok: ..." */
		if (strncmp(reply, "ok: ", 4) == 0)
			printf("%s: %s", cfg->control_target, reply + 4);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	refused(cfg->control_target, reply);
	return 2;
}

/* One line of --list: the run of pid, called name, and its status. */
static void
list_one(void *arg, long pid, const char *name, const char *status)
{
	(void)arg;
	printf("%-8ld %-16s %s", pid, name[0] != '\0' ? name : "-",
	    status != NULL ? status : "not answering\n");
}

/* One line of --list --json: a JSON object (names are of plain bytes). */
static void
list_json(void *arg, long pid, const char *name, const char *status)
{
	(void)arg;
	printf("{\"pid\":%ld,\"name\":", pid);
	printf(name[0] != '\0' ? "\"%s\"," : "null,", name);
	/* A run of an older tbthrottle answers in text. */
	if (status != NULL && status[0] == '"')
		printf("\"answering\":true,%s", status);
	else
		printf("\"answering\":false}\n");
}

int
retune_list(bool json)
{
	if (!json)
		printf("%-8s %-16s %s\n", "PID", "NAME",
		    "LIMITS; UNITS IN, OUT, DROPPED, WAITING; AGE");
	(void)ask_all(json ? "status json\n" : "status\n",
	    json ? list_json : list_one, NULL);
	return fflush(stdout) == 0 ? 0 : 1;
}
