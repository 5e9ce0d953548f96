/* redis:// URLs for --redis, and --redis-fallback; pure, no I/O. */
#ifndef REDISURL_H
#define REDISURL_H

#include <stdbool.h>
#include <stddef.h>

/* What to do while Redis cannot be reached (--redis-fallback). */
enum redis_fallback { FALLBACK_BLOCK, FALLBACK_LOCAL, FALLBACK_FAIL };

/* Most sentinels a redis-sentinel:// URL names. */
#define REDISURL_SENTINELS 16

/* A sentinel's address. */
struct redis_sentinel {
	char host[256];
	int port;
};

/*
 * A parsed redis://[[user]:password@]host[:port][/db] URL (host may be
 * an [IPv6] address; user and password percent-decoded), the same as
 * rediss:// for TLS, or a unix:///path/to/redis.sock[?db=N] one (path
 * set, host empty), or a
 * redis-sentinel://[[user]:password@]host[:port][,host[:port]...]/MASTER[/db]
 * one (nsentinels set, host empty), rediss-sentinel:// with TLS: the
 * sentinels are asked where the master named MASTER is, and the
 * credentials are the master's.
 */
struct redis_url {
	char host[256];
	char path[108]; /* a UNIX-domain socket, or "" */
	int port;
	int db;
	char user[128];
	char password[256];
	/* rediss://: TLS, and how (--redis-cacert, --redis-cert,
	 * --redis-key, --redis-insecure). */
	bool tls;
	const char *cafile, *certfile, *keyfile;
	bool insecure;
	/* redis-sentinel://: the master's name, and whom to ask for it. */
	char master[128];
	bool via_sentinel; /* given so: kept for the sentinels' links too */
	size_t nsentinels;
	struct redis_sentinel sentinels[REDISURL_SENTINELS];
};

/*
 * Parse url into u; without a password in it, REDISCLI_AUTH gives one.
 * Returns 0, or -1 with the reason in err (which never holds the
 * password).
 */
int redisurl_parse(
    const char *url, struct redis_url *u, char *err, size_t errsz);

/*
 * Mask every copy of u's password in the message msg (size bytes) as
 * ***, for text that came from elsewhere (a server's error) and might
 * echo it.
 */
void redisurl_scrub(const struct redis_url *u, char *msg, size_t size);

/*
 * Is s[0..len) one word, printable and without spaces, as a master's name
 * in sentinel.conf, or an address fit for messages, must be?
 */
bool redisurl_word(const char *s, size_t len);

/*
 * host:port in out[0..size), the host in [] when it is IPv6; how long it
 * would be.
 */
size_t redisurl_hostport(const char *host, int port, char *out, size_t size);

/* The URL for messages, the password masked. */
void redisurl_show(const struct redis_url *u, char *out, size_t size);

#endif
