"""Hidden information stays hidden: a cheating bot (cheater/bot.py) that uses the arena's
own code to predict the next tile from Ra's bag or the next die of the dice game, from
everything it is given (its seed, the league file's seeds, the ladder's counter, the
draws it saw in earlier games), predicts no better than chance in a league and on a real
server, at every player count.  With public deals (or without the pool's rule that no
bot process plays a deal twice) the same bot predicts them all, so the test can fail.

The statistical test: each prediction is a Bernoulli trial whose chance of a hit, for a
bot that knows nothing hidden, is known exactly (Ra: the share of the predicted tile
among the tiles still in the bag; a die: 1/6).  Over n predictions with chances p_i the
hits' expected number is sum p_i and variance sum p_i (1 - p_i); the test is one-sided,
z = (hits - sum p_i) / sqrt(sum p_i (1 - p_i)), at a family-wise alpha of 0.001 per test
function (Bonferroni over its player counts and kinds of prediction: about z < 3.8), on
hundreds of predicted draws per player count.  (25 leagues of the first test's Ra
league gave z with mean 0.06 and standard deviation 0.92: the z of a bot that knows
nothing.)  The leagues deal from a fixed key, so they play the same games every run:
the test cannot flake; the server's deals are its own.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import shutil
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from statistics import NormalDist

import pytest

from arena.games.ra.tiles import TILE_COUNTS, TILE_NAMES
from arena.games.ra_dice.board import FACES
from arena.league.bots import find_bots
from arena.league.config import load_league
from arena.league.plan import league_schedule
from arena.league.run import run_league
from arena.league.store import open_store
from arena.records import GameRecord
from arena.runner import pool

CHEATER = Path(__file__).parent / "cheater"
ALPHA = 0.001  # family-wise, per test function
LEAGUE_KEY = "5eed" * 16  # the leagues' deal key: secret from the bots, fixed for the test
BWRAP_HERE = shutil.which("bwrap") is not None or os.environ.get("CI") == "true"
SANDBOX = "bwrap" if BWRAP_HERE else "none"


@dataclasses.dataclass
class Tally:
    """Predictions of one kind, each with its chance of a hit by luck."""

    hits: float = 0.0
    expected: float = 0.0
    variance: float = 0.0
    count: int = 0

    def add(self, hits: list[bool], chances: list[float]) -> None:
        """One draw, predicted in one or more seat rotations of its deal: they share the
        draw, so they count as one trial, their mean (whose variance is at most the
        mean of theirs: a conservative test)."""
        self.hits += sum(hits) / len(hits)
        self.expected += sum(chances) / len(chances)
        self.variance += sum(p * (1 - p) for p in chances) / len(chances)
        self.count += 1

    def z(self) -> float:
        return (self.hits - self.expected) / math.sqrt(self.variance) if self.variance else 0.0

    def __str__(self) -> str:
        return (f"{self.hits:.1f} hits of {self.count} predicted draws, "
                f"{self.expected:.1f} expected by chance, z = {self.z():.2f}")


Trial = tuple[int, str, bool, float]  # draw (roll) number, how, hit, chance


def trials(record: GameRecord, cheaters: Iterable[str]) -> list[Trial]:
    """The cheaters' predictions in ``record`` scored against what came.  One per draw
    (per roll): the last prediction made before it, since a bot predicts the same draw at
    each of its decisions until it comes (counting each would count one lucky guess many
    times)."""
    seats = {seat for seat, name in enumerate(record.seats) if name in set(cheaters)}
    engine = record.engine
    if record.game == "ra":
        drawn = [e["tile"] for e in engine["events"] if e["type"] == "draw"]
        draw_actions = [step["json"]["type"] == "draw" for step in engine["actions"]]
    else:
        events = engine["events"]
        moves = [i for i, e in enumerate(events) if e["type"] == "move"]
        rolls = [i for i, e in enumerate(events) if e["type"] == "roll"]
    last: dict[int, tuple[str, str]] = {}  # draw (roll) number -> (how, value)
    for comment in sorted(record.comments, key=lambda c: c["decision"]):
        if comment["seat"] not in seats or not comment["comment"].startswith("predict "):
            continue
        _, how, value = comment["comment"].split(" ", 2)
        decision = comment["decision"]
        if record.game == "ra":
            target = sum(draw_actions[: decision - 1])  # tiles drawn before it decided
        else:  # the first roll after this decision's move
            target = sum(1 for i in rolls if i < moves[decision - 1])
        last[target] = (how, value)
    found: list[Trial] = []
    for target, (how, value) in sorted(last.items()):
        if record.game == "ra":
            if target >= len(drawn):
                continue  # no tile was drawn after it
            left = Counter(dict(zip(TILE_NAMES, TILE_COUNTS, strict=True)))
            left.subtract(drawn[:target])
            chance = left[value] / sum(left.values()) if value in left else 0.0
            found.append((target, how, drawn[target] == value, chance))
        elif target < len(rolls):
            roll = events[rolls[target]]
            found.append((target, how, FACES[int(value)] == roll["dice"][roll["rerolled"][0]],
                          1 / 6))
    return found


def tally_by_players(records: Iterable[GameRecord], cheaters: Iterable[str]
                     ) -> dict[int, dict[str, Tally]]:
    """players -> how ("all" too) -> Tally over ``records``, a draw of a deal counted
    once however many of its seat rotations predicted it (they share the deal, so its
    draws)."""
    names = list(cheaters)
    shared: dict[tuple[int, str, int, int], list[tuple[bool, float]]] = {}
    for record in records:
        for target, how, hit, chance in trials(record, names):
            for kind in (how, "all"):  # "all": every prediction of the draw, of any kind
                shared.setdefault((record.num_players, kind, record.seed, target),
                                  []).append((hit, chance))
    totals: dict[int, dict[str, Tally]] = {}
    for (players, how, _, _), found in shared.items():
        totals.setdefault(players, {}).setdefault(how, Tally()).add(
            [hit for hit, _ in found], [chance for _, chance in found])
    return totals


def assert_chance(tallies: dict[int, dict[str, Tally]], where: str) -> None:
    """No tally of ``tallies`` (players -> how -> Tally) beats chance, Bonferroni-corrected
    over all of them; no game seed was recovered."""
    checks = [(count, how, tally) for count, kinds in sorted(tallies.items())
              for how, tally in sorted(kinds.items())]
    limit = NormalDist().inv_cdf(1 - ALPHA / len(checks))
    for count, how, tally in checks:
        print(f"{where}, {count} players, {how}: {tally}")  # shown by pytest -rP
        assert how != "seed", f"{count} players: a game seed was recovered ({tally})"
        assert tally.z() < limit, f"{where}, {count} players, {how}: {tally} (limit {limit:.2f})"


def make_cheaters(folder: Path, count: int) -> list[str]:
    names = [f"cheater-{i}" for i in range(1, count + 1)]
    for name in names:
        shutil.copytree(CHEATER, folder / name)
        manifest = folder / name / "bot.toml"
        manifest.write_text(manifest.read_text().replace('"cheater"', f'"{name}"'))
    return names


def cheating_league(tmp_path: Path, game: str, players: list[int], fillers: list[str],
                    extra: str = "", cheaters: int = 4) -> tuple[Path, list[str]]:
    """A league file whose cheaters know every seed its schedule deals from."""
    bots = tmp_path / "bots"
    bots.mkdir(exist_ok=True)
    names = make_cheaters(bots, cheaters)
    path = tmp_path / "league.toml"
    path.write_text(
        f'name = "cheat"\ngame = "{game}"\nplayers = {players}\n'
        f'roster = {json.dumps(names + fillers)}\nseed = 12345\nresults_dir = "out"\n'
        f'bot_paths = ["bots"]\n{extra}\n[time]\nper_decision = 5.0\n'
        f'[limits]\nsandbox = "{SANDBOX}"\n')
    config = load_league(path)
    schedule, _ = league_schedule(config, find_bots(config, notice=lambda text: None))
    knowledge = {"seeds": sorted({game.seed for game in schedule})}
    for name in names:
        (bots / name / "knowledge.json").write_text(json.dumps(knowledge))
    return path, names


def play(path: Path, **options: object) -> list[GameRecord]:
    err = io.StringIO()
    config = load_league(path)
    assert run_league(config, quiet=True, out=io.StringIO(), err=err, **options) == 0, \
        err.getvalue()
    store = open_store(config.results_dir)
    try:
        records = list(store.games())
    finally:
        store.close()
    assert records and not any(record.failures for record in records), \
        [r.failures for r in records if r.failures][:3]
    return records


GAMES = {
    "ra": ([2, 3, 4, 5], ["random", "first"]),
    "ra_dice": ([2, 3, 4], ["random", "first"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_cheater_predicts_no_better_than_chance_in_a_league(tmp_path: Path,
                                                              game: str) -> None:
    players, fillers = GAMES[game]
    # six bots: enough deals (tables) at every player count, five players included
    path, cheaters = cheating_league(tmp_path, game, players, fillers, "max_games = 120")
    by_players = tally_by_players(play(path, deal_key=LEAGUE_KEY), cheaters)
    assert sorted(by_players) == players
    for count, tallies in by_players.items():
        assert tallies["all"].count >= 100, f"{count} players: too few ({tallies['all']})"
    assert_chance(by_players, "league")  # the memory of earlier games alone, too


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_with_public_deals_the_same_cheater_predicts_every_draw(tmp_path: Path,
                                                                 game: str) -> None:
    # what every league was before deal keys: the test above can fail
    path, cheaters = cheating_league(tmp_path, game, [3], GAMES[game][1],
                                     extra="public_deals = true")
    tallies = tally_by_players(play(path), cheaters)[3]
    assert tallies["seed"].count >= 50 and tallies["seed"].hits == tallies["seed"].count, \
        tallies["seed"]
    assert tallies["seed"].z() > 10


@pytest.mark.slow
def test_without_fresh_processes_for_a_deal_the_cheater_remembers_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the pool's rule (no process plays a deal twice) is what keeps a table's seat
    # rotations, which share their deal, from telling a bot the next one's draws: played
    # in this process (one worker) with the rule turned off, the memory attack works
    monkeypatch.setattr(pool, "DEALS_REMEMBERED", 0)
    path, cheaters = cheating_league(tmp_path, "ra", [3], GAMES["ra"][1],
                                     extra="concurrency = 1\nworkers = 1")
    memory = tally_by_players(play(path, deal_key=LEAGUE_KEY), cheaters)[3]["memory"]
    assert memory.z() > 10 and memory.hits > memory.count / 2, memory


SERVER_PLAYERS = {"ra": [2, 3, 4, 5], "ra_dice": [2, 3, 4]}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_cheater_predicts_no_better_than_chance_on_a_real_server(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str) -> None:
    """Four cheaters uploaded to a fresh `arena serve` (whose ladder seeds come from a
    counter the cheaters search) beside its two house bots, at every player count."""
    import httpx

    from tests.server.conftest import (
        PASSWORD,
        free_port,
        make_server_folder,
        start_server,
        tar_gz,
        wait_until,
    )

    players = SERVER_PLAYERS[game]
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{
        "players = [3]": f"players = {players}", 'game = "ra"': f'game = "{game}"',
        "tables_per_minute = 60": "tables_per_minute = 0",
        'house_bots = ["random", "first"]': 'house_bots = ["random", "first"]'})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(folder, port, tmp_path / "server.log")
    try:
        versions = []
        for owner in ("ada", "bob"):
            assert httpx.post(f"{url}/api/v1/register", json={
                "name": owner, "password": PASSWORD}).status_code == 201
            token = httpx.post(f"{url}/api/v1/tokens", json={
                "name": owner, "password": PASSWORD, "token_name": "t"}).json()["token"]
            for number in (1, 2):
                name = f"cheater-{owner}{number}"
                files = {path.name: path.read_bytes() for path in CHEATER.iterdir()
                         if path.is_file()}
                files["bot.toml"] = files["bot.toml"].replace(b'"cheater"',
                                                              f'"{name}"'.encode())
                answer = httpx.post(f"{url}/api/v1/bots/{owner}/{name}/versions",
                                    content=tar_gz(files), timeout=30, headers={
                                        "Authorization": f"Bearer {token}",
                                        "Content-Type": "application/gzip"})
                assert answer.status_code == 202, answer.text  # queued for validation
                versions.append(answer.json()["id"])

        def valid() -> bool:
            states = [httpx.get(f"{url}/api/v1/versions/{v}").json()["state"]
                      for v in versions]
            assert "invalid" not in states, states
            return all(state == "valid" for state in states)

        wait_until(valid, 1200, "the cheaters' validation")  # a busy machine: slow

        def enough() -> dict[int, dict[str, Tally]] | None:
            store = open_store(folder)
            try:
                records = list(store.games())
            finally:
                store.close()
            cheaters = {name for r in records for name in r.seats if "cheater" in name}
            tallies = tally_by_players(records, cheaters)
            counts = [tallies.get(n, {}).get("all", Tally()).count for n in players]
            return tallies if min(counts) >= 60 else None

        by_players = wait_until(enough, 900, "the ladder's games of the cheaters")
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert_chance(by_players, "server")
