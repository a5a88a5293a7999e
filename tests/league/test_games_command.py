"""`arena games`: a league's stored games, one line each, with filters."""

from __future__ import annotations

from pathlib import Path

from arena.cli import main
from arena.league.schedule import build_schedule
from arena.league.store import create_store
from tests.league.fakes import fake_record


def test_games_lists_filters_and_limits(tmp_path: Path, capsys) -> None:
    games = build_schedule("ra", ["a", "b", "c", "crashy"], [3], seed=2)[0]
    store = create_store(tmp_path / "res")
    for game in games:
        store.add_game(fake_record(game))
    store.close()
    assert main(["games", str(tmp_path / "res"), "--limit", "0"]) == 0
    out, err = capsys.readouterr()
    assert all(game.game_id in out for game in games)
    assert f"{len(games)} of {len(games)} games" in err

    assert main(["games", str(tmp_path / "res"), "--failed", "--bot", "a"]) == 0
    out, err = capsys.readouterr()
    expected = [g for g in games if "crashy" in g.seats and "a" in g.seats]
    assert {line.split()[0] for line in out.splitlines()[2:]} == {g.game_id for g in expected}
    assert "crashy: crash" in out

    assert main(["games", str(tmp_path / "res"), "--limit", "2"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()[2:]] == [g.game_id for g in games[-2:]]
    assert "the last 2 shown" in err
    assert main(["games", str(tmp_path / "res"), "--limit", "-1"]) == 2
