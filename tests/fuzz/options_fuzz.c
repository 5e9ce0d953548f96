/* Fuzz target: the whole command line, split on NUL bytes into argv. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[1024], err[512], self[] = "tbthrottle";
	char *argv[MAX_ARGS + 2];
	struct config cfg;
	int argc = 0;

	if (size >= sizeof buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = self;
	for (char *p = buf; p <= buf + size && argc <= MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	err[0] = '\0';
	switch (options_parse(&cfg, argc, argv, err, sizeof err)) {
	case OPT_ERROR:
		/* One line naming the problem. */
		if (err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();
		break;
	case OPT_RUN:
		if (cfg.control_target != NULL || cfg.list)
			break;
		if (cfg.nlimits < 0 || cfg.nlimits > MAX_LIMITS)
			abort();
		for (int i = 0; i < cfg.nlimits; i++) {
			const struct limit *l = &cfg.limits[i];

			if (l->rate.inf)
				continue;
			if (l->burst == 0 || l->initial > l->burst ||
			    l->rate.n == 0 || l->rate.d == 0)
				abort();
		}
		if (cfg.drop && options_unlimited(&cfg) && !cfg.byte_limited)
			abort();
		break;
	case OPT_HELP:
	case OPT_VERSION:
		break;
	}
	return 0;
}
