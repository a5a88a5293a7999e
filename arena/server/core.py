"""The server as one object: settings, the two stores (server tables and the ladder's
games, one SQLite file), the cookie signer, the events, the validation queue, the
ladder and its leaderboards; ``await server.run(task_status)`` runs the background work.

Uploads are taken here (:meth:`Server.upload`): quotas, safe unpacking, the manifest,
then a ``pending`` version on the validation queue."""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import sqlite3
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
from arena.server import archives
from arena.server.accounts import Cookies, LoginThrottle, RateLimiter
from arena.server.events import Events
from arena.server.ladder import Friendlies, Ladder
from arena.server.leaderboards import Leaderboards
from arena.server.settings import SECRET_NAME, UPLOADS_NAME, ServerSettings, load_settings
from arena.server.store import Bot, ServerStore, User, Version, disk_full, printable

DAY = 24 * 3600
BUILD_CACHE_NAME = "builds"  # in the server folder: the built copies of uploaded bots
MAX_FRIENDLY_GAMES = 20  # per request
MAX_OPEN_FRIENDLIES = 3  # requests waiting, per user
UPLOADS_AT_ONCE = 2  # uploads of one user being unpacked at the same time
LOG_LIMIT_SECONDS = 60.0  # one line per cause of failed requests, at most this often
DISK_FULL_ANSWER = ("the server's disk is full: nothing was stored; try again later (the "
                    "admin is told)")


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


