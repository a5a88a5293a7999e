"""Backends: how a league's games get played.  One interface, several ways.

A :class:`Backend` takes the games to play, as a fixed list or one at a time from
whoever feeds the league (open-ended play: :func:`arena.league.engine.play_league` with
``games=``), and sends back each game's record as it finishes; the league engine stores
it and tells its listeners.  The backends:

* :class:`LocalBackend` - this process: warm bot pools, ``concurrency`` games at once;
* :class:`WorkerBackend` - worker processes on this machine, one per core
  (:mod:`arena.league.workers`), each with its own pool;
* :class:`DaskBackend` - a Dask cluster (:mod:`arena.league.cluster`);
* :class:`FunctionBackend` - any async function of one game (tests, fakes).

Whatever the backend, a game with real bots is played by
:func:`arena.league.play.play_seating`: the one place where the league calls the referee.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import trio

from arena.league.play import Finished, GameSettings, PlayFunction, engine, play_seating
from arena.league.schedule import ScheduledGame
from arena.records import GameRecord
from arena.runner.botspec import seat_specs

if TYPE_CHECKING:
    from arena.league.config import ClusterSettings
    from arena.runner.botspec import BotSpec

Games = Sequence[ScheduledGame] | AsyncIterable[ScheduledGame]


class Results:
    """Where a backend sends each finished game: the scheduler's channel.  It also lends
    the store's compression dictionaries (read-only) to backends that pack records where
    they are played (:func:`arena.league.store.pack_record`)."""

    def __init__(self, channel: trio.MemorySendChannel[Finished],
                 dictionary: Callable[[str], tuple[int, bytes] | None] = lambda game: None
                 ) -> None:
        self._channel = channel
        self.dictionary = dictionary

    async def send(self, finished: Finished) -> None:
        await self._channel.send(finished)


class Backend(Protocol):
    """Plays a batch of games; the scheduler stores what it sends."""

    async def play(self, games: Games, results: Results, concurrency: int) -> None:
        """Play every game of ``games`` (at most ``concurrency`` at once; a backend may
        pace itself otherwise) and send each record, placed in the league
        (:meth:`GameRecord.in_league`), on ``results`` as soon as it finishes, in any
        order.  ``games`` is a list, or an async iterable fed by the caller (taken one
        game at a time, as tables free up).  Return when all are sent.  Raise ArenaError
        when a game cannot be played (the games already sent are kept).  Cancelled, it
        abandons the games in flight and ends every process it started."""


async def _run_each(games: Games, concurrency: int, play: PlayFunction,
                    results: Results) -> None:
    """``concurrency`` tasks taking games in order and sending their records.  A game
    from an open-ended feed is taken only when a task is free to play it, so the feeder
    always decides the next game as late as possible."""
    if isinstance(games, Sequence):
        if not games:
            return
        concurrency = min(concurrency, len(games))
    send, receive = trio.open_memory_channel[ScheduledGame](
        math.inf if isinstance(games, Sequence) else 0)

    async def feed() -> None:
        async with send:
            if isinstance(games, Sequence):
                for game in games:
                    send.send_nowait(game)
            else:
                async for game in games:
                    await send.send(game)

    async def take_games(games_left: trio.MemoryReceiveChannel[ScheduledGame]) -> None:
        async with games_left:
            async for game in games_left:
                await results.send(await play(game))

    async with trio.open_nursery() as nursery, receive:
        nursery.start_soon(feed)
        for _ in range(max(1, concurrency)):
            nursery.start_soon(take_games, receive.clone())


class FunctionBackend:
    """Games played by an async function of one scheduled game (tests, fakes); the
    function returns the record already placed in the league."""

    def __init__(self, play: PlayFunction) -> None:
        self._play = play

    async def play(self, games: Games, results: Results, concurrency: int) -> None:
        await _run_each(games, concurrency, self._play, results)


class LocalBackend:
    """Real bots in this process, kept warm in one pool across games (a bot gets a second
    process only while it is in two games at once)."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec]) -> None:
        self.settings = settings
        self.specs: Mapping[str, BotSpec] = {spec.name: spec for spec in roster}

    async def play(self, games: Games, results: Results, concurrency: int) -> None:
        from arena.runner.pool import open_bot_pool

        game_engine = engine(self.settings.game)
        async with open_bot_pool(self.settings.limits, self.settings.log_dir) as pool:

            async def play_one(game: ScheduledGame) -> GameRecord:
                seating = seat_specs(self.specs, game.seats, game.parameters)
                record = await play_seating(pool, game_engine, self.settings, seating,
                                            game.seed)
                return record.in_league(game.game_id, game.table, game.round)

            await _run_each(games, concurrency, play_one, results)


class WorkerBackend:
    """Real bots in ``workers`` child processes of this machine (see
    :mod:`arena.league.workers`), each with its own warm pool; ``nice``: their niceness
    (and their bots')."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec], workers: int,
                 *, nice: int = 0) -> None:
        self.settings = settings
        self.roster = list(roster)
        self.workers = workers
        self.nice = nice

    async def play(self, games: Games, results: Results, concurrency: int) -> None:
        from arena.league.workers import open_workers

        async with open_workers(self.settings, self.roster, self.workers,
                                concurrency, results.dictionary, nice=self.nice) as play_one:
            await _run_each(games, concurrency, play_one, results)


class DaskBackend:
    """Real bots on the workers of a Dask cluster (see :mod:`arena.league.cluster`); the
    cluster paces itself in chunks, whatever ``concurrency`` says."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec],
                 cluster: ClusterSettings) -> None:
        self.settings = settings
        self.roster = list(roster)
        self.cluster = cluster

    async def play(self, games: Games, results: Results, concurrency: int) -> None:
        from arena.league.cluster import open_cluster

        async with open_cluster(self.settings, self.roster, self.cluster, concurrency,
                                results.dictionary) as (play_one, slots):
            await _run_each(games, slots, play_one, results)
