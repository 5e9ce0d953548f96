/* Fuzz target: a --redis URL parsed, shown and scrubbed, and its invariants. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redisurl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is s a string that ends inside its size bytes? */
static void
check_string(const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		abort();
}

/* A URL parsed names one server, or sentinels, in range. */
static void
check_url(const struct redis_url *u)
{
	check_string(u->host, sizeof u->host);
	check_string(u->path, sizeof u->path);
	check_string(u->user, sizeof u->user);
	check_string(u->password, sizeof u->password);
	check_string(u->master, sizeof u->master);
	if (u->db < 0 || u->nsentinels > REDISURL_SENTINELS)
		abort();
	if (u->path[0] != '\0' && (u->host[0] != '\0' || u->nsentinels > 0))
		abort();
	if (u->nsentinels > 0 &&
	    (u->host[0] != '\0' || u->master[0] == '\0' ||
		!redisurl_word(u->master, strlen(u->master))))
		abort();
	if (u->path[0] == '\0' && u->nsentinels == 0 &&
	    (u->host[0] == '\0' || u->port < 1 || u->port > 65535))
		abort();
	for (size_t i = 0; i < u->nsentinels; i++) {
		check_string(u->sentinels[i].host, sizeof u->sentinels[i].host);
		if (u->sentinels[i].host[0] == '\0' ||
		    u->sentinels[i].port < 1 || u->sentinels[i].port > 65535)
			abort();
	}
}

/* The URL shown, and a message scrubbed, hold no copy of the password. */
static void
check_masked(const struct redis_url *u)
{
	char shown[2048], msg[600];
	const char *pw = u->password;
	size_t plen = strlen(pw);

	redisurl_show(u, shown, sizeof shown);
	check_string(shown, sizeof shown);
	/* A password with a '*' may be made again by the masks. */
	if (plen == 0 || strchr(pw, '*') != NULL)
		return;
	snprintf(msg, sizeof msg, "ERR %s: %s.", pw, pw);
	redisurl_scrub(u, msg, sizeof msg);
	if (strstr(msg, pw) != NULL)
		abort();
	/* The shown URL names user, hosts and master, which might hold
	 * the password's text by chance; it masks the password itself. */
	if (strstr(shown, ":***@") == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	char url[2048], err[512];
	struct redis_url u;
	int rc;

	if (!once) {
		unsetenv("REDISCLI_AUTH");
		once = true;
	}
	if (size >= sizeof url)
		return 0;
	memcpy(url, data, size);
	url[size] = '\0';
	memset(&u, 0, sizeof u);
	err[0] = '\0';
	rc = redisurl_parse(url, &u, err, sizeof err);
	if (rc != 0) {
		/* A reason, as a string. */
		if (rc != -1 || err[0] == '\0')
			abort();
		check_string(err, sizeof err);
		return 0;
	}
	check_url(&u);
	check_masked(&u);
	return 0;
}
