"""The server as one object: settings, the two stores (server tables and the ladder's
games, one SQLite file), the cookie signer, the events, the validation queue, the
ladder and its leaderboards; ``await server.run(task_status)`` runs the background work.

What people ask of it goes through the services (arena/server/services/), which tell
the background work here: :meth:`Server.queue_version`, :meth:`Server.roster_changed`,
:meth:`Server.friendly_requested`."""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import trio

from arena.deals import server_deal_key
from arena.errors import ArenaError
from arena.games.base import Game
from arena.records import GameRecord, GameResult
from arena.runner.botspec import BotSpec
from arena.server.accounts import Cookies, LoginThrottle, MemoryEvents, RateEvents, RateLimiter
from arena.server.bus import TRY_SECONDS, Coordination, LocalBus, PgBus, process_name
from arena.server.events import Events
from arena.server.ladder import Friendlies, Ladder
from arena.server.leaderboards import Leaderboards
from arena.server.settings import SECRET_NAME, UPLOADS_NAME, ServerSettings, load_settings
from arena.server.store import (
    FRIENDLY,
    LADDER,
    ServerStore,
    Version,
    has_league_store,
    open_league_store,
    open_server_store,
    printable,
)
from arena.server.watch import EVENTS, LadderView

BUILD_CACHE_NAME = "builds"  # in the server folder: the built copies of uploaded bots
LOG_LIMIT_SECONDS = 60.0  # one line per cause of failed requests, at most this often
# a house bot's ladder name: arena/NAME@TAG (TAG: its content hash, so that an upgraded
# bundled bot is a new entrant); no account may be called "arena" (accounts.py)
HOUSE_PREFIX = "arena/"


def sweep_staging(uploads: Path) -> int:
    """Remove the ``.upload-*`` folders a stop (``kill -9``, a crash, a full disk) left
    in ``uploads/OWNER/NAME/``: an upload becomes a version only when its row is stored,
    after its folder was renamed from the staging name.  Returns how many."""
    swept = 0
    if not uploads.is_dir():
        return 0
    for staging in uploads.glob("*/*/.upload-*"):
        if staging.is_dir() and not staging.is_symlink():
            shutil.rmtree(staging, ignore_errors=True)
            swept += 1
    return swept


def sweep_unlisted(folder: Path, uploads: Path, listed: set[str]) -> int:
    """Remove the version folders ``uploads/OWNER/NAME/N`` that no version row names:
    left by a stop (or a full disk) after an upload's folder was renamed and before its
    row was stored.  An upload is whole (row and folder) or absent.  Returns how many."""
    if not uploads.is_dir():
        return 0
    # a row names the version folder or a folder inside it (an archive with a top folder)
    kept = {Path(name).parts[:4] for name in listed}
    swept = 0
    for version in uploads.glob("*/*/*"):
        if version.name.startswith(".") or not version.name.isdigit():
            continue
        if version.relative_to(folder).parts not in kept and version.is_dir() \
                and not version.is_symlink():
            shutil.rmtree(version, ignore_errors=True)
            swept += 1
    return swept


