"""Playing the missing games of a league concurrently (trio).

One nursery owns everything: the backend (:mod:`arena.league.backends`: this process,
worker processes, a Dask cluster) plays the games and sends each record on a channel;
this loop stores it the moment it arrives.  Storing is synchronous SQLite with no
checkpoint between taking a record and writing it, so a cancellation can never leave
half a game written.

SIGINT (Ctrl-C) and SIGTERM cancel the nursery: games in flight are abandoned (their bot
processes are killed by the runner's own cleanup as the cancellation unwinds) and the run
reports how far it got; rerunning the same command resumes.  A stop rule (a league's
sequential test) is asked after every stored game and ends the run the same way once it
has its answer.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import trio

from arena.league.backends import Backend, Results
from arena.league.progress import Progress
from arena.league.schedule import ScheduledGame
from arena.league.store import PackedRecord, Store
from arena.records import GameRecord, GameResult


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


async def play_games(
    games: Sequence[ScheduledGame],
    backend: Backend,
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
    send, receive = trio.open_memory_channel[GameRecord | PackedRecord](0)

    async def run_backend() -> None:
        try:
            await backend.play(games, Results(send, store.dictionary), concurrency)
        finally:
            # close() without a checkpoint: ``async with send`` would yield while an
            # error unwinds, the loop below would end and cancel the nursery, and the
            # Cancelled would replace the backend's error
            send.close()

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
            nursery.start_soon(run_backend)
            async for record in receive:
                # No checkpoint from here on: the game is stored whole or not at all.
                if store.add_game(record):
                    played += 1
                    finished = record.result()
                    if stop is not None and not stopped and stop.game_done(finished):
                        stopped = True
                        league_scope.cancel()  # games in flight are abandoned
                    progress.game_done(finished, record.worker)
            nursery.cancel_scope.cancel()  # all played: stop the signal watcher
    return RunSummary(played, interrupted, trio.current_time() - start, stopped)
