"""A league's ``[stop]`` rule end to end: the SPRT head to head and the gauntlet test,
with synthetic bots of known strength (no processes), checked on the stored games."""

from __future__ import annotations

import io
import math
import random
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.plan import league_schedule
from arena.league.run import run_league
from arena.league.schedule import ScheduledGame
from arena.league.store import open_store
from arena.records import GameRecord, PlayerEntry
from tests.league.fakes import bots


class Synthetic:
    """Bots of known Elo; a seed's deal favours some seats (shared by a table's seatings)."""

    def __init__(self, elo: dict[str, float]) -> None:
        self.elo = elo
        self.played: list[str] = []

    async def __call__(self, game: ScheduledGame) -> GameRecord:
        self.played.append(game.game_id)
        deal = random.Random(game.seed)
        hands = [deal.random() for _ in game.seats]
        chance = random.Random(f"{game.seed}/{'/'.join(game.seats)}")
        performance = [
            self.elo[bot] * math.log(10) / 400 + 1.5 * hands[seat]
            - math.log(-math.log(chance.random()))  # Gumbel: logistic pairwise odds
            for seat, bot in enumerate(game.seats)
        ]
        places = [1 + sum(o > p for o in performance) for p in performance]
        return GameRecord(
            game="ra", options={}, seed=game.seed,
            players=tuple(PlayerEntry(seat=s, name=b, version="1.0.0", kind="synthetic")
                          for s, b in enumerate(game.seats)),
            scores=tuple(float(10 - p) for p in places),
            engine_placements=tuple(places), placements=tuple(places), failures=(),
            engine={"seed": game.seed, "actions": []},
        ).in_league(game.game_id, game.table, game.round)


def run(path: Path, play: Synthetic, names: list[str], **kw: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_league(load_league(path), backend=FunctionBackend(play), bots=bots(names),
                      out=out, err=err, **kw)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


SPRT = "[stop]\nsprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }"


def test_sprt_stops_a_head_to_head_league_once_h1_is_clear(league_file) -> None:
    path = league_file('roster = ["new", "old"]', "rounds = 500", "concurrency = 3",
                       'format = "round-robin"', SPRT, players="[2]")
    play = Synthetic({"new": 1700.0, "old": 1500.0})
    code, out, err = run(path, play, ["new", "old"])
    assert code == 0, err
    store = open_store(load_league(path).results_dir)
    stop = store.stop_result
    assert stop is not None and stop["outcome"] == "H1" and stop["llr"] > stop["upper"] - 1.0
    assert stop["tested"] == "new" and stop["opponents"] == ["old"]
    stored = store.results()
    assert len(stored) < 1000 and stop["games"] == 2 * stop["units"] <= len(stored)
    # the test took whole pairs in schedule order: the first `units` tables, both seatings
    schedule, _ = league_schedule(load_league(path), bots(["new", "old"]))
    first_tables = {(g.round, g.table) for g in schedule[: stop["games"]]}
    assert len(first_tables) == stop["units"]
    assert {(g.round, g.table) for g in schedule[: stop["games"]]} <= {
        (g.round, g.table) for g in schedule if g.game_id in {r.game_id for r in stored}
    }
    assert "H1 accepted (new is at least +10 Elo against old)" in out
    assert "SPRT" in err and "LLR" in err  # the live line
    store.close()
    # the report shows the decision and the LLR
    from arena.report.html import render_report

    page = render_report(stored, bootstrap=0, stop=stop)
    section = page.split('id="sequential-test"')[1].split("</section>")[0]
    assert "H1 accepted" in section and f"{stop['llr']:.3f}" in section
    # a rerun reaches the same decision from the stored games and plays nothing
    again = Synthetic({"new": 1700.0, "old": 1500.0})
    code, out, _ = run(path, again, ["new", "old"])
    assert code == 0 and again.played == [] and "H1 accepted" in out


def test_sprt_between_equals_accepts_h0(league_file) -> None:
    path = league_file('roster = ["twin", "copy"]', "rounds = 2000", SPRT, players="[2]")
    code, out, err = run(path, Synthetic({"twin": 1500.0, "copy": 1500.0}), ["twin", "copy"])
    assert code == 0, err
    assert "H0 accepted" in out
    stop = open_store(load_league(path).results_dir).stop_result
    assert stop is not None and stop["outcome"] == "H0" and stop["llr"] < stop["lower"] + 1.0


def test_gauntlet_test_on_duplicate_sets(league_file) -> None:
    path = league_file(
        'format = "gauntlet"', 'challenger = "champ"', 'roster = ["a", "b", "c"]',
        "rounds = 300", "[stop]", "gauntlet = { ahead0 = 0.5, ahead1 = 0.55 }",
        players="[3, 4]",
    )
    play = Synthetic({"champ": 1750.0, "a": 1500.0, "b": 1450.0, "c": 1550.0})
    code, out, err = run(path, play, ["champ", "a", "b", "c"])
    assert code == 0, err
    stop = open_store(load_league(path).results_dir).stop_result
    assert stop is not None and stop["outcome"] == "H1" and stop["unit"] == "duplicate sets"
    assert stop["mean_score"] > 0.55
    assert "champ finishes ahead of at least 55% of the field" in out


def test_expected_place_hypotheses(league_file) -> None:
    path = league_file(
        'format = "gauntlet"', 'challenger = "champ"', 'roster = ["a", "b", "c"]',
        "rounds = 300", "[stop]", "gauntlet = { place0 = 2.5, place1 = 2.2 }", players="[4]",
    )
    play = Synthetic({"champ": 1300.0, "a": 1500.0, "b": 1450.0, "c": 1550.0})
    code, out, err = run(path, play, ["champ", "a", "b", "c"])
    assert code == 0, err
    assert "H0 accepted (champ's expected place is 2.5 or worse)" in out


@pytest.mark.parametrize(
    ("lines", "players", "message"),
    [
        (['roster = ["a", "b", "c"]', SPRT], "[2]", "needs two bots in the roster"),
        (['roster = ["a", "b"]', SPRT], "[3]", "needs players = 2"),
        (['roster = ["a", "b"]', "[stop]", "sprt = { elo0 = 5, elo1 = 5 }"], "[2]",
         "must be above elo0"),
        (['roster = ["a", "b"]', "[stop]", "sprt = { elo0 = 0, elo1 = 5, alpha = 0.7 }"], "[2]",
         "error rate between 0 and 0.5"),
        (['roster = ["a", "b", "c"]', "[stop]", "gauntlet = { ahead0 = 0.5, ahead1 = 0.6 }"],
         "[3]", 'needs format = "gauntlet"'),
        (['format = "gauntlet"', 'challenger = "a"', 'roster = ["b", "c"]', "[stop]",
          "gauntlet = { place0 = 2, place1 = 1.5 }"], "[2, 3]", "single player count"),
    ],
)
def test_stop_settings_are_checked(league_file, lines: list[str], players: str,
                                   message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        load_league(league_file(*lines, players=players))


def test_a_league_with_a_stop_rule_cannot_be_sharded(league_file) -> None:
    from arena.league.plan import Shard

    path = league_file('roster = ["a", "b"]', SPRT, players="[2]")
    with pytest.raises(ArenaError, match="cannot be split into shards"):
        run(path, Synthetic({"a": 0.0, "b": 0.0}), ["a", "b"], shard=Shard(1, 2))
