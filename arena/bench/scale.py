"""``arena bench scale`` (issue 16 item 5): ``arena leaderboard`` and ``arena report`` on a
store of 100,000 games within 5 seconds each, and the arena's memory flat over a long
league.

1. A store of ``--games`` games (default 100,000; 40 bots of known strength, 2-5 players,
   :func:`arena.bench.synthetic.simulate_league`) is synthesised in a temporary folder.
   Its rows are real store rows (the current schema, written through
   :class:`~arena.league.store.Store`); each game's record is the compressed record of
   one real random Ra game of its player count (ratings and reports read only the
   summary columns, so the records are there for their size on disk).
2. The real commands, end to end, as subprocesses of this interpreter: ``arena
   leaderboard`` and ``arena report`` (wall seconds, peak RSS from ``wait4``), against
   two baselines of the same run: the interpreter starting and importing the arena, and
   plain ``sqlite3`` reading every game's summary columns.  ``--against DIR`` runs the
   same commands with another checkout of the arena first on ``PYTHONPATH`` (before and
   after in one run).
3. A league of ``--league-games`` games (default 10,000) played by in-process random
   bots through the referee (``FunctionBackend``: no processes), stored and shown as
   ``arena run`` does; the arena's RSS (VmRSS) is sampled every 1% of the games and
   reported at 10%, 50% and 100%, with the growth per 10,000 games after the first 10%.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena.bench.synthetic import simulate_league, spread_ratings
from arena.errors import ArenaError

TARGET_SECONDS = 5.0  # issue 16 item 5, per command on 100,000 games
DEFAULT_GAMES = 100_000
DEFAULT_LEAGUE_GAMES = 10_000
BOTS = 40
PLAYER_COUNTS = (2, 3, 4, 5)
FAILURE_SHARE = 0.005  # games where the last seat forfeited (timeout)
REPEATS = 2  # each command is run this many times; the best is reported


# --------------------------------------------------------------------------- the store


def synthesise_store(folder: Path, games: int, seed: int = 1, bots: int = BOTS,
                     counts: Sequence[int] = PLAYER_COUNTS) -> Path:
    """A league store of ``games`` games in ``folder`` (its results folder), quickly:
    one transaction, no referee per game.  Returns ``folder``."""
    import trio

    from arena.league.store import PackedRecord, StoredBot, create_store, pack_record
    from arena.plugins import load_game
    from arena.runner.players import random_player
    from arena.runner.referee import play_game

    truth = spread_ratings(bots)
    results = simulate_league(truth, games, counts, seed=seed, game="ra")
    engine = load_game("ra")
    store = create_store(folder)
    try:
        store.save_setup(
            "scale",
            {"game": "ra", "seed": seed, "players": list(counts), "roster": list(truth),
             "rating": {"bootstrap": 200}},
            {},
            [StoredBot(name, "1.0.0", None, "synthetic") for name in truth],
        )
        templates: dict[int, PackedRecord] = {}
        for n in counts:  # one real game per player count: its record stands for all
            players = [random_player(f"random{i}") for i in range(n)]
            record = trio.run(play_game, engine, players, seed + n)
            dictionary = store.make_dictionary("ra", record)
            templates[n] = pack_record(record.in_league(f"template{n}", "t", 0), dictionary)
        rng = random.Random(seed)
        now = time.time()
        copies = []
        for result in results:
            n = result.num_players
            placements = list(result.placements)
            failures = {}
            if rng.random() < FAILURE_SHARE:
                last = max(range(n), key=lambda s: placements[s])
                failures[last] = "timeout"
            copies.append(dataclasses.replace(
                templates[n], game_id=result.game_id, table=f"t{result.sequence // n}",
                round=result.sequence // 1000, seats=tuple(result.bots),
                seed=result.sequence, scores=tuple(float(s) for s in result.scores),
                placements=tuple(placements), forfeits=failures,
                finished_at=now + result.sequence * 0.01,
            ))
        store.add_games(copies)
    finally:
        store.close()
    return folder


# --------------------------------------------------------------------------- commands


# A small go-between: a child of this (large) process starts with this process's pages,
# and exec keeps the high-water mark, so the command's peak RSS is measured from a fresh
# interpreter a few MB in size instead.  It prints: seconds, peak KB, exit code.
MEASURE = (
    "import os, sys, time\n"
    "start = time.perf_counter()\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    null = os.open(os.devnull, os.O_WRONLY)\n"
    "    os.dup2(null, 1)\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n"
)


def run_measured(argv: Sequence[str], env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one command; ArenaError if it fails."""
    done = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True,
                          text=True, env=env, check=False, cwd=cwd)
    try:
        seconds, peak_kb, code = done.stdout.split()
    except ValueError:
        code = "?"
    if done.returncode != 0 or code != "0":
        raise ArenaError(f"{' '.join(argv[2:])} failed ({code}): {done.stderr.strip()[-300:]}")
    return float(seconds), int(peak_kb) / 1024  # KB on Linux


