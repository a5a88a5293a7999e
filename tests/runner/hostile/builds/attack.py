"""A build step that misbehaves: ``attack.py KIND MARKER``.  It says "contained: ..." and
exits 1 when its attack fails, "ESCAPED: ..." when it succeeds (the tests look for both).
Every process it starts carries MARKER in its command line, so that the tests find any
left behind."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

KIND, MARKER = sys.argv[1], sys.argv[2]


def contained(what):
    print(f"contained: {what}", flush=True)
    sys.exit(1)


def linger():
    """A process of the build that would run for ever, MARKER in its command line."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", MARKER],
                            start_new_session=True)


if KIND == "fork":  # as many processes as it can, kept alive
    children = 0
    try:
        while children < 5000:
            linger()
            children += 1
    except OSError as error:
        contained(f"fork refused after {children} processes: {error}")
    print(f"ESCAPED: started {children} processes", flush=True)
    sys.exit(1)

if KIND == "memory":  # 8 GiB in blocks of 64 MiB, every page used (zero-filled)
    print("allocating 8 GiB", flush=True)
    hoard = [bytearray(64 << 20) for _ in range(128)]
    print(f"ESCAPED: allocated {len(hoard) * 64} MiB", flush=True)
    sys.exit(1)

if KIND == "disk":  # many files of 1 MiB, for ever
    block = b"x" * (1 << 20)
    number = 0
    while True:
        with open(f"fill-{number}", "wb") as file:
            file.write(block)
        number += 1

if KIND == "big-file":  # one file, ever larger
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a compiler has it (Python ignores it)
    block = b"x" * (1 << 20)
    with open("huge", "wb") as file:
        while True:
            file.write(block)

if KIND == "network":  # the machine's loopback (the port is in target.txt), then outside
    port = int(Path("target.txt").read_text())
    for address in (("127.0.0.1", port), ("1.1.1.1", 53)):
        try:
            socket.create_connection(address, timeout=3).close()
            print(f"ESCAPED: connected to {address}", flush=True)
            sys.exit(1)
        except OSError as error:
            print(f"contained: {address}: {error}", flush=True)
    sys.exit(1)

if KIND == "write-outside":  # the targets are in target.txt, one a line
    # (what it writes may land in a private view, as /tmp under bubblewrap: the test
    # looks at the machine's files afterwards)
    for path in Path("target.txt").read_text().split("\n"):
        try:
            with open(path, "w") as file:
                file.write("written by a build")
            print(f"wrote, in its view: {path}", flush=True)
        except OSError as error:
            print(f"contained: {path}: {error}", flush=True)
    sys.exit(1)

if KIND == "forever":
    print("thinking for ever", flush=True)
    linger()
    time.sleep(10**6)

if KIND == "daemon":  # builds the bot, and leaves a process in a session of its own
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                      MARKER])
        os._exit(0)
    with open("bot", "w") as file:
        file.write("#!/bin/sh\nexit 0\n")
    os.chmod("bot", 0o755)
    print("built, and a daemon left running", flush=True)
    sys.exit(0)

sys.exit(f"unknown attack {KIND}")