class Refused(ArenaError):
    """A request the server will not do: ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


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
        from arena.league.store import create_store, open_store
        from arena.plugins.discovery import discover

        self.settings = settings
        self.cluster = settings.cluster(cluster)  # checked before anything is opened
        tightened = make_private(settings.folder)
        self.sandbox = _sandbox_level(settings)
        # the ladder's games: the league store (its lock keeps a second server out)
        self.league_store = create_store(settings.folder) if lock else open_store(
            settings.folder)
        try:
            self.store = ServerStore(settings.database)
        except BaseException:
            self.league_store.close()
            raise
        secret = (settings.folder / SECRET_NAME).read_text().strip()
        self.cookies = Cookies(secret)
        self.deal_key = server_deal_key(secret)  # the ladder's deals (arena/deals.py)
        self.secure_cookies = settings.tls is not None
        self.events = Events()
        registry = discover([], include_bundled=True)
        self.registry = registry
        self.games: dict[str, Game] = dict(registry.games)
        if settings.game not in self.games:
            raise ArenaError(f"{settings.folder / 'settings.toml'}: key 'ladder.game': "
                             f"unknown game {settings.game!r} (known: {', '.join(self.games)})")
        from arena.plugins.conformance import OPPONENT_NAMES

        self.opponents = [registry.bots[n] for n in OPPONENT_NAMES if n in registry.bots]
        self.house_bots = self._house_bots()
        self.login_limit = LoginThrottle(settings.login_per_minute)
        self.register_limit = RateLimiter(settings.register_per_hour, 3600)
        self.queue_send, self.queue_receive = trio.open_memory_channel[int](10000)
        self.ladder = Ladder(self)
        self.leaderboards = Leaderboards(self)
        self.friendlies = Friendlies(self, self.ladder)
        self.log_lines: list[str] = []
        self.stopping = False  # a signal came: arena serve is ending
        self.limited: dict[str, tuple[float, int]] = {}  # cause -> last logged, left out
        self.uploading: dict[int, int] = {}  # user id -> uploads being unpacked
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
        self.store.close()
        self.league_store.close()
        if self.league_store.lock is not None:
            self.league_store.lock.close()

    def may_see(self, user: User | None, owner: str) -> bool:
        """Whether ``user`` sees the private parts of OWNER's versions (report, stderr)."""
        return user is not None and (user.name == owner or user.admin)

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
            specs.append(dataclasses.replace(spec, name=f"arena/{name}@{tag}",
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
        from arena.league.store import open_store

        league = open_store(self.settings.folder)
        try:
            return league.results(self.settings.game)
        finally:
            league.close()

    def failures_in(self, games: list[tuple[str, int]]) -> list[dict[str, Any]]:
        """The failure of seat S in game G for each (G, S): its reason, phase, detail,
        decision and stderr tail, read from the stored records."""
        from arena.league.store import open_store

        league = open_store(self.settings.folder)
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
        """The validation queue, the ladder and the leaderboards, until cancelled."""
        from arena.server.validation import run_queue

        for version in self.store.pending_versions():  # left pending by a stop
            self.queue_send.send_nowait(version.id)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_queue, self, self.queue_receive)
            nursery.start_soon(self.ladder.run)
            nursery.start_soon(self.leaderboards.run)
            nursery.start_soon(self.friendlies.run)
            task_status.started()

    # -- uploads ------------------------------------------------------------------
    def check_owner(self, user: User, owner: str) -> User:
        """Only the owner, or an admin, may change OWNER's bots."""
        if user.name != owner and not user.admin:
            raise Refused(f"only {owner} or an admin can change {owner}'s bots", 403)
        target = self.store.user(owner)
        if target is None:
            raise Refused(f"no user {owner!r}", 404)
        return target

    async def upload(self, user: User, owner: str, name: str, data: bytes) -> Version:
        """A new version of OWNER/NAME from an archive's bytes: ``pending`` at once, on
        the validation queue; Refused (with one clear line) otherwise."""
        from arena.plugins.manifest import NAME_PATTERN, NAME_RULE

        settings = self.settings
        target = self.check_owner(user, owner)
        if not user.approved:
            raise Refused("your account waits for an admin's approval", 403)
        if not NAME_PATTERN.fullmatch(name):
            raise Refused(f"a bot name has {NAME_RULE}")
        if len(data) > settings.max_archive_bytes:
            raise Refused(f"the archive has {len(data)} bytes, more than the server's limit "
                          f"of {settings.max_archive_bytes}", 413)
        self._check_quotas(user, target, owner, name)
        if self.uploading.get(user.id, 0) >= UPLOADS_AT_ONCE and not user.admin:
            raise Refused(f"quota: {UPLOADS_AT_ONCE} uploads at a time; wait for the "
                          "others to be answered", 429)
        folder = settings.uploads / owner / name
        folder.mkdir(parents=True, exist_ok=True)
        staging = folder / f".upload-{time.time_ns()}"
        limits = archives.Limits(settings.max_files, settings.max_unpacked_bytes,
                                 settings.max_ratio)

        def unpack_and_read() -> tuple[Path, BotSpec]:
            bot_folder = archives.unpack(data, staging, limits)
            return bot_folder, self.load_spec(bot_folder)

        self.uploading[user.id] = self.uploading.get(user.id, 0) + 1
        try:
            bot_folder, spec = await trio.to_thread.run_sync(unpack_and_read)
        except ArenaError as problem:
            shutil.rmtree(staging, ignore_errors=True)
            # the server's own paths are nobody else's business
            raise Refused(printable(str(problem).replace(f"{staging}/", "").replace(
                str(settings.folder), ""))) from None
        except OSError as problem:
            shutil.rmtree(staging, ignore_errors=True)
            if disk_full(problem):
                self.log(f"an upload of {owner}/{name} failed: the disk is full")
                raise Refused(DISK_FULL_ANSWER, 507) from None
            raise
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            self.uploading[user.id] -= 1
            if not self.uploading[user.id]:
                del self.uploading[user.id]
        # the quotas again, now that the unpacking let other uploads in: from here to the
        # version's row nothing awaits, so two uploads can never both take the last place
        try:
            bot = self._check_quotas(user, target, owner, name)
        except Refused:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if spec.name != name:
            shutil.rmtree(staging, ignore_errors=True)
            raise Refused(f"the bot.toml names the bot {spec.name!r}, not {name!r}")
        if settings.game not in spec.games or not set(spec.games[settings.game]) & set(
                settings.players):
            shutil.rmtree(staging, ignore_errors=True)
            raise Refused(f"this server's ladder plays {settings.game} with "
                          f"{'/'.join(map(str, settings.players))} players; the bot.toml "
                          "claims none of them")
        number = 1 if bot is None else self.store.next_version_number(bot.id)
        final = folder / str(number)
        try:
            if final.exists():  # left by a stop between unpacking and storing: no row uses it
                shutil.rmtree(final)
            staging.rename(final)
            version_folder = final / bot_folder.relative_to(staging)
            version_id = self.store.add_version(
                bot, target.id, name, number, user.id,
                str(version_folder.relative_to(settings.folder)), len(data),
                spec.content_hash or "")
        except (OSError, sqlite3.Error) as problem:
            # nothing half stored: the row is added whole or not at all, then the folder
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(final, ignore_errors=True)
            if disk_full(problem):
                self.log(f"an upload of {owner}/{name} failed: the disk is full")
                raise Refused(DISK_FULL_ANSWER, 507) from None
            raise
        self.queue_send.send_nowait(version_id)
        version = self.store.version(version_id)
        assert version is not None
        return version

    def _check_quotas(self, user: User, target: User, owner: str, name: str) -> Bot | None:
        """Uploads per day and active bots (admins have none); the bot, if it exists."""
        settings = self.settings
        if not user.admin and self.store.uploads_since(user.id, time.time() - DAY) \
                >= settings.uploads_per_day:
            raise Refused(f"quota: {settings.uploads_per_day} uploads per day; try again "
                          "tomorrow", 429)
        bot = self.store.bot(owner, name, deleted=True)
        if (bot is None or bot.deleted or bot.disabled) and not user.admin \
                and self.store.active_bots(target.id) >= settings.active_bots:
            raise Refused(f"quota: {settings.active_bots} active bots per user; disable or "
                          "delete one first", 429)
        return bot

    def set_disabled(self, user: User, owner: str, name: str, disabled: bool) -> None:
        self.check_owner(user, owner)
        bot = self.store.bot(owner, name)
        if bot is None:
            raise Refused(f"no bot {owner}/{name}", 404)
        if not disabled and not user.admin:
            target = self.store.user(owner)
            assert target is not None
            if bot.disabled and self.store.active_bots(target.id) >= self.settings.active_bots:
                raise Refused(f"quota: {self.settings.active_bots} active bots per user", 429)
        self.store.set_bot_disabled(bot.id, disabled)
        if not disabled:  # enabling also ends a pause; failures count afresh from now
            self.store.unpause_bot(bot.id, self.league_store.count())
            self.ladder.windows.clear()
        self.ladder.roster_changed()

    def disable_user(self, admin: User, name: str) -> None:
        if not admin.admin:
            raise Refused("admins only", 403)
        target = self.store.user(name)
        if target is None:
            raise Refused(f"no user {name!r}", 404)
        if target.admin:
            raise Refused("an admin cannot be disabled here", 403)
        self.store.disable_user(target.id)
        self.ladder.roster_changed()

    def revalidate(self, admin: User, version_id: int) -> Version:
        """An admin's: the version checked again (after a change of the bundled
        opponents or of the sandbox, say); it leaves the ladder until it passes."""
        if not admin.admin:
            raise Refused("admins only", 403)
        version = self.store.version(version_id)
        if version is None:
            raise Refused(f"no version {version_id}", 404)
        if version.state == "pending":
            raise Refused(f"version {version_id} is already waiting for its check", 409)
        self.store.set_pending(version_id)
        self.queue_send.send_nowait(version_id)
        self.ladder.roster_changed()
        return version

    def ask_friendly(self, user: User, owner: str, name: str, opponents: list[str],
                     games: int) -> int:
        """An owner's request for GAMES unrated games of its bot (the version in the
        ladder) against OPPONENTS (ladder names of bots in the ladder now)."""
        self.check_owner(user, owner)
        if not user.approved:
            raise Refused("your account waits for an admin's approval", 403)
        bot = self.store.bot(owner, name)
        if bot is None:
            raise Refused(f"no bot {owner}/{name}", 404)
        roster = {spec.name for spec in self.ladder.roster}
        mine = next((v.ladder_name for v in reversed(self.store.versions(bot.id))
                     if v.ladder_name in roster), None)
        if mine is None:
            raise Refused(f"{owner}/{name} is not in the ladder now (no valid version, or "
                          "disabled): friendly games are between bots of the ladder")
        if not 1 <= games <= MAX_FRIENDLY_GAMES:
            raise Refused(f"ask for 1 to {MAX_FRIENDLY_GAMES} friendly games")
        chosen = list(dict.fromkeys(opponents))
        unknown = [o for o in chosen if o not in roster or o == mine]
        if unknown or not chosen:
            raise Refused("choose opponents among the other bots in the ladder now"
                          + (f" (not: {', '.join(unknown)})" if unknown else ""))
        seats = len(chosen) + 1
        if seats not in self.settings.players:
            raise Refused(f"this ladder plays with {'/'.join(map(str, self.settings.players))}"
                          f" players; {len(chosen)} opponents make {seats}")
        specs = {spec.name: spec for spec in self.ladder.roster}
        cannot = [n for n in [mine, *chosen] if not specs[n].plays(self.settings.game, seats)]
        if cannot:
            raise Refused(f"{', '.join(cannot)} do not play {seats}-player games")
        if not user.admin and self.store.open_friendlies(user.id) >= MAX_OPEN_FRIENDLIES:
            raise Refused(f"quota: {MAX_OPEN_FRIENDLIES} requests waiting at a time", 429)
        request = self.store.add_friendly(user.id, bot.id, [mine, *chosen], games)
        self.friendlies.requested()
        return request

    def find_game(self, game_id: str) -> GameRecord:
        """A stored game: the ladder's, else a friendly one (ArenaError if neither)."""
        try:
            return self.league_store.find_game(game_id)
        except ArenaError:
            if not (self.friendlies.folder() / "league.sqlite").exists():
                raise
            try:
                return self.friendlies.find_game(game_id)
            except ArenaError:
                raise ArenaError(f"no game {game_id!r}") from None

    def delete(self, user: User, owner: str, name: str) -> None:
        self.check_owner(user, owner)
        bot = self.store.bot(owner, name)
        if bot is None:
            raise Refused(f"no bot {owner}/{name}", 404)
        self.store.delete_bot(bot.id)
        self.ladder.roster_changed()
