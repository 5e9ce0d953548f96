/* Dates of the proleptic Gregorian calendar as days from 1970; pure. */
#ifndef CALENDAR_H
#define CALENDAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The times a parse returns, in nanoseconds since the epoch (UTC): within
 * +-2^62 ns, 1823-11-12 to 2116-02-20, so that the difference of any two
 * fits in an int64_t.  A timestamp outside is no timestamp.
 */
#define TIMESTAMP_MAX_NS ((INT64_C(1) << 62) - 1)
#define TIMESTAMP_MIN_NS (-TIMESTAMP_MAX_NS - 1)

/* A time as a wall clock shows it, zone aside. */
struct timestamp_civil {
	int year;  /* 0-9999 */
	int month; /* 1-12 */
	int day;   /* 1-31 */
	int hour;  /* 0-23 */
	int min;   /* 0-59 */
	int sec;   /* 0-59 */
};

/* a / b rounded down, for b > 0. */
int64_t calendar_floor_div(int64_t a, int64_t b);

/* Is y a leap year? */
bool calendar_is_leap(int64_t y);

/* The days of month m (1-12) of year y. */
int calendar_month_days(int64_t y, int m);

/*
 * Days from 1970-01-01 to the proleptic Gregorian date year-month-day
 * (month 1-12, day 1-31, not checked against the month), exact for any
 * year within +-10^9.
 */
int64_t calendar_days_from_civil(int64_t year, int month, int day);

/* The date days from 1970-01-01, for days within +-3 * 10^11. */
void calendar_civil_from_days(
    int64_t days, int64_t *year, int *month, int *day);

/*
 * ns (nanoseconds since the epoch) as RFC 3339 in UTC, with nine digits of
 * fraction: 2026-11-23T14:05:06.123456789Z.  Returns the length, as
 * snprintf does.
 */
int calendar_print(int64_t ns, char *buf, size_t size);

/* The same to the second, rounded down: 2026-11-23T14:05:06Z. */
int calendar_print_s(int64_t ns, char *buf, size_t size);

#endif
