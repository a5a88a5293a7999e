"""Bots and their versions: uploads (quotas, safe unpacking, the manifest, then a
``pending`` version on the validation queue), what the API and the pages show of them,
their owners' actions (disable, enable, delete) and friendly games."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from arena.errors import ArenaError
from arena.server import archives
from arena.server.errors import DISK_FULL_ANSWER, Refused
from arena.server.store import Bot, Friendly, User, Version, disk_full, printable
from arena.server.verdicts import verdict_json
from arena.server.views import shown_names

if TYPE_CHECKING:
    from arena.runner.botspec import BotSpec
    from arena.server.core import Server
    from arena.server.services.ladder import LadderService
    from arena.server.store import ServerStore

DAY = 24 * 3600
MAX_FRIENDLY_GAMES = 20  # per request
MAX_OPEN_FRIENDLIES = 3  # requests waiting, per user
UPLOADS_AT_ONCE = 2  # uploads of one user being unpacked at the same time


class BotService:
    def __init__(self, server: Server, ladder: LadderService) -> None:
        self.server = server
        self.ladder = ladder
        self.uploading: dict[int, int] = {}  # user id -> uploads being unpacked

    @property
    def store(self) -> ServerStore:
        return self.server.store

    # -- what is shown ----------------------------------------------------------------
    def may_see(self, user: User | None, owner: str) -> bool:
        """Whether ``user`` sees the private parts of OWNER's versions (report, stderr)."""
        return user is not None and (user.name == owner or user.admin)

    def bots(self) -> list[Bot]:
        return self.store.bots()

    def bots_of(self, user: User) -> list[Bot]:
        return self.store.bots(user.id)

    def bot(self, owner: str, name: str) -> Bot:
        bot = self.store.bot(owner, name)
        if bot is None:
            raise Refused(f"no bot {owner}/{name}", 404)
        return bot

    def bot_json(self, owner: str, name: str, viewer: User | None) -> dict[str, Any]:
        """A bot and all its versions, each with its verdict; the private parts of each
        version only for its owner and admins."""
        bot = self.bot(owner, name)
        private = self.may_see(viewer, owner)
        verdicts = {verdict.version_id: verdict for verdict in self.store.verdicts(bot.id)}
        versions = [{**v.to_json(private), "verdict": verdict_json(verdicts.get(v.id))}
                    for v in self.store.versions(bot.id)]
        # the bot's verdict: its newest valid version's against its predecessor
        current = next((v for v in reversed(versions) if v["state"] == "valid"), None)
        return {"bot": bot.full_name, "owner": bot.owner, "name": bot.name,
                "disabled": bot.disabled, "created_at": bot.created_at,
                "verdict": current["verdict"] if current else None, "versions": versions}

    def version_json(self, version: Version, viewer: User | None) -> dict[str, Any]:
        return {**version.to_json(self.may_see(viewer, version.owner)),
                "verdict": verdict_json(self.store.verdict(version.id))}

    def version(self, version_id: int) -> Version:
        version = self.store.version(version_id)
        if version is None:
            raise Refused(f"no version {version_id}", 404)
        return version

    def version_numbered(self, owner: str, name: str, number: int) -> Version:
        bot = self.store.bot(owner, name)
        version = next((v for v in self.store.versions(bot.id) if v.number == number),
                       None) if bot is not None else None
        if version is None:
            raise Refused(f"no version {number} of {owner}/{name}", 404)
        return version

    async def page(self, owner: str, name: str, viewer: User | None) -> dict[str, Any]:
        """What a bot's page shows: its versions and verdicts, its ladder results,
        failures and rating chart, its friendly games and whom it may ask for more."""
        settings = self.server.settings
        data = self.bot_json(owner, name, viewer)
        summary, current, failures, chart = await self.ladder.bot_view(data["versions"])
        in_ladder = self.ladder.roster()
        friendlies = self.friendlies(self.bot(owner, name))
        opponents = summary["opponents"].get(current, []) if current else []
        shown = shown_names([*in_ladder, *(o["bot"] for o in opponents),
                             *(seat for f in friendlies for seat in f.seats)])
        return dict(
            bot=data, mine=self.may_see(viewer, owner), summary=summary,
            verdicts=[v["verdict"] for v in reversed(data["versions"]) if v["verdict"]],
            verdict_rule=(
                f"at least {settings.verdict_elo1:+g} Elo rather than at most "
                f"{settings.verdict_elo0:+g} (and the mirror), alpha "
                f"{settings.verdict_alpha:g}, beta {settings.verdict_beta:g}, at "
                f"most {settings.verdict_max_games} games"),
            current=current, failures=failures, chart=chart, friendlies=friendlies,
            shown=shown, rivals=[n for n in in_ladder if n != current],
            playable=current in in_ladder, max_friendly=MAX_FRIENDLY_GAMES,
            opponents=opponents)

    def friendlies(self, bot: Bot) -> list[Friendly]:
        return self.store.friendlies(bot.id)

    def recent_versions(self) -> list[Version]:
        return self.store.recent_versions()

    # -- owners' actions ----------------------------------------------------------------
    def check_owner(self, user: User, owner: str) -> User:
        """Only the owner, or an admin, may change OWNER's bots."""
        if user.name != owner and not user.admin:
            raise Refused(f"only {owner} or an admin can change {owner}'s bots", 403)
        target = self.store.user(owner)
        if target is None:
            raise Refused(f"no user {owner!r}", 404)
        return target

    def set_disabled(self, user: User, owner: str, name: str, disabled: bool) -> None:
        self.check_owner(user, owner)
        bot = self.bot(owner, name)
        if not disabled and not user.admin:
            target = self.store.user(owner)
            assert target is not None
            if bot.disabled and self.store.active_bots(target.id) >= \
                    self.server.settings.active_bots:
                raise Refused(f"quota: {self.server.settings.active_bots} active bots per "
                              "user", 429)
        self.store.set_bot_disabled(bot.id, disabled)
        if not disabled:  # enabling also ends a pause; failures count afresh from now
            self.store.unpause_bot(bot.id, self.server.league_store.count())
        self.server.roster_changed(failures_afresh=not disabled)

    def delete(self, user: User, owner: str, name: str) -> None:
        self.check_owner(user, owner)
        self.store.delete_bot(self.bot(owner, name).id)
        self.server.roster_changed()

    def ask_friendly(self, user: User, owner: str, name: str, opponents: list[str],
                     games: int) -> int:
        """An owner's request for GAMES unrated games of its bot (the version in the
        ladder) against OPPONENTS (ladder names of bots in the ladder now)."""
        settings = self.server.settings
        self.check_owner(user, owner)
        if not user.approved:
            raise Refused("your account waits for an admin's approval", 403)
        bot = self.bot(owner, name)
        roster = self.server.view.roster  # ladder name -> the player counts it plays
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
        if seats not in settings.players:
            raise Refused(f"this ladder plays with {'/'.join(map(str, settings.players))}"
                          f" players; {len(chosen)} opponents make {seats}")
        cannot = [n for n in [mine, *chosen] if seats not in roster[n]]
        if cannot:
            raise Refused(f"{', '.join(cannot)} do not play {seats}-player games")
        if not user.admin and self.store.open_friendlies(user.id) >= MAX_OPEN_FRIENDLIES:
            raise Refused(f"quota: {MAX_OPEN_FRIENDLIES} requests waiting at a time", 429)
        request = self.store.add_friendly(user.id, bot.id, [mine, *chosen], games)
        self.server.friendly_requested()
        return request

    # -- uploads ------------------------------------------------------------------------
    async def upload(self, user: User, owner: str, name: str, data: bytes) -> Version:
        """A new version of OWNER/NAME from an archive's bytes: ``pending`` at once, on
        the validation queue; Refused (with one clear line) otherwise."""
        from arena.plugins.manifest import NAME_PATTERN, NAME_RULE

        settings = self.server.settings
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
        bot_folder, spec = await self._unpack(user, owner, name, data, staging)
        # the quotas again, now that the unpacking let other uploads in: from here to the
        # version's row nothing awaits, so two uploads can never both take the last place
        try:
            bot = self._check_quotas(user, target, owner, name)
            self._check_spec(spec, name)
        except Refused:
            shutil.rmtree(staging, ignore_errors=True)
            raise
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
        except (OSError, ArenaError) as problem:
            # nothing half stored: the row is added whole or not at all, then the folder
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(final, ignore_errors=True)
            if disk_full(problem):
                self.server.log(f"an upload of {owner}/{name} failed: the disk is full")
                raise Refused(DISK_FULL_ANSWER, 507) from None
            raise
        self.server.queue_version(version_id)
        return self.version(version_id)

    async def _unpack(self, user: User, owner: str, name: str, data: bytes, staging: Path
                      ) -> tuple[Path, BotSpec]:
        """The archive unpacked into ``staging`` (in a thread) and its manifest read;
        Refused in one line, ``staging`` removed, if either fails."""
        settings = self.server.settings
        limits = archives.Limits(settings.max_files, settings.max_unpacked_bytes,
                                 settings.max_ratio)

        def unpack_and_read() -> tuple[Path, BotSpec]:
            bot_folder = archives.unpack(data, staging, limits)
            return bot_folder, self.server.load_spec(bot_folder)

        self.uploading[user.id] = self.uploading.get(user.id, 0) + 1
        try:
            return await trio.to_thread.run_sync(unpack_and_read)
        except ArenaError as problem:
            shutil.rmtree(staging, ignore_errors=True)
            # the server's own paths are nobody else's business
            raise Refused(printable(str(problem).replace(f"{staging}/", "").replace(
                str(settings.folder), ""))) from None
        except OSError as problem:
            shutil.rmtree(staging, ignore_errors=True)
            if disk_full(problem):
                self.server.log(f"an upload of {owner}/{name} failed: the disk is full")
                raise Refused(DISK_FULL_ANSWER, 507) from None
            raise
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            self.uploading[user.id] -= 1
            if not self.uploading[user.id]:
                del self.uploading[user.id]

    def _check_spec(self, spec: BotSpec, name: str) -> None:
        settings = self.server.settings
        if spec.name != name:
            raise Refused(f"the bot.toml names the bot {spec.name!r}, not {name!r}")
        if settings.game not in spec.games or not set(spec.games[settings.game]) & set(
                settings.players):
            raise Refused(f"this server's ladder plays {settings.game} with "
                          f"{'/'.join(map(str, settings.players))} players; the bot.toml "
                          "claims none of them")

    def _check_quotas(self, user: User, target: User, owner: str, name: str) -> Bot | None:
        """Uploads per day and active bots (admins have none); the bot, if it exists."""
        settings = self.server.settings
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
