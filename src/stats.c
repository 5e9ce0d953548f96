/* Counters of what went in, out and was dropped, and their report. */
#include <inttypes.h>

#include "stats.h"

double
stats_rate(const struct stats *s, int64_t now_ns)
{
	double elapsed = (double)(now_ns - s->start_ns) / 1e9;
	uint64_t beyond = s->units_out > s->limit.allowance ?
	    s->units_out - s->limit.allowance : 0;

	return elapsed > 0 ? (double)beyond / elapsed : 0;
}

/* Write a string as a JSON string: quoted, with quotes and controls escaped. */
static void
json_string(const char *str, FILE *fp)
{
	putc('"', fp);
	for (; *str != '\0'; str++) {
		unsigned char c = (unsigned char)*str;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

void
stats_print(const struct stats *s, int64_t now_ns, bool json, FILE *fp)
{
	uint64_t units_in = s->units_out + s->units_dropped + s->units_waiting;
	double elapsed = (double)(now_ns - s->start_ns) / 1e9;
	double rate = stats_rate(s, now_ns);
	double late_ms = (double)s->max_late_ns / 1e6;

	if (json) {
		fprintf(fp, "{\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64
		    ",\"bytes_dropped\":%" PRIu64 ",\"bytes_waiting\":%" PRIu64
		    ",\"elapsed_s\":%.6f,\"rate_per_s\":%.6g,\"limit\":",
		    units_in, s->units_out, s->units_dropped, s->units_waiting,
		    s->bytes_in, s->bytes_out, s->bytes_dropped,
		    s->bytes_waiting, elapsed, rate);
		json_string(s->limit.text, fp);
		fprintf(fp, ",\"limit_per_s\":%.6g,\"max_lateness_ms\":%.3f}\n",
		    s->limit.per_sec, late_ms);
	} else {
		fprintf(fp, "tbthrottle: units %" PRIu64 " in, %" PRIu64
		    " out, %" PRIu64 " dropped, %" PRIu64 " waiting; bytes %"
		    PRIu64 " in, %" PRIu64 " out, %" PRIu64 " dropped, %"
		    PRIu64 " waiting; %.3f s, %.6g units/s (limit %s), max "
		    "lateness %.3f ms\n", units_in, s->units_out,
		    s->units_dropped, s->units_waiting, s->bytes_in,
		    s->bytes_out, s->bytes_dropped, s->bytes_waiting, elapsed,
		    rate, s->limit.text, late_ms);
	}
	fflush(fp);
}

void
stats_progress(const struct stats *s, int64_t now_ns, bool done, FILE *fp)
{
	fprintf(fp, "\rtbthrottle: %" PRIu64 " out, %.6g/s of %s, %.1f KiB, %"
	    PRIu64 " dropped, %" PRIu64 " waiting", s->units_out,
	    stats_rate(s, now_ns), s->limit.text,
	    (double)s->bytes_out / 1024, s->units_dropped, s->units_waiting);
	if (s->next_due_ns > now_ns)
		fprintf(fp, ", next in %.3f s",
		    (double)(s->next_due_ns - now_ns) / 1e9);
	fputs(done ? "\033[K\n" : "\033[K", fp);
	fflush(fp);
}

void
stats_progress_clear(FILE *fp)
{
	fputs("\r\033[K", fp);
	fflush(fp);
}
