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

The work runs in a worker thread, one update at a time: the fits are a few large numpy
calls (every bootstrap replicate at once) that release the interpreter, so the web app
goes on meanwhile (``arena bench freshness`` measures what its event loop loses).
Games stored while an update runs are folded in together by the next one.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

import trio

from arena.errors import ArenaError
from arena.records import GameResult
from arena.report.leaderboard import LiveLeaderboard, leaderboard_json
from arena.server.events import Events
from arena.server.settings import ServerSettings

RECENT_GAMES = 10  # the newest games a leaderboard lists


class BoardsContext(Protocol):
    """What the leaderboards use of the server (:class:`arena.server.core.Server`)."""

    @property
    def settings(self) -> ServerSettings: ...
    @property
    def events(self) -> Events: ...
    def log(self, line: str) -> None: ...


class Leaderboards:
    """The leaderboard per player count (``boards``: the API's JSON), kept up as games
    are stored; each update is announced as a ``rating_changed`` event."""

    def __init__(self, server: BoardsContext) -> None:
        self.server = server
        self.boards: dict[int, dict[str, Any]] = {}
        # touched only by the update in its worker thread (one at a time: ``lock``)
        self.live: dict[int, LiveLeaderboard] = {}
        self.recent: dict[int, deque[GameResult]] = {}
        self.read = False  # the stored games are in ``live``
        # what the ladder told since the last update (the trio thread only)
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
        while True:
            await self.dirty.wait()
            self.dirty = trio.Event()
            await self.compute()

    async def compute(self) -> None:
        """Fold in what arrived (reading the store first if needed) and publish the
        boards that changed."""
        async with self.lock:
            arrived, self.arrived = self.arrived, []
            reread, self.reread = self.reread, False
            try:
                boards = await trio.to_thread.run_sync(self._update, arrived, reread)
            except Exception as problem:  # the last leaderboard stays up
                self.server.log(f"the leaderboard could not be computed: {problem!r}")
                return
        settings = self.server.settings
        self.boards = {**self.boards, **boards}
        for count, board in sorted(boards.items()):
            self.server.events.publish("rating_changed", {
                "game": settings.game, "num_players": count, "games": board["games"],
                "top": [{"bot": row["bot"], "elo": row["elo"]} for row in board["bots"][:10]]})

    def _update(self, arrived: list[GameResult], reread: bool) -> dict[int, dict[str, Any]]:
        """In the worker thread: the new boards of the player counts that changed."""
        settings = self.server.settings
        changed: set[int] = set()
        if reread or not self.read:
            changed |= self._read_store()
        for result in arrived:
            if result.game != settings.game:
                continue
            count = result.num_players
            live = self.live.get(count)
            if live is None:
                live = self.live[count] = LiveLeaderboard(bootstrap=settings.rating_bootstrap)
                self.recent[count] = deque(maxlen=RECENT_GAMES)
            try:
                added = live.add(result)
            except ArenaError as problem:  # a damaged result must not stop the others
                self.server.log(f"game {result.game_id} left out of the leaderboard: {problem}")
                continue
            if added:
                self.recent[count].append(result)
                changed.add(count)
        return {count: self._board(count) for count in changed}

    def _read_store(self) -> set[int]:
        """Every stored game of the ladder, on a reading connection of its own (the web
        app's stays free); returns the player counts found."""
        from arena.league.store import open_store

        settings = self.server.settings
        store = open_store(settings.folder)
        try:
            results = store.results(settings.game)
        finally:
            store.close()
        by_count: dict[int, list[GameResult]] = {}
        for result in results:
            by_count.setdefault(result.num_players, []).append(result)
        self.live = {count: LiveLeaderboard(games, bootstrap=settings.rating_bootstrap)
                     for count, games in by_count.items()}
        # the newest games (in the order they were stored), for the page's replay links
        self.recent = {count: deque(games[-RECENT_GAMES:], maxlen=RECENT_GAMES)
                       for count, games in by_count.items()}
        self.read = True
        return set(by_count) | set(self.boards)

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
