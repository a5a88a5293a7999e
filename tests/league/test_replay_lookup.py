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
