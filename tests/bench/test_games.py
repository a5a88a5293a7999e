"""``arena bench GAME``: random playouts of an engine (no speed is asserted here)."""

from __future__ import annotations

import pytest

from arena.bench.games import bench_game
from arena.errors import ArenaError
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
