"""Synthetic leagues and a real store written through the league's API, for the tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.league.results import GameResult
from arena.league.store import PlayedGame, create_store

NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
TRUTH = {name: 1300.0 + 80.0 * i for i, name in enumerate(NAMES)}


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
