/* Unit tests of redisurl.c: --redis URLs, and passwords kept out of sight. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redisurl.h"
#include "unit.h"

/* url parses (want 0) or not (-1); an error never holds secret. */
static void
url_case(const char *url, int want, const char *secret)
{
	struct redis_url u;
	char err[512] = "", shown[512];
	int rc = redisurl_parse(url, &u, err, sizeof err);

	check(rc == want, "%s: parsed %d, want %d (%s)", url, rc, want, err);
	check(strstr(err, secret) == NULL, "%s: the error shows '%s': %s", url,
	    secret, err);
	if (rc == 0) {
		redisurl_show(&u, shown, sizeof shown);
		check(strstr(shown, secret) == NULL, "%s: shown as %s", url,
		    shown);
	}
}

/* The parts of url. */
static void
url_parts(const char *url, const char *host, int port, int db, const char *user,
    const char *password)
{
	struct redis_url u;
	char err[512] = "";

	check(
	    redisurl_parse(url, &u, err, sizeof err) == 0, "%s: %s", url, err);
	check(strcmp(u.host, host) == 0 && u.port == port && u.db == db &&
		strcmp(u.user, user) == 0 && strcmp(u.password, password) == 0,
	    "%s: host %s port %d db %d user %s", url, u.host, u.port, u.db,
	    u.user);
}

/* url is refused with want in the message. */
static void
url_bad(const char *url, const char *want)
{
	struct redis_url u;
	char err[512] = "";

	check(redisurl_parse(url, &u, err, sizeof err) != 0 &&
		strstr(err, want) != NULL,
	    "%s: want '%s', got '%s'", url, want, err);
}

/* The sentinel URL url names n sentinels, the master, db; shown as want. */
static void
sentinel_parts(
    const char *url, size_t n, const char *master, int db, const char *want)
{
	struct redis_url u;
	char err[512] = "", shown[512] = "";

	check(
	    redisurl_parse(url, &u, err, sizeof err) == 0, "%s: %s", url, err);
	redisurl_show(&u, shown, sizeof shown);
	check(u.nsentinels == n && strcmp(u.master, master) == 0 &&
		u.db == db && u.host[0] == '\0' && strcmp(shown, want) == 0,
	    "%s: %zu sentinels, master %s, db %d, shown %s", url, u.nsentinels,
	    u.master, u.db, shown);
}

