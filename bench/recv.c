/*
 * recv: the benchmark's receiving end.  Reads standard input, timestamps
 * every read(2) on CLOCK_MONOTONIC, counts the units it carried (lines, or
 * bytes with -c) and, given the requested rate and burst, compares the
 * arrivals with the ideal schedule of a saturated input:
 *
 *   token bucket:  unit k (1-based) is due at t0 + max(0, k - B) / R
 *   --leaky:       unit k is due at t0 + (k - 1) / R
 *
 * The result is one line of key=value pairs on standard output:
 *
 *   units bytes events      units (lines or bytes), bytes and reads seen
 *   elapsed_s               last arrival - t0
 *   startup_ms              first arrival - t0 (only with --t0)
 *   rate rate_err_pct       achieved rate (see below) and its error vs R
 *   rate90 rate90_err_pct   the rate over the last 90% of units: units
 *                           after the read that completed the first 10%,
 *                           over the time from that read to the last one;
 *                           comparable between tools whatever their burst
 *   lat_p50_ms lat_p99_ms lat_max_ms lat_min_ms
 *                           per-unit lateness vs the schedule from t0: the
 *                           arrival of the read that carried the unit minus
 *                           its due time.  Negative means early.
 *   jit_p50_ms jit_p99_ms jit_max_ms
 *                           the same minus lat_min: lateness against the
 *                           schedule that puts the earliest unit exactly on
 *                           time, which removes process start-up and pipe
 *                           latency and leaves the pacing error
 *   ahead_units ahead_ms    max over reads of units received by t minus
 *                           B + R (t - t0): how far ahead of the contract
 *   excess_units excess_ms  max over windows [t_i, t_j] of units arriving
 *                           in it minus B + R (t_j - t_i)
 *   max_1ms                 most units arriving within any 1 ms
 *   gap_ms post_1ms post_excess_units
 *                           with --gap MS: the first pause between reads of
 *                           at least MS ms, the most units within any 1 ms
 *                           after it, and the window excess after it
 *
 * --trace FILE writes one line per read: ns since t0 (or the first
 * arrival), units before it, units in it.
 *
 * Achieved rate: the first B units are due at t0 together, so the rate is
 * measured over the rest: (units - B) / (t_last - t_first) for a token
 * bucket and (units - 1) / (t_last - t_first) for --leaky.  t_first (the
 * first arrival) rather than t0 keeps process start-up out of it.
 *
 * recv [options] -- CMD [ARG ...] runs the throttler itself, with recv's
 * standard input and its standard output on a pipe to recv, taking t0 just
 * before the fork: recv is then already waiting in read(2) when the first
 * write lands, so its own start-up cannot delay the first arrival.  The
 * output gains status= (CMD's exit status, 128 + N for signal N).
 *
 * Otherwise recv reads its standard input; --t0 NS gives the origin (the
 * harness takes it with recv --now, which prints the CLOCK_MONOTONIC time in
 * ns, just before starting the throttler), or else the first arrival is.
 *
 * recv --jitter SECONDS measures the machine's timer wake-up lateness: it
 * sleeps to absolute deadlines 1 ms apart (with a 1 ns timer slack, as
 * tbthrottle does) and reports the lateness of the wake-ups.
 *
 * Build: cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra \
 *            -o bench/recv bench/recv.c -lm
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define NS 1e9
#define BUFSZ (1 << 20)

struct ev {
	int64_t t;	 /* arrival of the read, ns */
	uint64_t before; /* units received before this read */
	uint64_t n;	 /* units completed by this read (> 0) */
};

static struct ev *evs;
static size_t nev, cap;
static char buf[BUFSZ];

/* Schedule parameters for the stats. */
static double rate_ns; /* R in units per ns */
static double beff;    /* units due at the origin: B, or 1 if leaky */

static int64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
usage(void)
{
	fputs("usage: recv --now | --jitter SECONDS\n"
	      "       recv [-c] [--t0 NS] [--rate R] [--burst B] [--leaky] "
	      "[--gap MS]\n            [--trace FILE] [-- CMD [ARG ...]] "
	      "< input\n",
	    stderr);
	exit(2);
}

