"""The commands as a user runs them (with the fake player behind ``arena run``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.run import run_league
from tests.league.fakes import FakePlay, bots


@pytest.fixture
def played(league_file) -> Path:
    path = league_file('roster = ["a", "b", "c", "crashy"]')
    assert run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
                      bots=bots(["a", "b", "c", "crashy"])) == 0
    return path


def test_export_writes_every_game_as_json_lines(played: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "games.jsonl"
    assert main(["export", str(played), "-o", str(out)]) == 0
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(games) == 12 and len({g["game_id"] for g in games}) == 12
    assert {"seats", "seed", "scores", "placements", "failures", "timings", "record"} <= set(
        games[0]
    )
    assert "exported 12 games" in capsys.readouterr().err
    assert main(["export", str(load_league(played).results_dir), "--players", "4"]) == 0
    assert capsys.readouterr().out == ""


def test_replay_json_and_story(played: Path, capsys) -> None:
    assert main(["export", str(played)]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert main(["replay", first["game_id"][:6], "--results", str(played), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game_id"] == first["game_id"]
    assert main(["replay", first["game_id"], "--results", str(played)]) == 0
    story = capsys.readouterr().out
    assert first["game_id"] in story and "Seats: 0: " in story
    assert "1. " in story and "points" in story


def test_user_errors_are_messages_not_tracebacks(played: Path, tmp_path: Path, capsys) -> None:
    assert main(["replay", "ffffffff", "--results", str(played)]) == 2
    assert "no game 'ffffffff'" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "missing")]) == 2
    assert "no such results folder or league file" in capsys.readouterr().err
    assert main(["export", str(tmp_path)]) == 2
    assert "no league results in" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ngame = "ra"\nplayers = 3\nroster = ["nobody", "a", "b"]\n')
    assert main(["run", str(bad), "--quiet"]) == 2
    assert "key 'roster': unknown bot 'nobody'" in capsys.readouterr().err
    assert main(["run", str(bad), "--concurrency", "0"]) == 2
    assert "--concurrency must be at least 1" in capsys.readouterr().err


def test_gauntlet_league(league_file) -> None:
    path = league_file('format = "gauntlet"', 'challenger = "hero"',
                       'roster = ["a", "b", "c", "d"]', players="[2, 3]")
    play = FakePlay()
    assert run_league(load_league(path), quiet=True, backend=FunctionBackend(play),
                      bots=bots(["hero", "a", "b", "c", "d"])) == 0
    assert len(play.started) == 4 * 2 + 6 * 3


def test_replay_story_names_the_bots_wherever_the_engine_says_seat() -> None:
    from arena.league.commands import _with_names

    seats = ["alpha", "beta"]
    assert _with_names("Seat 1 holds the highest sun and starts.", seats) == (
        "beta holds the highest sun and starts."
    )
    assert _with_names("    seat 0 bids 9, Seat 1 passes", seats) == "    alpha bids 9, beta passes"
    # score-table rows keep their seat labels so the columns stay aligned
    row = "    Seat 0       2           5"
    assert _with_names(row, seats) == row