/* redis-sentinel:// and rediss-sentinel:// URLs, good and bad. */
static void
test_sentinel_urls(void)
{
	struct redis_url u;
	char err[512] = "", many[512] = "redis-sentinel://";

	current = "redisurl: sentinels";
	sentinel_parts(
	    "redis-sentinel://h/m", 1, "m", 0, "redis-sentinel://h:26379/m/0");
	sentinel_parts("redis-sentinel://:pw@h1:1,[::1]:2,h3/my-master.1/3", 3,
	    "my-master.1", 3,
	    "redis-sentinel://:***@h1:1,[::1]:2,h3:26379/my-master.1/3");
	sentinel_parts("rediss-sentinel://me:pw@h:5/m", 1, "m", 0,
	    "rediss-sentinel://me:***@h:5/m/0");
	check(redisurl_parse("redis-sentinel://me:pw@a:1,b:2/m", &u, err,
		  sizeof err) == 0 &&
		strcmp(u.sentinels[1].host, "b") == 0 &&
		u.sentinels[1].port == 2 && strcmp(u.user, "me") == 0 &&
		strcmp(u.password, "pw") == 0 && !u.tls,
	    "the sentinels' addresses and the master's credentials: %s", err);
	check(
	    redisurl_parse("rediss-sentinel://h/m", &u, err, sizeof err) == 0 &&
		u.tls,
	    "rediss-sentinel:// is TLS: %s", err);
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many),
		    "%sh%d", i > 0 ? "," : "", i);
	snprintf(many + strlen(many), sizeof many - strlen(many), "/m");
	url_bad(many, "at most 16 sentinels");
	url_bad("redis-sentinel://h:1", "give /MASTER");
	url_bad("redis-sentinel://h:1/", "the master's name must be");
	url_bad("redis-sentinel://h:1/a b", "the master's name must be");
	url_bad("redis-sentinel://h:1/m\x01", "the master's name must be");
	url_bad("redis-sentinel://h:1/m/x", "the database must be a number");
	url_bad("redis-sentinel://h:1,,h2/m", "give a host");
	url_bad("redis-sentinel://h:1,h2:0/m", "port must be from 1 to 65535");
	url_bad("redis-sentinel://h:1,::1/m", "IPv6 address goes in brackets");
	url_bad("redis-sentinel://[::1/m", "closing ]");
	url_case("redis-sentinel://:secret/m", -1, "secret");
	url_case("redis-sentinel://h:1,:secret/m", -1, "secret");
	url_case("redis-sentinel://h:1,admin:secret/m", -1, "secret");
	url_case("redis-sentinel://:1,secret/m", -1, "secret");
	url_case("rediss-sentinel://admin:secret@h:0/m", -1, "secret");
	check(redisurl_parse(
		  "redis-sentinel://h1:1,h2:x/m", &u, err, sizeof err) == -1 &&
		strstr(err, "'redis-sentinel://h1:1,h2:***/m'") != NULL,
	    "the sentinels before a bad port are shown: %s", err);
	check(redisurl_parse(
		  "redis-sentinel://h1:1,h2:0/m", &u, err, sizeof err) == -1 &&
		strstr(err, "'redis-sentinel://h1:1,h2:0/m'") != NULL,
	    "numeric ports are shown: %s", err);
}

