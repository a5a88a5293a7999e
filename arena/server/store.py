"""The server's store: what it keeps (accounts, tokens, sessions, bots, versions, games
in flight, friendly games, verdicts) as types, and what the rest of the server may ask
of it, split by area into Protocols.  Two implementations speak the same SQL
(:mod:`arena.server.sql_store`): SQLite, the default, in the ladder's league store file
(:mod:`arena.server.sqlite_store`), and PostgreSQL (:mod:`arena.server.pg_store`),
chosen by ``database = "postgresql://..."`` in settings.toml.  Their errors reach the
rest of the server as :mod:`arena.storage`'s, never as a database's own.

Nothing secret is kept in clear: passwords are argon2 hashes, API tokens and session ids
sha256 hashes (they are long random strings, so a fast hash is enough).  The ladder's
games go through the league store (:mod:`arena.league.store`), never through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from arena.league.schedule import ScheduledGame
from arena.storage import disk_full

if TYPE_CHECKING:
    from arena.league.store import LeagueStore
    from arena.server.settings import ServerSettings

__all__ = ["disk_full"]  # (the servers' modules ask here)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab shown as U+FFFD: what
    users write (a token's name, a bot's messages and stderr) never carries an escape
    sequence to a terminal (the server's log, ``arena upload``, ``curl`` of a page)."""
    return _CONTROL.sub("\ufffd", text)


