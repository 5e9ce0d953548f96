/* TLS under a transport: OpenSSL on a non-blocking socket, where built. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls.h"

#ifdef HAVE_OPENSSL
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct tls {
	SSL_CTX *ctx;
	SSL *ssl;
	short wants;	 /* POLLIN or POLLOUT, while it waits */
	bool own_ctx;	 /* ctx is this session's alone, to be freed */
	char fault[160]; /* why the session failed for good, or "" */
};

bool
tls_available(void)
{
	return true;
}

/* OpenSSL's last error as a line into why; -1. */
static int
ssl_why(char *why, size_t size, const char *what)
{
	unsigned long e = ERR_get_error();

#ifdef ERR_SYSTEM_ERROR
	if (e != 0 && ERR_SYSTEM_ERROR(e)) {
		/* A file that could not be read: as the system says. */
		snprintf(why, size, "%s: %s", what,
		    strerror((int)ERR_GET_REASON(e)));
		ERR_clear_error();
		return -1;
	}
#endif
	snprintf(why, size, "%s: %s", what,
	    e != 0 && ERR_reason_error_string(e) != NULL ?
		ERR_reason_error_string(e) :
		"failed");
	ERR_clear_error();
	return -1;
}

/*
 * Did the link just end without TLS's closing alert (a server killed, a
 * proxy hanging up)?  OpenSSL 3 calls that an error of the protocol; it
 * is an outage like any closed link.
 */
static bool
unexpected_eof(void)
{
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
	unsigned long e = ERR_peek_error();

	return e != 0 && ERR_GET_LIB(e) == ERR_LIB_SSL &&
	    ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
#else
	return false;
#endif
}

/* Set ctx up as cfg says: 0, or -1 with why. */
static int
setup(SSL_CTX *ctx, const struct tls_config *cfg, char *why, size_t size)
{
	(void)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (cfg->insecure)
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	else
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (cfg->cafile != NULL) {
		if (SSL_CTX_load_verify_locations(ctx, cfg->cafile, NULL) != 1)
			return ssl_why(why, size, cfg->cafile);
	} else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
		return ssl_why(why, size, "the system's certificates");
	}
	if (cfg->certfile != NULL &&
	    SSL_CTX_use_certificate_chain_file(ctx, cfg->certfile) != 1)
		return ssl_why(why, size, cfg->certfile);
	if (cfg->keyfile != NULL &&
	    SSL_CTX_use_PrivateKey_file(ctx, cfg->keyfile, SSL_FILETYPE_PEM) !=
		1)
		return ssl_why(why, size, cfg->keyfile);
	if (cfg->keyfile != NULL && SSL_CTX_check_private_key(ctx) != 1)
		return ssl_why(why, size, cfg->keyfile);
	return 0;
}

/* Verify the server as host: an IP address, else a DNS name (and SNI). */
static int
name_host(SSL *ssl, const char *host)
{
	unsigned char addr[16];
	X509_VERIFY_PARAM *p = SSL_get0_param(ssl);

	if (inet_pton(AF_INET, host, addr) == 1 ||
	    inet_pton(AF_INET6, host, addr) == 1)
		return X509_VERIFY_PARAM_set1_ip_asc(p, host) == 1 ? 0 : -1;
	if (SSL_set_tlsext_host_name(ssl, host) != 1)
		return -1;
	return SSL_set1_host(ssl, host) == 1 ? 0 : -1;
}

/*
 * The context of cfg, made once: the CAs are read at the first connection
 * only, not at each (a large store would take the deadline of each).
 */
static struct {
	const struct tls_config *cfg;
	SSL_CTX *ctx;
} made[2];

/* Is ctx one of those made once? */
static bool
kept(const SSL_CTX *ctx)
{
	return made[0].ctx == ctx || made[1].ctx == ctx;
}

static SSL_CTX *
context(const struct tls_config *cfg, char *why, size_t size)
{
	size_t i;
	SSL_CTX *ctx;

	for (i = 0; i < 2 && made[i].cfg != NULL; i++)
		if (made[i].cfg == cfg)
			return made[i].ctx;
	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL)
		return NULL;
	if (setup(ctx, cfg, why, size) != 0) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (i < 2) {
		made[i].cfg = cfg;
		made[i].ctx = ctx;
	}
	return ctx;
}

struct tls *
tls_open(const struct tls_config *cfg, int fd, const char *host, char *why,
    size_t size)
{
	struct tls *s = calloc(1, sizeof *s);

	why[0] = '\0';
	if (s == NULL) {
		snprintf(why, size, "TLS: %s", strerror(ENOMEM));
		return NULL;
	}
	if ((s->ctx = context(cfg, why, size)) != NULL)
		s->own_ctx = !kept(s->ctx);
	if (s->ctx == NULL || (s->ssl = SSL_new(s->ctx)) == NULL ||
	    SSL_set_fd(s->ssl, fd) != 1 ||
	    (!cfg->insecure && name_host(s->ssl, host) != 0)) {
		if (why[0] == '\0')
			ssl_why(why, size, "TLS");
		tls_close(s);
		return NULL;
	}
	SSL_set_connect_state(s->ssl);
	return s;
}

