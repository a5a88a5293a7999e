"""``arena bench GAME``: random playouts of an engine (no speed is asserted here)."""

from __future__ import annotations

import pytest

from arena.bench.games import _NullGame, bench_game
from arena.errors import ArenaError
from arena.games.selfplay import random_playout
from arena.plugins import load_game


def test_every_player_count_gets_a_row() -> None:
    result = bench_game(load_game("ra_dice"), None, 0.05, 1)
    assert result["benchmark"] == "ra_dice" and "Dice" in result["title"]
    assert [row["players"] for row in result["rows"]] == [2, 3, 4]
    for row in result["rows"]:
        assert row["games"] >= 1 and row["decisions/game"] > 10
        assert row["games/s"] > 0 and row["µs/decision"] > 0


def test_a_player_count_the_game_does_not_allow_is_a_user_error() -> None:
    with pytest.raises(ArenaError, match="ra is for 2-5 players, not 6"):
        bench_game(load_game("ra"), [2, 6], 0.05, 1)


def test_the_api_floor_is_the_same_loop_over_as_many_decisions() -> None:
    null = _NullGame(width=4)
    null.decisions = 37
    state, decisions = random_playout(null, 1, 5)
    assert decisions == 37 and state.is_terminal()
    assert len(state.legal_actions()) == 4  # the list is never computed, only copied


def test_each_row_has_its_floor_and_the_rules_share() -> None:
    result = bench_game(load_game("ra"), [3], 0.05, 1)
    (row,) = result["rows"]
    assert row["API floor µs"] > 0  # (no speed is compared: a loaded machine may swap them)
    assert row["rules µs"] == pytest.approx(row["µs/decision"] - row["API floor µs"])
    assert row["max speed-up"] == pytest.approx(row["µs/decision"] / row["API floor µs"])
    assert any("baseline" in note for note in result["notes"])
