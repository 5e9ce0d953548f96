/* A command line read by a table: a setter per kind, getopt_long, --help. */
#include <getopt.h>
#include <string.h>

#include "cmdline.h"
#include "msg.h"
#include "rate.h"

/* getopt_long's value for options[i] without a letter. */
#define FIRST_LONG 256
/* Where the help text starts after the option's names. */
#define HELP_COLUMN 23

/* The number of size bytes at at: a bool, an unsigned or a uint64_t. */
static uint64_t
get(const char *at, size_t size)
{
	unsigned char b;
	unsigned u;
	uint64_t v;

	if (size == 1) {
		memcpy(&b, at, 1);
		return b;
	}
	if (size == sizeof u) {
		memcpy(&u, at, sizeof u);
		return u;
	}
	memcpy(&v, at, sizeof v);
	return v;
}

static void
put(char *at, size_t size, uint64_t v)
{
	unsigned char b = (unsigned char)v;
	unsigned u = (unsigned)v;

	if (size == 1)
		memcpy(at, &b, 1);
	else if (size == sizeof u)
		memcpy(at, &u, sizeof u);
	else
		memcpy(at, &v, sizeof v);
}

/* How the messages call o: -letter, or --name. */
static const char *
called(const struct cmdline_option *o, char *buf, size_t size)
{
	if (o->letter != 0)
		snprintf(buf, size, "-%c", o->letter);
	else
		snprintf(buf, size, "--%s", o->name);
	return buf;
}

bool
cmdline_whole(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;
	unsigned d;

	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if ((d = (unsigned)((unsigned char)*s - '0')) > 9 || d > max ||
		    n > (max - d) / 10)
			return false;
		n = n * 10 + d;
	}
	if (n < min)
		return false;
	*out = n;
	return true;
}

/* A count, or a duration in ns, from 1 or 0 to .n: CL_COUNT, CL_DURATION. */
static int
take_amount(struct cmdline *cl, const struct cmdline_option *o, const char *arg)
{
	struct amount a;
	char why[160], name[24];
	bool bad;
	uint64_t n;
	int64_t ns;

	called(o, name, sizeof name);
	if (o->kind == CL_COUNT) {
		if (!cmdline_whole(arg, 1, o->n, &n))
			return msg_fail(cl->err, cl->errsz,
			    "invalid %s '%s': give a whole number from 1 to %llu",
			    name, arg, (unsigned long long)o->n);
		put((char *)cl->base + o->off, o->size, n);
		return 0;
	}
	bad = rate_parse_amount(arg, false, &a, why, sizeof why) != 0;
	if (!bad && !a.is_duration && a.num != 0)
		return msg_fail(cl->err, cl->errsz,
		    "invalid %s '%s': a duration needs its unit: %ss, or %sms",
		    name, arg, arg, arg);
	if (bad)
		return msg_fail(cl->err, cl->errsz, "invalid %s '%s': %s", name,
		    arg, o->why ? why : o->bad);
	if (a.num / a.den > o->n)
		return msg_fail(cl->err, cl->errsz, "invalid %s '%s': %s", name,
		    arg, o->big);
	ns = (int64_t)(a.num / a.den);
	memcpy((char *)cl->base + o->off, &ns, sizeof ns);
	return 0;
}

/*
 * Option o sets its field to value v of its choice.  Another value given
 * before, by o or an option of the same choice, is a conflict if the
 * choice says so; else the last one counts.
 */
static int
choose(struct cmdline *cl, const struct cmdline_option *o, uint64_t v)
{
	const struct cmdline_choice *c = o->choice;
	uint64_t was = get((char *)cl->base + o->off, o->size);

	if (c->conflict != NULL && was != v)
		for (int i = 0; i < cl->noptions; i++)
			if (cl->options[i].choice == c && cmdline_given(cl, i))
				return msg_fail(cl->err, cl->errsz, c->conflict,
				    c->names[was], c->names[v]);
	put((char *)cl->base + o->off, o->size, v);
	return 0;
}

/* The index of word s among c's; no word at all (--stats) is the first. */
static int
word_of(const struct cmdline_choice *c, const char *s)
{
	for (int i = 0; i < c->nnames; i++)
		if (s == NULL || strcmp(s, c->names[i]) == 0)
			return i;
	return -1;
}

