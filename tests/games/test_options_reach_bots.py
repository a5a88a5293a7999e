"""The game's options, every default filled in, reach the bots in new_game and every game
record, whatever the league file says, and the leaderboard and report name them (issue 17:
bots learn the edition in new_game; it is recorded and shown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
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


def test_a_league_shows_its_edition_on_the_leaderboard_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "league.toml"
    league.write_text(
        'name = "new-rules"\ngame = "ra"\nplayers = [2]\nroster = ["first", "random"]\n'
        'rounds = 1\nseed = 3\n[options]\nedition = "2023"\n[limits]\nsandbox = "none"\n',
        encoding="utf-8",
    )
    assert main(["run", str(league)]) == 0
    capsys.readouterr()
    assert main(["leaderboard", str(league)]) == 0
    assert capsys.readouterr().out.startswith("new-rules: 2 games of ra (2023 edition)")
    page = tmp_path / "report.html"
    assert main(["report", str(league), "-o", str(page)]) == 0
    assert "new-rules: 2023 edition" in page.read_text(encoding="utf-8")
