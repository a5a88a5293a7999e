"""``arena bench rating``: how fast the Bradley–Terry fit is, on synthetic leagues
(:mod:`arena.bench.synthetic`)."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from arena.bench.synthetic import simulate_league, spread_ratings
from arena.rating import ELO_PER_NATURAL, build_pairs, fit_bradley_terry, rate

REPEATS = 3
# (games, player counts) per row: 100,000 five-player games hold a million pairwise results
SIZES: tuple[tuple[int, tuple[int, ...]], ...] = ((10_000, (5,)), (100_000, (5,)))


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """Fit 100 bots × 1,000,000 pairwise results; time each stage separately."""
    seed = int(getattr(args, "seed", 1))
    truth = spread_ratings(100)
    rows = []
    for num_games, counts in SIZES:
        results = simulate_league(truth, num_games, counts, seed=seed)
        timings = []
        for _ in range(REPEATS):  # best of a few: the machine may be shared
            start = time.perf_counter()
            pairs = build_pairs(results)
            aggregated = time.perf_counter()
            wins = pairs.matrix()
            matrix_done = time.perf_counter()
            natural = fit_bradley_terry(wins)
            fitted = time.perf_counter()
            timings.append((aggregated - start, matrix_done - aggregated, fitted - matrix_done))
        to_pairs, aggregate, fit = (min(stage) for stage in zip(*timings, strict=True))
        elo = natural * ELO_PER_NATURAL
        estimate = elo - elo.mean() + 1500.0
        error = float(np.sqrt(np.mean((estimate - np.array(list(truth.values()))) ** 2)))
        rows.append(
            {
                "bots": pairs.size,
                "games": num_games,
                "pairwise results": len(pairs.points),
                "pairs from games (ms)": 1000 * to_pairs,
                "aggregate (ms)": 1000 * aggregate,
                "fit (ms)": 1000 * fit,
                "total (ms)": 1000 * (to_pairs + aggregate + fit),
                "RMS error (Elo)": error,
            }
        )
    small = simulate_league(spread_ratings(20), 2000, seed=seed)
    start = time.perf_counter()
    rate(small, bootstrap=200, seed=seed)
    full = time.perf_counter() - start
    return {
        "title": "Bradley–Terry Elo fit (Newton on the aggregated win matrix), one core",
        "benchmark": "rating",
        "rows": rows,
        "notes": [
            f"best of {REPEATS} runs per stage. pairs from games: GameResult list -> "
            "pairwise arrays; aggregate: -> bot x bot matrix; fit: Newton solve to 1e-10.",
            f"full leaderboard rating of 20 bots x 2,000 games with 200 bootstrap "
            f"resamples: {full:.2f} s",
            "RMS error: against the known ratings (100 bots evenly spread over 600 Elo).",
        ],
    }
