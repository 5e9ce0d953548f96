/* Records' timestamps for --replay: found, parsed to UTC; pure, no I/O. */
#ifndef TIMESTAMP_H
#define TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calendar.h"

/*
 * The caller's conversion of a local time (a record's time without a
 * zone) to seconds since the epoch, UTC, into utc_s[0] <= utc_s[1]: the
 * same value twice, or, for a time in the hour repeated when clocks go
 * back, its first and its second passing (mktime with tm_isdst 1, then
 * 0, each kept only if it gives back the same wall clock time).  Returns
 * 0, or -1 when there is no such time (a time in the hour skipped when
 * clocks go forward may instead be given as mktime moves it).  Replays
 * across a change of daylight saving time thus keep to real elapsed
 * time, not to the wall clock.
 */
typedef int (*timestamp_local_fn)(
    void *arg, const struct timestamp_civil *tm, int64_t utc_s[2]);

/* Room for a JSON key detection chooses, its end included. */
#define TIMESTAMP_KEY_BYTES 32

/*
 * The formats: AUTO (detect on the next record that has a timestamp),
 * EPOCH (1732370706[.123], or ms, us, ns by their digits), ISO
 * (2026-11-23T14:05:06.123+01:00, RFC 3339), SYSLOG (Nov 23 14:05:06,
 * RFC 3164 and ts: no year), CLF ([23/Nov/2026:14:05:06 +0000], access
 * logs) and FORMAT (--time-format).
 */
enum timestamp_kind {
	TIMESTAMP_AUTO,
	TIMESTAMP_EPOCH,
	TIMESTAMP_ISO,
	TIMESTAMP_SYSLOG,
	TIMESTAMP_CLF,
	TIMESTAMP_FORMAT
};

/*
 * How to find the timestamps of a stream of records, and what the parse
 * of the records before has taught: one per stream, started by
 * timestamp_init.  Fill in field and sep for --time-field; the rest is
 * set by the functions below.
 */
struct timestamp_format {
	enum timestamp_kind kind;
	bool anywhere;	  /* ISO, CLF: the first in the record, not
				 * only one at its start */
	int epoch_digits; /* EPOCH: 10 (s), 13 (ms), 16 or 19 (ns) */
	const char *spec; /* FORMAT: kept, not copied */
	unsigned field;	  /* 0, or where the timestamp starts */
	int sep;	  /* fields end at this byte, or -1 at blanks */
	const char *key;  /* NULL, or the top-level JSON key whose value
			   * (a string or a number) is the timestamp */
	char found_key[TIMESTAMP_KEY_BYTES]; /* "", or the key detection
					      * chose, as the record has it */
	struct timestamp_civil ref;	     /* the date the first lacks */
	timestamp_local_fn local;	     /* NULL: no zone is UTC */
	void *local_arg;
	bool have_prev;	      /* a record was parsed, the last one: */
	int64_t prev_ns;      /* at this time */
	int64_t prev_civil_s; /* as written, zone aside */
};

/*
 * Start fmt on detection, with the whole record searched.  ref is the
 * local date to complete the first record's timestamp with, when it has
 * no year (syslog) or no date: the date the log was written or read.
 * local converts times written without a zone, with arg; NULL takes them
 * as UTC.
 */
void timestamp_init(struct timestamp_format *fmt,
    const struct timestamp_civil *ref, timestamp_local_fn local, void *arg);

/* Check spec as timeformat_check does and, when it is usable, hold it in fmt. */
int timestamp_set_format(
    struct timestamp_format *fmt, const char *spec, char *err, size_t errsz);

/*
 * Find which format the record rec[0..len) (without its delimiter, any
 * bytes) has a timestamp in: at its start (or at fmt->field, which ends at
 * the next fmt->sep when that is a byte; or in the value of the JSON key
 * fmt->key, a string without its quotes or a number), an epoch
 * time, RFC 3339 or syslog's; else the first bracketed CLF time, else
 * the first RFC 3339 time anywhere in it.  A JSON object, with neither
 * field nor key given, is timed by a top-level key first: of those whose
 * value is a time, the first named in TIMESTAMP_KEYS (case aside), else
 * the first whose string is one; fmt->found_key holds it.  On success fmt
 * holds that format, *ns is the time and 0 is returned; else -1, fmt
 * unchanged.
 */
int timestamp_detect(
    struct timestamp_format *fmt, const char *rec, size_t len, int64_t *ns);

/*
 * The names of JSON keys that hold a record's time, likeliest first, as
 * the man page lists them; matched whatever their case.
 */
#define TIMESTAMP_KEYS \
	"@timestamp", "timestamp", "time", "ts", "@t", "datetime", "date", \
	    "asctime", "time_local", "event_time", "eventtime", "log_time", \
	    "logtime"

/*
 * The top-level keys of the JSON record rec[0..len), other than the one
 * fmt found, whose values are times as detection takes them, quoted and
 * separated by ", ", into out (cut short to fit); returns how many.
 */
size_t timestamp_other_keys(const struct timestamp_format *fmt, const char *rec,
    size_t len, char *out, size_t size);

/*
 * Where fmt looks for a timestamp in the record rec[0..len): the text of
 * its JSON key's value, or of its field (to the record's end when fields
 * are split at blanks, as a time may hold blanks), else the whole record,
 * into *text and *text_len.  False when the record lacks that key or field.
 */
bool timestamp_where(const struct timestamp_format *fmt, const char *rec,
    size_t len, const char **text, size_t *text_len);

/*
 * The time of the record rec[0..len) in the format fmt holds, in *ns
 * (nanoseconds since the epoch, UTC); while fmt holds none, detect it
 * first.  Returns 0, or -1 when the record has no usable timestamp (none,
 * a malformed one, the 30th of February, hour 24, minute 60, a time out
 * of range): a record to count, not an error.  A fraction of a second
 * ('.' or ',' and digits; only '.' after an epoch time) may follow the
 * seconds in every format; digits past the ninth are dropped.  Second
 * 60 (a leap second) is the last nanosecond of second 59.  A time
 * without a zone is local (fmt->local).  A time without a year, or
 * without a date, takes those that put it nearest the previous record's:
 * December then January moves on a year.
 */
int timestamp_parse(
    struct timestamp_format *fmt, const char *rec, size_t len, int64_t *ns);

#endif
