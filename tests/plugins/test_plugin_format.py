"""A league format that only a plugin knows comes in by the door the bundled ones use: the
``arena_register_formats`` hook of an installed distribution.  Its keys are checked by
itself, its league is played stage by stage, resumed, and its standings shown."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.formats import find_format
from arena.league.run import run_league
from arena.plugins.discovery import format_registry
from tests.league.fakes import FakePlay, bots

# King of the hill: the first bot holds the table; each stage the holder meets the next
# challenger in a match of `games` games; whoever scores more holds on.
PLUGIN = """
from arena.errors import ArenaError
from arena.league.formats import (FeedFormat, Stage, Standing, Standings, Tournament,
                                  match_games, match_points, table_key)
from arena.plugins import hookimpl


class Hill(Tournament):
    def __init__(self, entrants):
        self.e = entrants
        self.holder = entrants.bots[0]
        self.next = 1
        self.reigns = {bot: 0 for bot in entrants.bots}
        self.pending = None

    def next_stage(self):
        if self.next >= len(self.e.bots):
            return None
        challenger = self.e.bots[self.next]
        table = table_key("hill", self.next)
        self.pending = match_games(self.e.game, (self.holder, challenger),
                                   self.e.seed + self.next, self.e.options["games"],
                                   round=self.next, table=table)
        return Stage(f"challenge {self.next}", tuple(self.pending))

    def record(self, results):
        points = match_points(results)
        challenger = self.e.bots[self.next]
        if points.get(challenger, 0) > points.get(self.holder, 0):
            self.holder = challenger
        self.reigns[self.holder] += 1
        self.next += 1

    def standings(self):
        order = sorted(self.reigns, key=lambda bot: (bot != self.holder, -self.reigns[bot]))
        return Standings("King of the hill", ("reigns",), tuple(
            Standing(rank, bot, {"reigns": str(self.reigns[bot])})
            for rank, bot in enumerate(order, start=1)))


class KingOfTheHill(FeedFormat):
    name = "hill"
    summary = "the holder against each challenger in turn"

    def check(self, config, options):
        games = options.integer("games", 2, 20, 2)
        options.finish()
        if config.players != (2,):
            raise ArenaError(f"{config.path}: the hill is for 2 players")
        return {"games": games}

    def start(self, entrants):
        return Hill(entrants)


class Clash(FeedFormat):
    name = "swiss"  # taken by a bundled format: refused, the bundled one stays

    def start(self, entrants):
        raise AssertionError("never used")


@hookimpl
def arena_register_formats():
    return [KingOfTheHill(), Clash()]
"""
ROSTER = ["a", "b", "c", "d", "e"]


@pytest.fixture
def hill_plugin(fake_distribution: Callable[..., Path]) -> Path:
    return fake_distribution("hill-format", {"hill": "hill_plugin"}, {"hill_plugin": PLUGIN})


def league(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "hill.toml"
    path.write_text("\n".join([
        'name = "hill"', 'game = "ra"', "players = 2", 'results_dir = "out"',
        f"roster = {ROSTER!r}".replace("'", '"'), *lines]) + "\n")
    return path


def test_a_plugin_format_is_found_checked_and_played(hill_plugin: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    registry = format_registry()
    assert registry.formats["hill"].summary.startswith("the holder")
    assert type(find_format("swiss")).__module__ == "arena.league.swiss"
    assert any("format name 'swiss' is registered twice" in str(problem)
               for problem in registry.problems)
    path = league(tmp_path, 'format = { name = "hill", games = 30 }')
    with pytest.raises(ArenaError, match=r"key 'format.games': must be between 2 and 20"):
        run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
                   bots=bots(ROSTER))
    path = league(tmp_path, 'format = { name = "hill", games = 4 }')
    play = FakePlay()
    err = io.StringIO()
    assert run_league(load_league(path), backend=FunctionBackend(play), bots=bots(ROSTER),
                      out=io.StringIO(), err=err) == 0
    assert len(play.started) == 4 * 4  # four challenges of four games
    assert "hill: challenge 4: 4 games" in err.getvalue()
    assert main(["leaderboard", str(tmp_path / "out")]) == 0
    assert "King of the hill" in capsys.readouterr().out
    # resumed: nothing more to play
    again = FakePlay()
    run_league(load_league(path), quiet=True, backend=FunctionBackend(again),
               bots=bots(ROSTER), out=io.StringIO(), err=io.StringIO())
    assert again.started == []


def test_an_unknown_format_names_the_plugins_ones(hill_plugin: Path, tmp_path: Path) -> None:
    path = league(tmp_path, 'format = "hil"')
    with pytest.raises(ArenaError, match=r"unknown format 'hil' \(did you mean 'hill'\?\); "
                                         r"known formats: .*swiss, knockout, ladder, hill"):
        run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
                   bots=bots(ROSTER))
