#!/usr/bin/env python3
"""The words an interactive bash lists when TAB is typed after a line.

python3 tests/tools/bcomplete.py BASH_COMPLETION COMPLETION-FILE 'LINE'

bash runs on a pseudo-terminal 200 columns wide, with bash-completion
(the file BASH_COMPLETION) and COMPLETION-FILE sourced, and lists the
matches at the first TAB; what readline shows, as a user sees it, is
printed a word a line.  Nothing is read from the user's files.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

PROMPT = "<tbp>"


def read_until(fd, buf, marker, seconds):
    """Read from fd into buf until marker is in it; buf, found."""
    end = time.monotonic() + seconds
    while marker not in buf:
        left = end - time.monotonic()
        if left <= 0:
            return buf, False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return buf, False
            if not data:
                return buf, False
            buf += data.decode("utf-8", "replace")
    return buf, True


def main():
    bash_completion, comp, line = sys.argv[1:4]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.environ["INPUTRC"] = "/dev/null"
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    setup = [
        f"source '{bash_completion}'; source '{comp}'",
        "bind 'set show-all-if-ambiguous on'",
        "bind 'set completion-query-items 0'",
        "bind 'set page-completions off'",
        "bind 'set enable-bracketed-paste off'",
        f"PS1='{PROMPT}'; echo RE''ADY",
    ]
    os.write(fd, ("\n".join(setup) + "\n").encode())
    buf, ok = read_until(fd, "", "READY\r\n" + PROMPT, 30)
    if not ok:
        sys.exit("bcomplete: bash did not start: " + buf[-500:])
    os.write(fd, (line + "\t").encode())
    # The list, then the prompt and the line again.
    buf, ok = read_until(fd, "", "\n" + PROMPT, 15)
    os.write(fd, b"\x15exit\n")
    os.close(fd)
    os.waitpid(pid, 0)
    if not ok:
        sys.exit("bcomplete: no list of matches: " + repr(buf))
    shown = buf[buf.index("\n"):buf.rindex("\n" + PROMPT)]
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)
    for word in shown.split():
        print(word)


main()