/*
 * Store arg, the value of o, as o's kind says: 0, -1 with the reason in
 * cl->err, or the .n of a CL_STOP option.  An option given twice keeps
 * its last value unless its check or choice says not.
 */
static int
take(struct cmdline *cl, const struct cmdline_option *o, const char *arg)
{
	const bool given = true;
	char name[24];
	int i;

	if (o->check != NULL && o->check(cl->base, arg, cl->err, cl->errsz))
		return -1;
	if (o->flag != 0)
		memcpy((char *)cl->base + o->flag, &given, sizeof given);
	switch (o->kind) {
	case CL_TEXT:
		if (o->bad != NULL && arg != NULL && arg[0] == '\0')
			return msg_fail(cl->err, cl->errsz, "invalid %s '': %s",
			    called(o, name, sizeof name), o->bad);
		memcpy((char *)cl->base + o->off, &arg, sizeof arg);
		return 0;
	case CL_COUNT:
	case CL_DURATION:
		return take_amount(cl, o, arg);
	case CL_WORD:
		if ((i = word_of(o->choice, arg)) < 0)
			return msg_fail(
			    cl->err, cl->errsz, o->choice->bad, arg);
		return choose(cl, o, (uint64_t)i);
	case CL_CONST:
		return choose(cl, o, o->n);
	case CL_STOP:
		return (int)o->n;
	}
	return 0;
}

/* The option getopt_long's c stands for, or NULL. */
static const struct cmdline_option *
option_of(const struct cmdline *cl, int c)
{
	if (c >= FIRST_LONG && c < FIRST_LONG + cl->noptions)
		return &cl->options[c - FIRST_LONG];
	for (int i = 0; i < cl->noptions; i++)
		if (cl->options[i].letter != 0 && cl->options[i].letter == c)
			return &cl->options[i];
	return NULL;
}

/*
 * The long option word (--name[=value]) that getopt_long refused: one
 * that takes no value given one, one that names several, or none.
 */
static void
refuse_long(struct cmdline *cl, const char *word)
{
	size_t len = strcspn(word + 2, "="), used;
	const struct cmdline_option *o = NULL;
	int matches = 0;

	used = (size_t)snprintf(cl->err, cl->errsz,
	    "option '--%.*s' is ambiguous; possibilities:", (int)len, word + 2);
	for (int i = 0; i < cl->noptions && len > 0; i++) {
		if (strncmp(cl->options[i].name, word + 2, len) != 0)
			continue;
		o = &cl->options[i];
		if (strlen(o->name) == len) {
			matches = 1;
			break;
		}
		matches++;
		if (used < cl->errsz)
			used += (size_t)snprintf(cl->err + used,
			    cl->errsz - used, " '--%s'", o->name);
	}
	if (matches == 1 && word[2 + len] == '=')
		msg_fail(cl->err, cl->errsz,
		    "option '--%s' takes no value (see --help)", o->name);
	else if (matches <= 1)
		msg_fail(cl->err, cl->errsz,
		    "unknown option '%.*s' (see --help)", (int)len + 2, word);
}

/*
 * Say what getopt_long refused, from what glibc and musl agree on.  Only
 * the last word, last, can lack its value (musl may have moved it by
 * then); a short option it does not know is optopt (argv[optind - 1] may
 * be a word before it); else the long option is the word just passed.
 */
static void
refuse_option(struct cmdline *cl, int c, const char *last, char **argv)
{
	if (c == ':')
		msg_fail(cl->err, cl->errsz,
		    "option '%s' needs a value (see --help)", last);
	else if (optopt != 0 && option_of(cl, optopt) == NULL)
		msg_fail(cl->err, cl->errsz,
		    "unknown option '-%c' (see --help)", (unsigned char)optopt);
	else
		refuse_long(cl, argv[optind - 1]);
}

static const struct cmdline_option *long_of(
    const struct cmdline *cl, const char *name);

/*
 * The value v, the word after the option word w, is one of our long
 * options (--drop-to --exec): a value left out, most likely, which
 * would make a file or a bucket of that name.  -1 with the reason in
 * cl->err; a value so spelled is given in w's own word.
 */
static int
option_word(const struct cmdline *cl, const char *w, const char *v)
{
	bool dashes = strncmp(w, "--", 2) == 0;

	if (strncmp(v, "--", 2) != 0 || v[2] == '\0' ||
	    long_of(cl, v + 2) == NULL)
		return 0;
	return msg_fail(cl->err, cl->errsz,
	    "%s needs its value, and '%s' is an option (a value so spelled "
	    "goes in the same word: %s%s%s)",
	    w, v, w, dashes ? "=" : "", v);
}

