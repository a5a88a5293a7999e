"""Real games for the viewer's tests: played by the referee with in-process players; and
the Chromium that draws their pages (tests/viewer/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.plugins import load_game
from arena.records import GameRecord
from arena.runner.players import PythonPlayer, random_player
from arena.runner.referee import play_game
from tests.viewer.browser import Browser


def crashes_at(decision: int, name: str = "crashy") -> PythonPlayer:
    """Plays the first legal move, says so in a comment, and raises on its N-th decision."""
    seen = [0]

    def choose(_observation: Any, _legal: list[Any]) -> int:
        seen[0] += 1
        if seen[0] == decision:
            raise RuntimeError("out of ideas")
        return 0

    return PythonPlayer(name, choose)


def play(game: str, players: list[PythonPlayer], seed: int, game_id: str) -> GameRecord:
    record = trio.run(play_game, load_game(game), players, seed)
    return record.in_league(game_id, "table", 0)


@pytest.fixture(scope="session")
def ra_game() -> GameRecord:
    # seed 32: a game in which a player must choose tiles to discard for a disaster
    return play("ra", [random_player(f"rand{i}") for i in range(4)], 32, "aaaa1111bbbb2222")


@pytest.fixture(scope="session")
def dice_game() -> GameRecord:
    # seed 17: a game with a disaster whose victim must give up markers
    return play("ra_dice", [random_player(f"rand{i}") for i in range(3)], 17, "cccc3333dddd4444")


@pytest.fixture(scope="session")
def forfeited_game() -> GameRecord:
    players = [random_player("calm"), crashes_at(4), random_player("steady")]
    record = play("ra", players, 7, "eeee5555ffff6666")
    assert record.failures and record.failures[0]["reason"] == "crash"
    return record


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    opened = Browser(tmp_path / "profile")
    try:
        yield opened
    finally:
        opened.close()
