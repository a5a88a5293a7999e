"""The league engine as a library: play_league awaited inside the caller's trio program,
listeners, open-ended play, cancellation by the caller."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.engine import League, LeagueListener, LeagueSummary, StoredGame, play_league
from arena.league.plan import league_schedule
from arena.league.schedule import ScheduledGame, game_id, table_games
from arena.league.store import LeagueStore, Store, open_store
from tests.league.fakes import FakePlay, bots


class Recorder(LeagueListener):
    """Remembers every event it receives."""

    def __init__(self) -> None:
        self.started: list[League] = []
        self.games: list[StoredGame] = []
        self.ended: list[LeagueSummary] = []

    def league_started(self, league: League) -> None:
        self.started.append(league)

    def game_stored(self, league: League, game: StoredGame) -> None:
        self.games.append(game)

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        self.ended.append(summary)


def _league(tmp_path: Path, name: str, roster: list[str], *extra: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join([
        f'name = "{name}"', 'game = "ra"', "players = [3]", f'results_dir = "{name}-out"',
        f"roster = {roster!r}".replace("'", '"'), "concurrency = 2", *extra]) + "\n")
    return path


def test_two_leagues_awaited_at_once_in_one_trio_run(tmp_path: Path, capsys) -> None:
    first = load_league(_league(tmp_path, "one", ["a", "b", "c", "d"]))
    second = load_league(_league(tmp_path, "two", ["e", "f", "g"], "rounds = 3"))
    listeners = {first.name: Recorder(), second.name: Recorder()}
    plays = {first.name: FakePlay(sleep=0.005), second.name: FakePlay(sleep=0.005)}
    summaries: dict[str, LeagueSummary] = {}
    overlap = {"both": False}

    async def one(config) -> None:  # type: ignore[no-untyped-def]
        summaries[config.name] = await play_league(
            config, backend=FunctionBackend(plays[config.name]),
            bots=bots(list(config.roster)), listeners=[listeners[config.name]])

    async def watch() -> None:  # both leagues have games in flight at some moment
        while len(summaries) < 2:
            if all(play.in_flight for play in plays.values()):
                overlap["both"] = True
            await trio.sleep(0.001)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(one, first)
            nursery.start_soon(one, second)
            nursery.start_soon(watch)

    trio.run(main)
    assert capsys.readouterr() == ("", "")  # the library prints nothing
    assert overlap["both"]
    for config in (first, second):
        schedule, _ = league_schedule(config, bots(list(config.roster)))
        recorder = listeners[config.name]
        seen = [game.result.game_id for game in recorder.games]
        # every game of the league exactly once, and no game of the other league
        assert Counter(seen) == Counter(game.game_id for game in schedule)
        summary = summaries[config.name]
        assert summary.played == summary.stored == summary.scheduled == len(schedule)
        assert not summary.interrupted and not summary.stopped and not summary.failed
        assert recorder.ended == [summary] and len(recorder.started) == 1
        store = open_store(config.results_dir)
        assert sorted(store.played_ids()) == sorted(seen)
        store.close()


def test_open_ended_play_takes_the_callers_tables_until_the_feed_closes(
    tmp_path: Path,
) -> None:
    config = load_league(_league(tmp_path, "ladder", ["a", "b", "c", "d"]))
    recorder = Recorder()
    play = FakePlay()
    fed: list[ScheduledGame] = []

    async def main() -> LeagueSummary:
        send, receive = trio.open_memory_channel[ScheduledGame](0)
        async with trio.open_nursery() as nursery:
            async def feed() -> None:
                async with send:
                    for seed, table in enumerate([("a", "b", "c"), ("b", "c", "d"),
                                                  ("a", "b", "c")]):
                        # the third table repeats the first one's seats with seed 2
                        for game in table_games("ra", table, seed):
                            fed.append(game)
                            await send.send(game)
                    for game in table_games("ra", ("a", "b", "c"), 0):
                        await send.send(game)  # asked again: stored once
            nursery.start_soon(feed)
            return await play_league(config, backend=FunctionBackend(play),
                                     bots=bots(["a", "b", "c", "d"]), games=receive,
                                     listeners=[recorder])

    summary = trio.run(main)
    assert summary.scheduled is None
    assert summary.played == summary.stored == len(fed) == 9
    assert [game.result.game_id for game in recorder.games] == [g.game_id for g in fed]
    assert len(play.started) == 12  # the repeated table was played and not stored again
    # ids come from contents: the same as a scheduled game of that seating and seed
    assert fed[0].game_id == game_id("ra", ("a", "b", "c"), 0)
    assert {g.seats for g in fed[:3]} == {("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")}
    assert len({g.table for g in fed[:3]}) == 1 and fed[0].table != fed[3].table


def test_a_cancelled_league_keeps_its_games_and_tells_its_listeners(tmp_path: Path) -> None:
    config = load_league(_league(tmp_path, "slow", ["a", "b", "c", "d", "e"]))
    recorder = Recorder()

    class Canceller(LeagueListener):
        def __init__(self, scope: trio.CancelScope) -> None:
            self.scope = scope

        def game_stored(self, league: League, game: StoredGame) -> None:
            if league.played == 3:
                self.scope.cancel()  # the caller's cancellation, from outside the league

    async def main() -> None:
        with trio.CancelScope() as scope:
            await play_league(config, backend=FunctionBackend(FakePlay(sleep=0.01)),
                              bots=bots(list(config.roster)),
                              listeners=[Canceller(scope), recorder])
            raise AssertionError("play_league returned after its caller cancelled it")

    trio.run(main)
    (summary,) = recorder.ended
    assert summary.interrupted and not summary.failed and summary.played == 3
    store = open_store(config.results_dir)
    assert store.count() == 3 == summary.stored
    store.close()


def test_a_listener_can_stop_the_league(tmp_path: Path) -> None:
    config = load_league(_league(tmp_path, "short", ["a", "b", "c", "d"]))

    class StopAfterTwo(LeagueListener):
        def game_stored(self, league: League, game: StoredGame) -> None:
            if league.played == 2:
                league.stop()

    summary = trio.run(lambda: play_league(
        config, backend=FunctionBackend(FakePlay(sleep=0.01)), bots=bots(list(config.roster)),
        listeners=[StopAfterTwo()]))
    assert summary.stopped and not summary.interrupted and summary.played == 2


def test_a_callers_store_is_used_and_left_open(tmp_path: Path) -> None:
    from arena.league.store import create_store

    config = load_league(_league(tmp_path, "mine", ["a", "b", "c"]))
    store: LeagueStore = create_store(tmp_path / "elsewhere")
    try:
        summary = trio.run(lambda: play_league(
            config, store=store, backend=FunctionBackend(FakePlay()), bots=bots(["a", "b", "c"])))
        assert summary.stored == store.count() == 3  # still open: it is the caller's
    finally:
        store.close()
    assert not (tmp_path / "mine-out").exists()


def test_open_ended_play_refuses_a_stop_test(tmp_path: Path) -> None:
    path = tmp_path / "tested.toml"
    path.write_text('name = "tested"\ngame = "ra"\nplayers = [2]\nresults_dir = "out"\n'
                    'roster = ["a", "b"]\n[stop]\n'
                    'sprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }\n')
    config = load_league(path)

    async def nothing():  # type: ignore[no-untyped-def]
        return
        yield

    with pytest.raises(ArenaError, match="open-ended play"):
        trio.run(lambda: play_league(config, backend=FunctionBackend(FakePlay()),
                                     bots=bots(["a", "b"]), games=nothing()))


def test_the_sqlite_store_is_a_league_store() -> None:
    # the protocol's every operation exists on the implementation with the same kind
    for name in dir(LeagueStore):
        if name.startswith("_"):
            continue
        assert hasattr(Store, name) or name == "path", name


@pytest.mark.parametrize("workers", [1, 2], ids=["local", "worker-processes"])
def test_open_ended_play_with_real_bots_on_each_backend(tmp_path: Path, workers: int) -> None:
    """The caller's tables are played by the same backends as a schedule: in this process
    (workers = 1) and in worker processes (the Dask backend is tested in test_cluster)."""
    path = tmp_path / "real.toml"
    path.write_text('name = "real"\ngame = "ra"\nplayers = [2]\nresults_dir = "out"\n'
                    f'roster = ["random", "first"]\nconcurrency = 2\nworkers = {workers}\n'
                    '[limits]\nsandbox = "none"\n')
    config = load_league(path)
    recorder = Recorder()

    async def main() -> LeagueSummary:
        send, receive = trio.open_memory_channel[ScheduledGame](0)
        async with trio.open_nursery() as nursery:
            async def feed() -> None:
                async with send:
                    for seed in range(3):
                        for game in table_games("ra", ("random", "first"), seed):
                            await send.send(game)
            nursery.start_soon(feed)
            return await play_league(config, games=receive, listeners=[recorder])

    summary = trio.run(main)
    assert summary.played == summary.stored == 6
    assert {game.result.bots for game in recorder.games} == {("random", "first"),
                                                              ("first", "random")}
    store = open_store(config.results_dir)
    assert store.count() == 6 and all(r.game == "ra" for r in store.results())
    store.close()