/* What SSL_get_error says of rc: 0 to wait (wants set), else -1. */
static int
wait_or_fail(struct tls *s, int rc)
{
	switch (SSL_get_error(s->ssl, rc)) {
	case SSL_ERROR_WANT_READ:
		s->wants = POLLIN;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		s->wants = POLLOUT;
		return 0;
	default:
		return -1;
	}
}

int
tls_handshake(struct tls *s, char *why, size_t size)
{
	int rc = SSL_do_handshake(s->ssl);
	long v;

	if (rc == 1) {
		s->wants = 0;
		return 1;
	}
	if (wait_or_fail(s, rc) == 0)
		return 0;
	if (SSL_get_error(s->ssl, rc) == SSL_ERROR_SYSCALL ||
	    unexpected_eof()) {
		/* The link broke: as any outage. */
		snprintf(why, size, "TLS handshake: %s",
		    errno != 0 ? strerror(errno) : "connection closed");
		ERR_clear_error();
		return -1;
	}
	if ((v = SSL_get_verify_result(s->ssl)) != X509_V_OK) {
		snprintf(why, size, "TLS: certificate verify failed: %s%s",
		    X509_verify_cert_error_string(v),
		    v == X509_V_ERR_HOSTNAME_MISMATCH ||
			    v == X509_V_ERR_IP_ADDRESS_MISMATCH ?
			" (the certificate is for another host)" :
			"");
		ERR_clear_error();
		return -2;
	}
	(void)ssl_why(why, size, "TLS handshake");
	return -2;
}

/* As tls_read and tls_write: an SSL call's rc as read(2)'s. */
static ssize_t
io_result(struct tls *s, int rc)
{
	int e;

	if (rc > 0) {
		s->wants = 0;
		return rc;
	}
	e = SSL_get_error(s->ssl, rc);
	if (e == SSL_ERROR_SSL && unexpected_eof()) {
		ERR_clear_error();
		errno = ECONNRESET;
		return -1;
	}
	if (e == SSL_ERROR_SSL) {
		/* The server refused us (our certificate, say): no waiting
		 * cures that. */
		(void)ssl_why(s->fault, sizeof s->fault, "TLS");
		errno = EPROTO;
		return -1;
	}
	ERR_clear_error();
	if (e == SSL_ERROR_ZERO_RETURN)
		return 0;
	if (wait_or_fail(s, rc) == 0) {
		errno = EAGAIN;
		return -1;
	}
	if (e != SSL_ERROR_SYSCALL || errno == 0)
		errno = ECONNRESET;
	return -1;
}

ssize_t
tls_read(struct tls *s, void *b, size_t len)
{
	return io_result(
	    s, SSL_read(s->ssl, b, (int)(len > 1 << 30 ? 1 << 30 : len)));
}

ssize_t
tls_write(struct tls *s, const void *b, size_t len)
{
	return io_result(
	    s, SSL_write(s->ssl, b, (int)(len > 1 << 30 ? 1 << 30 : len)));
}

short
tls_events(const struct tls *s)
{
	return s->wants;
}

bool
tls_pending(const struct tls *s)
{
	return SSL_pending(s->ssl) > 0;
}

const char *
tls_fault(const struct tls *s)
{
	return s->fault[0] != '\0' ? s->fault : NULL;
}

void
tls_close(struct tls *s)
{
	if (s == NULL)
		return;
	if (s->ssl != NULL)
		SSL_free(s->ssl);
	/* A context made once is kept for the next connection. */
	if (s->own_ctx)
		SSL_CTX_free(s->ctx);
	free(s);
}

#else /* no OpenSSL */

bool
tls_available(void)
{
	return false;
}

struct tls *
tls_open(const struct tls_config *cfg, int fd, const char *host, char *why,
    size_t size)
{
	(void)cfg, (void)fd, (void)host;
	snprintf(why, size,
	    "this tbthrottle is built without TLS: install libssl-dev "
	    "and build again");
	return NULL;
}

int
tls_handshake(struct tls *s, char *why, size_t size)
{
	(void)s;
	snprintf(why, size, "no TLS");
	return -1;
}

ssize_t
tls_read(struct tls *s, void *b, size_t len)
{
	(void)s, (void)b, (void)len;
	errno = ENOSYS;
	return -1;
}

ssize_t
tls_write(struct tls *s, const void *b, size_t len)
{
	(void)s, (void)b, (void)len;
	errno = ENOSYS;
	return -1;
}

short
tls_events(const struct tls *s)
{
	(void)s;
	return 0;
}

bool
tls_pending(const struct tls *s)
{
	(void)s;
	return false;
}

const char *
tls_fault(const struct tls *s)
{
	(void)s;
	return NULL;
}

void
tls_close(struct tls *s)
{
	(void)s;
}
#endif
