/* Unit tests of template.c: --exec's placeholders, quoted in sh scripts. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "unit.h"

/* The end of fill's words. */
#define END ((char *)NULL)

/*
 * The command ... (to an END) for record rec, number seq, fields split by
 * sep: its arguments as [a][b]..., or "ERR " and the message.
 */
static const char *
fill(int sep, const char *rec, uint64_t seq, ...)
{
	static char out[4096];
	char *cmd[32], *argv[40], why[512], *text;
	struct template t;
	size_t bytes, len = strlen(rec), used = 0;
	int n = 0;
	va_list ap;

	va_start(ap, seq);
	while (n < 31 && (cmd[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	if (template_parse(&t, cmd, n, sep, why, sizeof why) != 0) {
		snprintf(out, sizeof out, "ERR %s", why);
		return out;
	}
	bytes = template_bytes(&t, rec, len);
	if ((text = malloc(bytes)) == NULL)
		abort();
	template_fill(&t, rec, len, seq, text, argv);
	out[0] = '\0';
	for (int i = 0; argv[i] != NULL; i++) {
		used += strlen(argv[i]) + 1;
		snprintf(out + strlen(out), sizeof out - strlen(out), "[%s]",
		    argv[i]);
	}
	check(used <= bytes, "%zu bytes written, %zu counted", used, bytes);
	check(argv[t.nargs] == NULL, "argv ends");
	free(text);
	template_free(&t);
	return out;
}

/* Check that got is want, naming what. */
static void
same(const char *got, const char *want, const char *what)
{
	check(strcmp(got, want) == 0, "%s: got %s, want %s", what, got, want);
}

static void
test_template_plain(void)
{
	current = "template: placeholders outside shell scripts";
	same(fill(-1, "a b", 1, "echo", END), "[echo][a b]", "appended");
	same(fill(-1, "a'b", 1, "echo", "x{}y", "{}", END),
	    "[echo][xa'by][a'b]", "{} as it is");
	same(fill(-1, " p  q\tr", 7, "f", "{1}{2}", "{3}", "{4}", "{#}", END),
	    "[f][pq][r][][7]", "fields, adjacent, missing; number");
	same(fill(',', "a,,c,d,e,f,g,h,i,j,k,l", 1, "f", "{2}", "{3}", "{12}",
		 "{13}", END),
	    "[f][][c][l][]", "-F ,: empty, multi-digit, missing");
	same(fill(-1, "r", 1, "f", "{0}", "{01}", "{x}", "{", "}{", "{{}}",
		 "{12345678}", "{1234567}", END),
	    "[f][{0}][{01}][{x}][{][}{][{r}][{12345678}][]",
	    "other braces are text");
	same(fill(-1, "r", 1, "sh", "-c", "echo ${1} ${#} {1}", "x", END),
	    "[sh][-c][echo ${1} ${#} 'r'][x]",
	    "right after a $: the shell's ${1} and ${#}");
	same(fill(-1, "r", UINT64_MAX, "{#}", END), "[18446744073709551615]",
	    "the largest number");
	same(fill(-1, "", 1, "echo", "{#}", END), "[echo][1]",
	    "{#} alone: nothing appended");
	same(fill(-1, "a;b", 1, "sh", "script.sh", "{}", END),
	    "[sh][script.sh][a;b]", "sh with a file: arguments as they are");
	same(fill(-1, "a;b", 1, "sh", "-c", END), "[sh][-c][a;b]",
	    "sh -c with no script: the record is the script");
	same(fill(-1, "a;b", 1, "sudo", "sh", "-c", "echo {}", END),
	    "[sudo][sh][-c][echo a;b]", "sudo is not looked through");
	same(fill(-1, "a;b", 1, "env", "-S", "sh -c", "echo {}", END),
	    "[env][-S][sh -c][echo a;b]", "env -S is not looked through");
}

static void
test_template_script(void)
{
	current = "template: placeholders in sh -c's script";
	same(fill(-1, "a; echo INJECTED $(id -un)", 1, "sh", "-c", "echo {}",
		 END),
	    "[sh][-c][echo 'a; echo INJECTED $(id -un)']", "an injection");
	same(fill(-1, "it's `x` \"y\"", 1, "sh", "-c", "echo {}", END),
	    "[sh][-c][echo 'it'\\''s `x` \"y\"']", "quotes");
	same(fill(-1, "a\nb", 1, "sh", "-c", "echo {}", END),
	    "[sh][-c][echo 'a\nb']", "a newline");
	same(fill(-1, " x ", 1, "bash", "-ec", "f {2} {1}{#}", "{}", "{}", END),
	    "[bash][-ec][f '' 'x''1'][ x ][ x ]",
	    "an empty field; adjacent; $0 and $1 as they are");
	same(fill(-1, "a'b", 1, "sh", "-c", "echo \"{}\" '{}' $(echo {})", END),
	    "[sh][-c][echo \"a'b\" 'a'\\''b' $(echo 'a'\\''b')]",
	    "in \"...\", in '...', in $(...)");
	same(fill(-1, "$x\"\\`", 1, "sh", "-c", "echo \"<{}>\"", END),
	    "[sh][-c][echo \"<\\$x\\\"\\\\\\`>\"]", "specials inside \"...\"");
	same(fill(-1, "v", 1, "sh", "-c", "{}", "{}", END), "[sh][-c]['v'][v]",
	    "the script a {} alone");
	same(fill(-1, "v", 1, "/bin/bash", "-o", "pipefail", "-c", "e {}", END),
	    "[/bin/bash][-o][pipefail][-c][e 'v']", "-o pipefail -c");
	same(fill(-1, "v", 1, "env", "-u", "X", "A=1", "nice", "-n", "3",
		 "timeout", "-s", "KILL", "5", "stdbuf", "-oL", "busybox", "sh",
		 "-c", "e {}", END),
	    "[env][-u][X][A=1][nice][-n][3][timeout][-s][KILL][5][stdbuf][-oL]"
	    "[busybox][sh][-c][e 'v']",
	    "behind env, nice, timeout, stdbuf, busybox");
	same(fill(-1, "v", 1, "zsh", "-x", "-c", "--", "e a#{}", END),
	    "[zsh][-x][-c][--][e a#'v']", "a # inside a word; --");
	same(fill(-1, "v", 1, "sh", "-c", "case {} in a) ;; esac; ( e {} )",
		 END),
	    "[sh][-c][case 'v' in a) ;; esac; ( e 'v' )]", "case at the top");
	same(fill(-1, "v", 1, "fish", "-c", "echo $argv", "{}", END),
	    "[fish][-c][echo $argv][v]", "fish's $argv as it is");
}

/* The message for script in sh -c, from "stands" on. */
static const char *
refused(const char *shell, const char *script)
{
	const char *m = fill(-1, "v", 1, shell, "-c", script, END);

	return strncmp(m, "ERR ", 4) == 0 ? m + 4 : "(accepted)";
}

static void
test_template_refused(void)
{
	static const struct {
		const char *script, *why;
	} cases[] = {
		{ "e `e {}`", "{} stands after a backquote" },
		{ "e \"`e`\" {}", "{} stands after a backquote" },
		{ "e x # {}", "{} stands in a comment" },
		{ "e ${x:-{}}", "{} stands inside ${...}" },
		{ "e $(( {1} ))", "{1} stands inside $((...))" },
		{ "e \\{}", "{} stands right after a backslash" },
		{ "e $'{}'", "{} stands inside $'...'" },
		{ "cat <<E\n{}\nE", "{} stands after a here-document" },
		{ "e \"$(e {})\"", "{} stands inside $(...) or (...) within" },
		{ "e $(case x in a) e;; esac; e {})",
		    "{} stands after a case" },
	};

	current = "template: scripts where a shell evaluates a value";
	static const char *const evaluating[] = { "[[ {} -eq 1 ]]", "(( {} ))",
		"let {}", "echo $[{}]", "a[{}]=1", "declare -i v={}",
		"typeset x={}", "f() { local v={}; }", "eval {}",
		"x={}; echo $((x))", "[ -v {} ]", "test -v {1}", "[ -R {} ]",
		"printf -v {} x", "print -v {#} x", "read {}",
		"read -r a {} </dev/null", "unset {}", "mapfile {}",
		"readarray {}", "getopts ab {}", "wait -p {} %1",
		"x={}; echo ${!x}", "echo a; read 'x{}'", "eval;{}" };
	for (size_t i = 0; i < sizeof evaluating / sizeof *evaluating; i++)
		check(strstr(fill(-1, "r", 1, "bash", "-c", evaluating[i], END),
			  "evaluate a value there even quoted") != NULL,
		    "refused: %s", evaluating[i]);
	static const char *const naming_none[] = {
		"echo {} | while read -r l; do echo \"$l\"; done",
		"grep -v {} f", "[ -n {} ]", "printf '%s' {}; test -v x",
		"echo {}; printf -v x y", "[ -n \"{}\" ] && read -r x"
	};
	for (size_t i = 0; i < sizeof naming_none / sizeof *naming_none; i++)
		check(
		    strstr(fill(-1, "r", 1, "bash", "-c", naming_none[i], END),
			"evaluate a value") == NULL,
		    "accepted: %s", naming_none[i]);
	same(fill(-1, "r", 1, "bash", "-c", "letter={}; echo $letter", END),
	    "[bash][-c][letter='r'; echo $letter]",
	    "a word that only begins so");
	current = "template: where no quoting keeps a value data";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *m = refused("sh", cases[i].script);

		check(strncmp(m, cases[i].why, strlen(cases[i].why)) == 0,
		    "%s: got %s", cases[i].script, m);
	}
	check(strstr(refused("sh", "e `e {}`"), "put it where a word may go") !=
		NULL,
	    "the message says what to do");
	check(strncmp(refused("fish", "echo {}"),
		  "{} stands in the script of fish -c, whose quoting is not "
		  "sh's",
		  58) == 0,
	    "fish -c: %s", refused("fish", "echo {}"));
	check(strcmp(refused("sh", "e a#{} $(e) {} \"$x\" ${y} {}"),
		  "(accepted)") == 0,
	    "closed constructs leave the rest placeable");
}

void
test_template(void)
{
	test_template_plain();
	test_template_script();
	test_template_refused();
}
