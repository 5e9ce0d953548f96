/* Habits of other tools on the command line, caught before they mislead. */
#ifndef HABITS_H
#define HABITS_H

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

/* What the words before --exec are read with. */
struct habits_ctx {
	char **exec; /* --exec's words, nexec of them; NULL without it */
	int nexec;
	/* Is there a file of this name?  NULL: there is none. */
	bool (*exists)(const char *path);
};

/*
 * The words of argv[1..argc) that getopt_long would misread, read as the
 * options of cl would be: pv's -L, a long option with one dash (-rate is
 * -r 'ate'), a short one with '=' (-s=json), a rate in words (-r 10
 * per second, -r 5 /s), and the habits of xargs and GNU parallel (-P N
 * where no file N is, -n 1, -I {}, -L 1 with --exec, -j 0, --delay T,
 * ::: and :::: there or among --exec's words), and an option unknown
 * here after an operand that is no file, without --exec (curl -fsSO:
 * the command's own).  0, or -1 with a
 * one-line reason, naming the fix, in err.
 */
int habits_check(const struct cmdline *cl, int argc, char **argv,
    const struct habits_ctx *x, char *err, size_t errsz);

/*
 * An option of cl's own among --exec's words, nexec of them, that the
 * command will take instead (-j 4, -r 5/s: only those whose value reads
 * as ours), when no ';' ended the command (ended false): a one-line
 * warning naming it into buf, else buf empty.
 */
void habits_after_exec(const struct cmdline *cl, char **exec, int nexec,
    bool ended, char *buf, size_t size);

#endif
