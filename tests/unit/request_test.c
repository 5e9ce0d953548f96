/* Unit tests of request.c: whom a control request is for, and who answers. */
#include <string.h>

#include "request.h"
#include "unit.h"

/* Is msg for the run of pid called name, asking want? */
static void
for_run(const char *msg, long pid, const char *name, const char *want)
{
	const char *req = NULL;
	bool is = request_is_for(msg, pid, name, &req);

	if (want == NULL)
		check(!is, "'%s' taken by pid %ld, %s", msg, pid,
		    name != NULL ? name : "no name");
	else
		check(is && strcmp(req, want) == 0, "'%s' for pid %ld, %s: %s",
		    msg, pid, name != NULL ? name : "no name",
		    is ? req : "refused");
}

static void
sender_is(const char *msg, long want_pid, const char *want_name,
    const char *want_reply)
{
	char name[65];
	const char *reply = NULL;
	long pid = 0;
	int rc = request_sender(msg, &pid, name, sizeof name, &reply);

	if (want_reply == NULL)
		check(rc == -1, "'%s' read as from %ld", msg, pid);
	else
		check(rc == 0 && pid == want_pid &&
			strcmp(name, want_name) == 0 &&
			strcmp(reply, want_reply) == 0,
		    "'%s': from %ld '%s'", msg, pid, rc == 0 ? name : "?");
}

void
test_request(void)
{
	char buf[64];

	current = "request: a request says whom it is for";
	check(request_to(buf, sizeof buf, "replay", "stats\n") == 0 &&
		strcmp(buf, "to replay\nstats\n") == 0,
	    "made: %s", buf);
	check(request_to(buf, 16, "replay", "stats\n") == -1, "too long");
	for_run("to replay\nstats\n", 42, "replay", "stats\n");
	for_run("to 42\nstats\n", 42, "replay", "stats\n");
	for_run("to 42\nstatus\n", 42, NULL, "status\n");

	current = "request: a run answers only to its own name or pid";
	/* A link left by a dead run "victim" leads to an unnamed run. */
	for_run("to victim\nretune\n5/s\t\n", 42, NULL, NULL);
	for_run("to victim\nstats\n", 42, "other", NULL);
	for_run("to 43\nstats\n", 42, "replay", NULL);
	for_run("to 042\nstats\n", 42, NULL, NULL);
	for_run("to replayx\nstats\n", 42, "replay", NULL);
	for_run("to repla\nstats\n", 42, "replay", NULL);
	for_run("to \nstats\n", 42, NULL, NULL);
	for_run("stats\n", 42, "replay", NULL);
	for_run("to replay", 42, "replay", NULL);
	for_run("", 42, NULL, NULL);

	current = "request: a reply says who answers";
	check(request_from(buf, sizeof buf, 42, "replay") == 15 &&
		strcmp(buf, "from 42 replay\n") == 0,
	    "made: %s", buf);
	check(request_from(buf, sizeof buf, 42, NULL) == 10 &&
		strcmp(buf, "from 42 -\n") == 0,
	    "made: %s", buf);
	check(request_from(buf, 10, 42, NULL) == -1, "too long");
	sender_is("from 42 replay\nok\n", 42, "replay", "ok\n");
	sender_is("from 42 -\nunits 3 in\n", 42, "", "units 3 in\n");
	sender_is("from 2147483647 x\n", 2147483647L, "x", "");
	sender_is("from 2147483648 x\n", 0, "", NULL);
	sender_is("from 42\nok\n", 0, "", NULL);
	sender_is("from 42 \nok\n", 0, "", NULL);
	sender_is("from x y\nok\n", 0, "", NULL);
	sender_is("ok\n", 0, "", NULL);
	sender_is("error: not a request tbthrottle knows\n", 0, "", NULL);
}
