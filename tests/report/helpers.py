"""Synthetic leagues and a real store written through the league's API, for the tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.league.store import create_store
from arena.records import Failure, GameRecord, GameResult, PlayerEntry

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
            store.add_game(record_of(result))
    finally:
        store.close()
    return folder


def record_of(result: GameResult) -> GameRecord:
    """A record with ``result``'s seating and outcome (no actions: ratings never read them)."""
    return GameRecord(
        game=result.game,
        options={},
        seed=0,
        players=tuple(PlayerEntry(seat=seat, name=bot, version="1", kind="synthetic")
                      for seat, bot in enumerate(result.bots)),
        scores=result.scores,
        engine_placements=result.placements,
        placements=result.placements,
        failures=tuple(Failure(seat=seat, bot=result.bots[seat], reason=reason, detail="",
                               phase="decision", decision=1, stderr_tail="")
                       for seat, reason in sorted(result.failures.items())),
    ).in_league(result.game_id, "t", 0)
