"""Shared fixture: one synthetic league, the same for every test."""

from __future__ import annotations

import dataclasses

import pytest

from arena.bench.synthetic import simulate_league
from arena.records import GameResult

from .helpers import TRUTH


@pytest.fixture(scope="session")
def league() -> list[GameResult]:
    """400 games of 2-4 players; a few failures sprinkled in, always on the same games."""
    results = simulate_league(TRUTH, 400, player_counts=(2, 3, 4), seed=7, game="ra")
    return [
        dataclasses.replace(r, failures={0: "timeout"})
        if k % 50 == 0
        else dataclasses.replace(r, failures={1: "crash"})
        if k % 70 == 1
        else r
        for k, r in enumerate(results)
    ]