def make_private(folder: Path) -> list[str]:
    """The server folder and its folders readable by their owner only (mode 0700), its
    files 0600: other users of the machine read neither the accounts, nor the uploads,
    nor the bots' logs.  (A version's own folder in ``uploads/`` stays readable by the
    bot's uid: bots run under uids of their own.)  Returns what was tightened (an older
    folder, a copy made with another umask)."""
    from arena.league.store import DB_NAME, LOCK_NAME
    from arena.server.ladder import FRIENDLY_FOLDER

    changed = []
    paths = [(folder / name, 0o700) for name in ("", UPLOADS_NAME, "logs", FRIENDLY_FOLDER,
                                                  f"{FRIENDLY_FOLDER}/logs")]
    paths += [(folder / name, 0o600) for name in (
        DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", LOCK_NAME, SECRET_NAME, "settings.toml",
        *(f"{FRIENDLY_FOLDER}/{name}" for name in (
            DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", LOCK_NAME)))]
    for path, mode in paths:
        try:
            info = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if info.st_mode & 0o077:
            name = path.name if path == folder else path.relative_to(folder).as_posix()
            try:
                os.chmod(path, mode, follow_symlinks=False)
            except OSError:  # not ours (a read-only copy): said, not fatal
                changed.append(f"{name} (could not: do it by hand)")
                continue
            changed.append(name)
    return changed


def _sandbox_level(settings: ServerSettings) -> str:
    """The level uploaded bots run at ("auto"); without a real sandbox the server starts
    only when the settings say so (a class of trusted students, say)."""
    from arena.runner.sandbox import choose_level

    choice = choose_level("auto")
    if choice.level == "none" and not settings.unsandboxed_ok:
        raise ArenaError(
            f"no sandbox on this machine ({choice.why}): uploaded bots would run as this "
            "user, able to read and change everything it can. Install bubblewrap "
            "(docs/security.md), or set unsandboxed_ok = true in "
            f"{settings.folder / 'settings.toml'} if every uploader is trusted")
    return choice.level


class Server:
    def __init__(self, settings: ServerSettings, *, lock: bool = True,
                 cluster: str | None = None) -> None:
        from arena.plugins.discovery import discover

        self.settings = settings
        self.cluster = settings.cluster(cluster)  # checked before anything is opened
        tightened = make_private(settings.folder)
        self.sandbox = _sandbox_level(settings)
        # the ladder's games: the league store (its lock keeps a second server out)
        self.league_store = open_league_store(settings, LADDER, writer=lock)
        try:
            self.store: ServerStore = open_server_store(settings)
        except BaseException:
            self.league_store.close()
            raise
        secret = (settings.folder / SECRET_NAME).read_text().strip()
        self.cookies = Cookies(secret)
        self.deal_key = server_deal_key(secret)  # the ladder's deals (arena/deals.py)
        self.secure_cookies = settings.tls is not None
        self.log_lines: list[str] = []
        self.stopping = False  # a signal came: arena serve is ending
        self.limited: dict[str, tuple[float, int]] = {}  # cause -> last logged, left out
        # the events this process's watchers get; what every process tells every other
        # (one process on SQLite), and whether this one coordinates (arena/server/bus.py)
        self.events = Events()
        self.bus: LocalBus | PgBus = PgBus(settings.database, self.log) \
            if settings.postgres else LocalBus()
        self.bus.subscribe(self._heard)
        self.coordination = Coordination(settings.database or None)
        self.coordinating = False
        self.coordinated = False  # (once: a second turn starts its work afresh)
        self.process_label = ""  # " (web process N of M)": one of `arena serve --workers`
        self.view = LadderView(self.ladder_results)
        registry = discover([], include_bundled=True)
        self.registry = registry
        self.games: dict[str, Game] = dict(registry.games)
        if settings.game not in self.games:
            raise ArenaError(f"{settings.folder / 'settings.toml'}: key 'ladder.game': "
                             f"unknown game {settings.game!r} (known: {', '.join(self.games)})")
        from arena.plugins.conformance import OPPONENT_NAMES

        self.opponents = [registry.bots[n] for n in OPPONENT_NAMES if n in registry.bots]
        self.house_bots = self._house_bots()
        # the rate limits: in memory for one process, in the store for several
        rates: RateEvents = self.store if settings.postgres else MemoryEvents()
        clock = time.time if settings.postgres else time.monotonic
        self.login_limit = LoginThrottle(settings.login_per_minute, clock, rates)
        self.register_limit = RateLimiter(settings.register_per_hour, 3600, clock, rates,
                                          "register")
        self.queue_send, self.queue_receive = trio.open_memory_channel[int](10000)
        self.ladder = Ladder(self)
        self.leaderboards = Leaderboards(self)
        self.friendlies = Friendlies(self, self.ladder)
        swept = sweep_staging(settings.uploads) + sweep_unlisted(
            settings.folder, settings.uploads, self.store.version_folders())
        if tightened:
            self.log(f"made {', '.join(tightened)} private to this user (other users of "
                     "the machine could read them)")
        if swept:
            self.log(f"removed {swept} unfinished upload(s) left by a stop (never stored: "
                     "their uploaders saw no answer, or an error)")

    @classmethod
    def open(cls, folder: Path, *, lock: bool = True, cluster: str | None = None) -> Server:
        return cls(load_settings(folder), lock=lock, cluster=cluster)

    def close(self) -> None:
        self.leaderboards.close()
        self.coordination.release()
        self.bus.close()
        self.store.close()
        self.league_store.close()

    def log(self, line: str) -> None:
        line = printable(line)
        self.log_lines = [*self.log_lines[-199:], line]
        if not self.stopping:  # a stop is one line: what it makes fail is no news
            print(f"arena serve: {line}", file=sys.stderr, flush=True)

    def log_limited(self, cause: str, line: str) -> None:
        """``line``, unless a line of the same ``cause`` was logged in the last
        LOG_LIMIT_SECONDS (what visitors can trigger at will must not fill the log); the
        next one says how many were left out."""
        now = time.monotonic()
        last, left_out = self.limited.get(cause, (-math.inf, 0))
        if now - last < LOG_LIMIT_SECONDS:
            self.limited[cause] = (last, left_out + 1)
            return
        if len(self.limited) >= 1000:  # causes come from routes: few; forget stale ones
            self.limited = {key: value for key, value in self.limited.items()
                            if now - value[0] < LOG_LIMIT_SECONDS}
        self.limited[cause] = (now, 0)
        self.log(line + (f" ({left_out} more like it left out of the log since the last)"
                         if left_out else ""))

    def _house_bots(self) -> list[BotSpec]:
        specs = []
        for name in self.settings.house_bots:
            spec = self.registry.bots.get(name)
            if spec is None:
                raise ArenaError(f"{self.settings.folder / 'settings.toml'}: key "
                                 f"'ladder.house_bots': no bundled bot {name!r}")
            counts = tuple(n for n in spec.games.get(self.settings.game, ())
                           if n in self.settings.players)
            tag = (spec.content_hash or spec.version)[:8]
            specs.append(dataclasses.replace(spec, name=f"{HOUSE_PREFIX}{name}@{tag}",
                                             games={self.settings.game: counts}))
        return specs

    def build_cache(self) -> Path:
        """Where the built copies of uploaded bots with a build step are kept (by their
        sources' hash: arena/plugins/builds.py)."""
        return self.settings.folder / BUILD_CACHE_NAME

    def built_spec(self, spec: BotSpec) -> BotSpec:
        """A valid version's built copy (ArenaError if the cache lost it: an admin's
        revalidate builds it again)."""
        from arena.plugins.builds import find_built

        built = find_built(spec, self.build_cache())
        if built is None:
            raise ArenaError("its build is missing from the server's build cache (an "
                             "admin's revalidate builds it again)")
        return built

    def folder_of(self, version: Version) -> Path:
        """A version's bot folder (kept relative to the server folder, so that a backup
        serves from where it is)."""
        return self.settings.folder / version.folder

    def load_spec(self, folder: Path) -> BotSpec:
        """The manifest of an uploaded version (ArenaError naming every problem)."""
        from arena.plugins.manifest import load_manifest

        spec = load_manifest(folder, self.games, None, self.registry.unusable_games)
        if spec.connect is not None:
            raise ArenaError("a bot uploaded to a server runs here: key 'connect' is not "
                             "allowed, give a 'command'")
        return spec

    # -- what the pages read (in a thread: a reading connection of its own) ---------
    def ladder_results(self) -> list[GameResult]:
        """The stored ladder games, in the order they finished."""
        league = open_league_store(self.settings)
        try:
            return league.results(self.settings.game)
        finally:
            league.close()

    def failures_in(self, games: list[tuple[str, int]]) -> list[dict[str, Any]]:
        """The failure of seat S in game G for each (G, S): its reason, phase, detail,
        decision and stderr tail, read from the stored records."""
        league = open_league_store(self.settings)
        found = []
        try:
            for game_id, seat in games:
                try:
                    record = league.find_game(game_id)
                except ArenaError:
                    continue
                for failure in record.failures:
                    if failure["seat"] == seat:
                        # the server's own paths are nobody else's business
                        tail = failure["stderr_tail"].replace(f"{self.settings.folder}/", "")
                        found.append({"game_id": game_id, **failure, "stderr_tail": tail})
        finally:
            league.close()
        return found

    # -- background work --------------------------------------------------------
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Hear the other processes; coordinate (the validation queue, the ladder, the
        leaderboards, the friendly games) whenever this process holds the coordinator's
        lock (always, on SQLite), until cancelled."""
        async with trio.open_nursery() as nursery:
            await nursery.start(self.bus.run)
            if self.settings.postgres:  # what the coordinator shared before this start
                self._heard("roster", {})
                self._heard("boards", {})
            task_status.started()
            while True:
                if self.coordination.take():
                    await self._coordinate()
                await trio.sleep(TRY_SECONDS)

    async def _coordinate(self) -> None:
        from arena.server.validation import run_queue

        if self.coordinated:  # a second turn: the work of the first is gone
            self.ladder = Ladder(self)
            self.leaderboards = Leaderboards(self)
            self.friendlies = Friendlies(self, self.ladder)
        self.coordinated = self.coordinating = True
        if self.settings.postgres:
            self.store.save_shared("coordinator", {"process": process_name(),
                                                   "pid": os.getpid(), "since": time.time()})
            self.log(f"this process ({process_name()}) coordinates the ladder, the "
                     "validations and the friendly games")
        try:
            for version in self.store.pending_versions():  # left pending by a stop
                self.queue_send.send_nowait(version.id)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_queue, self, self.queue_receive)
                nursery.start_soon(self.ladder.run)
                nursery.start_soon(self.leaderboards.run)
                nursery.start_soon(self.friendlies.run)
                if self.settings.postgres:
                    nursery.start_soon(self._keep_coordinating, nursery.cancel_scope)
        finally:
            self.coordinating = False
            self.leaderboards.close()
            self.coordination.release()

    async def _keep_coordinating(self, work: trio.CancelScope) -> None:
        """Stop coordinating once the lock's session is gone (another process may hold
        the lock by then: two coordinators would play the same tables)."""
        while True:
            await trio.sleep(TRY_SECONDS)
            if not self.coordination.held():
                self.log("this process lost the coordinator's lock (its database session "
                         "ended): it stops coordinating, another process takes over")
                work.cancel()
                return

    # -- what every process tells every other (arena/server/bus.py) --------------
    def announce(self, kind: str, data: dict[str, Any]) -> None:
        """An event for every process's watchers (and their views of the ladder)."""
        self.bus.publish(kind, data)

    def share(self, kind: str, value: dict[str, Any]) -> None:
        """The coordinator's latest ``kind`` (the roster, the leaderboards) for every
        process, also for one that starts later: kept in the store with PostgreSQL."""
        if self.settings.postgres:
            self.store.save_shared(kind, value)
            self.bus.publish(kind, {})  # (every process reads it from the store)
        else:
            self.bus.publish(kind, value)

    def _heard(self, kind: str, data: dict[str, Any]) -> None:
        if kind in EVENTS:
            self.events.publish(kind, data)
            self.view.heard(kind, data)
        elif kind in ("roster", "boards"):
            value = data or self.store.shared(kind) or {}
            if kind == "roster":
                self.view.set_roster(value.get("bots", []))
            else:
                self.view.set_boards(value)
        elif self.coordinating or not self.settings.postgres:  # asked of the coordinator
            if kind == "queue":
                self.queue_send.send_nowait(int(data["id"]))
            elif kind == "roster_changed":
                if data.get("afresh"):
                    self.ladder.windows.clear()
                self.ladder.roster_changed()
            elif kind == "friendly":
                self.friendlies.requested()

    # -- what the services tell the background work -----------------------------
    def queue_version(self, version_id: int) -> None:
        """A version is pending: the validation queue checks it."""
        self.announce("queue", {"id": version_id})

    def roster_changed(self, *, failures_afresh: bool = False) -> None:
        """Bots were enabled, disabled, deleted or sent back to validation: the ladder
        takes its new roster (``failures_afresh``: every bot's failures count anew)."""
        self.announce("roster_changed", {"afresh": failures_afresh})

    def friendly_requested(self) -> None:
        self.announce("friendly", {})

    def find_game(self, game_id: str) -> GameRecord:
        """A stored game: the ladder's, else a friendly one (ArenaError if neither)."""
        try:
            return self.league_store.find_game(game_id)
        except ArenaError:
            if not has_league_store(self.settings, FRIENDLY):
                raise
            try:
                return self.friendlies.find_game(game_id)
            except ArenaError:
                raise ArenaError(f"no game {game_id!r}") from None
