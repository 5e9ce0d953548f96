/* What Redis's error replies mean: which waiting cures, which end a run. */
#include <stdio.h>
#include <string.h>

#include "rediserr.h"

/* Error replies that no waiting cures, and what to check for each. */
static const struct {
	const char *code, *hint;
} mistakes[] = {
	{ "NOAUTH", " (give the password in the URL or in REDISCLI_AUTH)" },
	{ "WRONGPASS", " (check the user and password)" },
	{ "NOPERM",
	    " (the user needs EVALSHA, SCRIPT LOAD and the keys "
	    "tbthrottle:* and tbthrottle-settings:*)" },
	{ "WRONGTYPE", " (another program uses the keys of tbthrottle)" },
	{ "DENIED", "" },
	/* Only a cluster says it, and a cluster is asked by CLUSTER SLOTS:
	 * here, a user the ACL kept from it. */
	{ "CROSSSLOT",
	    " (a Redis Cluster, and the user may not run CLUSTER SLOTS: "
	    "allow it)" },
};

/* Error replies of a server that is loading, busy or failing over. */
static const char *const passing[] = { "LOADING", "BUSY", "MASTERDOWN",
	"TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS", "MISCONF", "OOM", "READONLY" };

bool
rediserr_has(const char *msg, const char *code)
{
	size_t n = strlen(code);
	const char *p = msg;

	for (;;) {
		if (strncmp(p, code, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return true;
		if ((p = strstr(p, ": ")) == NULL)
			return false;
		p += 2;
	}
}

bool
rediserr_transient(const char *msg)
{
	for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++)
		if (rediserr_has(msg, passing[i]))
			return true;
	/* Sent just before the server closes a connection too many. */
	return strstr(msg, "max number of clients") != NULL;
}

/* Is the error reply msg of a command the server does not know? */
static bool
unknown(const char *msg)
{
	return strncmp(msg, "ERR unknown command", 19) == 0 ||
	    strncmp(msg, "ERR unknown subcommand", 22) == 0;
}

bool
rediserr_refuses(const char *msg)
{
	return rediserr_has(msg, "NOPERM") || unknown(msg);
}

const char *
rediserr_hint(const char *msg)
{
	for (size_t i = 0; i < sizeof mistakes / sizeof mistakes[0]; i++)
		if (rediserr_has(msg, mistakes[i].code))
			return mistakes[i].hint;
	if (unknown(msg))
		return " (a Redis with Lua scripting, 2.6 or later, is needed)";
	return NULL;
}

void
rediserr_text(const char *msg, char *text, size_t size)
{
	char *p;

	snprintf(text, size, "%s", msg);
	if ((p = strstr(text, " script: ")) != NULL)
		*p = '\0';
}
