"""``arena bench plan``: how long planning a league of 500 bots takes (the schedule with
its seeds, ids, order and balance), against the ids alone built the plain way in the same
run (``json.dumps`` then sha256 per game: the work planning cannot avoid).

Rows: a balanced sample (3 and 4 players, max_games 20,000) and a complete round robin at
2 players (249,500 games).  Goal (issue 15): a 500-bot league plans in under a second."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from typing import Any

from arena.league.schedule import build_schedule

BOTS = 500
CASES: tuple[tuple[str, tuple[int, ...], int | None], ...] = (
    ("sample, 3-4 players, max_games 20000", (3, 4), 20_000),
    ("complete round robin, 2 players", (2,), None),
)


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    seed = int(getattr(args, "seed", 1))
    bots = [f"bot{i:03d}" for i in range(BOTS)]
    rows = []
    for label, players, cap in CASES:
        start = time.perf_counter()
        games, _ = build_schedule("ra", bots, players, seed=seed, max_games=cap)
        planned = time.perf_counter() - start
        start = time.perf_counter()
        for game in games:  # the baseline: each id the plain way
            text = json.dumps(["ra", list(game.seats), game.seed], separators=(",", ":"))
            hashlib.sha256(text.encode()).hexdigest()
        baseline = time.perf_counter() - start
        rows.append({
            "league": label, "bots": BOTS, "games": len(games), "plan (s)": planned,
            "plan (µs/game)": 1e6 * planned / len(games),
            "ids via json.dumps (s)": baseline,
        })
    return {
        "title": f"Planning a league of {BOTS} bots (schedule, seeds, ids, order, balance)",
        "benchmark": "plan",
        "rows": rows,
        "notes": [
            "baseline: the ids of the same games built with json.dumps + sha256, same run",
            "goal (issue 15): a 500-bot league plans in under a second",
        ],
    }
