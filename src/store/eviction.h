/* Whether a Redis server evicts keys: maxmemory and its policy; pure. */
#ifndef EVICTION_H
#define EVICTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a server says of its memory limit, as far as it said. */
struct eviction {
	bool has_max, has_policy;
	uint64_t maxmemory; /* bytes; 0: no limit */
	char policy[32];    /* maxmemory-policy: noeviction, allkeys-lru... */
};

/* Nothing known yet. */
void eviction_init(struct eviction *e);

/*
 * Read maxmemory and maxmemory_policy from text[0..len), the reply of
 * INFO memory ("name:value" lines), into e.
 */
void eviction_from_info(struct eviction *e, const char *text, size_t len);

/* Read the pair name, value of CONFIG GET maxmemory* into e. */
void eviction_from_config(
    struct eviction *e, const char *name, const char *value);

/* Are both maxmemory and its policy known? */
bool eviction_known(const struct eviction *e);

/*
 * Does the server evict keys of tbthrottle when memory runs short?  Yes
 * when maxmemory is set and the policy is not noeviction: the volatile
 * policies too, for tbthrottle's keys all expire.  Known only.
 */
bool eviction_evicts(const struct eviction *e);

#endif
