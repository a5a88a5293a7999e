"""A league worker process (``python -m arena.league.workers``) whose parent stops
reading its replies (cancelled, killed) ends quietly: no traceback in the log of the
program that started it (``arena serve``'s at shutdown)."""

from __future__ import annotations

import pickle
import struct
import subprocess
import sys
import time

from arena.league.play import GameSettings
from arena.league.schedule import table_games
from arena.plugins import discover
from arena.settings import Limits


def _frame(value: object) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack(">I", len(data)) + data


def test_a_worker_whose_parent_stopped_reading_ends_without_a_traceback() -> None:
    registry = discover()
    specs = {name: registry.bot(name) for name in ("random", "first")}
    settings = GameSettings("ra", limits=Limits(sandbox="none"))
    worker = subprocess.Popen([sys.executable, "-m", "arena.league.workers"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(_frame((settings, specs, 4)))
    for seed in range(4):
        game = table_games("ra", ["random", "first"], seed=seed)[0]
        worker.stdin.write(_frame((game.game_id, game.seats, game.seed, game.parameters,
                                   None)))
    worker.stdin.flush()
    worker.stdout.close()  # the parent reads no reply: the worker's sends break
    try:
        deadline = time.monotonic() + 60
        while worker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker.poll() is not None, "the worker went on after its parent left"
    finally:
        worker.stdin.close()
        if worker.poll() is None:
            worker.kill()
        worker.wait(timeout=30)
        assert worker.stderr is not None
        stderr = worker.stderr.read().decode()
    assert worker.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
