"""The game's options, every default filled in, reach the bots in new_game and every game
record, whatever the league file says (issue 17: bots learn the edition in new_game)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from arena.errors import ArenaError
from arena.games.base import Game
from arena.games.ra import GAME as RA
from arena.games.ra_dice import GAME as RA_DICE
from arena.runner.players import PythonPlayer
from arena.runner.referee import play_game


def play(game: Game, options: dict[str, Any] | None) -> tuple[list[dict[str, Any]], Any]:
    seen: list[dict[str, Any]] = []
    players = [PythonPlayer(f"p{seat}", lambda _obs, _legal: 0, on_new_game=seen.append,
                            observation=False) for seat in range(2)]
    record = trio.run(play_game, game, players, 7, options)
    return seen, record


@pytest.mark.parametrize(
    ("game", "options", "expected"),
    [
        (RA, None, {"edition": "classic"}),
        (RA, {}, {"edition": "classic"}),
        (RA, {"edition": "2023"}, {"edition": "2023"}),
        (RA_DICE, None, RA_DICE.default_options()),
        (RA_DICE, {}, RA_DICE.default_options()),
    ],
)
def test_bots_and_the_record_get_the_full_options(
    game: Game, options: dict[str, Any] | None, expected: dict[str, Any]
) -> None:
    seen, record = play(game, options)
    assert [info["options"] for info in seen] == [expected, expected]
    assert record.options == expected
    assert record.engine["options"] == expected
    assert game.replay(record.engine).is_terminal()


def test_a_bad_edition_is_a_one_line_configuration_error() -> None:
    with pytest.raises(ArenaError, match="cannot start ra: Ra's edition must be"):
        play(RA, {"edition": "1999"})
