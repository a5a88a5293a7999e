"""Shared fixtures: synthetic leagues, and a real store written through the league's API."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.league.results import GameResult
from arena.league.store import PlayedGame, create_store
from arena.rating_bench import simulate_league

NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
TRUTH = {name: 1300.0 + 80.0 * i for i, name in enumerate(NAMES)}


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


def write_store(
    folder: Path,
    results: Sequence[GameResult],
    name: str = "test league",
    config: dict[str, object] | None = None,
) -> Path:
    store = create_store(folder)
    try:
        store.save_setup(name, config or {"seed": 3}, {}, [])
        for result in results:
            store.add_game(
                PlayedGame(
                    game_id=result.game_id,
                    game=result.game,
                    table="t",
                    round=0,
                    seats=result.bots,
                    seed=0,
                    status="failed" if result.failures else "ok",
                    scores=result.scores,
                    placements=result.placements,
                    failures=result.failures,
                )
            )
    finally:
        store.close()
    return folder
