"""Synthetic leagues of known strength, for the rating benchmark and the rating tests.

Bots have known Elo ratings; placements are drawn from Gumbel noise on the Elo scale,
which makes every pairwise result exactly logistic in the rating gap, as Elo assumes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from arena.rating import ELO_PER_NATURAL
from arena.records import GameResult


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
