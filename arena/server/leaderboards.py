"""The ladder's leaderboards, one per player count, kept up game by game and announced
as ``rating_changed`` events.

Every stored ladder game is read once from the store (at the start, and again after
:meth:`Leaderboards.stale`) into a :class:`~arena.report.leaderboard.LiveLeaderboard`
per player count; then each game the ladder stores (:meth:`Leaderboards.game_stored`)
is folded in and the board of its player count fitted again from the last fits, so the
board is fresh within a fraction of a second of the game however long the ladder is
(``arena bench freshness`` measures it at 100,000 games).  The board equals ``arena
leaderboard`` over the same games with the server's ``rating_bootstrap`` (docs/ratings.md,
*How the ladder keeps its ratings fresh*).

The work runs in a process of its own, one update at a time (the web app's event loop
and interpreter stay free; ``arena bench freshness`` measures what the loop loses);
games stored while an update runs are folded in together by the next one.  If that
process dies, the next update starts another, which reads the store again.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

import trio

from arena.errors import ArenaError
from arena.records import GameResult
from arena.report.leaderboard import LiveLeaderboard, leaderboard_json
from arena.server.settings import ServerSettings

RECENT_GAMES = 10  # the newest games a leaderboard lists


class BoardsContext(Protocol):
    """What the leaderboards use of the server (:class:`arena.server.core.Server`)."""

    @property
    def settings(self) -> ServerSettings: ...
    def log(self, line: str) -> None: ...
    def announce(self, kind: str, data: dict[str, Any]) -> None:
        """An event for every process's watchers."""
    def share(self, kind: str, value: dict[str, Any]) -> None:
        """The latest leaderboards for every process."""


class Leaderboards:
    """The leaderboard per player count (``boards``: the API's JSON), kept up as games
    are stored; each update is announced as a ``rating_changed`` event."""

    def __init__(self, server: BoardsContext) -> None:
        self.server = server
        self.boards: dict[int, dict[str, Any]] = {}
        self.pool: ProcessPoolExecutor | None = None  # the one process that rates
        # what the ladder told since the last update
        self.arrived: list[GameResult] = []
        self.reread = False
        self.lock = trio.Lock()
        self.dirty = trio.Event()
        self.dirty.set()  # the games already stored

    def game_stored(self, result: GameResult) -> None:
        """The ladder stored this game: it enters the leaderboard in the next update."""
        self.arrived.append(result)
        self.dirty.set()

    def stale(self) -> None:
        """The stored games changed otherwise than by new ones: read them all again."""
        self.reread = True
        self.dirty.set()

    async def run(self) -> None:
        try:
            while True:
                await self.dirty.wait()
                self.dirty = trio.Event()
                await self.compute()
        finally:
            self.close()

    def close(self) -> None:
        """End the rating process now, even mid-update (its state is in memory only: a
        new one starts, reading the store, if needed): a stop waits for no update."""
        if self.pool is not None:
            for process in list(self.pool._processes.values()):  # (no public way in 3.11)
                process.kill()
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    async def compute(self) -> None:
        """Fold in what arrived (the rating process reads the store first if it has not)
        and publish the boards that changed."""
        settings = self.server.settings
        async with self.lock:
            arrived, self.arrived = self.arrived, []
            reread, self.reread = self.reread, False
            try:
                if self.pool is None:
                    self.pool = _start_pool()
                future = self.pool.submit(_update, settings, settings.game,
                                          settings.rating_bootstrap, arrived, reread)
                # (a stop waits for no update: the process is killed, see close)
                boards, lines = await trio.to_thread.run_sync(future.result,
                                                              abandon_on_cancel=True)
            except Exception as problem:  # the last leaderboard stays up
                self.server.log(f"the leaderboard could not be computed: {problem!r}")
                # the games of this update are in the store: the next one reads it again
                self.reread = True
                if isinstance(problem, BrokenProcessPool):  # a new process, which reads
                    self.close()
                return
        for line in lines:
            self.server.log(line)
        self.boards = {**self.boards, **boards}
        self.server.share("boards", {str(count): board for count, board in self.boards.items()})
        for count, board in sorted(boards.items()):
            self.server.announce("rating_changed", {
                "game": settings.game, "num_players": count, "games": board["games"],
                "top": [{"bot": row["bot"], "elo": row["elo"]} for row in board["bots"][:10]]})


