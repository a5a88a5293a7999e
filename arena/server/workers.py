"""``arena serve DIR --workers N``: N web processes on one listening socket (PostgreSQL
only: they share its database, arena/server/bus.py).

This process binds the address once and starts N ``arena serve`` processes that accept
on that socket (the kernel hands each connection to one of them); each serves pages,
the API and event streams, and one of them coordinates the ladder.  It starts another in
the place of one that ends unbidden (a crash, ``kill -9``: the others go on serving and
one of them takes over the coordination within seconds).  A stop (Ctrl-C, SIGTERM) stops
every process within seconds and says so in one line, as ``arena serve`` does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError

STOP_SECONDS = 8.0  # a stop: after this, what is left of the processes is killed
RESTART_SECONDS = 5.0  # one slot's processes are started at most this often
EARLY_SECONDS = 20.0  # a process that ends this soon after its start failed to start
EARLY_ENDS = 3  # ... this many times in a row: the server stops (it cannot start)
POLL_SECONDS = 0.2
WORKER_FD_ENV = "ARENA_SERVE_WORKER"  # "FD NUMBER OF": how a web process knows it is one


@dataclass
class Slot:
    number: int
    process: subprocess.Popen[bytes] | None = None
    started: float = field(default=-RESTART_SECONDS)
    early: int = 0  # ends soon after a start, in a row


class CannotStart(ArenaError):
    pass


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening (ArenaError in one line if it cannot)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(256)
    except OSError as problem:
        sock.close()
        raise ArenaError(f"cannot listen on {host}:{port}: {problem.strerror or problem}"
                         ) from None
    sock.set_inheritable(True)
    return sock


def run_workers(folder: Path, host: str, port: int, count: int, extra: list[str],
                announce: str) -> int:
    """Serve with ``count`` web processes until SIGINT or SIGTERM; the exit code as
    ``arena serve``'s (130 after SIGINT, 0 after SIGTERM)."""
    from arena import processes

    sock = listening_socket(host, port)
    stop: list[str] = []

    def stopped(number: int, frame: object) -> None:
        if not stop:
            stop.append(signal.Signals(number).name)

    previous = {sig: signal.signal(sig, stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
    slots = [Slot(number) for number in range(1, count + 1)]
    began = 0.0
    failed: CannotStart | None = None
    try:
        while not stop:
            try:
                for slot in slots:
                    _keep(slot, folder, sock, count, extra)
            except CannotStart as problem:
                failed = problem
                stop.append("SIGTERM")
                break
            if not began and all(s.process is not None for s in slots):
                print(announce, file=sys.stderr, flush=True)
                began = time.monotonic()
            time.sleep(POLL_SECONDS)
        began = time.monotonic()
        running = [s.process for s in slots if s.process is not None]
        for process in running:  # (a terminal's Ctrl-C reached them too: no matter)
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        while time.monotonic() < deadline and any(p.poll() is None for p in running):
            time.sleep(POLL_SECONDS)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        left = processes.end(processes.descendants(os.getpid()))
        sock.close()
    if failed is not None:
        raise failed
    print(f"arena serve: stopped ({stop[0]}) in {time.monotonic() - began:.1f} s; the "
          "ladder's games in flight are played again at the next start"
          + (f" ({len(left)} processes could not be ended)" if left else ""),
          file=sys.stderr, flush=True)
    return 130 if stop[0] == "SIGINT" else 0


def _keep(slot: Slot, folder: Path, sock: socket.socket, count: int,
          extra: list[str]) -> None:
    """Start the slot's process if it has none, or another if it ended unbidden."""
    if slot.process is not None:
        code = slot.process.poll()
        if code is None:
            return
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        slot.early = slot.early + 1 if time.monotonic() - slot.started < EARLY_SECONDS \
            else 0
        if slot.early >= EARLY_ENDS:
            raise CannotStart(f"web process {slot.number} ended {EARLY_ENDS} times in a row "
                              f"within seconds of its start (last: {how}; its lines above "
                              "say why): the server stops")
        print(f"arena serve: web process {slot.number} (pid {slot.process.pid}) ended "
              f"({how}); starting another", file=sys.stderr, flush=True)
        slot.process = None
    if time.monotonic() - slot.started < RESTART_SECONDS:
        return
    slot.started = time.monotonic()
    env = {**os.environ, WORKER_FD_ENV: f"{sock.fileno()} {slot.number} {count}"}
    slot.process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(folder), *extra],
        pass_fds=(sock.fileno(),), env=env)


def worker_slot() -> tuple[int, int, int] | None:
    """In a web process started here: its socket's descriptor, its number and how many
    there are; None in a lone ``arena serve``."""
    value = os.environ.pop(WORKER_FD_ENV, "")  # (not for its own children)
    parts = value.split()
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])
