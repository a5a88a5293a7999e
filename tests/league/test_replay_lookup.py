"""`arena replay PREFIX` over every league under ./results: a prefix of several games
says so, and lists them; the story names the bots, marks the moves a fallback made for a
failed seat, and places every forfeit last."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.league.schedule import build_schedule
from arena.league.store import create_store
from tests.league.fakes import fake_record


def test_a_prefix_of_several_games_is_named_as_such(tmp_path: Path, monkeypatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    games = build_schedule("ra", ["a", "b", "c"], [3], seed=5, rounds=4)[0]
    for league, part in (("one", games[:6]), ("two", games[6:])):
        store = create_store(tmp_path / "results" / league)
        for game in part:
            store.add_game(fake_record(game))
        store.close()
    ids = [game.game_id for game in games]
    prefix = next(p for p in "0123456789abcdef" if sum(i.startswith(p) for i in ids) >= 2)
    monkeypatch.chdir(tmp_path)
    assert main(["replay", prefix]) == 2
    err = capsys.readouterr().err
    assert "matches several games" in err and "no game" not in err
    assert sum(i in err for i in ids if i.startswith(prefix)) >= 2
    unique = ids[-1]
    assert main(["replay", unique[:12]]) == 0
    assert "no game matching 'zz'" in (main(["replay", "zz"]), capsys.readouterr().err)[1]


def test_the_score_table_names_the_bots_and_the_ranking_is_told_once(tmp_path: Path) -> None:
    import trio

    from arena.league.commands import tell
    from arena.plugins import load_game
    from arena.runner.players import first_player, random_player
    from arena.runner.referee import play_game

    names = ["a-rather-long-bot-name", "b", "random"]
    players = [first_player(names[0]), first_player(names[1]), random_player(names[2])]
    record = trio.run(play_game, load_game("ra"), players, 11)
    text = tell(record)
    header = next(i for i, line in enumerate(text) if line.strip().startswith("gods"))
    rows = text[header + 2:header + 5]
    assert [row.split()[0] for row in rows] == names  # seat order, named
    # every row's numbers stand under the header's columns
    ends = [i + len(word) for i, word in _words(text[header])]
    for row in rows:
        assert [i + len(word) for i, word in _words(row)][1:] == ends
    assert not any("Seat 0" in line for line in text)
    assert sum(line.startswith("Final ranking") for line in text) == 1
    assert not any(line.startswith(("Result", "1. ")) for line in text)  # told once


def _words(line: str) -> list[tuple[int, str]]:
    import re

    return [(m.start(), m.group()) for m in re.finditer(r"\S+", line)]


def _crashing(name: str, at: int) -> Any:
    """A player that answers first-legal until its ``at``-th decision, which raises (0:
    it crashes as the game starts)."""
    from arena.runner.players import PythonPlayer

    asked = {"n": 0}

    def choose(observation: Any, legal: list[Any]) -> int:
        asked["n"] += 1
        if asked["n"] >= at:
            raise RuntimeError("boom")
        return 0

    def start(info: Any) -> None:
        if at == 0:
            raise RuntimeError("dead at start")

    return PythonPlayer(name, choose, on_new_game=start, observation=False)


@pytest.mark.parametrize(("game", "at"), [("ra", 3), ("ra", 0), ("ra_dice", 4)])
def test_the_story_marks_the_moves_the_fallback_made(game: str, at: int) -> None:
    import trio

    from arena.league.commands import tell
    from arena.plugins import load_game
    from arena.runner.players import random_player
    from arena.runner.referee import play_game

    record = trio.run(play_game, load_game(game), [_crashing("crasher", at),
                                                   random_player("other")], 5)
    (failure,) = record.failures
    own = [n for n, step in enumerate(record.engine["actions"], start=1) if step["seat"] == 0]
    first = own[max(at, 1) - 1]  # the decision the fallback made first
    if at:
        assert failure["decision"] == first
    text = tell(record)
    assert (f"crasher (seat 0) failed: from decision {first} on its moves are the "
            "fallback's") in text[2]
    story_end = text.index("Result in the league (a forfeit places last):")
    story = text[4:story_end]
    marked = next(i for i, line in enumerate(story) if "crasher [fallback]" in line)
    # before: the bot's own moves, unmarked; after: no unmarked move of the seat (the
    # score tables keep its name: a score is the seat's, whoever played it)
    assert not any("[fallback]" in line for line in story[:marked])
    if at != 0:
        assert any("crasher" in line for line in story[4:marked])  # its own moves
    else:  # only the setup was told before its first (fallback) move
        assert all("crasher" not in line or line.startswith(("Suns", "crasher holds"))
                   for line in story[:marked])
    rows = re.compile(r"^\s+crasher\s+-?\d")
    for line in story[marked + 1:]:
        if not rows.match(line):
            assert line.count("crasher") == line.count("crasher [fallback]"), line
    assert text[story_end + 1].startswith("1. other") and "2. crasher" in text[story_end + 2]


def test_when_both_seats_forfeit_both_are_placed_last() -> None:
    import trio

    from arena.league.commands import tell
    from arena.plugins import load_game
    from arena.runner.referee import play_game

    record = trio.run(play_game, load_game("ra"), [_crashing("crasher", 0),
                                                   _crashing("garbage", 2)], 5)
    assert record.placements == (2, 2)
    text = tell(record)
    result = text[text.index("Result in the league (a forfeit places last):") + 1:][:2]
    assert [line.split()[:2] for line in result] == [["2.", "crasher"], ["2.", "garbage"]]
