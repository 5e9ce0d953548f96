#!/usr/bin/env python3
"""Check that every quota example of the man page keeps the quota it names.

quotas.py [MANPAGE]

A paragraph before an example that names a quota ("a quota of 100 calls
a minute", "quota is 100 requests in any minute", "stays under 2000
requests in any second"; "the same quota": the one before) claims it for
each tbthrottle of the example's block.  Each -r of the command, with its
-b (1 unless given), lets at most this many units into any interval of
the quota's period T: burst + rate x T for a token bucket (-a token,
--leaky), N x ceil(T / period) for -a sliding with a rate N/period, and
one window more for -a fixed, whose windows need not start with T's.
The command's limit is the least over its -r; it must be at most the
quota.  Prints a line per claim; exit 1 if any is broken, or if fewer
than MIN_CLAIMS were found (the check would then be checking nothing).
"""
import math
import os
import re
import shlex
import sys

MIN_CLAIMS = 5
SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60,
           "h": 3600, "hour": 3600, "d": 86400, "day": 86400}
CLAIM = re.compile(
    r"(?:quota (?:of|is)|stays under) (\d+) (?:calls|requests) "
    r"(?:a|in any|per) (second|minute|hour|day)")

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
page = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    top, "man", "tbthrottle.1")


def rate(text):
    """A rate N/[k]unit as (N, period in seconds)."""
    m = re.fullmatch(r"(\d+)/(\d*)([a-z]+)", text)
    if not m or m.group(3) not in SECONDS:
        raise ValueError("cannot read the rate " + text)
    return int(m.group(1)), int(m.group(2) or 1) * SECONDS[m.group(3)]


def most_in(words, t):
    """The most units a tbthrottle command lets into any interval of t s."""
    alg = "leaky" if "--leaky" in words else "token"
    limits = []
    for i, w in enumerate(words):
        if w == "-a":
            alg = words[i + 1]
        elif w == "-r":
            limits.append([rate(words[i + 1]), 1])
        elif w == "-b" and limits:
            limits[-1][1] = int(words[i + 1])
    if not limits:
        raise ValueError("no -r in " + " ".join(words))
    most = []
    for (n, period), burst in limits:
        if alg == "sliding":
            most.append(n * math.ceil(t / period))
        elif alg == "fixed":
            most.append(n * (math.ceil(t / period) + 1))
        else:
            most.append((1 if alg == "leaky" else burst) + n * t / period)
    return min(most)


def commands(block):
    """Each tbthrottle command of a block, as words from tbthrottle on."""
    text = block.replace("\\e\n", " ").replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        for part in re.split(r"[|&;]|&&", line):
            part = part.strip().strip("'\"")
            if "tbthrottle " in part:
                words = shlex.split(part[part.index("tbthrottle "):],
                                    posix=True)
                out.append(words)
    return out


def main():
    lines = open(page).read().splitlines()
    para, quota, claims, bad = [], None, 0, 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".Bd -literal"):
            j = i + 1
            while not lines[j].startswith(".Ed"):
                j += 1
            text = " ".join(para)
            m = CLAIM.search(text)
            if m:
                quota = (int(m.group(1)), SECONDS[m.group(2)])
            elif "same quota" not in text:
                quota = None
            if quota is not None:
                for words in commands("\n".join(lines[i + 1:j])):
                    claims += 1
                    most = most_in(words, quota[1])
                    ok = most <= quota[0]
                    bad += not ok
                    print("%s %s: at most %g in %d s, the quota %d" % (
                        "ok" if ok else "BROKEN", " ".join(words[:8]),
                        most, quota[1], quota[0]))
            para, i = [], j + 1
            continue
        if line.startswith(".Pp") or line.startswith(".Sh"):
            para = []
        elif not line.startswith(".") or line.startswith(".Ql"):
            para.append(line)
        i += 1
    if claims < MIN_CLAIMS:
        print("only %d quota examples found (want %d): is the page read "
              "right?" % (claims, MIN_CLAIMS))
        return 1
    return 1 if bad else 0


sys.exit(main())
