/* Unit tests of eviction.c: does a server evict tbthrottle's keys? */
#include <string.h>

#include "eviction.h"
#include "unit.h"

/* INFO memory's text info evicts (1), keeps (0) or tells nothing (-1). */
static void
info_case(const char *info, int want)
{
	struct eviction e;
	int got;

	eviction_init(&e);
	eviction_from_info(&e, info, strlen(info));
	got = !eviction_known(&e) ? -1 : eviction_evicts(&e);
	check(got == want, "[%s]: %d, want %d", info, got, want);
}

void
test_eviction(void)
{
	struct eviction e;

	current = "eviction";
	info_case("# Memory\r\nused_memory:1000\r\nmaxmemory:104857600\r\n"
		  "maxmemory_human:100.00M\r\nmaxmemory_policy:allkeys-lru\r\n",
	    1);
	/* The keys all expire: a volatile policy takes them too. */
	info_case("maxmemory:1\r\nmaxmemory_policy:volatile-ttl\r\n", 1);
	info_case("maxmemory:1\nmaxmemory_policy:allkeys-random", 1);
	info_case("maxmemory:104857600\r\nmaxmemory_policy:noeviction\r\n", 0);
	/* No limit: nothing is evicted, whatever the policy. */
	info_case("maxmemory:0\r\nmaxmemory_policy:allkeys-lru\r\n", 0);
	/* Servers before 3.2 had no maxmemory_policy in INFO. */
	info_case("maxmemory:100\r\nmaxmemory_human:100B\r\n", -1);
	info_case("maxmemory_policy:allkeys-lru\r\n", -1);
	info_case("", -1);
	info_case("maxmemory:12x\r\nmaxmemory_policy:allkeys-lru\r\n", -1);
	info_case("maxmemory:99999999999999999999999\r\n"
		  "maxmemory_policy:allkeys-lru\r\n",
	    -1);
	info_case("maxmemory:5\r\nmaxmemory_policy:ALL KEYS\r\n", -1);
	info_case("maxmemory_policy:\r\nmaxmemory:5\r\n", -1);

	/* CONFIG GET maxmemory*: pairs, with dashes. */
	eviction_init(&e);
	eviction_from_config(&e, "maxmemory-samples", "5");
	eviction_from_config(&e, "maxmemory", "2097152");
	check(!eviction_known(&e), "known without a policy");
	eviction_from_config(&e, "maxmemory-policy", "allkeys-lfu");
	check(eviction_known(&e) && eviction_evicts(&e) &&
		e.maxmemory == 2097152 && strcmp(e.policy, "allkeys-lfu") == 0,
	    "config: %llu %s", (unsigned long long)e.maxmemory, e.policy);
	eviction_from_config(&e, "maxmemory-policy", "noeviction");
	check(!eviction_evicts(&e), "config: noeviction evicts");
}
