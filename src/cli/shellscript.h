/* Which argument of --exec's command a shell reads as code: pure, no I/O. */
#ifndef SHELLSCRIPT_H
#define SHELLSCRIPT_H

#include <stdbool.h>

/* What the command of --exec is, as far as its own words tell. */
struct shellscript {
	int at;		   /* the argument a POSIX shell runs (sh -c SCRIPT),
			    * or -1 */
	const char *other; /* a shell whose quoting is not sh's (fish, csh,
			    * tcsh) run with -c: its name, else NULL; its
			    * script is at, its options from from on */
	int from;
};

/*
 * Find the script in cmd[0..ncmd): cmd[0] (or, past the wrappers env,
 * nice, nohup, timeout, stdbuf, setsid and chronic and their options,
 * the command they run; or busybox's applet) named sh, bash, dash, zsh,
 * ksh, mksh, ash, yash, posh or one of their kin, then its options, one
 * of them holding c, then the script: the first word that is no option
 * nor an option's value.  The words after the script are its $0, $1 ...
 * A command hidden in a form not listed (sudo, xargs, env -S) is not
 * seen.  fish, csh and tcsh with an option holding c (fish's --command)
 * are seen as other: their script is the word after that option.
 */
void shellscript_find(char *const *cmd, int ncmd, struct shellscript *s);

#endif
