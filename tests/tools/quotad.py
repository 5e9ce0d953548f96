#!/usr/bin/env python3
"""An HTTP server that enforces a quota, for the tests of retries.

quotad.py [--port-file FILE] [--log FILE] MODE [--date [FORM]]

MODE is one of:
  --window N/Ws     at most N answers 2xx in each calendar window of W
                    seconds (windows aligned to the epoch, on the wall
                    clock); others 429 with Retry-After: the seconds until
                    the window ends, rounded up
  --sliding N/Ws    at most N answers 2xx in any W seconds (a log of the
                    times of the last N, on the wall clock); others 429
                    with Retry-After: the seconds until the oldest of them
                    is W old, rounded up
  --bucket R/s,B    a token bucket of rate R a second and burst B (on the
                    monotonic clock), full at start; 429 with Retry-After: 1
                    when empty
  --status CODE     every answer CODE; with --retry-after S, a Retry-After
                    of S seconds

--date [FORM] sends Retry-After as an HTTP-date (the time it names, rounded
up to the second) instead of seconds: FORM is imf (the default:
"Sun, 06 Nov 1994 08:49:37 GMT"), rfc850 or asctime.

It listens on 127.0.0.1, on --port or a free port, and, once it listens,
writes the port to --port-file (whole: written aside, then renamed), or to
standard output.  Every request is logged to --log as one line, flushed:
"MONOTONIC_NS WALL_NS PATH STATUS".  It runs until killed (SIGTERM); a test
starts it in the background and kills it by its PID.  Python 3 standard
library only.
"""
import argparse
import http.server
import math
import os
import sys
import threading
import time

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
LONG_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
             "Saturday", "Sunday"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]


def http_date(unix_s, form):
    """unix_s (whole seconds) as an HTTP-date in one of its three forms."""
    t = time.gmtime(unix_s)
    hms = "%02d:%02d:%02d" % (t.tm_hour, t.tm_min, t.tm_sec)
    if form == "rfc850":
        return "%s, %02d-%s-%02d %s GMT" % (
            LONG_DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1],
            t.tm_year % 100, hms)
    if form == "asctime":
        return "%s %s %2d %s %d" % (
            DAYS[t.tm_wday], MONTHS[t.tm_mon - 1], t.tm_mday, hms, t.tm_year)
    return "%s, %02d %s %04d %s GMT" % (
        DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year, hms)


class Window:
    """--window N/Ws: N a window of W seconds, on the wall clock."""

    def __init__(self, spec):
        n, _, w = spec.partition("/")
        if not w.endswith("s"):
            raise ValueError(spec)
        self.n, self.w_ns = int(n), int(float(w[:-1]) * 1e9)
        if self.n < 0 or self.w_ns <= 0:
            raise ValueError(spec)
        self.index, self.count = None, 0

    def judge(self, mono_ns, wall_ns):
        """(status, None) or (429, the wall ns to come back at)."""
        index = wall_ns // self.w_ns
        if index != self.index:
            self.index, self.count = index, 0
        if self.count < self.n:
            self.count += 1
            return 200, None
        return 429, (index + 1) * self.w_ns


class Sliding(Window):
    """--sliding N/Ws: N in any W seconds, by a log of the last N."""

    def __init__(self, spec):
        super().__init__(spec)
        self.log = []

    def judge(self, mono_ns, wall_ns):
        self.log = [t for t in self.log if t > wall_ns - self.w_ns]
        if len(self.log) < self.n:
            self.log.append(wall_ns)
            return 200, None
        return 429, self.log[0] + self.w_ns


class Bucket:
    """--bucket R/s,B: a token bucket on the monotonic clock."""

    def __init__(self, spec):
        rate, _, burst = spec.partition(",")
        if not rate.endswith("/s"):
            raise ValueError(spec)
        self.rate, self.burst = float(rate[:-2]), float(burst)
        if self.rate <= 0 or self.burst < 1:
            raise ValueError(spec)
        self.tokens, self.last = self.burst, time.monotonic_ns()

    def judge(self, mono_ns, wall_ns):
        self.tokens = min(self.burst, self.tokens +
                          (mono_ns - self.last) * self.rate / 1e9)
        self.last = mono_ns
        if self.tokens >= 1:
            self.tokens -= 1
            return 200, None
        return 429, wall_ns + 1000000000


class Fixed:
    """--status CODE [--retry-after S]."""

    def __init__(self, code, retry_after):
        self.code, self.retry_after = code, retry_after

    def judge(self, mono_ns, wall_ns):
        if self.retry_after is None:
            return self.code, None
        return self.code, wall_ns + int(self.retry_after * 1e9)


def make_handler(mode, date_form, log):
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, with_body):
            length = int(self.headers.get("Content-Length") or 0)
            if length > 0:
                self.rfile.read(length)
            with lock:
                mono_ns, wall_ns = time.monotonic_ns(), time.time_ns()
                status, until_ns = mode.judge(mono_ns, wall_ns)
                log.write("%d %d %s %d\n" % (mono_ns, wall_ns, self.path,
                                             status))
                log.flush()
            body = b"ok\n" if status < 300 else (
                "%d\n" % status).encode()
            self.send_response(status)
            if until_ns is not None:
                if date_form:
                    when = -(-until_ns // 1000000000)
                    self.send_header("Retry-After", http_date(when, date_form))
                else:
                    wait_s = max(0, math.ceil((until_ns - wall_ns) / 1e9))
                    self.send_header("Retry-After", str(wait_s))
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def do_GET(self):
            self.answer(True)

        def do_POST(self):
            self.answer(True)

        def do_HEAD(self):
            self.answer(False)

        def log_message(self, *args):
            pass

    return Handler


def main():
    p = argparse.ArgumentParser(
        description="An HTTP server that enforces a quota (see its source).")
    m = p.add_mutually_exclusive_group(required=True)
    m.add_argument("--window", metavar="N/Ws")
    m.add_argument("--sliding", metavar="N/Ws")
    m.add_argument("--bucket", metavar="R/s,B")
    m.add_argument("--status", metavar="CODE", type=int)
    p.add_argument("--retry-after", metavar="S", type=float)
    p.add_argument("--date", nargs="?", const="imf",
                   choices=["imf", "rfc850", "asctime"])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--log", default=os.devnull)
    a = p.parse_args()
    try:
        if a.window:
            mode = Window(a.window)
        elif a.sliding:
            mode = Sliding(a.sliding)
        elif a.bucket:
            mode = Bucket(a.bucket)
        else:
            if not 100 <= a.status <= 599:
                raise ValueError(a.status)
            mode = Fixed(a.status, a.retry_after)
    except ValueError as e:
        p.error("invalid mode value %s (try --window 5/1s, "
                "--bucket 2/s,4, --status 429)" % e)
    if a.retry_after is not None and a.status is None:
        p.error("--retry-after goes with --status")
    log = open(a.log, "a")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", a.port),
        make_handler(mode, a.date, log))
    server.daemon_threads = True
    port = server.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(a.port_file + ".tmp", a.port_file)
    else:
        print(port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
