"""The ladder: an endless open-ended league inside the server, through the league engine
as a library (:func:`arena.league.engine.play_league` with a feed of tables).

A ``play_league`` call has a fixed roster, so the ladder plays in *rounds of roster*:
when the set of valid versions changes (a version validated, a bot disabled or deleted)
the feeder closes its channel, the call finishes the games in flight and returns, and a
new call starts with the new roster on the same store.  Tables are chosen for
information by :mod:`arena.league.matchmaking` (new versions first, a floor share for
every bot, then the table expected to settle the most of the leaderboard's order), each
table's seed from a counter kept in the database, so that a restart does not replay old
tables.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.league.config import LeagueConfig
from arena.league.engine import League, LeagueListener, StoredGame, play_league
from arena.league.matchmaking import LadderState, next_tables
from arena.league.schedule import ScheduledGame, stable_int, table_games
from arena.league.store import LeagueStore
from arena.records import GameRecord, GameResult
from arena.runner.botspec import BotSpec
from arena.server.context import ServerContext, ladder_spec
from arena.server.store import Friendly
from arena.settings import Limits

RECOMPUTE_AFTER = 1.0  # seconds between leaderboard computations while games arrive
FEED_SEED_KEY = "ladder_tables"
# an uploaded version is "new" to the matchmaker (seated first while its interval
# overlaps a neighbour's) until it has played this many ladder games
NEW_VERSION_GAMES = 50
RECENT_GAMES = 10  # the newest games a leaderboard lists
LADDER_NICE = 10  # the ladder's worker processes and bots: below the web app's priority


def ladder_config(server: ServerContext) -> LeagueConfig:
    """The ladder as a league.  Its games are played in worker processes (one per core,
    at most ``concurrency``), never in the server's own event loop, and at a lower
    priority (``LADDER_NICE``, their bots too): the web app answers first and the ladder
    gets all the CPU it leaves idle."""
    settings = server.settings
    return LeagueConfig(
        path=settings.folder / "settings.toml", name="ladder", game=settings.game,
        players=settings.players, roster=None, concurrency=settings.concurrency,
        workers=None, nice=LADDER_NICE, results_dir=settings.folder,
        limits=Limits(sandbox="auto", move_seconds=settings.move_seconds),
    )


class _Listener(LeagueListener):
    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder

    def notice(self, text: str) -> None:
        self.ladder.server.log(text)

    def game_stored(self, league: League, game: StoredGame) -> None:
        result = game.result
        self.ladder.results.append(result)
        for bot in result.bots:
            self.ladder.played[bot] += 1
            self.ladder.games_of[bot] += 1
        self.ladder.in_progress.pop(result.game_id, None)
        self.ladder.server.events.publish("game_stored", {
            "game_id": result.game_id, "game": result.game, "num_players": result.num_players,
            "bots": list(result.bots), "placements": list(result.placements),
            "scores": list(result.scores)})
        self.ladder.server.leaderboards.stale()


class Ladder:
    def __init__(self, server: ServerContext) -> None:
        self.server = server
        self.generation = 0
        self.wake = trio.Event()
        self.feed_scope: trio.CancelScope | None = None
        self.played: Counter[str] = Counter()  # games per bot in the current roster
        self.roster: list[BotSpec] = []
        self.running = False
        # the games handed to the league and not stored yet (the leaderboard page's
        # "in progress"), by game id
        self.in_progress: dict[str, ScheduledGame] = {}
        # every stored ladder game (read once, then kept up as games are stored), games
        # per bot over them, and the matchmaker's state made from them
        self.results: list[GameResult] = []
        self.games_of: Counter[str] = Counter()
        self.matchmaking: tuple[int, LadderState] | None = None

    def roster_changed(self) -> None:
        """The valid versions changed: end the current league call, start a new one."""
        self.generation += 1
        self.wake.set()
        if self.feed_scope is not None:
            self.feed_scope.cancel()

    def specs(self) -> list[BotSpec]:

        settings = self.server.settings
        specs = list(self.server.house_bots)
        for version in self.server.store.ladder_versions():
            try:
                spec = self.server.load_spec(self.server.folder_of(version))
            except ArenaError as problem:
                self.server.log(f"{version.ladder_name} left out of the ladder: {problem}")
                continue
            spec = ladder_spec(spec, version.ladder_name, settings.game, settings.players)
            if spec.games[settings.game]:
                specs.append(spec)
        return specs

    def _playable(self, specs: list[BotSpec]) -> bool:
        settings = self.server.settings
        return any(sum(spec.plays(settings.game, k) for spec in specs) >= k
                   for k in settings.players)

    async def run(self) -> None:
        config = ladder_config(self.server)
        while True:
            self.wake = trio.Event()
            generation = self.generation
            specs = self.specs()
            self.roster = specs
            if not self._playable(specs):
                self.running = False
                await self.wake.wait()
                continue
            self.played = Counter()
            self.in_progress = {}
            if not self.results:  # read once: then kept up by the listener
                self.results = self.server.league_store.results()
                self.games_of = Counter(bot for r in self.results for bot in r.bots)
            self.running = True
            send, receive = trio.open_memory_channel[ScheduledGame](0)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._feed, send, specs, generation)
                    await play_league(config, store=self.server.league_store, bots=specs,
                                      games=receive, listeners=[_Listener(self)],
                                      concurrency=self.server.settings.concurrency,
                                      cluster=self.server.cluster)
            except Exception as problem:  # the web app and the queue go on regardless
                what = str(problem) if isinstance(problem, ArenaError) else repr(problem)
                self.server.log(f"the ladder stopped: {what}; it starts again when the "
                                "roster changes, or in 30 s")
                self.running = False
                with trio.move_on_after(30):
                    await self.wake.wait()

    async def _feed(self, send: trio.MemorySendChannel[ScheduledGame], specs: list[BotSpec],
                    generation: int) -> None:
        """The ladder's tables, chosen for information (arena.league.matchmaking: the
        table expected to shrink most the intervals of neighbours whose order is not
        settled, new versions first, a floor share for every bot), a batch of
        ``concurrency`` at a time, each played in all its seat rotations with one seed."""
        settings = self.server.settings
        store = self.server.store
        house = {spec.name for spec in self.server.house_bots}
        async with send:
            with trio.CancelScope() as scope:
                self.feed_scope = scope
                if generation != self.generation:
                    scope.cancel()
                turn = 0
                while True:
                    k = settings.players[turn % len(settings.players)]
                    turn += 1
                    names = [spec.name for spec in specs if spec.plays(settings.game, k)]
                    if len(names) < k:
                        await trio.sleep(0)
                        continue
                    counter = store.next_counter(FEED_SEED_KEY)
                    new = [name for name in names
                           if name not in house and self.games_of[name] < NEW_VERSION_GAMES]
                    tables = next_tables(self._state(), names, k,
                                         count=max(1, settings.concurrency), new=new,
                                         seed=stable_int("ladder-table", counter))
                    for number, table in enumerate(tables):
                        seed = stable_int("ladder-seed", counter, number)
                        for game in table_games(settings.game, table, seed, round=counter):
                            await send.send(game)
                            self.in_progress[game.game_id] = game
                            self.server.events.publish("game_started", {
                                "game_id": game.game_id, "num_players": game.num_players,
                                "bots": list(game.seats)})
                        if settings.tables_per_minute:
                            await trio.sleep(60 / settings.tables_per_minute)
            if self.feed_scope is scope:
                self.feed_scope = None

    def _state(self) -> LadderState:
        """The matchmaker's view of every stored ladder game, made again only when games
        were stored since (the results are kept as they are stored)."""
        if self.matchmaking is None or self.matchmaking[0] != len(self.results):
            self.matchmaking = (len(self.results), LadderState.from_results(self.results))
        return self.matchmaking[1]


FRIENDLY_FOLDER = "friendly"  # the friendly games' own league store, beside the ladder's
FRIENDLY_SEED_KEY = "friendly_tables"


class _FriendlyListener(LeagueListener):
    def __init__(self, friendlies: Friendlies, request_id: int) -> None:
        self.friendlies = friendlies
        self.request_id = request_id

    def notice(self, text: str) -> None:
        self.friendlies.server.log(f"friendly games: {text}")

    def game_stored(self, league: League, game: StoredGame) -> None:
        server = self.friendlies.server
        server.store.friendly_played(self.request_id, game.result.game_id)
        server.events.publish("friendly_stored", {
            "request": self.request_id, "game_id": game.result.game_id,
            "bots": list(game.result.bots), "placements": list(game.result.placements)})


class Friendlies:
    """Owners' requests for unrated games against chosen bots, played one game at a
    time beside the ladder (the ladder keeps its ``concurrency``; this takes one more
    slot at most), into a league store of their own (``FOLDER/friendly/``) that the
    leaderboards never read: they never enter the ratings."""

    def __init__(self, server: ServerContext, ladder: Ladder) -> None:
        self.server = server
        self.ladder = ladder
        self.wake = trio.Event()
        self.store: LeagueStore | None = None

    def requested(self) -> None:
        self.wake.set()

    def folder(self) -> Path:
        return self.server.settings.folder / FRIENDLY_FOLDER

    async def run(self) -> None:
        from arena.league.store import create_store

        try:
            while True:
                self.wake = trio.Event()
                request = self.server.store.next_friendly()
                if request is None:
                    await self.wake.wait()
                    continue
                if self.store is None:
                    self.store = create_store(self.folder())
                try:
                    await self.play(request)
                except Exception as problem:  # the next request goes on regardless
                    what = str(problem) if isinstance(problem, ArenaError) else repr(problem)
                    self.server.log(f"friendly games {request.id} stopped: {what}")
                    self.server.store.friendly_state(request.id, "failed", what[:300])
        finally:
            if self.store is not None:
                self.store.close()
                self.store = None

    async def play(self, request: Friendly) -> None:
        settings = self.server.settings
        store = self.server.store
        specs = {spec.name: spec for spec in self.ladder.specs()}
        missing = [name for name in request.seats if name not in specs]
        if missing:
            store.friendly_state(request.id, "failed",
                                 f"not in the ladder any more: {', '.join(missing)}")
            return
        store.friendly_state(request.id, "playing")
        k = len(request.seats)
        config = dataclasses.replace(ladder_config(self.server), name="friendly",
                                     results_dir=self.folder(), concurrency=1)
        bots = [specs[name] for name in request.seats]
        send, receive = trio.open_memory_channel[ScheduledGame](0)

        async def feed() -> None:
            async with send:
                for _ in range(request.games - request.played):
                    counter = store.next_counter(FRIENDLY_SEED_KEY)
                    rng = random.Random(stable_int("friendly-table", counter))
                    seats = list(request.seats)
                    rng.shuffle(seats)
                    seed = stable_int("friendly-seed", counter)
                    game = table_games(settings.game, seats, seed, round=counter)[0]
                    await send.send(game)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(feed)
            assert self.store is not None
            await play_league(config, store=self.store, bots=bots, games=receive,
                              listeners=[_FriendlyListener(self, request.id)],
                              concurrency=1, cluster=self.server.cluster)
        store.friendly_state(request.id, "done", f"{k}-player games, unrated")

    def find_game(self, game_id: str) -> GameRecord:
        """A stored friendly game (ArenaError if none)."""
        from arena.league.store import open_store

        league = open_store(self.folder())
        try:
            return league.find_game(game_id)
        finally:
            league.close()


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
