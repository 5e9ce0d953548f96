/* --help: the usage, the table's options, the grammar and examples. */
#include <stdio.h>

#include "cmdline.h"
#include "options.h"
#include "parsed.h"

void
options_usage(FILE *fp)
{
	fputs(
	    "usage: tbthrottle -r RATE [-b BURST] [-l | -0 | -d C | -c]\n"
	    "                  [--byte-rate RATE [--byte-burst N]]\n"
	    "                  [-a ALG] [--initial N] [--catch-up T]\n"
	    "                  [-k FIELD [-F C] [--max-keys N] [--tiers FILE]\n"
	    "                   [--total-rate RATE [--total-burst N]]\n"
	    "                   [--order input|key]]\n"
	    "                  [--shared NAME [--redis URL [--redis-fallback F]\n"
	    "                   [--redis-allow-eviction] [--redis-cacert FILE]\n"
	    "                   [--redis-cert FILE --redis-key FILE]\n"
	    "                   [--redis-insecure]]]\n"
	    "                  [--queue N] [--drop | --drop-to FILE]\n"
	    "                  [--replay [--speed X] [--max-gap T]\n"
	    "                   [--time-field N | --time-key NAME]\n"
	    "                   [--time-format FMT] [--loop N|inf [--loop-gap T]]\n"
	    "                   [--dry-run]]\n"
	    "                  [-s | --stats=json] [-P] [--name NAME]\n"
	    "                  [FILE ...] [-j N --exec CMD [ARG...] [;]]\n"
	    "       tbthrottle --shared NAME -r RATE [-b BURST] [--redis URL]\n"
	    "                  [-k FIELD] [--drop] --take [KEY] [N]\n"
	    "       tbthrottle -R NAME|PID -r RATE [-b BURST] ...\n"
	    "       tbthrottle -R NAME|PID --speed X\n"
	    "       tbthrottle -R NAME|PID -s | --stats=json | --reload\n"
	    "       tbthrottle --list [--json]\n"
	    "Copy FILEs (or standard input) to standard output, releasing lines,\n"
	    "records or bytes no faster than RATE.\n"
	    "\n",
	    fp);
	cmdline_usage(fp, options_table, NOPTIONS);
	fputs(
	    "\n"
	    "RATE is NUMBER[SUFFIX][/[N]PERIOD] with PERIOD one of ms, s, min, "
	    "h, day;\n"
	    "NUMBER may have an exponent (2.5e3).  Byte suffixes k m g t are "
	    "1024-based.\n"
	    "Records go out whole; the last one needs no delimiter.  Exit status is\n"
	    "0 on success, 1 on a read or write error, 2 on a usage error; with\n"
	    "--exec, 123 when a command failed, 124 or 125 when one exited 255 or\n"
	    "was killed (none starts after it), 126 or 127 when none could run;\n"
	    "with --take --drop, 1 when no token was granted.\n"
	    "See tbthrottle(1) for the full grammar and examples.\n"
	    "\n"
	    "Examples:\n"
	    "  tbthrottle -r 5/s -b 2 -j 2 urls.txt --exec curl -fsSO\n"
	    "  tail -F app.log | tbthrottle -r 100/s -b 500 --drop-to flood.log\n"
	    "  tbthrottle --shared api -r 95/min --take && call-api\n"
	    "Replays, one per common log format:\n"
	    "  tbthrottle --replay --speed 10 access.log     nginx, Apache (CLF)\n"
	    "  tbthrottle --replay /var/log/syslog.1         syslog\n"
	    "  tbthrottle --replay app.log                   RFC 3339, epoch first\n"
	    "  tbthrottle --replay --time-key ts app.jsonl   JSON lines (zap, pino)\n"
	    "  tbthrottle --replay -F , --time-field 2 --time-format '%d/%m/%Y %T' x.csv\n",
	    fp);
}
