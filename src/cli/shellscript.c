/* Which argument of --exec's command a shell reads as code: pure, no I/O. */
#include <stddef.h>
#include <string.h>

#include "shellscript.h"

/*
 * A command that runs the command in its arguments: the letters of its
 * short options that take a value, its long options that take one as the
 * next word, how many operands come before the command (timeout's
 * DURATION), whether NAME=VALUE words may come first (env), and the
 * letters after which the command can no longer be told (env -S).
 */
struct wrapper {
	const char *name;
	const char *valued;
	const char *const *long_valued;
	int operands;
	bool assigns;
	const char *opaque;
};

static const char *const env_long[] = { "--unset", "--chdir", NULL };
static const char *const nice_long[] = { "--adjustment", NULL };
static const char *const timeout_long[] = { "--signal", "--kill-after", NULL };
static const char *const stdbuf_long[] = { "--input", "--output", "--error",
	NULL };
static const char *const none_long[] = { NULL };

static const struct wrapper wrappers[] = {
	{ "env", "uC", env_long, 0, true, "S" },
	{ "nice", "n", nice_long, 0, false, "" },
	{ "nohup", "", none_long, 0, false, "" },
	{ "timeout", "sk", timeout_long, 1, false, "" },
	{ "stdbuf", "ioe", stdbuf_long, 0, false, "" },
	{ "setsid", "", none_long, 0, false, "" },
	{ "chronic", "", none_long, 0, false, "" },
};

/* The shells whose quoting is sh's; then those whose quoting is not. */
static const char *const posix_shells[] = { "sh", "bash", "rbash", "dash",
	"zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "ash", "yash",
	"posh", "rzsh", "rksh", NULL };
static const char *const other_shells[] = { "fish", "csh", "tcsh", NULL };

/* The last component of path. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* Is name one of names[]? */
static bool
named(const char *name, const char *const *names)
{
	for (; *names != NULL; names++)
		if (strcmp(name, *names) == 0)
			return true;
	return false;
}

/* Is a the long option of long_valued[] with its value in the next word? */
static bool
long_needs_value(const char *a, const char *const *long_valued)
{
	return strchr(a, '=') == NULL && named(a, long_valued);
}

/*
 * Past wrapper w's options and operands, from cmd[i]: where the command it
 * runs is, or -1 when none is, or it cannot be told.
 */
static int
past_wrapper(const struct wrapper *w, char *const *cmd, int ncmd, int i)
{
	const char *a;

	for (; i < ncmd && (a = cmd[i])[0] == '-'; i++) {
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[1] == '-') {
			if (strncmp(a, "--split-string", 14) == 0)
				return -1;
			i += long_needs_value(a, w->long_valued);
			continue;
		}
		for (const char *p = a + 1; *p != '\0'; p++) {
			if (strchr(w->opaque, *p) != NULL)
				return -1;
			if (strchr(w->valued, *p) != NULL) {
				i += p[1] ==
				    '\0'; /* the value is the next word */
				break;
			}
		}
	}
	for (; w->assigns && i < ncmd && strchr(cmd[i], '=') != NULL; i++)
		;
	i += w->operands;
	return i < ncmd ? i : -1;
}

/* The wrapper named name, or NULL. */
static const struct wrapper *
wrapper_of(const char *name)
{
	for (size_t k = 0; k < sizeof wrappers / sizeof wrappers[0]; k++)
		if (strcmp(name, wrappers[k].name) == 0)
			return &wrappers[k];
	return NULL;
}

/*
 * Past a POSIX shell's options from cmd[i]: the script's index, when an
 * option holding c came before it, else -1.  -o and -O (+o, +O) take the
 * next word, as bash's --rcfile and --init-file do.
 */
static int
posix_script(char *const *cmd, int ncmd, int i)
{
	static const char *const long_valued[] = { "--rcfile", "--init-file",
		NULL };
	bool c = false;
	const char *a;

	for (; i < ncmd; i++) {
		a = cmd[i];
		if (strcmp(a, "--") == 0 || strcmp(a, "-") == 0) {
			i++;
			break;
		}
		if (a[0] == '-' && a[1] == '-') {
			i += long_needs_value(a, long_valued);
			continue;
		}
		if (a[0] != '-' && a[0] != '+')
			break;
		for (const char *p = a + 1; *p != '\0'; p++) {
			c = c || (*p == 'c' && a[0] == '-');
			i += *p == 'o' || *p == 'O';
		}
	}
	return c && i < ncmd ? i : -1;
}

/*
 * From cmd[i], a shell whose quoting is not sh's: the word that holds its
 * code, the value of its first option holding c (or of --command), or -1.
 */
static int
other_script(char *const *cmd, int ncmd, int i)
{
	for (; i < ncmd; i++) {
		if (strncmp(cmd[i], "--command", 9) == 0)
			return cmd[i][9] == '=' ? i : i + 1 < ncmd ? i + 1 : -1;
		if (cmd[i][0] == '-' && cmd[i][1] != '-' &&
		    strchr(cmd[i], 'c') != NULL)
			return i + 1 < ncmd ? i + 1 : i;
	}
	return -1;
}

void
shellscript_find(char *const *cmd, int ncmd, struct shellscript *s)
{
	const struct wrapper *w;
	const char *name;
	int i = 0;

	*s = (struct shellscript){ .at = -1, .other = NULL, .from = 0 };
	while (i < ncmd && (w = wrapper_of(base_name(cmd[i]))) != NULL)
		if ((i = past_wrapper(w, cmd, ncmd, i + 1)) < 0)
			return;
	if (i >= ncmd)
		return;
	name = base_name(cmd[i]);
	if (strcmp(name, "busybox") == 0 && i + 1 < ncmd)
		name = cmd[++i];
	if (named(name, posix_shells))
		s->at = posix_script(cmd, ncmd, i + 1);
	else if (named(name, other_shells) &&
	    (s->at = other_script(cmd, ncmd, i + 1)) >= 0) {
		s->other = name;
		s->from = i + 1;
	}
}
