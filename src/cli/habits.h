/* Habits of other tools on the command line, caught before they mislead. */
#ifndef HABITS_H
#define HABITS_H

#include <stddef.h>

#include "cmdline.h"

/*
 * The words of argv[1..argc) that getopt_long would misread, read as the
 * options of cl would be: pv's -L, a long option with one dash (-rate is
 * -r 'ate'), a short one with '=' (-s=json), and a rate in words (-r 10
 * per second, -r 5 /s).  0, or -1 with a one-line reason, naming the fix,
 * in err.
 */
int habits_check(
    const struct cmdline *cl, int argc, char **argv, char *err, size_t errsz);

#endif