def printable_json(value: Any) -> Any:
    """``value`` (JSON data) with :func:`printable` applied to every string in it."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [printable_json(item) for item in value]
    if isinstance(value, dict):
        return {printable(str(key)): printable_json(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str
    approved: bool
    created_at: float

    @property
    def admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class Token:
    id: int
    name: str
    created_at: float
    last_used: float | None
    revoked: bool


@dataclass(frozen=True)
class Friendly:
    """An owner's request for unrated games: its bot's ladder name first in ``seats``,
    then the chosen opponents."""

    id: int
    requester: str
    bot_id: int
    seats: tuple[str, ...]
    games: int
    played: int
    state: str
    message: str
    created_at: float
    game_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bot:
    id: int
    owner: str
    name: str
    disabled: bool
    deleted: bool
    created_at: float

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True)
class Version:
    id: int
    bot_id: int
    owner: str
    bot: str
    number: int
    state: str
    manifest_version: str
    folder: str
    archive_bytes: int
    report: dict[str, Any] | None
    message: str
    stderr_tail: str
    uploaded_at: float
    validated_at: float | None
    paused: str = ""  # why the ladder left it out; '' = it plays when valid
    content_hash: str = ""  # of its files at upload ('' for one uploaded before schema 2)
    failures_from: int = 0  # its ladder failures count from this game on
    build_log: str = ""  # the end of its build's log ('' for a bot without a build step)

    @property
    def ladder_name(self) -> str:
        """The version's name in the ladder's games and ratings: OWNER/NAME@N."""
        return f"{self.owner}/{self.bot}@{self.number}"

    def to_json(self, private: bool = True) -> dict[str, Any]:
        """The version as the API shows it; the validation report and the bot's stderr
        only to its owner and admins (``private``): a bot may print what it should not."""
        return {
            "id": self.id, "bot": f"{self.owner}/{self.bot}", "number": self.number,
            "ladder_name": self.ladder_name, "state": self.state,
            "manifest_version": self.manifest_version, "archive_bytes": self.archive_bytes,
            "message": self.message, "report": self.report if private else None,
            "stderr_tail": self.stderr_tail if private else "",
            "build_log": self.build_log if private else "",
            "uploaded_at": self.uploaded_at, "validated_at": self.validated_at,
            # why the ladder left it out (its owner's business: it may name its files)
            "paused": self.paused if private else ("paused" if self.paused else ""),
        }


VERDICT_STATES = ("testing", "stronger", "weaker", "no_difference", "inconclusive",
                  "superseded")


@dataclass(frozen=True)
class Verdict:
    """A version against its predecessor (``against``): the state of their sequential
    test and its figures (the Elo difference of the version over the predecessor, its 95%
    interval, the games they played together), as last computed from the ladder's games
    (:mod:`arena.server.verdicts`)."""

    version_id: int
    against_id: int
    bot_id: int
    version: str  # ladder names, OWNER/NAME@N
    against: str
    number: int
    against_number: int
    state: str
    elo: float | None
    low: float | None
    high: float | None
    games: int
    started_at: float
    decided_at: float | None

    @property
    def open(self) -> bool:
        return self.state == "testing"


# -- what the server asks of its store, by area ----------------------------------------
class AccountStore(Protocol):
    """Accounts, API tokens (by their hashes) and web sessions."""

    def add_user(self, name: str, password_hash: str, role: str, approved: bool) -> User:
        """ArenaError if the name is taken."""
    def user(self, name: str) -> User | None: ...
    def user_by_id(self, user_id: int) -> User | None: ...
    def users(self) -> list[User]: ...
    def password_hash(self, user_id: int) -> str: ...
    def set_password_hash(self, user_id: int, password_hash: str) -> None: ...
    def approve(self, user_id: int) -> None: ...
    def disable_user(self, user_id: int) -> None:
        """Unapproved, its sessions ended, its tokens revoked, its bots disabled."""
    def add_token(self, user_id: int, name: str, token_hash: str) -> Token: ...
    def tokens(self, user_id: int) -> list[Token]: ...
    def user_of_token(self, token_hash: str) -> User | None: ...
    def revoke_token(self, user_id: int, token_id: int) -> bool: ...
    def add_session(self, id_hash: str, user_id: int, lifetime: float) -> None: ...
    def user_of_session(self, id_hash: str) -> User | None: ...
    def end_session(self, id_hash: str) -> None: ...


class BotStore(Protocol):
    """Bots and their versions."""

    def bot(self, owner: str, name: str, *, deleted: bool = False) -> Bot | None: ...
    def bots(self, owner_id: int | None = None) -> list[Bot]: ...
    def active_bots(self, owner_id: int) -> int: ...
    def uploads_since(self, user_id: int, since: float) -> int: ...
    def next_version_number(self, bot_id: int) -> int: ...
    def add_version(self, bot: Bot | None, owner_id: int, name: str, number: int,
                    uploader_id: int, folder: str, archive_bytes: int,
                    content_hash: str) -> int:
        """A pending version (the bot made, or brought back, in the same transaction)."""
    def version(self, version_id: int) -> Version | None: ...
    def versions(self, bot_id: int) -> list[Version]: ...
    def pending_versions(self) -> list[Version]: ...
    def ladder_versions(self) -> list[Version]:
        """The newest valid version of every bot in play: the ladder's roster."""
    def all_ladder_names(self) -> dict[str, Version]: ...
    def version_folders(self) -> set[str]: ...
    def recent_versions(self, limit: int = 30) -> list[Version]: ...
    def finish_validation(self, version_id: int, state: str, manifest_version: str,
                          report: dict[str, Any] | None, message: str,
                          stderr_tail: str, build_log: str = "") -> None: ...
    def set_pending(self, version_id: int) -> None: ...
    def pause(self, version_id: int, reason: str) -> None: ...
    def unpause_bot(self, bot_id: int, failures_from: int) -> None: ...
    def set_bot_disabled(self, bot_id: int, disabled: bool) -> None: ...
    def delete_bot(self, bot_id: int) -> None: ...


class LadderStateStore(Protocol):
    """The ladder's own state: its counters and the games handed to the league and not
    stored yet (replayed after a stop)."""

    def next_counter(self, key: str) -> int:
        """0, 1, 2... across restarts (and across the server's processes)."""
    def add_inflight(self, games: list[ScheduledGame]) -> None: ...
    def inflight(self) -> list[tuple[ScheduledGame, int]]: ...
    def inflight_fed(self, game_id: str) -> None: ...
    def clear_inflight(self, game_ids: Iterable[str]) -> None: ...


