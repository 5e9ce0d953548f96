#!/usr/bin/env python3
"""Run every example of the man page, and check README.md shows the same.

examples.py TBTHROTTLE WORKDIR [REDIS_PORT]

Each literal block of man/tbthrottle.1 that runs tbthrottle is run with
bash in WORKDIR, in order (a run started in the background by one block is
there for the next, as the page tells it), with local stand-ins for what is
not on this machine: the network (curl, nc, ssh), the commands the examples
hand records to (forward-requests, sync-user, ...), and tail -F, which
would never end (a stand-in that reads the file once).  A cron line runs
its command.  A block that starts with '$ cat FILE' writes the lines shown
to FILE.  calls.log is a log still being written (a FIFO), so that the
run the page names api is there for -R api --reload.  The Redis of an example is a local redis-server on REDIS_PORT,
asking the password the example gives; without one, that block is left
out, and said so.  Every block must exit 0 within 30 s, and every code
line of README.md's Examples must be a line of the page.  Prints a line
per block; exit 1 if any failed.
"""
import os
import re
import subprocess
import sys

tb, work = sys.argv[1], sys.argv[2]
redis_port = sys.argv[3] if len(sys.argv) > 3 else ""
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def blocks_of_page():
    text = open(os.path.join(top, "man", "tbthrottle.1")).read()
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith(".Bd -literal"):
            cur = []
        elif line.startswith(".Ed") and cur is not None:
            out.append("\n".join(cur).replace("\\e", "\\"))
            cur = None
        elif cur is not None:
            cur.append(line)
    return [b for b in out if "tbthrottle" in b]


def readme_lines():
    text = open(os.path.join(top, "README.md")).read()
    part = text[text.index("## Examples"):text.index("## Usage in brief")]
    return [l[4:].strip() for l in part.splitlines()
            if l.startswith("    ") and l.strip()]


STUBS = {
    # What records are handed to: read them all.
    "sink": "#!/bin/sh\ncat >/dev/null\n",
    # A command run per record: note it.
    "each": "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>\"$EXAMPLES_LOG\"\n",
    # The network.
    "curl": "#!/bin/sh\nfor a; do last=$a; done\n"
            "case $last in *.iso) head -c 300000 /dev/zero ;; esac\n"
            "echo \"curl $*\" >>\"$EXAMPLES_LOG\"\n",
    "nc": "#!/bin/sh\ncat >/dev/null\n",
    "ssh": "#!/bin/sh\nshift\nmkdir -p remote && cd remote && sh -c \"$*\"\n",
    "tail": "#!/bin/sh\nfor a; do f=$a; done\ncat \"$f\"\n",
    "consumer": "#!/bin/sh\ncat >/dev/null\n",
}
SINKS = ["forward-requests", "make-calls", "send-events", "ship-logs",
         "post-events", "run-jobs", "replay-requests"]
EACH = ["sync-user", "sync-order", "call-api", "thumb", "curl-retry"]
LISTS = {"list-users": "alice\nbob\n", "list-orders": "o1\no2\n"}


