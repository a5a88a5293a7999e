"""Backends: how a league's games get played.  One interface, several ways.

A :class:`Backend` takes a batch of scheduled games and sends back each game's record as
it finishes; the scheduler (:mod:`arena.league.scheduler`) stores it, shows progress and
owns cancellation.  The backends:

* :class:`LocalBackend` - this process: warm bot pools, ``concurrency`` games at once;
* :class:`WorkerBackend` - worker processes on this machine, one per core
  (:mod:`arena.league.workers`), each with its own pool;
* :class:`DaskBackend` - a Dask cluster (:mod:`arena.league.cluster`);
* :class:`FunctionBackend` - any async function of one game (tests, fakes).

Whatever the backend, a game with real bots is played by :func:`play_seating`: the one
place where the league calls the referee.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import trio

from arena.league.schedule import ScheduledGame
from arena.league.store import PackedRecord
from arena.records import GameRecord

if TYPE_CHECKING:
    from arena.games.base import Game
    from arena.league.cluster import ClusterSettings
    from arena.league.play import GameSettings
    from arena.runner.botspec import BotSpec
    from arena.runner.pool import BotPool

Finished = GameRecord | PackedRecord  # what a backend sends: a record, or one packed
PlayFunction = Callable[[ScheduledGame], Awaitable[Finished]]


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

    async def play(self, games: Sequence[ScheduledGame], results: Results,
                   concurrency: int) -> None:
        """Play every game of ``games`` (at most ``concurrency`` at once; a backend may
        pace itself otherwise) and send each record, placed in the league
        (:meth:`GameRecord.in_league`), on ``results`` as soon as it finishes, in any
        order.  Return when all are sent.  Raise ArenaError when a game cannot be played
        (the games already sent are kept).  Cancelled, it abandons the games in flight
        and ends every process it started."""


async def play_seating(pool: BotPool, engine: Game, settings: GameSettings,
                       seating: Sequence[BotSpec], seed: int) -> GameRecord:
    """One game of real bots from ``pool`` under the league's ``settings``: the league's
    only call of the referee (local, worker processes and cluster workers alike)."""
    from arena.runner.referee import play_game

    async with pool.players(seating) as players:
        return await play_game(engine, players, seed, options=dict(settings.options) or None,
                               limits=settings.limits)


async def _run_each(games: Sequence[ScheduledGame], concurrency: int,
                    play: PlayFunction, results: Results) -> None:
    """``concurrency`` tasks taking games in order and sending their records."""
    send, receive = trio.open_memory_channel[ScheduledGame](math.inf)
    for game in games:
        send.send_nowait(game)
    send.close()

    async def take_games() -> None:
        async with receive.clone() as games_left:
            async for game in games_left:
                await results.send(await play(game))

    async with trio.open_nursery() as nursery:
        for _ in range(max(1, min(concurrency, len(games)))):
            nursery.start_soon(take_games)


class FunctionBackend:
    """Games played by an async function of one scheduled game (tests, fakes); the
    function returns the record already placed in the league."""

    def __init__(self, play: PlayFunction) -> None:
        self._play = play

    async def play(self, games: Sequence[ScheduledGame], results: Results,
                   concurrency: int) -> None:
        await _run_each(games, concurrency, self._play, results)


class LocalBackend:
    """Real bots in this process, kept warm in one pool across games (a bot gets a second
    process only while it is in two games at once)."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec], engine: Game) -> None:
        self.settings = settings
        self.specs: Mapping[str, BotSpec] = {spec.name: spec for spec in roster}
        self.engine = engine

    async def play(self, games: Sequence[ScheduledGame], results: Results,
                   concurrency: int) -> None:
        from arena.runner.pool import open_bot_pool

        async with open_bot_pool(self.settings.limits, self.settings.log_dir) as pool:

            async def play_one(game: ScheduledGame) -> GameRecord:
                seating = [self.specs[name] for name in game.seats]
                record = await play_seating(pool, self.engine, self.settings, seating,
                                            game.seed)
                return record.in_league(game.game_id, game.table, game.round)

            await _run_each(games, concurrency, play_one, results)


class WorkerBackend:
    """Real bots in ``workers`` child processes of this machine (see
    :mod:`arena.league.workers`), each with its own warm pool."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec], workers: int) -> None:
        self.settings = settings
        self.roster = list(roster)
        self.workers = workers

    async def play(self, games: Sequence[ScheduledGame], results: Results,
                   concurrency: int) -> None:
        from arena.league.workers import open_workers

        async with open_workers(self.settings, self.roster, self.workers,
                                concurrency, results.dictionary) as play_one:
            await _run_each(games, concurrency, play_one, results)


class DaskBackend:
    """Real bots on the workers of a Dask cluster (see :mod:`arena.league.cluster`); the
    cluster paces itself in chunks, whatever ``concurrency`` says."""

    def __init__(self, settings: GameSettings, roster: Sequence[BotSpec],
                 cluster: ClusterSettings) -> None:
        self.settings = settings
        self.roster = list(roster)
        self.cluster = cluster

    async def play(self, games: Sequence[ScheduledGame], results: Results,
                   concurrency: int) -> None:
        from arena.league.cluster import open_cluster

        async with open_cluster(self.settings, self.roster, self.cluster) as (play_one, slots):
            await _run_each(games, slots, play_one, results)
