/* redis:// URLs: parsed, and shown with the password masked; pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redisurl.h"

/* Copy s[0..len) into out[0..size) as a string; -1 if it does not fit. */
static int
copy(char *out, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return -1;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* A whole number from lo to hi in s[0..len); -1 if it is not one. */
static long
number(const char *s, size_t len, long lo, long hi)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= lo && v <= hi ? v : -1;
}

/* Is s[0..len) all digits (or empty)? */
static int
digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * url for messages, with all that may be a password masked: what lies
 * before the last '@' but a user name, and without an '@', a port that is
 * not a number, as in redis://admin:secret, a password that lacks its @.
 */
static void
mask(const char *url, char *out, size_t size)
{
	const char *auth = strstr(url, "://"), *at, *end, *colon;

	auth = auth != NULL ? auth + 3 : url;
	if ((at = strrchr(auth, '@')) != NULL) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		snprintf(out, size, "%.*s%s***@%s",
		    (int)((colon != NULL ? colon : auth) - url), url,
		    colon != NULL ? ":" : "", at + 1);
		return;
	}
	end = auth + strcspn(auth, "/");
	colon = memchr(auth, ':', (size_t)(end - auth));
	if (colon != NULL && !digits(colon + 1, (size_t)(end - colon - 1)))
		snprintf(out, size, "%.*s:***%s", (int)(colon - url), url, end);
	else
		snprintf(out, size, "%s", url);
}

int
redisurl_parse(const char *url, struct redis_url *u, char *err, size_t errsz)
{
	static const char scheme[] = "redis://";
	const char *p, *at, *end, *colon, *slash, *env;
	char shown[64];
	long v;

	memset(u, 0, sizeof *u);
	u->port = 6379;
	mask(url, shown, sizeof shown);
	if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
		snprintf(err, errsz, "invalid --redis URL '%s': give "
		    "redis://[:password@]host[:port][/db]", shown);
		return -1;
	}
	p = url + sizeof scheme - 1;
	end = p + strlen(p);
	if ((at = strrchr(p, '@')) != NULL) {
		colon = memchr(p, ':', (size_t)(at - p));
		if (colon == NULL || copy(u->user, sizeof u->user, p,
		    (size_t)(colon - p)) != 0 || copy(u->password,
		    sizeof u->password, colon + 1, (size_t)(at - colon - 1)) !=
		    0) {
			snprintf(err, errsz, "invalid --redis URL '%s': give "
			    "the credentials as [user]:password@", shown);
			return -1;
		}
		p = at + 1;
	}
	/* Kept out of the URL (and so out of ps), the password may come
	 * from the environment, as for redis-cli. */
	if (u->password[0] == '\0' && (env = getenv("REDISCLI_AUTH")) != NULL &&
	    copy(u->password, sizeof u->password, env, strlen(env)) != 0) {
		snprintf(err, errsz, "REDISCLI_AUTH is too long");
		return -1;
	}
	if ((slash = strchr(p, '/')) != NULL) {
		if ((v = number(slash + 1, (size_t)(end - slash - 1), 0,
		    100000)) < 0) {
			snprintf(err, errsz, "invalid --redis URL '%s': the "
			    "database must be a number", shown);
			return -1;
		}
		u->db = (int)v;
		end = slash;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	if (colon != NULL) {
		if ((v = number(colon + 1, (size_t)(end - colon - 1), 1,
		    65535)) < 0) {
			snprintf(err, errsz, "invalid --redis URL '%s': the "
			    "port must be from 1 to 65535%s", shown,
			    digits(colon + 1, (size_t)(end - colon - 1)) ? "" :
			    " (a password goes in redis://:password@host, or "
			    "in REDISCLI_AUTH)");
			return -1;
		}
		u->port = (int)v;
		end = colon;
	}
	if (end == p || copy(u->host, sizeof u->host, p,
	    (size_t)(end - p)) != 0) {
		snprintf(err, errsz, "invalid --redis URL '%s': give a host",
		    shown);
		return -1;
	}
	return 0;
}

void
redisurl_scrub(const struct redis_url *u, char *msg, size_t size)
{
	char tmp[1024];
	size_t plen = strlen(u->password), j = 0;
	const char *p = msg;

	if (plen == 0 || size == 0)
		return;
	while (*p != '\0' && j + 4 < sizeof tmp) {
		if (strncmp(p, u->password, plen) == 0) {
			memcpy(tmp + j, "***", 3);
			j += 3;
			p += plen;
		} else {
			tmp[j++] = *p++;
		}
	}
	tmp[j] = '\0';
	snprintf(msg, size, "%s", tmp);
}

void
redisurl_show(const struct redis_url *u, char *out, size_t size)
{
	snprintf(out, size, "redis://%s%s%s:%d/%d", u->user,
	    u->password[0] != '\0' ? ":***@" : (u->user[0] != '\0' ? "@" : ""),
	    u->host, u->port, u->db);
}