class FriendlyStore(Protocol):
    """Owners' requests for unrated games (their records are in the friendly store)."""

    def add_friendly(self, requester_id: int, bot_id: int, seats: list[str],
                     games: int) -> int: ...
    def friendlies(self, bot_id: int, limit: int = 20) -> list[Friendly]: ...
    def next_friendly(self) -> Friendly | None: ...
    def open_friendlies(self, requester_id: int) -> int: ...
    def friendly_state(self, request_id: int, state: str, message: str = "") -> None: ...
    def friendly_played(self, request_id: int, game_id: str) -> None: ...


class VerdictStore(Protocol):
    """New versions against their predecessors (computed in arena.server.verdicts)."""

    def verdicts(self, bot_id: int | None = None, *, open_only: bool = False
                 ) -> list[Verdict]: ...
    def verdict(self, version_id: int) -> Verdict | None: ...
    def start_verdict(self, version_id: int, against_id: int) -> bool: ...
    def save_verdict(self, version_id: int, state: str, elo: float | None,
                     low: float | None, high: float | None, games: int) -> None: ...


class SharedStateStore(Protocol):
    """What every web process shares: rate limits' events (accounts.RateEvents), and the
    coordinator's latest roster and leaderboards (arena/server/bus.py)."""

    def rate_allow(self, bucket: str, keys: Sequence[str], limit: int, window: float,
                   now: float) -> bool: ...
    def rate_times(self, bucket: str, key: str, since: float) -> list[float]: ...
    def rate_add(self, bucket: str, key: str, at: float, keep: float) -> None: ...
    def save_shared(self, kind: str, value: Any) -> None: ...
    def shared(self, kind: str) -> Any: ...


class ServerStore(AccountStore, BotStore, LadderStateStore, FriendlyStore, VerdictStore,
                  SharedStateStore, Protocol):
    """Every area of the server's store."""

    def iter_text(self) -> Iterator[str]:
        """Every text value of the server's tables (tests look for secrets in clear)."""
    def close(self) -> None: ...


LADDER = "ladder"  # the league stores of a server: its ladder's games,
FRIENDLY = "friendly"  # and its owners' unrated ones


def open_server_store(settings: ServerSettings) -> ServerStore:
    """The server store the settings name: PostgreSQL if ``database`` is a
    postgresql:// address, else SQLite in the server folder's league store file."""
    if settings.postgres:
        from arena.server.pg_store import PgServerStore

        return PgServerStore(settings.database)
    from arena.server.sqlite_store import SqliteServerStore

    return SqliteServerStore(settings.sqlite_path)


def league_folder(settings: ServerSettings, league: str) -> Path:
    """Where a league store of the server is kept on SQLite (the ladder's: the folder)."""
    return settings.folder if league == LADDER else settings.folder / league


def open_league_store(settings: ServerSettings, league: str = LADDER, *,
                      writer: bool = False) -> LeagueStore:
    """The server's league store ``league`` (LADDER or FRIENDLY): ``writer``, the one
    that plays its games (on SQLite: made if missing, and locked against a second
    writer; on PostgreSQL the server's coordinator lock keeps others out), else a
    reading connection (ArenaError if it has no games yet on SQLite)."""
    if settings.postgres:
        from arena.league.pg_store import PgLeagueStore

        return PgLeagueStore(settings.database, league, name=f"arena serve ({league})")
    from arena.league.store import create_store, open_store

    folder = league_folder(settings, league)
    return create_store(folder) if writer else open_store(folder)


def has_league_store(settings: ServerSettings, league: str) -> bool:
    """Whether the league store ``league`` may have games (on SQLite: its file exists)."""
    from arena.league.store import DB_NAME

    return settings.postgres or (league_folder(settings, league) / DB_NAME).exists()
