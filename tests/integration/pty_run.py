#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Run a command on a pseudo-terminal (its stdin, stdout and stderr), typing
# what a script says when the output shows what it waits for.
#   pty_run.py SCRIPT -- COMMAND [ARG...]
# SCRIPT is JSON: [[WAIT, TYPE], ...]: once the output (since the previous
# step) contains WAIT, TYPE is written ("\u0003" is Ctrl-C, as a terminal
# sends it). Everything the command wrote goes to stdout; the exit status is
# the command's (128 + N for a signal). At most 20 s.
import json
import os
import pty
import select
import sys
import time

def main():
    steps = json.loads(sys.argv[1])
    argv = sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    seen = b""
    out = bytearray()
    deadline = time.time() + 20
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
            seen += data
        while steps and steps[0][0].encode() in seen:
            seen = b""
            os.write(fd, steps.pop(0)[1].encode())
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode("utf-8", "replace"))
    if steps:
        sys.stdout.write("\npty_run: never saw %r\n" % steps[0][0])
    code = os.waitstatus_to_exitcode(status)
    sys.exit(128 - code if code < 0 else code)

main()