static double
num_arg(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0))
		usage();
	return v;
}

static void
push(int64_t t, uint64_t before, uint64_t n)
{
	if (nev == cap) {
		cap = cap ? cap * 2 : 65536;
		evs = realloc(evs, cap * sizeof *evs);
		if (evs == NULL) {
			perror("recv");
			exit(1);
		}
	}
	evs[nev++] = (struct ev){ t, before, n };
}

/* Due time of unit k (1-based) after the origin, in ns. */
static double
due(double k)
{
	double d = k - beff;

	return d > 0 ? d / rate_ns : 0;
}

/* Units with lateness <= v (ns) against the schedule from origin. */
static double
count_le(int64_t origin, double v)
{
	double c = 0;

	for (size_t i = 0; i < nev; i++) {
		double lo = (double)evs[i].before + 1;
		double hi = (double)evs[i].before + (double)evs[i].n;
		double late0 = (double)(evs[i].t - origin) - v;
		double kmin;

		/* lateness(k) = t - origin - due(k) <= v iff due(k) >= late0 */
		if (late0 <= 0) {
			c += (double)evs[i].n;
			continue;
		}
		kmin = ceil(beff + late0 * rate_ns);
		if (kmin < lo)
			kmin = lo;
		if (kmin <= hi)
			c += hi - kmin + 1;
	}
	return c;
}

struct lat {
	double p50, p99, max, min; /* ms */
};

