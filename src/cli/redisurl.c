/* redis:// URLs: parsed, and shown with the password masked; pure. */
#include <stdbool.h>
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
 * not a number, as in redis://admin:secret, a password that lacks its @;
 * in a list of sentinels, any host's, or a port without its host.
 */
static void
mask(const char *url, char *out, size_t size)
{
	const char *auth = strstr(url, "://"), *at, *end, *colon, *seg, *next;
	bool list = strstr(url, "-sentinel://") != NULL;

	auth = auth != NULL ? auth + 3 : url;
	if ((at = strrchr(auth, '@')) != NULL) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		snprintf(out, size, "%.*s%s***@%s",
		    (int)((colon != NULL ? colon : auth) - url), url,
		    colon != NULL ? ":" : "", at + 1);
		return;
	}
	end = auth + strcspn(auth, "/");
	for (seg = auth; seg < end; seg = next + 1) {
		next = list ? memchr(seg, ',', (size_t)(end - seg)) : NULL;
		next = next != NULL ? next : end;
		colon = seg;
		/* The colons of an [IPv6] address are no password's. */
		if (*seg == '[' && memchr(seg, ']', (size_t)(next - seg)))
			colon = memchr(seg, ']', (size_t)(next - seg));
		colon = memchr(colon, ':', (size_t)(next - colon));
		if (colon != NULL &&
		    (!digits(colon + 1, (size_t)(next - colon - 1)) ||
			(list && colon == seg))) {
			snprintf(out, size, "%.*s:***%s", (int)(colon - url),
			    url, end);
			return;
		}
	}
	snprintf(out, size, "%s", url);
}

/* The value of hex digit c, or -1. */
static int
hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Copy s[0..len) into out[0..size), decoding %XX escapes, as a URL's
 * credentials may carry them; -1 on a bad escape, a NUL or no room.
 */
static int
decode(char *out, size_t size, const char *s, size_t len)
{
	size_t j = 0;

	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			if (i + 2 >= len || hex(s[i + 1]) < 0 ||
			    hex(s[i + 2]) < 0)
				return -1;
			c = hex(s[i + 1]) * 16 + hex(s[i + 2]);
			i += 2;
		}
		if (c == 0 || j + 1 >= size)
			return -1;
		out[j++] = (char)c;
	}
	out[j] = '\0';
	return 0;
}

/* Fail with one line naming the URL as shown (password masked). */
static int
bad(char *err, size_t errsz, const char *shown, const char *why)
{
	snprintf(err, errsz, "invalid --redis URL '%s': %s", shown, why);
	return -1;
}

/* unix:///path/to/redis.sock[?db=N] into u. */
static int
parse_unix(const char *p, struct redis_url *u, char *err, size_t errsz,
    const char *shown)
{
	const char *q = strchr(p, '?');
	size_t len = q != NULL ? (size_t)(q - p) : strlen(p);
	long v;

	if (len == 0 || p[0] != '/')
		return bad(err, errsz, shown,
		    "give the socket's absolute path, "
		    "as unix:///run/redis/redis.sock");
	if (copy(u->path, sizeof u->path, p, len) != 0)
		return bad(err, errsz, shown, "the socket's path is too long");
	if (q != NULL) {
		if (strncmp(q, "?db=", 4) != 0 ||
		    (v = number(q + 4, strlen(q + 4), 0, 100000)) < 0)
			return bad(err, errsz, shown,
			    "after the path, give "
			    "?db=N, N a number");
		u->db = (int)v;
	}
	return 0;
}

/*
 * host[:port] or [IPv6][:port] in p[0..end) into host[0..size) and *port
 * (left as it is without one).
 */
