"""Epoch and final scoring: pure functions of the players' holdings and suns."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.ra.tiles import CIVILIZATIONS, FLOOD, GOD, GOLD, MONUMENTS, NILE, PHARAOH

CIVILIZATION_POINTS = (-5, 0, 0, 5, 10, 15)  # by number of different civilizations
MONUMENT_VARIETY_POINTS = (0, 1, 2, 3, 4, 5, 6, 10, 15)  # by number of different monuments
MONUMENT_SET_POINTS = (0, 0, 0, 5, 10, 15)  # by number of identical monuments


def majority_points(values: Sequence[int], most: int, fewest: int) -> list[int]:
    """``most`` to everyone tied for the highest value, ``fewest`` to everyone tied for the
    lowest; nothing to anyone when all values are equal."""
    high, low = max(values), min(values)
    if high == low:
        return [0] * len(values)
    return [most if v == high else fewest if v == low else 0 for v in values]


def civilization_points(holding: Sequence[int]) -> int:
    counts = holding[CIVILIZATIONS.start : CIVILIZATIONS.stop]
    return CIVILIZATION_POINTS[len(counts) - counts.count(0)]  # by kinds held


def monument_points(holding: Sequence[int]) -> int:
    counts = holding[MONUMENTS.start : MONUMENTS.stop]
    variety = MONUMENT_VARIETY_POINTS[len(counts) - counts.count(0)]  # by kinds held
    return variety + sum(MONUMENT_SET_POINTS[c] for c in counts)


def nile_points(holding: Sequence[int]) -> int:
    """One per Nile and flood, but only for a player with at least one flood."""
    return holding[NILE] + holding[FLOOD] if holding[FLOOD] else 0


def epoch_points(
    holdings: Sequence[Sequence[int]], suns: Sequence[Sequence[int]], final: bool
) -> list[list[int]]:
    """Points per player per category (in ``tiles.CATEGORIES`` order) for one epoch end.

    ``suns`` are each player's suns, face up and face down; monuments and suns only
    count at the end of the final epoch."""
    pharaohs = majority_points([h[PHARAOH] for h in holdings], 5, -2)
    sun_points = majority_points([sum(s) for s in suns], 5, -5) if final else [0] * len(suns)
    return [
        [
            2 * h[GOD],
            pharaohs[p],
            nile_points(h),
            3 * h[GOLD],
            civilization_points(h),
            monument_points(h) if final else 0,
            sun_points[p],
        ]
        for p, h in enumerate(holdings)
    ]
