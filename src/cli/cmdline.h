/* A command line read by a table of options; pure, no I/O. */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Most options in a table: each is a bit of a uint64_t. */
#define CMDLINE_MAX 128
/* Words of a set of options: bit i % 64 of word i / 64 is option i. */
#define CMDLINE_WORDS (CMDLINE_MAX / 64)

/* What an option stores, at its offset from the reader's base. */
enum cmdline_kind {
	CL_SEEN,     /* nothing but that it was given */
	CL_TEXT,     /* the text, a const char *; .bad refuses it empty */
	CL_COUNT,    /* a whole number from 1 to .n (cmdline_whole) */
	CL_DURATION, /* a duration from 0 to .n ns, an int64_t */
	CL_WORD,     /* the index of the word among .choice's */
	CL_CONST,    /* the value .n, one of .choice's */
	CL_STOP	     /* nothing: reading stops, and returns .n */
};

/* The values one field may take, by name, and how two given are told. */
struct cmdline_choice {
	const char *const *names; /* by value: the words, or the options */
	int nnames;
	const char *bad;      /* a word not among them, %s */
	const char *conflict; /* two values, %1$s and %2$s; NULL: the last */
};

/* One option: its names, its kind, where its value goes, its --help. */
struct cmdline_option {
	const char *name;  /* --name */
	const char *value; /* what the value is called in --help */
	char letter;	   /* -letter, or 0 for none */
	/* no_argument, required_argument, or optional_argument: that one
	 * only as --name=value, and the short form takes no value. */
	signed char arg;
	unsigned char kind; /* enum cmdline_kind */
	bool why; /* CL_DURATION: a value that is no amount is told why */
	const char *help; /* lines of --help, without the last newline */
	size_t off, size; /* of the value */
	size_t flag;	  /* offset of a bool set when given; 0: none */
	uint64_t n;	  /* see enum cmdline_kind */
	const struct cmdline_choice *choice;
	const char *bad, *big; /* for a bad value, and one above .n */
	/* Called with the value first, if not NULL: 0, or -1 with a reason
	 * in err. */
	int (*check)(void *base, const char *arg, char *err, size_t errsz);
};

/* One reading of a command line by a table. */
struct cmdline {
	const struct cmdline_option *options; /* the table, noptions rows */
	int noptions;
	void *base; /* what the rows' offsets are from */
	char *err;  /* the reason a reading fails */
	size_t errsz;
	uint64_t seen[CMDLINE_WORDS];	  /* options given (CMDLINE_WORDS) */
	unsigned char order[CMDLINE_MAX]; /* the options given, in turn */
	int norder;
	const char *word[CMDLINE_MAX]; /* as first typed, if as --name */
	char **operands;	       /* what is not an option, in order */
	int noperands;
};

/*
 * Read the options of argv into cl->base as cl->options say (the caller
 * sets the first five fields, the others zero).  0 with the operands in
 * cl, the .n of a CL_STOP option given, or -1 with a one-line reason in
 * cl->err.  Refuses an unknown option, a missing or unwanted value, a bad
 * value and two of a choice that conflict; the same on glibc and musl.
 */
int cmdline_read(struct cmdline *cl, int argc, char **argv);

/*
 * Does the option word w (-x..., --name) take the word after it as its
 * value, as getopt_long would read it?
 */
bool cmdline_takes_value(const struct cmdline *cl, const char *w);

/*
 * The first option of the option word w (-x..., --name[=value]) that
 * getopt_long would refuse as unknown, as "-x" or "--name" into buf; or
 * NULL when it knows them all.
 */
const char *cmdline_unknown(
    const struct cmdline *cl, const char *w, char *buf, size_t size);

/*
 * Find option i (which takes no value) in argv as getopt_long would, and
 * cut the words after it, up to a lone end word or the end, out of argv:
 * they are its own (find(1)'s -exec).  The words before, that option, and
 * those after the end word go to out (argc + 1 entries, NULL-ended); its
 * words to *words, *nwords of them (0 and NULL when it is not given).
 * Returns the count of out, or -1 with the reason in cl->err when it is
 * given twice.
 */
int cmdline_cut(struct cmdline *cl, int i, const char *end, int argc,
    char **argv, char **out, char ***words, int *nwords);

/* Option i's value as a message quotes it: its text, or its number. */
const char *cmdline_value(
    const struct cmdline *cl, int i, char *buf, size_t size);

/* Was options[i] given? */
static inline bool
cmdline_given(const struct cmdline *cl, int i)
{
	return (cl->seen[i / 64] >> (i % 64) & 1) != 0;
}

/*
 * The first option given among mask (CMDLINE_WORDS words, as seen), into
 * buf: as typed (typed; the value cut off) or by its --name.
 */
const char *cmdline_first(const struct cmdline *cl, const uint64_t *mask,
    bool typed, char *buf, size_t size);

/*
 * A whole number from min to max, as every count of the command line is
 * written: decimal digits only, no sign, blank, exponent or suffix.  True
 * with it in *out.
 */
bool cmdline_whole(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Print the rows of --help, n options, to fp. */
void cmdline_usage(FILE *fp, const struct cmdline_option *options, int n);

#endif
