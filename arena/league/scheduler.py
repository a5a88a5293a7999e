"""Playing the missing games of a league concurrently (trio).

One nursery owns everything: ``concurrency`` tasks take games from a channel, play each
one through ``play`` (an async function of one scheduled game, see
:mod:`arena.league.play`), and store it the moment it finishes.  Storing is synchronous
SQLite with no checkpoint inside, so a cancellation can never leave half a game written.

SIGINT (Ctrl-C) and SIGTERM cancel the nursery: games in flight are abandoned (their bot
processes are killed by the runner's own cleanup as the cancellation unwinds) and the run
reports how far it got; rerunning the same command resumes.  A stop rule (a league's
sequential test) is asked after every stored game and ends the run the same way once it
has its answer.
"""

from __future__ import annotations

import math
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

import trio

from arena.league.progress import Progress
from arena.league.results import GameResult
from arena.league.schedule import ScheduledGame
from arena.league.store import PlayedGame, Store

PlayFunction = Callable[[ScheduledGame], Awaitable[PlayedGame]]
# Opens whatever playing needs (warm bot pools, ...) inside the league's nursery.
PlayerFactory = Callable[[trio.Nursery], AbstractAsyncContextManager[PlayFunction]]


class StopRule(Protocol):
    def game_done(self, result: GameResult) -> bool:
        """Called after each stored game: True when the league has its answer."""
        ...


@dataclass(frozen=True)
class RunSummary:
    played: int
    interrupted: bool
    elapsed: float
    stopped: bool = False  # the stop rule ended the run early


def as_result(played: PlayedGame, sequence: int = 0) -> GameResult:
    return GameResult(
        game_id=played.game_id,
        game=played.game,
        bots=played.seats,
        scores=played.scores,
        placements=played.placements,
        failures=dict(played.failures),
        sequence=sequence,
    )


async def play_games(
    games: Sequence[ScheduledGame],
    player: PlayerFactory,
    store: Store,
    concurrency: int,
    progress: Progress,
    *,
    handle_signals: bool = True,
    stop: StopRule | None = None,
) -> RunSummary:
    start = trio.current_time()
    played = 0
    interrupted = stopped = False
    send, receive = trio.open_memory_channel[ScheduledGame](math.inf)
    for game in games:
        send.send_nowait(game)
    send.close()

    async def take_games(play: PlayFunction) -> None:
        nonlocal played, stopped
        async with receive.clone() as games_left:
            async for game in games_left:
                result = await play(game)
                # No checkpoint from here on: the game is stored whole or not at all.
                if store.add_game(result):
                    played += 1
                    finished = as_result(result)
                    if stop is not None and stop.game_done(finished) and not stopped:
                        stopped = True
                        league_scope.cancel()  # games in flight are abandoned
                    progress.game_done(finished)

    async def watch_signals(scope: trio.CancelScope) -> None:
        nonlocal interrupted
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _signal in signals:
                interrupted = True
                scope.cancel()
                return

    with trio.CancelScope() as league_scope:
        async with trio.open_nursery() as nursery:
            if handle_signals:
                nursery.start_soon(watch_signals, league_scope)
            async with player(nursery) as play, trio.open_nursery() as in_flight:
                for _ in range(max(1, min(concurrency, len(games)))):
                    in_flight.start_soon(take_games, play)
            nursery.cancel_scope.cancel()  # all played: stop the signal watcher
    return RunSummary(played, interrupted, trio.current_time() - start, stopped)


def simple_player(play: PlayFunction) -> PlayerFactory:
    """A factory for a play function that needs no shared resources (tests, benchmarks)."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def factory(_nursery: trio.Nursery) -> AsyncIterator[PlayFunction]:
        yield play

    return factory