/* The tables getopt_long reads, made from cl's options. */
static void
getopt_tables(
    const struct cmdline *cl, struct option *longopts, char *shortopts)
{
	size_t n = 0;

	/* A leading ':' makes a missing value ':', not '?'. */
	shortopts[n++] = ':';
	for (int i = 0; i < cl->noptions; i++) {
		const struct cmdline_option *o = &cl->options[i];

		longopts[i] = (struct option){ o->name, o->arg, NULL,
			o->letter != 0 ? o->letter : FIRST_LONG + i };
		if (o->letter == 0)
			continue;
		shortopts[n++] = o->letter;
		if (o->arg == required_argument)
			shortopts[n++] = ':';
	}
	longopts[cl->noptions] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[n] = '\0';
}

int
cmdline_read(struct cmdline *cl, int argc, char **argv)
{
	struct option longopts[CMDLINE_MAX + 1];
	char shortopts[2 + 2 * CMDLINE_MAX];
	const char *last = argc > 0 ? argv[argc - 1] : "";
	const struct cmdline_option *o;
	int c, i, rc, li;

	getopt_tables(cl, longopts, shortopts);
	opterr = 0;
	/* A new scan, its state too: glibc, musl and the BSDs agree on 0. */
	optind = 0;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, shortopts, longopts, &li);
		if (c == -1)
			break;
		o = option_of(cl, c);
		if (c == ':' || c == '?' || o == NULL) {
			refuse_option(cl, c, last, argv);
			return -1;
		}
		i = (int)(o - cl->options);
		if (!cmdline_given(cl, i)) {
			cl->order[cl->norder++] = (unsigned char)i;
			/* As typed, before its value if that came apart. */
			cl->word[i] = li < 0 ?
			    NULL :
			    argv[optind - 1 - (optarg == argv[optind - 1])];
		}
		if (o->arg == required_argument && optind >= 2 &&
		    optarg == argv[optind - 1] &&
		    option_word(cl, argv[optind - 2], optarg) != 0)
			return -1;
		rc = take(cl, o, optarg);
		cl->seen[i / 64] |= UINT64_C(1) << (i % 64);
		if (rc != 0)
			return rc;
	}
	cl->operands = argv + optind;
	cl->noperands = argc - optind;
	return 0;
}

/* The option the long word --name[=value] names, as getopt_long finds it
 * (exactly, or by a prefix of one alone), or NULL. */
static const struct cmdline_option *
long_of(const struct cmdline *cl, const char *name)
{
	size_t len = strcspn(name, "=");
	const struct cmdline_option *found = NULL;
	int n = 0;

	for (int i = 0; i < cl->noptions; i++) {
		if (strncmp(cl->options[i].name, name, len) != 0)
			continue;
		if (strlen(cl->options[i].name) == len)
			return &cl->options[i];
		found = &cl->options[i];
		n++;
	}
	return n == 1 ? found : NULL;
}

bool
cmdline_takes_value(const struct cmdline *cl, const char *w)
{
	const struct cmdline_option *o;

	if (w[1] == '-') {
		o = long_of(cl, w + 2);
		return o != NULL && o->arg == required_argument &&
		    strchr(w, '=') == NULL;
	}
	for (const char *p = w + 1; *p != '\0'; p++) {
		o = option_of(cl, (unsigned char)*p);
		if (o != NULL && o->arg == required_argument)
			return p[1] == '\0';
	}
	return false;
}

const char *
cmdline_unknown(const struct cmdline *cl, const char *w, char *buf, size_t size)
{
	const struct cmdline_option *o;
	size_t len;

	if (w[0] != '-' || w[1] == '\0' || strcmp(w, "--") == 0)
		return NULL;
	if (w[1] == '-') {
		/* Ambiguous is not unknown: getopt_long names the choices. */
		len = strcspn(w + 2, "=");
		for (int i = 0; i < cl->noptions; i++)
			if (strncmp(cl->options[i].name, w + 2, len) == 0)
				return NULL;
		snprintf(buf, size, "--%.*s", (int)len, w + 2);
		return buf;
	}
	for (const char *p = w + 1; *p != '\0'; p++) {
		if ((o = option_of(cl, (unsigned char)*p)) == NULL) {
			snprintf(buf, size, "-%c", *p);
			return buf;
		}
		if (o->arg == required_argument)
			break; /* the rest is its value */
	}
	return NULL;
}

