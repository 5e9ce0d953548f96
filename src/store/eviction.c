/* Whether a Redis server evicts keys: maxmemory and its policy; pure. */
#include <string.h>

#include "eviction.h"

void
eviction_init(struct eviction *e)
{
	*e = (struct eviction){ .has_max = false };
}

/* Digits of a number of bytes; false (e unchanged) when it is not one. */
static bool
set_max(struct eviction *e, const char *v, size_t len)
{
	uint64_t n = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9' || n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	e->maxmemory = n;
	e->has_max = true;
	return true;
}

/* A policy's name: letters, digits and '-'; false when it is not one. */
static bool
set_policy(struct eviction *e, const char *v, size_t len)
{
	if (len == 0 || len >= sizeof e->policy ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") < len)
		return false;
	memcpy(e->policy, v, len);
	e->policy[len] = '\0';
	e->has_policy = true;
	return true;
}

/* The setting name[0..nlen) is v[0..vlen); INFO's spelling or CONFIG's. */
static void
set(struct eviction *e, const char *name, size_t nlen, const char *v,
    size_t vlen)
{
	if (nlen == 9 && memcmp(name, "maxmemory", 9) == 0)
		(void)set_max(e, v, vlen);
	else if (nlen == 16 &&
	    (memcmp(name, "maxmemory_policy", 16) == 0 ||
		memcmp(name, "maxmemory-policy", 16) == 0))
		(void)set_policy(e, v, vlen);
}

void
eviction_from_info(struct eviction *e, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		const char *vend = eol;

		if (vend > p && vend[-1] == '\r')
			vend--;
		if (colon != NULL && vend >= colon + 1)
			set(e, p, (size_t)(colon - p), colon + 1,
			    (size_t)(vend - colon - 1));
		p = eol + 1;
	}
}

void
eviction_from_config(struct eviction *e, const char *name, const char *value)
{
	set(e, name, strlen(name), value, strlen(value));
}

bool
eviction_known(const struct eviction *e)
{
	return e->has_max && e->has_policy;
}

bool
eviction_evicts(const struct eviction *e)
{
	return eviction_known(e) && e->maxmemory > 0 &&
	    strcmp(e->policy, "noeviction") != 0;
}