def _best(argv: Sequence[str], env: dict[str, str] | None = None,
          cwd: Path | None = None) -> tuple[float, float]:
    runs = [run_measured(argv, env, cwd) for _ in range(REPEATS)]
    return min(s for s, _ in runs), max(mb for _, mb in runs)


READ_SUMMARIES = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1])\n"
    "rows = c.execute('SELECT game_id, game, seats, scores, placements, failures"
    " FROM games ORDER BY seq').fetchall()\n"
    "assert rows\n"
)


def _environment(source: str | None) -> dict[str, str]:
    """The environment of a command run with the checkout ``source`` first on the path
    (None: this arena's).  The commands run in the scratch folder: ``python -m`` puts
    the working directory first on the path, so run from a checkout every row measured
    that checkout's arena, ``--against`` included."""
    env = dict(os.environ)
    root = Path(source) if source is not None else Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(root.resolve()), env.get("PYTHONPATH")) if p)
    return env


def measure_commands(results: Path, scratch: Path, against: str | None
                     ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    python = sys.executable
    baselines = {
        "start-up": _best([python, "-c", "import arena.cli"], _environment(None), scratch),
        "read": _best([python, "-c", READ_SUMMARIES, str(results / "league.sqlite")],
                      cwd=scratch),
    }
    commands = {
        "arena leaderboard": ["leaderboard", str(results)],
        "arena report": ["report", str(results), "-o", str(scratch / "report.html"),
                         "--no-replays"],
    }
    sources = [(None, "this arena")] + ([(against, f"--against {against}")] if against else [])
    rows = []
    for name, tail in commands.items():
        for source, label in sources:
            seconds, peak = _best([python, "-m", "arena", *tail], _environment(source),
                                  scratch)
            rows.append({
                "command": name, "arena": label, "seconds": seconds, "peak MB": peak,
                "target s": TARGET_SECONDS,
                "verdict": "pass" if seconds <= TARGET_SECONDS else "FAIL",
                "x start-up": seconds / baselines["start-up"][0],
            })
    figures = {f"{key} seconds": value[0] for key, value in baselines.items()}
    figures.update({f"{key} MB": value[1] for key, value in baselines.items()})
    return rows, figures


# --------------------------------------------------------------------------- the league


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # no /proc: the peak instead

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def league_memory(games: int, folder: Path, seed: int = 1) -> dict[str, Any]:
    """Play a league of about ``games`` games with in-process random bots and sample the
    arena's RSS every 1% of them."""
    from arena.league.backends import FunctionBackend
    from arena.league.config import LeagueConfig
    from arena.league.run import run_league
    from arena.league.schedule import ScheduledGame, build_schedule
    from arena.plugins import load_game
    from arena.records import GameRecord
    from arena.runner.botspec import BotSpec
    from arena.runner.players import random_player
    from arena.runner.referee import play_game

    names = tuple(f"bot{i}" for i in range(8))
    counts = (2, 3, 4)
    per_round = len(build_schedule("ra", names, counts, seed=seed)[0])
    rounds = max(1, math.ceil(games / per_round))
    total = rounds * per_round
    engine = load_game("ra")
    every = max(1, total // 100)
    samples: list[tuple[int, float]] = [(0, rss_mb())]
    played = 0

    async def play(game: ScheduledGame) -> GameRecord:
        nonlocal played
        players = [random_player(name) for name in game.seats]
        record = await play_game(engine, players, game.seed)
        played += 1
        if played % every == 0:
            samples.append((played, rss_mb()))
        return record.in_league(game.game_id, game.table, game.round)

    config = LeagueConfig(
        path=folder / "memory.toml", name="memory", game="ra", players=counts,
        roster=names, rounds=rounds, seed=seed, concurrency=4,
        results_dir=folder / "memory",
    )
    roster = [BotSpec(name=name, version="1.0.0", command=("true",), folder=None,
                      games={"ra": counts}, source="bench") for name in names]
    start = time.perf_counter()
    code = run_league(config, quiet=True, backend=FunctionBackend(play), bots=roster,
                      out=io.StringIO(), err=io.StringIO())
    elapsed = time.perf_counter() - start
    if code != 0:
        raise ArenaError("the memory league was interrupted")
    return {"games": total, "seconds": elapsed, "samples": samples}


def memory_figures(samples: Sequence[tuple[int, float]]) -> dict[str, float]:
    """RSS at 10%, 50% and 100% of the games, and the growth per 10,000 games from 10%
    on (a least-squares slope: the first 10% hold the start-up and the caches filling)."""
    total = samples[-1][0]

    def at(share: float) -> float:
        return min(samples, key=lambda s: abs(s[0] - share * total))[1]

    later = [(n, mb) for n, mb in samples if n >= 0.1 * total]
    slope = 0.0
    if len(later) >= 2 and later[-1][0] > later[0][0]:
        slope = float(np.polyfit([n for n, _ in later], [mb for _, mb in later], 1)[0])
    return {"start MB": samples[0][1], "10% MB": at(0.1), "50% MB": at(0.5),
            "100% MB": at(1.0), "MB per 10,000 games": slope * 10_000}


# --------------------------------------------------------------------------- the target


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    games = getattr(args, "games", None) or DEFAULT_GAMES
    league_games = getattr(args, "league_games", None) or DEFAULT_LEAGUE_GAMES
    against = getattr(args, "against", None)
    seed = int(getattr(args, "seed", 1))
    if against is not None and not (Path(against) / "arena" / "__init__.py").is_file():
        raise ArenaError(f"--against {against}: not a checkout of the arena (no "
                         "arena/__init__.py in it)")
    with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as folder:
        scratch = Path(folder)
        start = time.perf_counter()
        results = synthesise_store(scratch / "results", games, seed)
        synthesis = time.perf_counter() - start
        rows, baselines = measure_commands(results, scratch, against)
        league = league_memory(league_games, scratch, seed)
    memory = memory_figures(league["samples"])
    ours = {row["command"]: row for row in rows if row["arena"] == "this arena"}
    target = ", ".join(f"{name} {row['seconds']:.2f} s ({row['verdict']})"
                       for name, row in ours.items())
    return {
        "title": f"Leaderboard and report on {games:,} stored games, one run each as a "
                 f"subprocess (best of {REPEATS})",
        "benchmark": "scale",
        "rows": rows,
        "baseline": baselines,
        "league": {"games": league["games"], "seconds": league["seconds"], **memory},
        "notes": [
            f"target (issue 16 item 5): each command within {TARGET_SECONDS:g} s on "
            f"{games:,} games: {target}",
            f"baseline (same run): python start-up + import arena.cli "
            f"{baselines['start-up seconds']:.2f} s / {baselines['start-up MB']:.0f} MB; "
            f"plain sqlite3 reading every game's summary columns "
            f"{baselines['read seconds']:.2f} s / {baselines['read MB']:.0f} MB",
            f"store: {BOTS} bots of known strength, {PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]}"
            f" players, synthesised in {synthesis:.1f} s (one real Ra record per player "
            "count stands for every game's record)",
            f"league memory: {league['games']:,} games of in-process random bots "
            f"(referee, store, progress) in {league['seconds']:.0f} s; arena RSS "
            f"start {memory['start MB']:.0f} MB, at 10% {memory['10% MB']:.0f} MB, "
            f"50% {memory['50% MB']:.0f} MB, 100% {memory['100% MB']:.0f} MB; growth "
            f"{memory['MB per 10,000 games']:+.2f} MB per 10,000 games after the first 10%",
        ],
    }
