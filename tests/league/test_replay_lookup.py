"""`arena replay PREFIX` over every league under ./results: a prefix of several games
says so, and lists them."""

from __future__ import annotations

from pathlib import Path

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
