"""A process's descendants, found in ``/proc`` and ended for sure: what a stop of
``arena serve`` leaves behind, nothing (its worker processes, their bots, the rating
process, each in sessions of their own, so no process group holds them all).

A process is named by its pid *and* its start time, so a pid the kernel has given to a
new process since is never signalled."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

Process = tuple[int, int]  # pid, start time (clock ticks after boot)


def _stat(pid: int) -> tuple[int, int, str] | None:
    """The parent, start time and state of ``pid`` (None: gone or unreadable)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name may hold spaces
    return int(fields[1]), int(fields[19]), fields[0]


def descendants(root: int) -> set[Process]:
    """Every live process below ``root`` (its children, theirs, ...), zombies left out.
    Linux only (elsewhere: none found)."""
    children: dict[int, list[tuple[int, int]]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for entry in entries:
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            parent, started, state = stat
            if state != "Z":
                children.setdefault(parent, []).append((int(entry), started))
    found: set[Process] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child[0])
    return found


def alive(processes: set[Process]) -> set[Process]:
    """Those of ``processes`` still running (the same process: the same start time)."""
    still = set()
    for pid, started in processes:
        stat = _stat(pid)
        if stat is not None and stat[1] == started and stat[2] != "Z":
            still.add((pid, started))
    return still


def kill(processes: set[Process]) -> None:
    """SIGKILL each of ``processes`` that is still the process it was."""
    for pid, _ in alive(processes):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def end(processes: set[Process], seconds: float = 3.0, spare: set[int | None] | None = None
        ) -> set[Process]:
    """Kill what is left of ``processes`` (but the pids in ``spare``) and wait up to
    ``seconds`` for them to die (a zombie counts as gone: it runs nothing); returns those
    still there."""
    deadline = time.monotonic() + seconds
    processes = {process for process in processes if process[0] not in (spare or set())}
    while True:
        left = alive(processes)
        if not left or time.monotonic() > deadline:
            return left
        kill(left)
        time.sleep(0.02)