def sandbox():
    bin_ = os.path.join(work, "bin")
    os.makedirs(bin_, exist_ok=True)
    os.makedirs(os.path.join(work, "run"), mode=0o700, exist_ok=True)

    def put(name, body):
        p = os.path.join(bin_, name)
        open(p, "w").write(body)
        os.chmod(p, 0o755)
    for n in SINKS:
        put(n, STUBS["sink"])
    for n in EACH:
        put(n, STUBS["each"])
    for n, out in LISTS.items():
        put(n, "#!/bin/sh\nprintf '%s'\n" % out.replace("\n", "\\n"))
    for n in ("curl", "nc", "ssh", "tail"):
        put(n, STUBS[n])
    put("consumer", STUBS["consumer"])
    os.symlink(os.path.join(bin_, "consumer"), os.path.join(work, "consumer"))
    os.symlink(os.path.abspath(tb), os.path.join(bin_, "tbthrottle"))

    def f(name, text):
        p = os.path.join(work, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(text)
    # 300 requests over 3 s: a replay at its own speed is 3 s long.
    clf = "".join('10.0.0.%d - - [01/Jan/2024:00:00:%02d +0000] "GET /p%d '
                  'HTTP/1.1" 200 5\n' % (i % 7, i // 100, i)
                  for i in range(300))
    f("access.log", clf)
    f("urls.txt", "http://example.com/a\nhttp://example.com/b\n")
    f("more-urls.txt", "http://example.com/c\nhttp://example.com/d\n")
    f("users.csv", "alice,1\nbob,2\n")
    f("ids.txt", "1\n2\n3\n")
    f("events.log", "".join("2024-01-01T00:00:00.%02dZ e%d\n" % (i, i)
                            for i in range(50)))
    f("events.jsonl", "".join('{"n":%d}\n' % i for i in range(50)))
    f("app.log", "".join("2024-01-01T00:00:0%d.%dZ line\n" % (i // 10, i % 10)
                         for i in range(15)))
    f("all.log", "".join("host%d x\n" % (i % 3) for i in range(30)))
    f("jobs.fifo", "".join("j%d\n" % i for i in range(5)))
    f("requests.log", "".join("r%d\n" % i for i in range(50)))
    f("backup.tar", "x" * 20000)
    f("a.jpg", "")
    f("photos/b.jpg", "")
    f("var/log/syslog.1", "".join(
        "Jan  1 00:00:0%d host app: line\n" % i for i in range(3)))


def prepare(block):
    """The block as a script: cron prefixes off, the transcript's files
    written, waits for named runs, Redis made local."""
    lines = block.splitlines()
    out = ["set -eo pipefail"]
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r"\$ cat (\S+)$", l)
        if m:
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("$ "):
                body.append(lines[i])
                i += 1
            out.append("cat >%s <<'EOF'\n%s\nEOF" % (m.group(1),
                                                     "\n".join(body)))
            continue
        l = re.sub(r"^\$ ", "", l)
        l = re.sub(r"^\*/\d+ \* \* \* \* ", "", l)
        l = l.replace("/var/log/", "var/log/")
        l = l.replace("redis.internal:6379", "127.0.0.1:" + redis_port)
        out.append(l)
        if l.rstrip().endswith("&"):
            name = re.search(r"--name (\S+)", " ".join(lines[:i + 1]))
            if name:
                out.append("for i in $(seq 500); do tbthrottle --list | "
                           "grep -q ' %s ' && break; sleep 0.01; done"
                           % name.group(1))
        i += 1
    return "\n".join(out) + "\n"


def feed_calls():
    """calls.log: a log still being written, for the named run that
    -R reloads: a FIFO fed a line every 0.1 s for 5 s."""
    path = os.path.join(work, "calls.log")
    os.mkfifo(path)
    return subprocess.Popen(
        ["sh", "-c", "for i in $(seq 50); do echo \"c premium-$i x\"; "
         "sleep 0.1; done >calls.log"], cwd=work)


def main():
    sandbox()
    feeder = feed_calls()
    env = dict(os.environ, PATH=os.path.join(work, "bin") + ":" +
               os.environ["PATH"], XDG_RUNTIME_DIR=os.path.join(work, "run"),
               EXAMPLES_LOG=os.path.join(work, "commands.log"))
    bad = 0
    page = blocks_of_page()
    for n, block in enumerate(page, 1):
        first = block.splitlines()[0]
        if "--redis" in block and not redis_port:
            print("skip %d: %s (no redis-server)" % (n, first))
            continue
        # To files, not pipes: a run left in the background holds them.
        err = os.path.join(work, "block%d.err" % n)
        try:
            with open(os.path.join(work, "block%d.out" % n), "w") as o, \
                    open(err, "w") as e:
                r = subprocess.run(["bash", "-c", prepare(block)], cwd=work,
                                   env=env, stdin=subprocess.DEVNULL,
                                   stdout=o, stderr=e, timeout=30)
            ok = r.returncode == 0
            why = "exit %d: %s" % (r.returncode,
                                   open(err).read().strip()[-300:])
        except subprocess.TimeoutExpired:
            ok, why = False, "did not end in 30 s"
        print("%s %d: %s" % ("ok" if ok else "FAIL", n, first))
        if not ok:
            print("   " + why)
            bad += 1
    feeder.kill()
    subprocess.run(["pkill", "-f", "--", "--name (api|replay) "],
                   stderr=subprocess.DEVNULL)
    literal = set()
    for b in page:
        literal.update(l.strip() for l in b.splitlines())
    for l in readme_lines():
        if l not in literal:
            print("FAIL README.md example line not in the page: " + l)
            bad += 1
    print("%d blocks of the page run, %d failed" % (len(page), bad))
    return 1 if bad else 0


sys.exit(main())
