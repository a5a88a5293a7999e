"""Version verdicts (arena/server/verdicts.py): the sequential test of a new version
against its predecessor from synthetic results; the roster keeps the predecessor only
while the test is open, a newer version supersedes it, a disabled bot pauses it; the
share of tables that seat both; and in a running server, a stronger v2 decided and shown
on the bot page, in the API and as an event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trio

from arena.errors import ArenaError
from arena.league.schedule import ScheduledGame
from arena.records import GameResult
from arena.server.settings import load_settings
from arena.server.verdicts import (
    TOGETHER_SHARE,
    Unit,
    VerdictSettings,
    VerdictTest,
    decide,
    describe,
    elo_interval,
    units_of,
)
from tests.server.conftest import Api, bot_archive, in_process, make_server_folder

pytestmark = pytest.mark.anyio
SETTINGS = VerdictSettings(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=3000,
                           players=(3,))


def synthetic_units(ahead: float, count: int, seed: int = 1, players: int = 3
                    ) -> list[Unit]:
    """Tables of PLAYERS games where the version places ahead of its predecessor with
    probability AHEAD in each game, shares its place with probability 0.1."""
    rng = np.random.default_rng(seed)
    units = []
    for number in range(count):
        draws = rng.random(players)
        scores = [1.0 if u < ahead else 0.5 if u < ahead + 0.1 else 0.0 for u in draws]
        units.append(Unit((number, f"t{number}"), players, scores))
    return units


@pytest.mark.no_store
def test_a_clearly_stronger_version_is_decided_stronger() -> None:
    figures = decide(synthetic_units(0.8, 400), SETTINGS)
    assert figures.state == "stronger"
    assert figures.games < 400 * 3  # it stopped early
    assert figures.elo is not None and figures.low is not None and figures.high is not None
    assert 0 < figures.low < figures.elo < figures.high


@pytest.mark.no_store
def test_a_clearly_weaker_version_is_decided_weaker() -> None:
    figures = decide(synthetic_units(0.2, 400), SETTINGS)
    assert figures.state == "weaker"
    assert figures.elo is not None and figures.high is not None and figures.high < 0


@pytest.mark.no_store
def test_an_equal_version_is_no_clear_difference() -> None:
    figures = decide(synthetic_units(0.45, 2000), SETTINGS)  # a mean score of 1/2
    assert figures.state == "no_difference"
    assert figures.low is not None and figures.high is not None
    assert figures.low < 0 < figures.high


@pytest.mark.no_store
def test_few_games_stay_testing_and_the_cap_is_inconclusive() -> None:
    few = decide(synthetic_units(0.8, 3), SETTINGS)
    assert few.state == "testing" and few.games == 9
    assert decide([], SETTINGS).elo is None
    capped = decide(synthetic_units(0.5, 2000),
                    VerdictSettings(0, 50, 0.05, 0.05, max_games=30, players=(3,)))
    assert capped.state == "inconclusive" and capped.games == 30


@pytest.mark.no_store
def test_two_player_units_are_the_pentanomial_pairs() -> None:
    figures = decide(synthetic_units(0.9, 200, players=2),
                     VerdictSettings(0, 50, 0.05, 0.05, 1000, (2,)))
    assert figures.state == "stronger" and figures.games % 2 == 0


@pytest.mark.no_store
def test_a_test_fed_more_units_goes_on_as_one_fed_them_all_at_once() -> None:
    units = synthetic_units(0.55, 400, seed=3)
    test = VerdictTest(SETTINGS)
    for end in range(0, 400, 7):
        step = test.run(units[:end])
        assert step == decide(units[:end], SETTINGS)
        if step.state != "testing":
            break
    assert step.state == "stronger"
    # a unit that was left out (incomplete) and is complete now: taken from the start
    cut = [Unit(u.key, u.players, u.scores[:1]) if i == 2 else u for i, u in enumerate(units)]
    test = VerdictTest(SETTINGS)
    assert test.run(cut[:10]).games == 27
    assert test.run(units[:10]) == decide(units[:10], SETTINGS)


@pytest.mark.no_store
def test_the_interval_is_finite_after_a_clean_sweep() -> None:
    elo, low, high = elo_interval([1.0] * 5)
    assert elo is not None and low is not None and high is not None
    assert low < elo < high and all(np.isfinite([low, elo, high]))
    assert elo_interval([1.0])[1:] == (None, None)


def result(game_id: str, bots: tuple[str, ...], placements: tuple[int, ...]) -> GameResult:
    return GameResult(game_id, "ra", bots, tuple(0.0 for _ in bots), placements)


@pytest.mark.no_store
def test_units_wait_for_a_table_in_flight_and_skip_an_abandoned_one() -> None:
    new, old = "ada/mine@2", "ada/mine@1"
    results, tables = [], {}
    # table (1, a): complete; (2, b): one game of three (abandoned, or in flight); (3, c)
    for key, games in (((1, "a"), 3), ((2, "b"), 1), ((3, "c"), 3)):
        for i in range(games):
            game_id = f"{key[1]}{i}"
            results.append(result(game_id, (new, old, "x"), (1, 2, 3)))
            tables[game_id] = key
    results.append(result("other", (new, "x", "y"), (1, 2, 3)))  # without the predecessor
    units = units_of(results, tables, new, old)
    assert [(u.key, u.complete) for u in units] == [
        ((1, "a"), True), ((2, "b"), False), ((3, "c"), True)]
    assert decide(units, SETTINGS).games == 6  # (2, b) is left out
    assert decide(units, SETTINGS, waiting={(2, "b")}).games == 3  # the test waits there
    # a table in flight with no game stored yet also holds the later ones back
    waiting = units_of(results, tables, new, old, waiting={(0, "z")})
    assert decide(waiting, SETTINGS, waiting={(0, "z")}).games == 0


@pytest.mark.no_store
def test_the_verdict_in_words() -> None:
    from arena.server.store import Verdict

    def verdict(state: str, elo: float | None, low: float | None, high: float | None,
                games: int) -> str:
        return describe(Verdict(7, 6, 1, "ada/mine@7", "ada/mine@6", 7, 6, state, elo, low,
                                high, games, 0.0, None))

    assert verdict("stronger", 35.2, 11.8, 58.4, 180) == \
        "v7 stronger than v6: +35 Elo [+12, +58], decided after 180 games"
    assert verdict("weaker", -35.2, -58, -12, 90) == \
        "v7 weaker than v6: -35 Elo [-58, -12], decided after 90 games"
    assert verdict("testing", 20.4, -30.2, 70, 40) == \
        "v7 against v6: still testing: 40 games, +20 Elo [-30, +70] so far"
    assert verdict("testing", None, None, None, 0) == \
        "v7 against v6: still testing: no game together yet"
    assert "no clear difference" in verdict("no_difference", -0.3, -20, 20, 300)
    assert "+0 Elo" in verdict("no_difference", -0.3, -20, 20, 300)
    assert "(the cap)" in verdict("inconclusive", 3, -10, 16, 1000)
    assert "superseded" in verdict("superseded", 3, -10, 16, 30)


def test_the_verdict_settings_are_checked(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    for number, (old, new, words) in enumerate([
            ("verdict_elo1 = 50 ", "verdict_elo1 = -5 ", "at least 0"),
            ("verdict_elo0 = 0 ", "verdict_elo0 = 60 ", "must be above verdict_elo0"),
            ("verdict_alpha = 0.05", "verdict_alpha = 0.5", "between 0 and 0.5"),
            ("verdict_beta = 0.05", "verdict_beta = 0", "between 0 and 0.5"),
            ("verdict_max_games = 1000", "verdict_max_games = 0", "at least 1"),
            ("verdict_max_games = 1000", "verdict_max_games = 1.5", "must be int")]):
        folder = tmp_path / f"server{number}"
        make_server_folder(folder, capsys, **{old: new})
        with pytest.raises(ArenaError, match=words):
            load_settings(folder)
    folder = tmp_path / "fine"
    make_server_folder(folder, capsys)
    settings = load_settings(folder)
    assert (settings.verdict_elo0, settings.verdict_elo1, settings.verdict_max_games) == (
        0, 50, 1000)


# --------------------------------------------------------------------------- the roster


async def upload_valid(api: Api, token: str, name: str, source: str = "random") -> Any:
    answer = await api.upload(token, "ada", name, bot_archive(name, source))
    assert answer.status_code == 202, answer.text
    version = answer.json()
    api.server.store.finish_validation(version["id"], "valid", "1", {"passed": True},
                                       "passed", "")
    return version


def roster(api: Api) -> set[str]:
    return {spec.name for spec in api.server.ladder.specs()}


async def test_the_roster_keeps_the_predecessor_only_while_testing(
        server_folder: tuple[Path, str]) -> None:
    folder, _ = server_folder
    async with in_process(folder) as api:
        store = api.server.store
        token = await api.account("ada")
        first = await upload_valid(api, token, "mine")
        assert roster(api) == {"ada/mine@1"}  # no predecessor: no test
        second = await upload_valid(api, token, "mine", "first")
        assert roster(api) == {"ada/mine@1", "ada/mine@2"}
        assert api.server.ladder.verdicts.testers() == {"ada/mine@1"}  # never "new"
        verdict = store.verdict(second["id"])
        assert verdict is not None and verdict.state == "testing"
        assert verdict.against == "ada/mine@1"
        page = (await api.client.get("/bots/ada/mine")).text
        assert "v2 against v1: still testing: no game together yet" in page
        assert "1 (in the ladder while tested against)" in page
        # disabled: both leave, the test waits; enabled: both back
        store.set_bot_disabled(verdict.bot_id, True)
        assert roster(api) == set()
        paused = store.verdict(second["id"])
        assert paused is not None and paused.state == "testing"
        store.set_bot_disabled(verdict.bot_id, False)
        assert roster(api) == {"ada/mine@1", "ada/mine@2"}
        # a newer version: the open test is superseded, the new one tests against v2
        third = await upload_valid(api, token, "mine")
        assert roster(api) == {"ada/mine@2", "ada/mine@3"}
        superseded = store.verdict(second["id"])
        assert superseded is not None and superseded.state == "superseded"
        assert superseded.decided_at is not None
        # decided: the predecessor leaves; the decision is never changed again
        store.save_verdict(third["id"], "stronger", 80.0, 20.0, 140.0, 120)
        assert roster(api) == {"ada/mine@3"}
        assert api.server.ladder.verdicts.testers() == set()
        store.save_verdict(third["id"], "testing", 0.0, -1.0, 1.0, 3)
        decided = store.verdict(third["id"])
        assert decided is not None and (decided.state, decided.games) == ("stronger", 120)
        assert store.verdict(first["id"]) is None
        # the API: each version's verdict, the bot's is its newest valid version's
        data = (await api.client.get("/api/v1/bots/ada/mine")).json()
        assert [v["verdict"] and v["verdict"]["state"] for v in data["versions"]] == [
            None, "superseded", "stronger"]
        assert data["verdict"]["text"] == \
            "v3 stronger than v2: +80 Elo [+20, +140], decided after 120 games"
        assert (data["verdict"]["against"], data["verdict"]["games"]) == ("ada/mine@2", 120)
        one = (await api.client.get(f"/api/v1/versions/{second['id']}")).json()
        assert one["verdict"]["state"] == "superseded"


async def test_a_share_of_the_new_versions_tables_seat_its_predecessor(
        server_folder: tuple[Path, str]) -> None:
    folder, _ = server_folder
    async with in_process(folder) as api:
        token = await api.account("ada")
        await upload_valid(api, token, "mine")
        await upload_valid(api, token, "mine")
        roster(api)  # starts the test
        verdicts = api.server.ladder.verdicts
        verdicts.update([], [])
        new, old = "ada/mine@2", "ada/mine@1"
        names = [new, old, "x"]
        assert verdicts.together(names, {}, []) == [(new, old)]  # first, a table together
        in_flight = [ScheduledGame(f"g{i}", "t", 5, (new, old, "x"), 1) for i in range(3)]
        assert verdicts.together(names, {}, in_flight) == []  # it is being played
        games = int(3 / TOGETHER_SHARE)
        assert verdicts.together(names, {new: games}, in_flight) == [(new, old)]
        assert verdicts.together([new, "x"], {new: games}, in_flight) == []  # not playing
        # the matchmaker seats the pair first, the rest of the batch as it chooses
        from arena.league.matchmaking import LadderState, next_tables

        state = LadderState.from_results([])
        tables = next_tables(state, [new, old, "x", "y"], 3, count=2, together=[(new, old)])
        assert {new, old} <= set(tables[0]) and len(set(tables[0])) == 3
        with pytest.raises(ArenaError, match="active bots"):
            next_tables(state, [new, "x", "y"], 3, together=[(new, old)])


# --------------------------------------------------------------------------- in a server


async def test_a_stronger_new_version_is_decided_and_shown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """v1 plays random, v2 greedy: with wide bounds (0 against 200 Elo) a few pairs
    decide; the predecessor then leaves the ladder."""
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{"tables_per_minute = 60": "tables_per_minute = 0",
                                          "verdict_elo1 = 50 ": "verdict_elo1 = 200 "})
    events: list[dict[str, Any]] = []
    async with in_process(folder, background=True) as api:
        receive = api.server.events.subscribe()

        async def listen() -> None:
            async for text in receive:
                if "\nevent: verdict\n" in text:
                    events.append(json.loads(text.split("\ndata: ", 1)[1]))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(listen)
            token = await api.account("ada")
            first = (await api.upload(token, "ada", "mine", bot_archive("mine"))).json()
            assert (await api.wait_state(first["id"]))["state"] == "valid"
            second = (await api.upload(token, "ada", "mine",
                                       bot_archive("mine", "greedy"))).json()
            assert (await api.wait_state(second["id"]))["state"] == "valid"
            seen = set()
            with trio.fail_after(240):
                while True:
                    data = (await api.client.get("/api/v1/bots/ada/mine")).json()
                    verdict = data["verdict"]
                    if verdict is not None:
                        seen.add(verdict["state"])
                        if verdict["state"] != "testing":
                            break
                    await trio.sleep(0.3)
            nursery.cancel_scope.cancel()
        assert verdict["state"] == "stronger", verdict
        assert verdict["against"] == "ada/mine@1" and verdict["games"] >= 2
        assert verdict["low"] < verdict["elo"] < verdict["high"]
        assert data["versions"][1]["verdict"] == verdict
        page = (await api.client.get("/bots/ada/mine")).text
        assert "v2 stronger than v1: " in page and verdict["text"] in page
        assert events and events[-1]["state"] == "stronger"
        assert events[-1]["bot"] == "ada/mine"
        # the units: whole tables (both seat rotations of one seed), from the store
        both = [r.game_id for r in api.server.league_store.results()
                if {"ada/mine@1", "ada/mine@2"} <= set(r.bots)]
        tables = api.server.league_store.tables_of(both)
        assert set(tables) == set(both) and len(set(tables.values())) * 2 >= len(both)
        assert verdict["games"] <= len(both)
        with trio.fail_after(30):  # the predecessor leaves the ladder
            while "ada/mine@1" in {spec.name for spec in api.server.ladder.roster}:
                await trio.sleep(0.1)
    # a restart keeps it (stored), and recomputes nothing that has ended
    async with in_process(folder) as api:
        again = (await api.client.get("/api/v1/bots/ada/mine")).json()["verdict"]
        assert again == verdict


async def test_figures_are_recomputed_from_the_games_and_survive_a_restart(
        server_folder: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server.verdicts import Verdicts

    folder, _ = server_folder
    new, old = "ada/mine@2", "ada/mine@1"
    results: list[GameResult] = []
    tables: dict[str, tuple[int, str]] = {}
    for number in range(40):  # pairs on one seed: v2 ahead in 7 games of 8
        for rotation, seats in enumerate(((new, old), (old, new))):
            game_id = f"g{number}r{rotation}"
            ahead = (number * 2 + rotation) % 8 != 0
            first = new if ahead else old
            results.append(result(game_id, seats, tuple(1 if s == first else 2
                                                         for s in seats)))
            tables[game_id] = (number, f"t{number}")
    async with in_process(folder) as api:
        monkeypatch.setattr(api.server.league_store, "tables_of",
                            lambda ids: {i: tables[i] for i in ids if i in tables})
        token = await api.account("ada")
        await upload_valid(api, token, "mine")
        second = await upload_valid(api, token, "mine")
        verdicts = api.server.ladder.verdicts
        verdicts.sync()
        growing: list[GameResult] = []
        for game in results[:6]:  # one game at a time, as the ladder keeps its list
            growing.append(game)
            assert not verdicts.update(growing, [])
        so_far = api.server.store.verdict(second["id"])
        assert so_far is not None and (so_far.state, so_far.games) == ("testing", 6)
        # the next pair in flight: the test waits for it, later tables notwithstanding
        flight = [ScheduledGame("g3r1", "t3", 3, (old, new), 1)]
        assert not verdicts.update(growing + [results[6], results[8], results[9]], flight)
        waited = api.server.store.verdict(second["id"])
        assert waited is not None and waited.games == 6
        # after a restart: the same figures from the same games, whatever was stored
        api.server.store.save_verdict(second["id"], "testing", 999.0, None, None, 1)
        again = Verdicts(api.server)
        again.sync()
        assert not again.update(results[:6], [])
        assert api.server.store.verdict(second["id"]) == so_far
        # to the end: decided, and never changed again
        assert again.update(results, [])
        decided = api.server.store.verdict(second["id"])
        assert decided is not None and decided.state == "stronger"
        assert decided.games < len(results) and decided.low is not None and decided.low > 0
        assert again.sync() == [] and again.testers() == set()