# --------------------------------------------------------------------------- the process

# one BLAS thread in the rating process: its matrices are small (bots x bots), and
# OpenBLAS's threads spinning on a loaded machine made each update up to 10 times slower
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _start_pool() -> ProcessPoolExecutor:
    """The rating process, started now (spawned: this process has threads) from this
    thread, trio's main one (it dies with this process, PR_SET_PDEATHSIG, which fires
    when the thread that started it ends), with one BLAS thread (set in the environment
    it starts with, before it loads numpy), and SIGINT and SIGTERM blocked from its
    first instruction (a Ctrl-C reaches the terminal's whole process group: the server
    alone decides when the rating process ends, and no traceback of it is printed)."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_die_with, initargs=(os.getpid(),))
    saved = {name: os.environ.get(name) for name in _BLAS_THREADS}
    os.environ.update({name: "1" for name in _BLAS_THREADS})
    # (a blocked signal waits here, delivered when unblocked: none is lost)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        pool.submit(int)  # the process starts here, in this thread
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return pool


def _die_with(parent: int) -> None:
    """In the rating process, first: it ends with ``parent``, also if that was killed
    while this process was starting (before the signal was asked for)."""
    from arena.league.workers import die_with_parent

    die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


class _Keeper:
    """In the rating process: the live leaderboards, one per player count."""

    def __init__(self) -> None:
        self.live: dict[int, LiveLeaderboard] = {}
        self.recent: dict[int, deque[GameResult]] = {}
        self.counts_shown: set[int] = set()
        self.read = False

    def update(self, settings: ServerSettings, game: str, bootstrap: int,
               arrived: list[GameResult],
               reread: bool) -> tuple[dict[int, dict[str, Any]], list[str]]:
        """The new boards of the player counts that changed, and lines for the log."""
        changed: set[int] = set()
        lines: list[str] = []
        if reread or not self.read:
            changed |= self._read_store(settings, game, bootstrap)
        for result in arrived:
            if result.game != game:
                continue
            count = result.num_players
            live = self.live.get(count)
            if live is None:
                live = self.live[count] = LiveLeaderboard(bootstrap=bootstrap)
                self.recent[count] = deque(maxlen=RECENT_GAMES)
            try:
                added = live.add(result)
            except ArenaError as problem:  # a damaged result must not stop the others
                lines.append(f"game {result.game_id} left out of the leaderboard: {problem}")
                continue
            if added:
                self.recent[count].append(result)
                changed.add(count)
        self.counts_shown |= changed
        return {count: self._board(count) for count in changed}, lines

    def _read_store(self, settings: ServerSettings, game: str, bootstrap: int) -> set[int]:
        """Every stored game of the ladder, on a reading connection of this process;
        returns the player counts to show again."""
        from arena.server.store import open_league_store

        store = open_league_store(settings)
        try:
            results = store.results(game)
        finally:
            store.close()
        by_count: dict[int, list[GameResult]] = {}
        for result in results:
            by_count.setdefault(result.num_players, []).append(result)
        self.live = {count: LiveLeaderboard(games, bootstrap=bootstrap)
                     for count, games in by_count.items()}
        # the newest games (in the order they were stored), for the page's replay links
        self.recent = {count: deque(games[-RECENT_GAMES:], maxlen=RECENT_GAMES)
                       for count, games in by_count.items()}
        self.read = True
        return set(by_count) | self.counts_shown

    def _board(self, count: int) -> dict[str, Any]:
        live = self.live.get(count)
        if live is None:  # a count whose games went (a read again found none)
            return {"games": 0, "bots": [], "recent": []}
        board = leaderboard_json(live.board())
        board["recent"] = [{"game_id": g.game_id, "bots": list(g.bots),
                            "placements": list(g.placements),
                            "failures": {str(k): v for k, v in g.failures.items()}}
                           for g in reversed(self.recent[count])]
        return board


_keeper = _Keeper()  # the rating process's state (one process, one update at a time)


def _update(settings: ServerSettings, game: str, bootstrap: int, arrived: list[GameResult],
            reread: bool) -> tuple[dict[int, dict[str, Any]], list[str]]:
    return _keeper.update(settings, game, bootstrap, arrived, reread)
