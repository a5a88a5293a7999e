"""Epoch scoring, category by category (pure functions over the board's lists)."""

from __future__ import annotations

from arena.games.ra_dice.board import (
    CIVILIZATION_POINTS,
    MONUMENT_BONUS,
    MONUMENT_COLUMN_POINTS,
    NUM_COLUMNS,
    PHARAOH_BEST,
    PHARAOH_WORST,
)


def pharaoh_points(pharaoh: list[int]) -> list[int]:
    """+5 for the furthest marker(s), -2 for the last; nothing if everybody ties."""
    best, worst = max(pharaoh), min(pharaoh)
    if best == worst:
        return [0] * len(pharaoh)
    return [PHARAOH_BEST if p == best else PHARAOH_WORST if p == worst else 0 for p in pharaoh]


def nile_points(nile: list[int], floods: list[int]) -> list[int]:
    """A player with at least one flood marker scores the space his markers stand on."""
    return [space if flooded else 0 for space, flooded in zip(nile, floods, strict=True)]


def civilization_points(markers: list[int]) -> list[int]:
    """By number of own markers in the Civilization area: -5, 0, 0, 5, 10, 15."""
    return [CIVILIZATION_POINTS[count] for count in markers]


def monument_points(spaces: list[int], num_players: int) -> list[int]:
    """Distinct columns (1-6: 1 each, 7: 10, 8: 15) plus 5/10/15 per column with 3/4/5."""
    points = [0] * num_players
    for seat in range(num_players):
        columns = 0
        for column in range(NUM_COLUMNS):
            own = spaces[5 * column : 5 * column + 5].count(seat)
            if own:
                columns += 1
                points[seat] += MONUMENT_BONUS[own]
        points[seat] += MONUMENT_COLUMN_POINTS[columns]
    return points
