"""Stopping a busy real `arena serve` (issue 43 item 1): Ctrl-C (SIGINT to the terminal's
whole process group) and a service manager's SIGTERM each end it within seconds, with
exactly one line and no traceback, and leave no process behind (its worker processes,
their bots, the rating process: found in /proc before the stop)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import free_port, make_server_folder, sqlite_files, wait_until

pytestmark = pytest.mark.slow
BUSY = {'house_bots = ["random", "first"]': 'house_bots = ["random", "first", "greedy"]',
        "tables_per_minute = 60": "tables_per_minute = 0"}


def descendants(root: int) -> set[tuple[int, str]]:
    """Every live process below ``root``: (pid, start time), read from /proc."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append((int(entry), fields[19]))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child[0])
    return found


def still_running(processes: set[tuple[int, str]]) -> list[str]:
    """The command lines of those of ``processes`` still running."""
    running = []
    for pid, started in processes:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        # (a process whose command line is gone is exiting: its memory is released)
        if fields[19] == started and fields[0] != "Z" and command:
            running.append(command.decode(errors="replace")[:120])
    return running


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Serve:
    def __init__(self, folder: Path, log: Path) -> None:
        self.port = free_port()
        self.log = log
        with log.open("ab") as output:
            # its own session, as a shell gives a job: a Ctrl-C reaches the whole group
            self.process = subprocess.Popen(
                [sys.executable, "-m", "arena", "serve", str(folder), "--port",
                 str(self.port)], stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True)

    def stored(self) -> int:
        try:
            board = httpx.get(f"http://127.0.0.1:{self.port}/api/v1/leaderboard", timeout=5)
        except httpx.HTTPError:
            assert self.process.poll() is None, self.log.read_text()
            return 0
        return int(board.json()["games"])

    def stop(self, number: int, group: bool, times: int
             ) -> tuple[int, float, str, set[tuple[int, str]]]:
        """Signal it (``times`` in a row) while its ladder plays: its exit code, the
        seconds it took, what it printed after the signal, and the processes it had."""
        before = descendants(self.process.pid)
        printed = self.log.stat().st_size
        start = time.monotonic()
        for _ in range(times):
            if group:
                os.killpg(self.process.pid, number)
            else:
                self.process.send_signal(number)
            time.sleep(0.1)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError(f"not stopped 30 s after signal {number}") from None
        took = time.monotonic() - start
        return code, took, self.log.read_bytes()[printed:].decode(), before


@pytest.mark.parametrize(("number", "group", "times", "code"), [
    (signal.SIGINT, True, 1, 130),  # Ctrl-C in the terminal
    (signal.SIGINT, True, 2, 130),  # ... twice: no more waiting, the processes killed
    (signal.SIGTERM, False, 1, 0),  # a service manager, to the server's pid
])
def test_a_busy_server_stops_within_seconds_in_one_line_leaving_no_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], number: int, group: bool,
        times: int, code: int) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **BUSY)
    log = tmp_path / "serve.log"
    serve = Serve(folder, log)
    try:
        wait_until(lambda: serve.stored() >= 6, 120, "ladder games")
        wait_until(lambda: len(descendants(serve.process.pid)) >= 6, 30, "bots playing")
        exit_code, took, printed, before = serve.stop(number, group, times)
    finally:
        if serve.process.poll() is None:
            os.killpg(serve.process.pid, signal.SIGKILL)
            serve.process.wait()
    name = signal.Signals(number).name
    assert exit_code == code, printed
    assert took < 8, took  # within seconds (the forced stop would take STOP_SECONDS)
    lines = printed.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arena serve: stopped ({name}) in "), \
        printed
    assert "forced" not in printed
    assert len(before) >= 6  # workers, bots, the rating process
    # nothing left: multiprocessing's resource tracker may outlive the server by a moment
    left = [command for command in still_running(before) if "resource_tracker" not in command]
    assert left == [], left
    time.sleep(1)
    assert still_running(before) == []
    # and the server's files as the docs say, after a run with bots
    assert mode(folder) == 0o700
    for name in ("uploads", "logs"):
        assert mode(folder / name) == 0o700, name
    for path in [*sqlite_files(folder), folder / "secret.key", *(folder / "logs").iterdir()]:
        assert mode(path) == 0o600, path
    assert any((folder / "logs").iterdir())
