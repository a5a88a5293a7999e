"""Playing games and storing them as they come (trio): the loop inside
:func:`arena.league.engine.play_league`.

One nursery owns everything: the backend (:mod:`arena.league.backends`: this process,
worker processes, a Dask cluster) plays the games and sends each record on a channel;
this loop stores it the moment it arrives and then tells the caller.  Storing is
synchronous SQLite with no checkpoint between taking a record and writing it, so a
cancellation can never leave half a game written: cancelled, the games in flight are
abandoned (their bot processes are killed by the runner's own cleanup as the
cancellation unwinds) and every game already stored stays.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from arena.league.backends import Backend, Games, Results
from arena.league.play import Finished
from arena.league.store import LeagueStore


async def store_games(
    games: Games,
    backend: Backend,
    store: LeagueStore,
    concurrency: int,
    stored: Callable[[Finished], None],
) -> int:
    """Play ``games`` on ``backend`` and store each as it finishes; ``stored`` is called
    with each newly stored game (not with a repeat the store already held), in the
    storing loop, without a checkpoint.  Returns how many games were stored."""
    count = 0
    send, receive = trio.open_memory_channel[Finished](0)

    async def run_backend() -> None:
        try:
            await backend.play(games, Results(send, store.dictionary), concurrency)
        finally:
            # close() without a checkpoint: ``async with send`` would yield while an
            # error unwinds, the loop below would end and cancel the nursery, and the
            # Cancelled would replace the backend's error
            send.close()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_backend)
        async for record in receive:
            # No checkpoint from here on: the game is stored whole or not at all.
            if store.add_game(record):
                count += 1
                stored(record)
    return count
