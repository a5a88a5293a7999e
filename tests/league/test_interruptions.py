"""A league process killed (kill -9) or interrupted (SIGINT) at random moments loses at
most the games in flight, never doubles one, never corrupts the store, leaves no child
process behind, and the same command resumes it."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from arena.league.config import load_league
from arena.league.plan import league_schedule
from arena.league.store import DB_NAME, open_store
from tests.league.fakes import bots, fake_record

SCRIPT = Path(__file__).with_name("league_script.py")
ROSTER = ["a", "b", "c", "d", "e", "f"]


def start(path: Path, sleep: float, child: bool = False) -> subprocess.Popen[bytes]:
    argv = [sys.executable, str(SCRIPT), str(path), ",".join(ROSTER), str(sleep)]
    return subprocess.Popen(argv + (["child"] if child else []), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def stored_count(results: Path) -> int:
    if not (results / DB_NAME).exists():
        return 0
    connection = sqlite3.connect(results / DB_NAME, timeout=10)
    try:
        return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0
    finally:
        connection.close()


def check_store(path: Path) -> int:
    config = load_league(path)
    schedule, _ = league_schedule(config, bots(ROSTER))
    expected = {g.game_id: g for g in schedule}
    connection = sqlite3.connect(config.results_dir / DB_NAME)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = connection.execute("SELECT game_id FROM games").fetchall()
    connection.close()
    ids = [row[0] for row in rows]
    assert len(ids) == len(set(ids)), "a game was stored twice"
    assert set(ids) <= set(expected)
    store = open_store(config.results_dir)
    for result in store.results():  # every stored game is whole and right
        want = fake_record(expected[result.game_id])
        assert (result.scores, result.placements) == (want.scores, want.placements)
    store.close()
    return len(ids)


def test_kill_9_at_random_moments_then_resume(league_file) -> None:
    path = league_file(f'roster = {ROSTER!r}'.replace("'", '"'), "concurrency = 4",
                       players="[3, 4]")
    total = len(league_schedule(load_league(path), bots(ROSTER))[0])  # 120 games
    results = load_league(path).results_dir
    rng = random.Random(20261121)
    counts = []
    for _attempt in range(4):
        # a full run takes 120 games x 0.1 s / 4 = 3 s after start-up; kill it at a random
        # moment after it has stored something new
        process = start(path, sleep=0.2)
        deadline = time.monotonic() + 30
        while stored_count(results) <= (counts or [0])[-1] and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.3))
        process.kill()
        process.wait()
        counts.append(check_store(path))
    print("stored after each kill:", counts)
    assert counts[-1] < total, "the league finished before the last kill: make games slower"
    assert all(a < b for a, b in zip(counts, counts[1:], strict=False))  # each run resumed
    process = start(path, sleep=0.02)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert check_store(path) == total


def _children_alive(marker: str) -> list[int]:
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline[:1] == [b"sleep"] and marker.encode() in cmdline:
                alive.append(int(entry.name))
    return alive


def test_ctrl_c_stops_cleanly_and_resumes(league_file) -> None:
    path = league_file('roster = ["a", "b", "c", "d", "e", "f"]', "concurrency = 2")
    total = len(league_schedule(load_league(path), bots(ROSTER))[0])  # 60 games
    marker = f"0.{os.getpid()}7"  # each game runs `sleep <marker>`, a child process
    process = start(path, sleep=float(marker), child=True)
    results = load_league(path).results_dir
    deadline = time.monotonic() + 30
    while stored_count(results) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children_alive(marker), "games should be in flight"
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=20)
    assert process.returncode == 130, err.decode()
    assert b"interrupted after" in err and b"Run the same command to resume" in err
    assert b"Traceback" not in err
    assert _children_alive(marker) == []
    interrupted_at = check_store(path)
    assert 2 <= interrupted_at < total
    # The same command finishes the league (fast games this time).
    process = start(path, sleep=0.0)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert check_store(path) == total
