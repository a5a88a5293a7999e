"""The ladder's leaderboards, one per player count, kept up as games are stored and
announced as ``rating_changed`` events."""

from __future__ import annotations

from typing import Any

import trio

from arena.server.context import ServerContext

RECOMPUTE_AFTER = 1.0  # seconds between leaderboard computations while games arrive
RECENT_GAMES = 10  # the newest games a leaderboard lists


class Leaderboards:
    """The leaderboard per player count, recomputed (in a thread) at most once a second
    while games arrive; each computation is announced as a ``rating_changed`` event."""

    def __init__(self, server: ServerContext) -> None:
        self.server = server
        self.boards: dict[int, dict[str, Any]] = {}
        self.dirty = trio.Event()
        self.dirty.set()  # the games already stored

    def stale(self) -> None:
        self.dirty.set()

    async def run(self) -> None:
        while True:
            await self.dirty.wait()
            self.dirty = trio.Event()
            await self.compute()
            await trio.sleep(RECOMPUTE_AFTER)

    async def compute(self) -> None:
        from arena.league.store import open_store
        from arena.report.leaderboard import build_leaderboard, leaderboard_json

        settings = self.server.settings

        def build() -> dict[int, dict[str, Any]]:
            # in a thread, on a reading connection of its own: a long ladder's games take
            # a while to read and rate, and the web app must not wait for them
            store = open_store(settings.folder)
            try:
                results = store.results(settings.game)
            finally:
                store.close()
            by_count: dict[int, list[Any]] = {}
            for result in results:
                by_count.setdefault(result.num_players, []).append(result)
            boards = {}
            for count, games in by_count.items():
                board = leaderboard_json(build_leaderboard(
                    games, bootstrap=settings.rating_bootstrap))
                # the newest games, for the leaderboard page's links to their replays
                board["recent"] = [{"game_id": g.game_id, "bots": list(g.bots),
                                    "placements": list(g.placements),
                                    "failures": {str(k): v for k, v in g.failures.items()}}
                                   for g in reversed(games[-RECENT_GAMES:])]
                boards[count] = board
            return boards

        try:
            boards = await trio.to_thread.run_sync(build)
        except Exception as problem:  # the last leaderboard stays up
            self.server.log(f"the leaderboard could not be computed: {problem!r}")
            return
        self.boards = boards
        for count, board in boards.items():
            self.server.events.publish("rating_changed", {
                "game": settings.game, "num_players": count, "games": board["games"],
                "top": [{"bot": row["bot"], "elo": row["elo"]} for row in board["bots"][:10]]})
