/* --take: tokens of a shared bucket taken from the shell, then exit. */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "signals.h"
#include "take.h"

/*
 * A record whose field cfg->key_field is cfg->take_key, into a new
 * buffer; its length in *len.  A key that holds a byte that ends a field
 * or a record could be the key of no record: refused.
 */
static char *
record_of(const struct config *cfg, size_t *len)
{
	const char *key = cfg->take_key;
	char sep = cfg->key_sep >= 0 ? (char)cfg->key_sep : ' ';
	size_t klen = strlen(key), lead = cfg->key_field - 1, i;
	bool splits = cfg->key_sep >= 0 ? strchr(key, sep) != NULL :
					  strpbrk(key, " \t") != NULL;
	char *rec;

	if (klen == 0 || splits || memchr(key, cfg->delim, klen) != NULL)
		errx(2,
		    "invalid --take key '%s': give a key a field of a record "
		    "can hold (not empty, no field separator or delimiter)",
		    key);
	/* A field of one byte before each: blanks make no empty field; a
	 * separator byte ends one, empty, with each. */
	if ((rec = malloc(2 * lead + klen + 1)) == NULL)
		err(1, "--take");
	for (i = 0; i < lead && cfg->key_sep >= 0; i++)
		rec[i] = sep;
	for (i = 0; i < lead && cfg->key_sep < 0; i++) {
		rec[2 * i] = '_';
		rec[2 * i + 1] = ' ';
	}
	lead = cfg->key_sep >= 0 ? lead : 2 * lead;
	memcpy(rec + lead, key, klen);
	rec[lead + klen] = (char)cfg->delim;
	*len = lead + klen + 1;
	return rec;
}

/* Sleep until due_ns; a stop ends the process by its signal. */
static void
wait_for(int64_t due_ns)
{
	while (clock_sleep_until(due_ns) == EINTR) {
		signals_finish();
		signals_dispatch();
	}
	signals_finish();
}

int
take_run(struct limits *L, const struct config *cfg)
{
	const struct gate *g = &L->gate;
	static const char plain[] = "\n";
	struct booking b = { .units = cfg->take_units };
	char *rec = NULL;
	size_t n;

	b.rec = plain;
	b.bytes = 1;
	if (cfg->take_key != NULL)
		b.rec = rec = record_of(cfg, &b.bytes);
	b.at_ns = clock_now_ns();
	if (cfg->drop) {
		n = gate_judge(g, &b, 1);
		signals_finish();
		free(rec);
		return n == 1 && b.taken == b.units ? 0 : 1;
	}
	while (gate_plan(g, &b, 1, b.at_ns) == 0) {
		/* A signal came before the booking was made. */
		signals_finish();
		signals_dispatch();
		b.at_ns = clock_now_ns();
	}
	free(rec);
	wait_for(b.due_ns);
	return 0;
}
