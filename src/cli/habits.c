/* Habits of other tools on the command line, caught before they mislead. */
#include <stdbool.h>
#include <string.h>

#include "habits.h"
#include "msg.h"

/*
 * An option word w that getopt_long would misread, said plainly: a long
 * option with one dash (-rate: -r 'ate'), a short one with '=' (-s=json),
 * or pv's -L.  0, or -1 with the reason in err.
 */
static int
habit(const struct cmdline *cl, const char *w, char *err, size_t errsz)
{
	size_t len = strcspn(w + 1, "=");

	if (strcmp(w, "-L") == 0 || strncmp(w, "-L", 2) == 0)
		return msg_fail(err, errsz,
		    "unknown option '%s': pv's -L RATE is -r RATE "
		    "here (see --help)",
		    w);
	for (int i = 0; i < cl->noptions && len >= 3; i++)
		if (strlen(cl->options[i].name) == len &&
		    strncmp(cl->options[i].name, w + 1, len) == 0)
			return msg_fail(err, errsz,
			    "unknown option '%s': did you mean "
			    "'-%s'?",
			    w, w);
	if (w[1] != '\0' && w[2] == '=') {
		if (w[1] == 's')
			return msg_fail(err, errsz,
			    "invalid option '%s': for a JSON report "
			    "give --stats=json",
			    w);
		return msg_fail(err, errsz,
		    "invalid option '%s': a short option takes "
		    "its value after it, as -%c %s",
		    w, w[1], w + 3);
	}
	return 0;
}

/* Is w a piece of a rate written in words (10 per second, 5 /s)? */
static bool
rate_word(const char *w)
{
	static const char *const words[] = { "per", "a", "second", "seconds",
		"sec", "s", "minute", "minutes", "min", "hour", "hours", "h",
		"day", "days", "ms" };

	if (w == NULL)
		return false;
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (strcmp(w, words[k]) == 0 ||
		    (w[0] == '/' && strcmp(w + 1, words[k]) == 0))
			return true;
	return false;
}

/*
 * If argv[k] gives a rate, that rate, and the word after it in *next (or
 * NULL): -r RATE, -rRATE, --rate RATE, --rate=RATE.
 */
static const char *
rate_at(int argc, char **argv, int k, const char **next)
{
	const char *w = argv[k];
	int after = k + 1;
	const char *rate = NULL;

	if (strcmp(w, "-r") == 0 || strcmp(w, "--rate") == 0) {
		rate = k + 1 < argc ? argv[k + 1] : NULL;
		after = k + 2;
	} else if (strncmp(w, "--rate=", 7) == 0) {
		rate = w + 7;
	} else if (w[0] == '-' && w[1] == 'r' && w[2] != '\0') {
		rate = w + 2;
	}
	*next = rate != NULL && after < argc ? argv[after] : NULL;
	return rate;
}

int
habits_check(
    const struct cmdline *cl, int argc, char **argv, char *err, size_t errsz)
{
	for (int k = 1;
	     k < argc && argv[k] != NULL && strcmp(argv[k], "--") != 0; k++) {
		const char *w = argv[k], *next, *rate;

		/* A rate in words: 10 per second, 5 /s. */
		rate = rate_at(argc, argv, k, &next);
		if (rate != NULL && strchr(rate, '/') == NULL &&
		    strcmp(rate, "inf") != 0 && next != NULL && rate_word(next))
			return msg_fail(err, errsz,
			    "'%s' after the rate '%s' looks like part of it: "
			    "give the rate as one word, such as -r %s%s%s%s%s",
			    next, rate, rate, next[0] == '/' ? next : "/s",
			    next[0] == '/' ? "" : " (for a file named ",
			    next[0] == '/' ? "" : next,
			    next[0] == '/' ? "" : ", give it as ./NAME)");
		if (w[0] != '-' || w[1] == '\0')
			continue;
		if (w[1] != '-' && habit(cl, w, err, errsz) != 0)
			return -1;
		if (cmdline_takes_value(cl, w))
			k++;
	}
	return 0;
}
