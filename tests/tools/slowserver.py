#!/usr/bin/env python3
"""An HTTP server for the --exec tests: slow at first, then fast.

slowserver.py PORTFILE LOG SLOW_FOR SLOW_S FAST_S

Listens on a free loopback port, written to PORTFILE once it listens.  For
SLOW_FOR seconds from its start each answer takes SLOW_S seconds, then
FAST_S.  Each request's arrival is logged to LOG as "TIME INFLIGHT": the
monotonic time in seconds and the requests in flight with it.
"""
import http.server
import os
import sys
import threading
import time

portfile, log, slow_for, slow_s, fast_s = sys.argv[1:6]
slow_for, slow_s, fast_s = float(slow_for), float(slow_s), float(fast_s)
start = time.monotonic()
lock = threading.Lock()
inflight = 0
out = open(log, "a", buffering=1)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global inflight
        now = time.monotonic()
        with lock:
            inflight += 1
            out.write("%.6f %d\n" % (now, inflight))
        time.sleep(slow_s if now - start < slow_for else fast_s)
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with lock:
            inflight -= 1

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