void
test_redisurl(void)
{
	struct redis_url u;
	char msg[256], err[512];

	current = "redisurl: parts of a URL";
	unsetenv("REDISCLI_AUTH");
	url_parts("redis://h", "h", 6379, 0, "", "");
	url_parts("redis://h:7000/3", "h", 7000, 3, "", "");
	url_parts("redis://:pw@h", "h", 6379, 0, "", "pw");
	url_parts("redis://me:pw@h:1/2", "h", 1, 2, "me", "pw");
	url_parts("redis://:p@ss@h", "h", 6379, 0, "", "p@ss");
	url_parts("redis://:pa/ss@h/4", "h", 6379, 4, "", "pa/ss");

	current = "redisurl: no password in an error";
	/* Without its @, a password reads as a port: it must not be
	 * shown back. */
	url_case("redis://admin:secret", -1, "secret");
	url_case("redis://:secret", -1, "secret");
	url_case("redis://admin:secret/0", -1, "secret");
	url_case("redis://h:secret:6379", -1, "secret");
	url_case("redis://:secret@h:0", -1, "secret");
	url_case("redis://:secret@h:99999", -1, "secret");
	url_case("redis://:secret@h/x", -1, "secret");
	url_case("redis://user:secret@", -1, "secret");
	url_case("redis://secret@h", -1, "secret");
	url_case("rediss://admin:secret@h", 0, "secret");
	url_case("rediss://admin:secret@h:0", -1, "secret");
	url_case("rediss://admin:secret", -1, "secret");
	url_case("http://admin:secret@h", -1, "secret");
	url_case("admin:secret", -1, "secret");
	url_case("redis://admin:secret@h:1", 0, "secret");
	url_case("redis://:se@cret@h", 0, "cret");
	check(
	    redisurl_parse("redis://admin:secret", &u, err, sizeof err) == -1 &&
		strstr(err, "'redis://admin:***'") != NULL &&
		strstr(err, "redis://:password@host") != NULL,
	    "the user is kept, the password masked, the form named: %s", err);
	check(redisurl_parse("redis://h:70000", &u, err, sizeof err) == -1 &&
		strstr(err, "'redis://h:70000'") != NULL &&
		strstr(err, "password") == NULL,
	    "a numeric port is shown as it is: %s", err);

	current = "redisurl: REDISCLI_AUTH";
	setenv("REDISCLI_AUTH", "envsecret", 1);
	url_parts("redis://h", "h", 6379, 0, "", "envsecret");
	url_parts("redis://:pw@h", "h", 6379, 0, "", "pw");
	url_case("redis://h:port", -1, "envsecret");
	unsetenv("REDISCLI_AUTH");

	current = "redisurl: a server's text scrubbed of the password";
	u = (struct redis_url){ .host = "h", .port = 1 };
	snprintf(u.password, sizeof u.password, "hunter2");
	snprintf(msg, sizeof msg,
	    "ERR unknown command 'AUTH', with args "
	    "beginning with: 'hunter2' 'hunter2x'");
	redisurl_scrub(&u, msg, sizeof msg);
	check(strcmp(msg,
		  "ERR unknown command 'AUTH', with args beginning "
		  "with: '***' '***x'") == 0,
	    "scrubbed: %s", msg);
	snprintf(u.password, sizeof u.password, "x");
	snprintf(msg, sizeof msg, "xxxx");
	redisurl_scrub(&u, msg, 8);
	check(strcmp(msg, "*******") == 0 && strchr(msg, 'x') == NULL,
	    "a short password, a small buffer: %s", msg);
	u.password[0] = '\0';
	snprintf(msg, sizeof msg, "as it was");
	redisurl_scrub(&u, msg, sizeof msg);
	check(strcmp(msg, "as it was") == 0, "no password: %s", msg);
	redisurl_show(&u, msg, sizeof msg);
	check(strcmp(msg, "redis://h:1/0") == 0, "shown: %s", msg);
	/* [IPv6] hosts, percent-decoded credentials, UNIX sockets. */
	url_parts("redis://[::1]:6380/2", "::1", 6380, 2, "", "");
	url_parts(
	    "redis://[fe80::1%25eth0]", "fe80::1%25eth0", 6379, 0, "", "");
	url_parts("redis://u%40x:p%3Ass%25@h:1/3", "h", 1, 3, "u@x", "p:ss%");
	url_bad("redis://::1:6379", "an IPv6 address goes in brackets");
	url_bad("redis://[::1", "needs its closing ]");
	url_bad("redis://[::1]x", "after ], give :port");
	url_bad("redis://:bad%zz@h", "bad %XX escape");
	url_bad("redis://:bad%4@h", "bad %XX escape");
	url_bad("redis://:nul%00@h", "bad %XX escape");
	url_bad("rediss://h:0", "port");
	url_parts("rediss://h:6380/2", "h", 6380, 2, "", "");
	url_bad("unix://relative", "absolute path");
	url_bad("unix:///s?db=x", "?db=N");
	url_bad("redis://h/x", "the database must be a number");
	url_bad("redis-sentinels://h/m", "redis-sentinel://");
	test_sentinel_urls();
	{
		struct redis_url v;
		char why[256] = "", shown[256];

		check(redisurl_parse("unix:///run/redis/redis.sock?db=4", &v,
			  why, sizeof why) == 0 &&
			strcmp(v.path, "/run/redis/redis.sock") == 0 &&
			v.db == 4 && v.host[0] == '\0',
		    "unix socket: %s", why);
		redisurl_show(&v, shown, sizeof shown);
		check(strcmp(shown, "unix:///run/redis/redis.sock?db=4") == 0,
		    "shown as %s", shown);
		check(redisurl_parse(
			  "redis://[::1]:7000/1", &v, why, sizeof why) == 0,
		    "%s", why);
		redisurl_show(&v, shown, sizeof shown);
		check(strcmp(shown, "redis://[::1]:7000/1") == 0, "shown as %s",
		    shown);
		check(redisurl_parse(
			  "redis://[::1]:99999", &v, why, sizeof why) != 0 &&
			strstr(why, "'redis://[::1]:99999'") != NULL,
		    "an IPv6 host is not masked: %s", why);
	}
}
