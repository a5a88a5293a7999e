"""A game that only a plugin knows gets what the bundled games get, by the same door.

The game is the take-away nim of tests/runner/toygame.py, registered through the
``arena_register_games`` hook of an installed distribution (an entry point, as a real
plugin would be).  Nothing in Ra Arena names it: selfplay, narration, the engine
benchmark, validation of a bot that plays it, and a league (run in worker processes,
stored, rated, exported and replayed) all reach it through discovery.
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins import load_game
from tests.runner.toygame import NIM

ROOT = Path(__file__).resolve().parents[2]  # so that worker processes import tests.*
PLUGIN = """
from arena.plugins import hookimpl
from tests.runner.toygame import NIM


@hookimpl
def arena_register_games():
    return [NIM]
"""
BOT = """\
name = "{name}"
version = "1.0.0"
command = ["{{python}}", "bot.py"]
[games]
nim = [2, 3]
"""
# takes one stone, or as many as it may
BOT_CODE = """\
from arena.sdk import run
run(lambda observation, legal: {choice}, name="{name}", version="1.0.0")
"""


@pytest.fixture
def nim_plugin(fake_distribution: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
               tmp_path: Path) -> Path:
    """Nim installed as a plugin game, and two bot folders that play it; returns the
    folder holding the bots.  Child processes see the plugin too (PYTHONPATH)."""
    site = fake_distribution("nim-game", {"nim": "nim_plugin"}, {"nim_plugin": PLUGIN})
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(ROOT)]))
    bots = tmp_path / "bots"
    for name, choice in (("one-stone", "0"), ("all-stones", "len(legal) - 1")):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.toml").write_text(BOT.format(name=name))
        (bots / name / "bot.py").write_text(BOT_CODE.format(name=name, choice=choice))
    monkeypatch.chdir(tmp_path)
    return bots


def test_the_plugin_game_is_found_like_the_bundled_ones(nim_plugin: Path) -> None:
    assert load_game("nim") is NIM
    assert load_game("ra").name == "ra"


def test_selfplay_tells_the_game_with_its_narration(
    nim_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["selfplay", "nim", "--players", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    story, table = out.split("\n\n", 1)
    assert story.splitlines()[0].startswith("seat 0: ")  # Game.narrate's default story
    assert table.startswith("Nim, 3 players, seed 4")
    assert main(["selfplay", "nim"]) == 0  # default: 4 players, which nim allows
    assert "Nim, 4 players" in capsys.readouterr().out


def test_the_engine_benchmark(nim_plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "nim", "--seconds", "0.05", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["benchmark"] == "nim" and result["title"].startswith("Nim:")
    assert [row["players"] for row in result["rows"]] == [2, 3, 4]
    assert all(row["games"] >= 1 and row["decisions/game"] >= 3 for row in result["rows"])


def test_a_bot_for_it_validates(nim_plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(nim_plugin / "one-stone"), "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "nim 2p: 2 games" in out and "nim 3p: 2 games" in out
    assert "PASSED: one-stone 1.0.0 follows the protocol (4 games, no violation)" in out


def test_a_league_of_it_runs_rates_exports_and_replays(
    nim_plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "nim.toml"
    league.write_text(textwrap.dedent("""\
        name = "nim-league"
        game = "nim"
        players = 2
        roster = ["one-stone", "all-stones"]
        rounds = 2
        seed = 5
        workers = 2
        concurrency = 2
        results_dir = "out"
        bot_paths = ["bots"]
        [options]
        pile = 12
    """))
    assert main(["run", str(league), "--quiet"]) == 0
    assert "one-stone" in capsys.readouterr().out  # the leaderboard
    games = tmp_path / "games.jsonl"
    assert main(["export", str(league), "-o", str(games)]) == 0
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(records) == 4  # one pair, two seatings, two rounds
    for record in records:
        assert record["game"] == "nim" and record["status"] == "ok"
        assert record["record"]["options"] == {"pile": 12}
        assert NIM.replay(record["record"]["engine"]).placements() == record["placements"]
    capsys.readouterr()
    assert main(["replay", records[0]["game_id"], "--results", str(league)]) == 0
    told = capsys.readouterr().out
    assert f"Game {records[0]['game_id']} (nim, 2 players" in told
    assert "one-stone: " in told or "all-stones: " in told  # narration, with bot names
