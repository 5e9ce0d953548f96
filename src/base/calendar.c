/* Dates of the proleptic Gregorian calendar as days from 1970; pure. */
#include <inttypes.h>
#include <stdio.h>

#include "calendar.h"

#define NS_PER_S 1000000000LL
#define S_PER_DAY 86400LL

int64_t
calendar_floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

bool
calendar_is_leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

int
calendar_month_days(int64_t y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };

	return m == 2 && calendar_is_leap(y) ? 29 : days[m - 1];
}

/*
 * The days of the proleptic Gregorian calendar counted in eras of 400
 * years (146097 days), years starting in March so that the leap day
 * ends them: exact without tables, and without overflow for any year in
 * the contract (era * 146097 stays below 2^62).
 */
int64_t
calendar_days_from_civil(int64_t year, int month, int day)
{
	int64_t y = year - (month <= 2), era, yoe, doy, doe;

	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void
calendar_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
	int64_t z = days + 719468, era, doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*day = (int)(doy - (153 * mp + 2) / 5 + 1);
	*month = (int)(mp < 10 ? mp + 3 : mp - 9);
	*year = yoe + era * 400 + (*month <= 2);
}

int
calendar_print(int64_t ns, char *buf, size_t size)
{
	int64_t s = calendar_floor_div(ns, NS_PER_S);
	int n = calendar_print_s(s * NS_PER_S, buf, size);

	if (n > 0 && (size_t)n < size)
		n += snprintf(buf + n - 1, size - (size_t)n + 1, ".%09dZ",
			 (int)(ns - s * NS_PER_S)) -
		    1;
	return n;
}

int
calendar_print_s(int64_t ns, char *buf, size_t size)
{
	int64_t s = calendar_floor_div(ns, NS_PER_S),
		days = calendar_floor_div(s, S_PER_DAY);
	int64_t tod = s - days * S_PER_DAY, year;
	int month, day;

	calendar_civil_from_days(days, &year, &month, &day);
	return snprintf(buf, size, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02dZ",
	    year, month, day, (int)(tod / 3600), (int)(tod / 60 % 60),
	    (int)(tod % 60));
}