static int
parse_host(const char *p, const char *end, char *host_out, size_t host_size,
    int *port, char *err, size_t errsz, const char *shown)
{
	const char *colon = NULL, *host = p, *host_end;
	long v;

	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close == NULL)
			return bad(err, errsz, shown,
			    "an IPv6 address needs "
			    "its closing ]");
		host = p + 1;
		host_end = close;
		if (close + 1 < end && close[1] != ':')
			return bad(err, errsz, shown, "after ], give :port");
		if (close + 1 < end)
			colon = close + 1;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon != NULL &&
		    memchr(colon + 1, ':', (size_t)(end - colon - 1)) != NULL)
			return bad(err, errsz, shown,
			    "an IPv6 address goes in "
			    "brackets, as redis://[::1]:6379");
		host_end = colon != NULL ? colon : end;
	}
	if (colon != NULL) {
		if ((v = number(
			 colon + 1, (size_t)(end - colon - 1), 1, 65535)) < 0) {
			snprintf(err, errsz,
			    "invalid --redis URL '%s': the "
			    "port must be from 1 to 65535%s",
			    shown,
			    digits(colon + 1, (size_t)(end - colon - 1)) ?
				"" :
				" (a password goes in redis://:password@host, or "
				"in REDISCLI_AUTH)");
			return -1;
		}
		*port = (int)v;
	}
	if (host_end == host ||
	    copy(host_out, host_size, host, (size_t)(host_end - host)) != 0)
		return bad(err, errsz, shown, "give a host");
	return 0;
}

/* [[user]:password@] at *pp, before the last '@', into u; advances *pp. */
static int
parse_credentials(const char **pp, struct redis_url *u, char *err, size_t errsz,
    const char *shown)
{
	const char *p = *pp, *at = strrchr(p, '@'), *colon;

	if (at == NULL)
		return 0;
	colon = memchr(p, ':', (size_t)(at - p));
	if (colon == NULL)
		return bad(err, errsz, shown,
		    "give the credentials as "
		    "[user]:password@");
	if (decode(u->user, sizeof u->user, p, (size_t)(colon - p)) != 0 ||
	    decode(u->password, sizeof u->password, colon + 1,
		(size_t)(at - colon - 1)) != 0)
		return bad(err, errsz, shown,
		    "the credentials have a bad %XX "
		    "escape or are too long");
	*pp = at + 1;
	return 0;
}

/* The end of the host, or hosts, at p: the first '/' outside [], or '\0'. */
static const char *
past_hosts(const char *p)
{
	bool inside = false;

	for (; *p != '\0' && (inside || *p != '/'); p++)
		inside = *p == '[' ? true : *p == ']' ? false : inside;
	return p;
}

/* The database number at s, to the end, into u. */
static int
parse_db(const char *s, struct redis_url *u, char *err, size_t errsz,
    const char *shown)
{
	long v = number(s, strlen(s), 0, 100000);

	if (v < 0)
		return bad(err, errsz, shown, "the database must be a number");
	u->db = (int)v;
	return 0;
}

bool
redisurl_word(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return len > 0;
}

/* host[:port][,host[:port]...]/MASTER[/db] into u. */
static int
parse_sentinels(const char *p, struct redis_url *u, char *err, size_t errsz,
    const char *shown)
{
	const char *list_end = past_hosts(p), *seg, *next, *name, *slash;
	struct redis_sentinel *s;
	size_t len;

	for (seg = p; seg <= list_end; seg = next + 1) {
		next = memchr(seg, ',', (size_t)(list_end - seg));
		next = next != NULL ? next : list_end;
		if (u->nsentinels == REDISURL_SENTINELS)
			return bad(
			    err, errsz, shown, "give at most 16 sentinels");
		s = &u->sentinels[u->nsentinels++];
		u->via_sentinel = true;
		s->port = 26379;
		if (parse_host(seg, next, s->host, sizeof s->host, &s->port,
			err, errsz, shown) != 0)
			return -1;
	}
	if (*list_end != '/')
		return bad(err, errsz, shown,
		    "after the sentinels, give /MASTER, the name they "
		    "know the master by");
	name = list_end + 1;
	slash = strchr(name, '/');
	len = slash != NULL ? (size_t)(slash - name) : strlen(name);
	if (!redisurl_word(name, len) ||
	    copy(u->master, sizeof u->master, name, len) != 0)
		return bad(err, errsz, shown,
		    "the master's name must be 1 to 127 printable "
		    "characters, no spaces");
	return slash != NULL ? parse_db(slash + 1, u, err, errsz, shown) : 0;
}