/* Where option i is in argv[from..argc), as an option: its index, or -1. */
static int
find_option(const struct cmdline *cl, int i, int from, int argc, char **argv)
{
	for (int k = from; k < argc; k++) {
		const char *w = argv[k];

		if (strcmp(w, "--") == 0)
			return -1; /* operands from here on */
		if (w[0] != '-' || w[1] == '\0')
			continue;
		if (w[1] == '-' && long_of(cl, w + 2) == &cl->options[i] &&
		    strchr(w, '=') == NULL)
			return k;
		if (cmdline_takes_value(cl, w))
			k++;
	}
	return -1;
}

int
cmdline_cut(struct cmdline *cl, int i, const char *end, int argc, char **argv,
    char **out, char ***words, int *nwords)
{
	int at = find_option(cl, i, 1, argc, argv), stop, n = 0;

	*words = NULL;
	*nwords = 0;
	if (at < 0) {
		memcpy(out, argv, (size_t)argc * sizeof *argv);
		out[argc] = NULL;
		return argc;
	}
	for (stop = at + 1; stop < argc && strcmp(argv[stop], end) != 0; stop++)
		;
	*words = argv + at + 1;
	*nwords = stop - at - 1;
	memcpy(out, argv, (size_t)(at + 1) * sizeof *argv);
	n = at + 1;
	if (stop < argc) {
		memcpy(out + n, argv + stop + 1,
		    (size_t)(argc - stop - 1) * sizeof *argv);
		n += argc - stop - 1;
	}
	out[n] = NULL;
	if (stop < argc && find_option(cl, i, at + 1, n, out) >= 0)
		return msg_fail(cl->err, cl->errsz,
		    "--%s given twice: give one command", cl->options[i].name);
	return n;
}

const char *
cmdline_value(const struct cmdline *cl, int i, char *buf, size_t size)
{
	const struct cmdline_option *o = &cl->options[i];
	const char *text;

	if (o->kind == CL_COUNT) {
		snprintf(buf, size, "%llu",
		    (unsigned long long)get(
			(const char *)cl->base + o->off, o->size));
		return buf;
	}
	memcpy(&text, (const char *)cl->base + o->off, sizeof text);
	return text;
}

const char *
cmdline_first(const struct cmdline *cl, const uint64_t *mask, bool typed,
    char *buf, size_t size)
{
	const struct cmdline_option *o;
	const char *word;
	int i = 0;

	while (i < cl->norder - 1 &&
	    (mask[cl->order[i] / 64] >> (cl->order[i] % 64) & 1) == 0)
		i++;
	o = &cl->options[cl->order[i]];
	word = cl->word[cl->order[i]];
	if (!typed)
		snprintf(buf, size, "--%s", o->name);
	else if (word != NULL)
		snprintf(buf, size, "%.*s", (int)strcspn(word, "="), word);
	else
		snprintf(buf, size, "-%c", o->letter);
	return buf;
}

/* One option's lines of --help. */
static void
usage_row(FILE *fp, const struct cmdline_option *o)
{
	char names[64];
	const char *line, *end;
	int len;

	if (o->letter != 0)
		len = snprintf(
		    names, sizeof names, "  -%c, --%s", o->letter, o->name);
	else
		len = snprintf(names, sizeof names, "      --%s", o->name);
	if (o->value != NULL)
		len += snprintf(names + len, sizeof names - (size_t)len,
		    o->arg == optional_argument ? "[=%s]" : " %s", o->value);
	fprintf(
	    fp, "%s%*s", names, len < HELP_COLUMN ? HELP_COLUMN - len : 2, "");
	for (line = o->help;; line = end + 1) {
		end = strchr(line, '\n');
		if (line != o->help)
			fprintf(fp, "%*s", HELP_COLUMN, "");
		if (end == NULL) {
			fprintf(fp, "%s\n", line);
			return;
		}
		fprintf(fp, "%.*s\n", (int)(end - line), line);
	}
}

void
cmdline_usage(FILE *fp, const struct cmdline_option *options, int n)
{
	for (int i = 0; i < n; i++)
		usage_row(fp, &options[i]);
}