/* Smallest v with at least ceil(q * total) units no later than v. */
static double
quantile(int64_t origin, double q, double total, double lo, double hi)
{
	double want = ceil(q * total);

	if (want < 1)
		want = 1;
	for (int i = 0; i < 100 && hi - lo > 1.0; i++) {
		double mid = lo + (hi - lo) / 2;

		if (count_le(origin, mid) >= want)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static struct lat
lateness(int64_t origin, double total)
{
	double lo = INFINITY, hi = -INFINITY;
	struct lat l;

	for (size_t i = 0; i < nev; i++) {
		double t = (double)(evs[i].t - origin);
		double first = t - due((double)evs[i].before + 1);
		double last = t - due((double)(evs[i].before + evs[i].n));

		if (first > hi)
			hi = first;
		if (last < lo)
			lo = last;
	}
	l.min = lo / 1e6;
	l.max = hi / 1e6;
	l.p50 = quantile(origin, 0.50, total, lo - 1, hi) / 1e6;
	l.p99 = quantile(origin, 0.99, total, lo - 1, hi) / 1e6;
	return l;
}

/*
 * Max over i <= j (events from..nev-1) of units in reads i..j minus
 * burst + R (t_j - t_i).
 */
static double
window_excess(size_t from, double burst)
{
	double best = -INFINITY, run = -INFINITY;
	int64_t base;

	if (from >= nev)
		return 0;
	base = evs[from].t;
	for (size_t j = from; j < nev; j++) {
		double tj = (double)(evs[j].t - base) * rate_ns;
		double x = tj - (double)evs[j].before;
		double e;

		if (x > run)
			run = x;
		e = (double)(evs[j].before + evs[j].n) - tj + run - burst;
		if (e > best)
			best = e;
	}
	return best;
}

/* Most units arriving within any window of w ns, from event from on. */
static uint64_t
max_window(size_t from, int64_t w)
{
	uint64_t best = 0, sum = 0;
	size_t i = from;

	for (size_t j = from; j < nev; j++) {
		sum += evs[j].n;
		while (evs[j].t - evs[i].t >= w)
			sum -= evs[i++].n;
		if (sum > best)
			best = sum;
	}
	return best;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Sleep to deadlines 1 ms apart for secs seconds; report the lateness. */
static int
jitter(double secs)
{
	size_t n = (size_t)(secs * 1000), over = 0;
	int64_t *late, t;

	if (n < 1)
		n = 1;
	if ((late = malloc(n * sizeof *late)) == NULL) {
		perror("recv");
		return 1;
	}
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
	t = now_ns();
	for (size_t i = 0; i < n; i++) {
		struct timespec ts;
		int64_t woke;

		t += 1000000;
		ts.tv_sec = (time_t)(t / 1000000000LL);
		ts.tv_nsec = (long)(t % 1000000000LL);
		while (clock_nanosleep(
			   CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		woke = now_ns();
		late[i] = woke - t;
		if (late[i] > 1000000)
			over++;
		if (woke > t)
			t = woke; /* the next deadline is 1 ms after waking */
	}
	qsort(late, n, sizeof *late, cmp_i64);
	printf("wakeups=%zu p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f "
	       "over_1ms=%zu\n",
	    n, (double)late[n / 2] / 1e3, (double)late[n * 99 / 100] / 1e3,
	    (double)late[n * 999 / 1000] / 1e3, (double)late[n - 1] / 1e3,
	    over);
	free(late);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* One line per read: ns since the origin, units before, units in it. */
static void
write_trace(const char *path, int64_t origin)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	for (size_t i = 0; i < nev; i++)
		fprintf(fp, "%lld %llu %llu\n", (long long)(evs[i].t - origin),
		    (unsigned long long)evs[i].before,
		    (unsigned long long)evs[i].n);
	if (fclose(fp) != 0) {
		perror(path);
		exit(1);
	}
}

int
main(int argc, char *argv[])
{
	bool bytes = false, leaky = false, have_t0 = false;
	double rate = 0, burst = 1, gap_ms = 0;
	const char *trace = NULL;
	char **cmd = NULL;
	int64_t t0 = 0, origin;
	uint64_t units = 0, nbytes = 0;
	int in = STDIN_FILENO, status = 0;
	pid_t child = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			if (i + 1 >= argc)
				usage();
			cmd = argv + i + 1;
			break;
		} else if (strcmp(a, "--now") == 0) {
			printf("%lld\n", (long long)now_ns());
			return fflush(stdout) == 0 ? 0 : 1;
		} else if (strcmp(a, "-c") == 0) {
			bytes = true;
		} else if (strcmp(a, "-l") == 0) {
			bytes = false;
		} else if (strcmp(a, "--leaky") == 0) {
			leaky = true;
		} else if (i + 1 >= argc) {
			usage();
		} else if (strcmp(a, "--jitter") == 0) {
			return jitter(num_arg(argv[++i]));
		} else if (strcmp(a, "--t0") == 0) {
			t0 = (int64_t)num_arg(argv[++i]);
			have_t0 = true;
		} else if (strcmp(a, "--rate") == 0) {
			rate = num_arg(argv[++i]);
		} else if (strcmp(a, "--burst") == 0) {
			burst = num_arg(argv[++i]);
		} else if (strcmp(a, "--gap") == 0) {
			gap_ms = num_arg(argv[++i]);
		} else if (strcmp(a, "--trace") == 0) {
			trace = argv[++i];
		} else {
			usage();
		}
	}

	if (cmd != NULL) {
		/* Run the throttler with its output on a pipe to us: we are
		 * already waiting in read(2) when its first write lands. */
		int fd[2];

		if (pipe(fd) != 0) {
			perror("recv: pipe");
			return 1;
		}
		t0 = now_ns();
		have_t0 = true;
		if ((child = fork()) < 0) {
			perror("recv: fork");
			return 1;
		}
		if (child == 0) {
			(void)close(fd[0]);
			if (dup2(fd[1], STDOUT_FILENO) < 0)
				_exit(127);
			(void)close(fd[1]);
			execvp(cmd[0], cmd);
			perror(cmd[0]);
			_exit(127);
		}
		(void)close(fd[1]);
		in = fd[0];
	}

	for (;;) {
		ssize_t got = read(in, buf, sizeof buf);
		int64_t t = now_ns();
		uint64_t n = 0;

		if (got < 0) {
			if (errno == EINTR)
				continue;
			perror("recv: read");
			return 1;
		}
		if (got == 0)
			break;
		nbytes += (uint64_t)got;
		if (bytes) {
			n = (uint64_t)got;
		} else {
			const char *p = buf, *end = buf + got;

			while (
			    (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
				n++;
				p++;
			}
		}
		if (n > 0) {
			push(t, units, n);
			units += n;
		}
	}

	if (child > 0) {
		while (waitpid(child, &status, 0) < 0)
			if (errno != EINTR) {
				perror("recv: waitpid");
				return 1;
			}
		status = WIFEXITED(status) ? WEXITSTATUS(status) :
					     128 + WTERMSIG(status);
	}
	if (trace != NULL)
		write_trace(trace, have_t0 ? t0 : (nev ? evs[0].t : 0));
	printf("units=%llu bytes=%llu events=%zu", (unsigned long long)units,
	    (unsigned long long)nbytes, nev);
	if (child > 0)
		printf(" status=%d", status);
	if (nev == 0) {
		putchar('\n');
		return 0;
	}
	origin = have_t0 ? t0 : evs[0].t;
	printf(" elapsed_s=%.6f", (double)(evs[nev - 1].t - origin) / NS);
	if (have_t0)
		printf(" startup_ms=%.3f", (double)(evs[0].t - t0) / 1e6);
	printf(" max_1ms=%llu", (unsigned long long)max_window(0, 1000000));

	if (rate > 0) {
		double span = (double)(evs[nev - 1].t - evs[0].t);
		double skip = leaky ? 1 : burst;
		double total = (double)units, got, ahead = -INFINITY, ex;
		struct lat l;

		rate_ns = rate / NS;
		beff = leaky ? 1 : burst;
		if (total > skip && span > 0) {
			got = (total - skip) / (span / NS);
			printf(" rate=%.3f rate_err_pct=%.4f", got,
			    (got - rate) / rate * 100);
		} else {
			printf(" rate=nan rate_err_pct=nan");
		}
		/* The rate over the last 90% of units, whatever the burst. */
		for (size_t i = 0; i < nev; i++) {
			uint64_t upto = evs[i].before + evs[i].n;
			double dt = (double)(evs[nev - 1].t - evs[i].t);

			if ((double)upto < 0.1 * total)
				continue;
			if (dt > 0 && upto < units) {
				got = (double)(units - upto) / (dt / NS);
				printf(" rate90=%.3f rate90_err_pct=%.4f", got,
				    (got - rate) / rate * 100);
			}
			break;
		}
		l = lateness(origin, total);
		printf(" lat_p50_ms=%.4f lat_p99_ms=%.4f lat_max_ms=%.4f "
		       "lat_min_ms=%.4f",
		    l.p50, l.p99, l.max, l.min);
		printf(" jit_p50_ms=%.4f jit_p99_ms=%.4f jit_max_ms=%.4f",
		    l.p50 - l.min, l.p99 - l.min, l.max - l.min);
		for (size_t i = 0; i < nev; i++) {
			double a = (double)(evs[i].before + evs[i].n) - beff -
			    (double)(evs[i].t - origin) * rate_ns;

			if (a > ahead)
				ahead = a;
		}
		printf(" ahead_units=%.1f ahead_ms=%.4f", ahead,
		    ahead / rate * 1e3);
		ex = window_excess(0, beff);
		printf(
		    " excess_units=%.1f excess_ms=%.4f", ex, ex / rate * 1e3);
	}
	if (gap_ms > 0) {
		size_t g = 0;

		for (size_t i = 1; i < nev && g == 0; i++)
			if ((double)(evs[i].t - evs[i - 1].t) >= gap_ms * 1e6)
				g = i;
		if (g == 0) {
			printf(" gap_ms=nan");
		} else {
			printf(" gap_ms=%.1f post_1ms=%llu",
			    (double)(evs[g].t - evs[g - 1].t) / 1e6,
			    (unsigned long long)max_window(g, 1000000));
			if (rate > 0)
				printf(" post_excess_units=%.1f",
				    window_excess(g, beff));
		}
	}
	putchar('\n');
	free(evs);
	return fflush(stdout) == 0 ? 0 : 1;
}