/* The schemes of --redis, and what each means. */
static const struct {
	const char *name;
	bool tls, sentinel, unix_socket;
} schemes[] = {
	{ "redis://", false, false, false },
	{ "rediss://", true, false, false },
	{ "redis-sentinel://", false, true, false },
	{ "rediss-sentinel://", true, true, false },
	{ "unix://", false, false, true },
};
#define NSCHEMES (sizeof schemes / sizeof schemes[0])

int
redisurl_parse(const char *url, struct redis_url *u, char *err, size_t errsz)
{
	const char *p, *end, *env;
	char shown[256];
	size_t i = 0;

	memset(u, 0, sizeof *u);
	u->port = 6379;
	mask(url, shown, sizeof shown);
	while (i < NSCHEMES &&
	    strncmp(url, schemes[i].name, strlen(schemes[i].name)) != 0)
		i++;
	if (i == NSCHEMES)
		return bad(err, errsz, shown,
		    "give redis://[[user]:password@]host[:port][/db], "
		    "rediss:// the same with TLS, "
		    "redis-sentinel://[[user]:password@]host[:port]"
		    "[,host[:port]...]/MASTER[/db] (rediss-sentinel:// with "
		    "TLS), or unix:///path/to/redis.sock[?db=N]");
	u->tls = schemes[i].tls;
	p = url + strlen(schemes[i].name);
	if (parse_credentials(&p, u, err, errsz, shown) != 0)
		return -1;
	/* Kept out of the URL (and so out of ps), the password may come
	 * from the environment, as for redis-cli. */
	if (u->password[0] == '\0' && (env = getenv("REDISCLI_AUTH")) != NULL &&
	    copy(u->password, sizeof u->password, env, strlen(env)) != 0) {
		snprintf(err, errsz, "REDISCLI_AUTH is too long");
		return -1;
	}
	if (schemes[i].unix_socket)
		return parse_unix(p, u, err, errsz, shown);
	if (schemes[i].sentinel)
		return parse_sentinels(p, u, err, errsz, shown);
	/* The database follows the first '/' after the host ([] aside). */
	end = past_hosts(p);
	if (*end == '/' && parse_db(end + 1, u, err, errsz, shown) != 0)
		return -1;
	return parse_host(
	    p, end, u->host, sizeof u->host, &u->port, err, errsz, shown);
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

size_t
redisurl_hostport(const char *host, int port, char *out, size_t size)
{
	bool v6 = strchr(host, ':') != NULL;
	int n = snprintf(
	    out, size, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);

	return n > 0 ? (size_t)n : 0;
}

void
redisurl_show(const struct redis_url *u, char *out, size_t size)
{
	const char *cred = u->password[0] != '\0' ?
	    ":***@" :
	    (u->user[0] != '\0' ? "@" : "");
	size_t n;

	if (u->path[0] != '\0') {
		snprintf(out, size, "unix://%s%s%s?db=%d", u->user, cred,
		    u->path, u->db);
		return;
	}
	n = (size_t)snprintf(out, size, "%s://%s%s",
	    u->nsentinels > 0 ?
		(u->tls ? "rediss-sentinel" : "redis-sentinel") :
		(u->tls ? "rediss" : "redis"),
	    u->user, cred);
	for (size_t i = 0; i < u->nsentinels && n < size; i++) {
		if (i > 0)
			n += (size_t)snprintf(out + n, size - n, ",");
		if (n < size)
			n += redisurl_hostport(u->sentinels[i].host,
			    u->sentinels[i].port, out + n, size - n);
	}
	if (u->nsentinels == 0 && n < size)
		n += redisurl_hostport(u->host, u->port, out + n, size - n);
	if (n < size)
		snprintf(out + n, size - n, "%s%s/%d",
		    u->nsentinels > 0 ? "/" : "", u->master, u->db);
}
