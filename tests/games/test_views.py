"""How a game is shown and encoded is the game's (issue 27): the defaults every game gets
from ``Game`` (arena/games/views.py), and the layering that keeps it so: the games import
no higher layer, and the layers that show games name none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.games.base import Game
from arena.games.views import flat_encoder
from tests.bench.test_layout import _imported_modules
from tests.runner.toygame import NIM, NimGame

ARENA = Path(__file__).resolve().parents[2] / "arena"


def test_a_game_that_supplies_nothing_gets_the_generic_views() -> None:
    class Bare(NimGame):  # nim without its action count
        num_distinct_actions = Game.num_distinct_actions

    game = Bare()
    view = game.new_game(2, 1).observation(0)
    assert game.board_text(view, ["a", "b"]) == [
        "{", ' "seat": 0,', f' "visible_pile": {view["visible_pile"]},', ' "turn": 0', "}"]
    assert "window.arenaBoard = function (kit)" in game.board_script()
    assert ".json-board" in game.board_style()
    assert game.observation_encoder(view)(view) == [0.0, float(view["visible_pile"]), 0.0]
    assert game.num_distinct_actions() is None and NIM.num_distinct_actions() == 4


def test_the_generic_encoding_reads_numbers_in_order_and_refuses_a_new_shape() -> None:
    first = {"seat": 1, "phase": "bid", "hand": [3, None], "pass": True, "bank": {"a": 2.5}}
    encode = flat_encoder(first, "toy")
    assert encode(first) == [1.0, 3.0, -1.0, 1.0, 2.5]  # text left out, null as -1
    assert encode({**first, "phase": "play", "hand": [None, 4]}) == [1.0, -1.0, 4.0, 1.0, 2.5]
    with pytest.raises(ValueError, match=r"toy's changed \('hand\[2\]'.*observation_encoder"):
        encode({**first, "hand": [3, 4, 5]})
    with pytest.raises(ValueError, match=r"'seat \(text\)' where the first had 'seat'"):
        encode({**first, "seat": "north"})


def test_the_games_import_no_layer_above_them() -> None:
    higher = ("arena.envs", "arena.play", "arena.viewer", "arena.league", "arena.report")
    wrong = {f"{path.relative_to(ARENA)}: {module}"
             for path in (ARENA / "games").rglob("*.py") for module in _imported_modules(path)
             if module.startswith(higher)}
    assert not wrong


def test_what_shows_games_names_none_of_them() -> None:
    """No ``game == "ra"`` (or a table by game name) where games are drawn or encoded:
    each game's own methods do it."""
    named = re.compile(r"""[=!]==?\s*["']ra(_dice)?["']|["']ra(_dice)?["']\s*[=!]==?"""
                       r"""|["']ra(_dice)?["']\s*:\s*(draw|encode|[a-z_]*_encoder)""")
    files = [*(ARENA / "viewer").iterdir(), *(ARENA / "play").glob("*.py"),
             *(ARENA / "envs").glob("*.py"), *(ARENA / "games").glob("*.py"),
             *(ARENA / "games").glob("*.js")]
    wrong = [f"{path.relative_to(ARENA)}: {line.strip()}" for path in files if path.is_file()
             and path.suffix in (".py", ".js") for line in path.read_text().splitlines()
             if named.search(line)]
    assert not wrong
