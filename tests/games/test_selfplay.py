"""``arena selfplay GAME``: a seeded game between random players, told by the engine."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.games.selfplay import random_playout
from arena.plugins import load_game


@pytest.mark.parametrize("game_name", ["ra", "ra_dice"])
def test_a_playout_is_a_whole_game_and_the_same_for_the_same_seed(game_name: str) -> None:
    game = load_game(game_name)
    state, decisions = random_playout(game, game.min_players, 3)
    assert state.is_terminal() and decisions == len(state.record()["actions"]) > 10
    again, _ = random_playout(game, game.min_players, 3)
    assert again.record() == state.record()
    assert game.replay(state.record()).placements() == state.placements()


def test_selfplay_tells_the_story_then_the_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "ra", "--players", "3", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    state, _ = random_playout(load_game("ra"), 3, 7)
    story = "\n".join(load_game("ra").narrate(state.record()))
    assert out.startswith(story + "\n\nRa, 3 players, seed 7\n")
    assert main(["selfplay", "ra_dice", "--quiet"]) == 0  # default: 4 players
    assert capsys.readouterr().out.startswith("Ra: The Dice Game, 4 players, seed 1")


@pytest.mark.parametrize(("argv", "message"), [
    (["selfplay", "chess"], "unknown game 'chess'; known games: ra, ra_dice"),
    (["selfplay", "ra_dice", "--players", "5"], "Ra: The Dice Game is for 2-4 players, not 5"),
])
def test_bad_input_is_a_one_line_error(argv: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_game_that_cannot_start_is_a_user_error() -> None:
    from tests.runner.toygame import NimGame

    class NeedsOptions(NimGame):  # a pile of 0 stones is refused by the engine
        def default_options(self) -> dict[str, int]:
            return {"pile": 0}

    with pytest.raises(ArenaError, match="cannot start nim: pile must be a positive integer"):
        random_playout(NeedsOptions(), 2, 1)
