"""``arena bench rating``: how fast the Bradley–Terry fit is, on synthetic leagues.

Also home of ``simulate_league``, the synthetic-league generator the rating tests use:
bots with known Elo ratings, placements drawn from Gumbel noise on the Elo scale (which
makes every pairwise result exactly logistic in the rating gap, as Elo assumes).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena.league.results import GameResult
from arena.rating import ELO_PER_NATURAL, build_pairs, fit_bradley_terry, rate

REPEATS = 3


def simulate_league(
    true_elo: Mapping[str, float],
    num_games: int,
    player_counts: Sequence[int] = (2, 3, 4, 5),
    seed: int = 0,
    game: str = "synthetic",
    seat_bonus: Sequence[float] = (),
) -> list[GameResult]:
    """Games between bots of known strength; seats and player counts drawn at random.

    ``seat_bonus[s]`` Elo is added to whoever sits in seat ``s`` (to test the seat
    diagnostic); seats beyond the list get nothing.
    """
    rng = np.random.default_rng(seed)
    names = list(true_elo)
    strength = np.array([true_elo[name] for name in names])
    results = []
    for g in range(num_games):
        n = int(rng.choice(player_counts))
        seats = rng.choice(len(names), size=n, replace=False)
        bonus = np.array([seat_bonus[s] if s < len(seat_bonus) else 0.0 for s in range(n)])
        performance = strength[seats] + bonus + rng.gumbel(scale=ELO_PER_NATURAL, size=n)
        order = np.argsort(-performance)
        placements = np.empty(n, dtype=int)
        placements[order] = np.arange(1, n + 1)
        results.append(
            GameResult(
                game_id=f"g{g:07d}",
                game=game,
                bots=tuple(names[s] for s in seats),
                scores=tuple(float(round(p / 10.0)) for p in performance),
                placements=tuple(int(p) for p in placements),
                sequence=g,
            )
        )
    return results


def spread_ratings(num_bots: int, spread: float = 600.0) -> dict[str, float]:
    """``num_bots`` true ratings evenly spaced over ``spread`` Elo around 1500."""
    step = spread / max(1, num_bots - 1)
    return {f"bot{i:03d}": 1500.0 - spread / 2 + i * step for i in range(num_bots)}


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """Fit 100 bots × 1,000,000 pairwise results; time each stage separately."""
    seed = int(getattr(args, "seed", 1))
    truth = spread_ratings(100)
    rows = []
    # 100,000 five-player games hold 10 pairs each: a million pairwise results.
    for num_games, counts in ((10_000, (5,)), (100_000, (5,))):
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
