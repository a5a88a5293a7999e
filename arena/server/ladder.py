"""The ladder: an endless open-ended league inside the server, through the league engine
as a library (:func:`arena.league.engine.play_league` with a feed of tables), its tables
chosen as the league format "ladder" chooses them (:func:`arena.league.formats.
ladder_tables`, ``ladder_batch``): here batch after batch as tables free up, with new
versions, verdicts and a roster that changes.

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

import contextlib
import dataclasses
import random
from collections import Counter, deque
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.league.config import LeagueConfig
from arena.league.engine import League, LeagueListener, StoredGame, play_league
from arena.league.formats import ladder_batch, ladder_tables
from arena.league.matchmaking import LadderState
from arena.league.schedule import ScheduledGame, stable_int, table_games
from arena.league.store import LeagueStore
from arena.records import GameRecord, GameResult
from arena.runner.botspec import BotSpec
from arena.server.context import ServerContext, ladder_spec
from arena.server.store import (
    FRIENDLY,
    Friendly,
    Version,
    disk_full,
    open_league_store,
)
from arena.server.verdicts import Verdicts
from arena.server.watch import result_json
from arena.settings import Limits
from arena.storage import StorageError

FEED_SEED_KEY = "ladder_tables"
# an uploaded version is "new" to the matchmaker (seated first while its interval
# overlaps a neighbour's) until it has played this many ladder games
NEW_VERSION_GAMES = 50
# a recorded game handed to the league this often and never stored is dropped (a game
# that stops the ladder each time must not stop it for ever)
REPLAY_TRIES = 3
RETRY_SECONDS = 30  # a stopped ladder starts again after this (or at a roster change)
DISK_FULL_RETRY_SECONDS = 5  # ... or this, when the disk was full: it resumes soon after
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
        self.ladder.stopped_by = None
        with contextlib.suppress(StorageError):  # a full disk: the next feed drops it
            self.ladder.server.store.clear_inflight([result.game_id])
        self.ladder.count_failures(result)
        self.ladder.server.announce("game_stored", result_json(result))
        self.ladder.server.leaderboards.game_stored(result)


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
        # per uploaded version in play: the failure reason (None: none) of each of its
        # last ``pause_window`` games, made from ``results`` when first needed
        self.windows: dict[str, deque[tuple[str, str | None]]] = {}
        self.stopped_by: str | None = None  # why the ladder stopped, until a game is stored
        self.verdicts = Verdicts(server)  # new versions against their predecessors

    def roster_changed(self) -> None:
        """The valid versions changed: end the current league call, start a new one."""
        self.generation += 1
        self.wake.set()
        if self.feed_scope is not None:
            self.feed_scope.cancel()

    def set_roster(self, specs: list[BotSpec]) -> None:
        """The bots the ladder plays now, told to every web process (their pages list
        them, and whom a friendly request may name)."""
        self.roster = specs
        game = self.server.settings.game
        self.server.share("roster", {"bots": [[spec.name, list(spec.games.get(game, ()))]
                                              for spec in specs]})

    def specs(self) -> list[BotSpec]:

        settings = self.server.settings
        specs = list(self.server.house_bots)
        # the newest valid versions, and the predecessors they are being tested against
        for version in [*self.server.store.ladder_versions(), *self.verdicts.sync()]:
            try:
                spec = self.server.load_spec(self.server.folder_of(version))
                self._check_files(version, spec)
                if spec.needs_build:  # built when it was validated
                    spec = self.server.built_spec(spec)
            except ArenaError as problem:
                self._leave_out(version, problem)
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
            self.set_roster(specs)
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
                                      cluster=self.server.cluster,
                                      deal_key=self.server.deal_key)
            except Exception as problem:  # the web app and the queue go on regardless
                while isinstance(problem, ExceptionGroup) and len(problem.exceptions) == 1:
                    problem = problem.exceptions[0]
                full = disk_full(problem)
                retry = DISK_FULL_RETRY_SECONDS if full else RETRY_SECONDS
                what = ("the disk is full (every game stored before is safe; the games in "
                        "flight are played again)") if full else (
                    str(problem) if isinstance(problem, ArenaError) else repr(problem))
                if what != self.stopped_by:  # said once while it lasts, not every retry
                    self.server.log(f"the ladder stopped: {what}; it starts again when the "
                                    f"roster changes, or in {retry} s")
                self.stopped_by = what
                self.running = False
                with trio.move_on_after(retry):
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
                for game in self._unfinished(specs):
                    await self._send(send, game)
                    store.inflight_fed(game.game_id)
                turn = 0
                while True:
                    if self.verdicts.update(self.results, self.in_progress.values()):
                        self.roster_changed()  # a test ended: its predecessor leaves
                        await trio.sleep(0)  # (cancelled here)
                    k = settings.players[turn % len(settings.players)]
                    turn += 1
                    names = [spec.name for spec in specs if spec.plays(settings.game, k)]
                    if len(names) < k:
                        await trio.sleep(0)
                        continue
                    counter = store.next_counter(FEED_SEED_KEY)
                    testers = self.verdicts.testers()
                    new = [name for name in names if name not in house
                           and name not in testers and self.games_of[name] < NEW_VERSION_GAMES]
                    count = max(1, settings.concurrency)
                    together = self.verdicts.together(names, self.games_of,
                                                      self.in_progress.values())
                    tables = ladder_tables(self._state(), names, k, count, counter, new=new,
                                           together=together[:count])
                    for games in ladder_batch(settings.game, tables, counter, round=counter):
                        store.add_inflight(games)  # before any is played: a stop replays them
                        for game in games:
                            await self._send(send, game)
                        if settings.tables_per_minute:
                            await trio.sleep(60 / settings.tables_per_minute)
            if self.feed_scope is scope:
                self.feed_scope = None

    async def _send(self, send: trio.MemorySendChannel[ScheduledGame],
                    game: ScheduledGame) -> None:
        await send.send(game)
        self.in_progress[game.game_id] = game
        self.server.announce("game_started", {
            "game_id": game.game_id, "num_players": game.num_players,
            "bots": list(game.seats)})

    def _unfinished(self, specs: list[BotSpec]) -> list[ScheduledGame]:
        """The recorded games that a stop (``kill -9``, a crash, a full disk) or a roster
        change left unplayed, played first with their own seeds and ids: the league
        store keeps a game id once, so none is doubled.  Dropped: those stored since,
        those whose bots left the roster, those handed out REPLAY_TRIES times."""
        store = self.server.store
        recorded = store.inflight()
        if not recorded:
            return []
        stored = self.server.league_store.played_ids()
        game_name = self.server.settings.game
        plays = {spec.name: spec for spec in specs}
        keep, drop, given_up = [], [], []
        for game, fed in recorded:
            if game.game_id in stored or not all(
                    name in plays and plays[name].plays(game_name, game.num_players)
                    for name in game.seats):
                drop.append(game.game_id)
            elif fed >= REPLAY_TRIES:
                given_up.append(game.game_id)
            else:
                keep.append(game)
        store.clear_inflight(drop + given_up)
        if given_up:
            self.server.log(f"{len(given_up)} ladder game(s) dropped: handed out "
                            f"{REPLAY_TRIES} times and never stored")
        if keep:
            self.server.log(f"playing {len(keep)} unfinished ladder game(s) again, with "
                            "the same seeds and ids")
        return keep

    def _check_files(self, version: Version, spec: BotSpec) -> None:
        """A valid version's files as they were uploaded (else ArenaError): a folder
        changed on disk must not play under the name its games were rated under."""
        known = version.content_hash or getattr(
            self.server.league_store.bots().get(version.ladder_name), "content_hash", None)
        if known and spec.content_hash != known:
            raise ArenaError("its files on the server changed since the upload")

    def _leave_out(self, version: Version, problem: ArenaError) -> None:
        """A version whose folder is damaged: paused with the reason, which its owner
        sees; the rest of the ladder plays."""
        folder = self.server.settings.folder
        text = str(problem).replace(f"{self.server.folder_of(version)}/", "").replace(
            f"{folder}/", "").replace(str(folder), "")
        self.server.log(f"{version.ladder_name} left out of the ladder: {text}")
        reason = (f"left out of the ladder: its files on the server are damaged ({text}); "
                  "upload it again, or ask an admin")
        with contextlib.suppress(StorageError):  # a full disk: left out all the same
            self.server.store.pause(version.id, reason[:500])

    def count_failures(self, result: GameResult) -> None:
        """Each uploaded version's failures over its last ``pause_window`` games; over
        ``pause_failures`` of them, it is paused (its owner sees why) and leaves."""
        settings = self.server.settings
        if settings.pause_failures >= 1:
            return
        house = {spec.name for spec in self.server.house_bots}
        for seat, name in enumerate(result.bots):
            if name in house:
                continue
            window = self.windows.get(name)
            if window is None:
                window = self.windows[name] = self._window(name)
            else:
                window.append((result.game_id, result.failures.get(seat)))
            failed = [(game_id, reason) for game_id, reason in window if reason is not None]
            if len(failed) <= settings.pause_failures * settings.pause_window:
                continue
            version = next((v for v in self.server.store.ladder_versions()
                            if v.ladder_name == name), None)
            if version is None:
                continue
            reasons = Counter(reason for _, reason in failed)
            reason = (f"paused: failed in {len(failed)} of its last {len(window)} games ("
                      + ", ".join(f"{why} {count}" for why, count in reasons.most_common())
                      + f"; last: {failed[-1][1]} in game {failed[-1][0]}); enable the bot "
                      "or upload a new version to play again")
            self.server.store.pause(version.id, reason)
            self.server.log(f"{name} {reason}")
            del self.windows[name]
            self.roster_changed()

    def _window(self, name: str) -> deque[tuple[str, str | None]]:
        """NAME's last games since its failures count (``failures_from``), newest last."""
        settings = self.server.settings
        since = next((v.failures_from for v in self.server.store.ladder_versions()
                      if v.ladder_name == name), 0)
        window: deque[tuple[str, str | None]] = deque(maxlen=settings.pause_window)
        for result in self.results[since:]:
            if name in result.bots:
                seat = result.bots.index(name)
                window.append((result.game_id, result.failures.get(seat)))
        return window

    def _state(self) -> LadderState:
        """The matchmaker's view of every stored ladder game, made again only when games
        were stored since (the results are kept as they are stored)."""
        stored = len(self.results)
        if self.matchmaking is None or self.matchmaking[0] > stored:
            self.matchmaking = (stored, LadderState.from_results(self.results))
        elif self.matchmaking[0] < stored:  # only the games stored since
            kept, state = self.matchmaking
            self.matchmaking = (stored, state.extended(self.results[kept:]))
        return self.matchmaking[1]


FRIENDLY_FOLDER = FRIENDLY  # the friendly games' own league store, beside the ladder's
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
        server.announce("friendly_stored", {
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
        try:
            while True:
                self.wake = trio.Event()
                request = self.server.store.next_friendly()
                if request is None:
                    await self.wake.wait()
                    continue
                if self.store is None:
                    self.store = open_league_store(self.server.settings, FRIENDLY,
                                                   writer=True)
                try:
                    await self.play(request)
                except Exception as problem:  # the next request goes on regardless
                    if disk_full(problem):  # it waits, played when space returns
                        self.server.log(f"friendly games {request.id} wait: the disk is full")
                        await trio.sleep(DISK_FULL_RETRY_SECONDS)
                        continue
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
                              concurrency=1, cluster=self.server.cluster,
                              deal_key=self.server.deal_key)
        store.friendly_state(request.id, "done", f"{k}-player games, unrated")

    def find_game(self, game_id: str) -> GameRecord:
        """A stored friendly game (ArenaError if none)."""
        league = open_league_store(self.server.settings, FRIENDLY)
        try:
            return league.find_game(game_id)
        finally:
            league.close()
