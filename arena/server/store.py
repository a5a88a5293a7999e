"""Every SQL statement of the server: its tables live in the ladder's league store file
(``league.sqlite``, WAL), beside the games, on a connection of their own.

Nothing secret is kept in clear: passwords are argon2 hashes, API tokens and session ids
sha256 hashes (they are long random strings, so a fast hash is enough).  The ladder's
games go through the league store (:mod:`arena.league.store`), never through here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.league.schedule import ScheduledGame

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


# SQLite's integers: an id beyond them names no row (and SQLite refuses to compare it)
_ROW_IDS = range(-(2 ** 63), 2 ** 63)


def disk_full(problem: BaseException) -> bool:
    """Whether ``problem`` (alone or the one error of a group) is a full disk: an OSError
    ENOSPC/EDQUOT, SQLite's SQLITE_FULL, or the league store's line about either."""
    while isinstance(problem, BaseExceptionGroup) and len(problem.exceptions) == 1:
        problem = problem.exceptions[0]
    if isinstance(problem, OSError):
        return problem.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(problem, sqlite3.Error):
        return getattr(problem, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL \
            or "disk is full" in str(problem)
    return isinstance(problem, ArenaError) and "disk is full" in str(problem)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS server_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS server_users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
    approved INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS server_tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES server_users (id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,
    last_used REAL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS server_sessions (
    id_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES server_users (id),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS server_bots (
    id INTEGER PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES server_users (id),
    name TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    UNIQUE (owner_id, name)
);
CREATE TABLE IF NOT EXISTS server_versions (
    id INTEGER PRIMARY KEY,
    bot_id INTEGER NOT NULL REFERENCES server_bots (id),
    number INTEGER NOT NULL,
    uploader_id INTEGER NOT NULL REFERENCES server_users (id),
    state TEXT NOT NULL CHECK (state IN ('pending', 'valid', 'rejected')),
    manifest_version TEXT NOT NULL DEFAULT '',
    folder TEXT NOT NULL,
    archive_bytes INTEGER NOT NULL,
    report TEXT,
    message TEXT NOT NULL DEFAULT '',
    stderr_tail TEXT NOT NULL DEFAULT '',
    uploaded_at REAL NOT NULL,
    validated_at REAL,
    UNIQUE (bot_id, number)
);
CREATE TABLE IF NOT EXISTS server_inflight (
    game_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    fed INTEGER NOT NULL DEFAULT 0,
    added_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS server_versions_uploader ON server_versions (uploader_id, uploaded_at);
CREATE TABLE IF NOT EXISTS server_friendly (
    id INTEGER PRIMARY KEY,
    requester_id INTEGER NOT NULL REFERENCES server_users (id),
    bot_id INTEGER NOT NULL REFERENCES server_bots (id),
    seats TEXT NOT NULL,
    games INTEGER NOT NULL,
    played INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL CHECK (state IN ('queued', 'playing', 'done', 'failed')),
    message TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS server_friendly_games (
    request_id INTEGER NOT NULL REFERENCES server_friendly (id),
    game_id TEXT NOT NULL PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS server_verdicts (
    version_id INTEGER PRIMARY KEY REFERENCES server_versions (id),
    against_id INTEGER NOT NULL REFERENCES server_versions (id),
    state TEXT NOT NULL CHECK (state IN ('testing', 'stronger', 'weaker', 'no_difference',
                                         'inconclusive', 'superseded')),
    elo REAL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL DEFAULT 0,
    started_at REAL NOT NULL,
    decided_at REAL
);
"""
SERVER_SCHEMA_VERSION = 3
# columns added since schema 1 (an older folder gets them at its next start):
# ``paused``: why the ladder left the version out ('' = it plays), set by the ladder
# (failing games, damaged files) and cleared by its owner's "enable"; ``content_hash``:
# its files' hash at upload (a changed folder is noticed); ``failures_from``: its
# failures count from this ladder game on (set when it is enabled again); schema 3:
# ``build_log``: the end of the log of its build step (its owner's to see)
_ADDED_COLUMNS = {
    "server_versions": (("paused", "TEXT NOT NULL DEFAULT ''"),
                        ("content_hash", "TEXT NOT NULL DEFAULT ''"),
                        ("failures_from", "INTEGER NOT NULL DEFAULT 0"),
                        ("build_log", "TEXT NOT NULL DEFAULT ''")),
}


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


_VERSION_COLUMNS = (
    "v.id, v.bot_id, u.name, b.name, v.number, v.state, v.manifest_version, v.folder, "
    "v.archive_bytes, v.report, v.message, v.stderr_tail, v.uploaded_at, v.validated_at, "
    "v.paused, v.content_hash, v.failures_from, v.build_log"
)
_VERSION_FROM = (
    "server_versions v JOIN server_bots b ON v.bot_id = b.id "
    "JOIN server_users u ON b.owner_id = u.id"
)


def _version(row: tuple[Any, ...]) -> Version:
    values = list(row)
    values[9] = None if values[9] is None else json.loads(values[9])
    return Version(*values)


class ServerStore:
    """The server's accounts, tokens, sessions, bots and versions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.connection = sqlite3.connect(path, timeout=30, isolation_level="DEFERRED")
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=NORMAL")
            self.connection.execute("PRAGMA foreign_keys=ON")
            with self.connection:
                self.connection.executescript(_SCHEMA)
                self.connection.execute(
                    "INSERT OR IGNORE INTO server_meta (key, value) VALUES (?, ?)",
                    ("schema_version", json.dumps(1)))  # _SCHEMA's; upgraded below
        except sqlite3.DatabaseError as problem:
            raise ArenaError(f"{path}: not a usable server database ({problem})") from None
        version = self.meta("schema_version")
        if not isinstance(version, int) or version > SERVER_SCHEMA_VERSION:
            self.connection.close()
            raise ArenaError(f"{path} was written by a newer arena (server schema "
                             f"{version}); upgrade with `pip install -U ra-arena`")
        if version < SERVER_SCHEMA_VERSION:
            self._upgrade()

    def _upgrade(self) -> None:
        """An older folder's tables brought to this schema, in one transaction (a stop
        in the middle leaves the old schema whole, upgraded again at the next start)."""
        try:
            with self.connection:
                for table, columns in _ADDED_COLUMNS.items():
                    present = {row[1] for row in self.connection.execute(
                        f'PRAGMA table_info("{table}")')}
                    for name, declaration in columns:
                        if name not in present:
                            self.connection.execute(
                                f'ALTER TABLE "{table}" ADD COLUMN {name} {declaration}')
                self.connection.execute(
                    "UPDATE server_meta SET value = ? WHERE key = 'schema_version'",
                    (json.dumps(SERVER_SCHEMA_VERSION),))
        except sqlite3.DatabaseError as problem:
            self.connection.close()
            raise ArenaError(f"{self.path}: could not upgrade the server's tables "
                             f"({problem}); nothing was changed") from None

    def close(self) -> None:
        self.connection.close()

    def meta(self, key: str) -> Any:
        row = self.connection.execute(
            "SELECT value FROM server_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def next_counter(self, key: str) -> int:
        """0, 1, 2... across restarts (the ladder's table counter)."""
        with self.connection:
            value = self.meta(key)
            number = value if isinstance(value, int) else 0
            self.connection.execute(
                "INSERT OR REPLACE INTO server_meta (key, value) VALUES (?, ?)",
                (key, json.dumps(number + 1)))
        return number

    # -- users --------------------------------------------------------------------
    def add_user(self, name: str, password_hash: str, role: str, approved: bool) -> User:
        now = time.time()
        try:
            with self.connection:
                cursor = self.connection.execute(
                    "INSERT INTO server_users (name, password_hash, role, approved, created_at)"
                    " VALUES (?, ?, ?, ?, ?)", (name, password_hash, role, int(approved), now))
        except sqlite3.IntegrityError:
            raise ArenaError(f"the name {name!r} is taken") from None
        assert cursor.lastrowid is not None
        return User(cursor.lastrowid, name, role, approved, now)

    def user(self, name: str) -> User | None:
        row = self.connection.execute(
            "SELECT id, name, role, approved, created_at FROM server_users WHERE name = ?",
            (name,)).fetchone()
        return None if row is None else User(row[0], row[1], row[2], bool(row[3]), row[4])

    def user_by_id(self, user_id: int) -> User | None:
        row = self.connection.execute(
            "SELECT id, name, role, approved, created_at FROM server_users WHERE id = ?",
            (user_id,)).fetchone()
        return None if row is None else User(row[0], row[1], row[2], bool(row[3]), row[4])

    def users(self) -> list[User]:
        rows = self.connection.execute(
            "SELECT id, name, role, approved, created_at FROM server_users ORDER BY name")
        return [User(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]

    def password_hash(self, user_id: int) -> str:
        row = self.connection.execute(
            "SELECT password_hash FROM server_users WHERE id = ?", (user_id,)).fetchone()
        return str(row[0]) if row else ""

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        with self.connection:
            self.connection.execute("UPDATE server_users SET password_hash = ? WHERE id = ?",
                                    (password_hash, user_id))

    def approve(self, user_id: int) -> None:
        with self.connection:
            self.connection.execute("UPDATE server_users SET approved = 1 WHERE id = ?",
                                    (user_id,))

    def disable_user(self, user_id: int) -> None:
        """An admin's stop: the account back to unapproved (no login, no token, no
        upload), its sessions ended, its tokens revoked, its bots disabled."""
        with self.connection:
            self.connection.execute("UPDATE server_users SET approved = 0 WHERE id = ?",
                                    (user_id,))
            self.connection.execute("DELETE FROM server_sessions WHERE user_id = ?",
                                    (user_id,))
            self.connection.execute("UPDATE server_tokens SET revoked = 1 WHERE user_id = ?",
                                    (user_id,))
            self.connection.execute("UPDATE server_bots SET disabled = 1 WHERE owner_id = ?",
                                    (user_id,))

    # -- API tokens ---------------------------------------------------------------
    def add_token(self, user_id: int, name: str, token_hash: str) -> Token:
        now = time.time()
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO server_tokens (user_id, name, token_hash, created_at)"
                " VALUES (?, ?, ?, ?)", (user_id, printable(name), token_hash, now))
        assert cursor.lastrowid is not None
        return Token(cursor.lastrowid, printable(name), now, None, False)

    def tokens(self, user_id: int) -> list[Token]:
        rows = self.connection.execute(
            "SELECT id, name, created_at, last_used, revoked FROM server_tokens"
            " WHERE user_id = ? ORDER BY id", (user_id,))
        return [Token(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def user_of_token(self, token_hash: str) -> User | None:
        row = self.connection.execute(
            "SELECT t.id, t.user_id FROM server_tokens t WHERE token_hash = ? AND revoked = 0",
            (token_hash,)).fetchone()
        if row is None:
            return None
        # a full disk: reading with a token still works
        with contextlib.suppress(sqlite3.OperationalError), self.connection:
            self.connection.execute("UPDATE server_tokens SET last_used = ? WHERE id = ?",
                                    (time.time(), row[0]))
        return self.user_by_id(row[1])

    def revoke_token(self, user_id: int, token_id: int) -> bool:
        if token_id not in _ROW_IDS:  # (a visitor's number: no such token)
            return False
        with self.connection:
            cursor = self.connection.execute(
                "UPDATE server_tokens SET revoked = 1 WHERE id = ? AND user_id = ?",
                (token_id, user_id))
        return cursor.rowcount == 1

    # -- web sessions -------------------------------------------------------------
    def add_session(self, id_hash: str, user_id: int, lifetime: float) -> None:
        now = time.time()
        with self.connection:
            self.connection.execute("DELETE FROM server_sessions WHERE expires_at < ?", (now,))
            self.connection.execute(
                "INSERT INTO server_sessions (id_hash, user_id, created_at, expires_at)"
                " VALUES (?, ?, ?, ?)", (id_hash, user_id, now, now + lifetime))

    def user_of_session(self, id_hash: str) -> User | None:
        row = self.connection.execute(
            "SELECT user_id FROM server_sessions WHERE id_hash = ? AND expires_at > ?",
            (id_hash, time.time())).fetchone()
        return None if row is None else self.user_by_id(row[0])

    def end_session(self, id_hash: str) -> None:
        with self.connection:
            self.connection.execute("DELETE FROM server_sessions WHERE id_hash = ?", (id_hash,))

    # -- bots and versions --------------------------------------------------------
    def bot(self, owner: str, name: str, *, deleted: bool = False) -> Bot | None:
        """The bot OWNER/NAME (``deleted``: also a deleted one)."""
        row = self.connection.execute(
            "SELECT b.id, u.name, b.name, b.disabled, b.deleted, b.created_at"
            " FROM server_bots b JOIN server_users u ON b.owner_id = u.id"
            " WHERE u.name = ? AND b.name = ? AND (b.deleted = 0 OR ?)",
            (owner, name, int(deleted))).fetchone()
        return None if row is None else Bot(row[0], row[1], row[2], bool(row[3]),
                                            bool(row[4]), row[5])

    def bots(self, owner_id: int | None = None) -> list[Bot]:
        query = ("SELECT b.id, u.name, b.name, b.disabled, b.deleted, b.created_at"
                 " FROM server_bots b JOIN server_users u ON b.owner_id = u.id"
                 " WHERE b.deleted = 0")
        rows = (self.connection.execute(query + " ORDER BY u.name, b.name") if owner_id is None
                else self.connection.execute(query + " AND b.owner_id = ? ORDER BY b.name",
                                             (owner_id,)))
        return [Bot(r[0], r[1], r[2], bool(r[3]), bool(r[4]), r[5]) for r in rows]

    def active_bots(self, owner_id: int) -> int:
        row = self.connection.execute(
            "SELECT COUNT(*) FROM server_bots WHERE owner_id = ? AND disabled = 0"
            " AND deleted = 0", (owner_id,)).fetchone()
        return int(row[0])

    def uploads_since(self, user_id: int, since: float) -> int:
        row = self.connection.execute(
            "SELECT COUNT(*) FROM server_versions WHERE uploader_id = ? AND uploaded_at >= ?",
            (user_id, since)).fetchone()
        return int(row[0])

    def next_version_number(self, bot_id: int) -> int:
        row = self.connection.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM server_versions WHERE bot_id = ?",
            (bot_id,)).fetchone()
        return int(row[0])

    def add_version(self, bot: Bot | None, owner_id: int, name: str, number: int,
                    uploader_id: int, folder: str, archive_bytes: int,
                    content_hash: str) -> int:
        """A pending version NUMBER of OWNER's bot NAME (the bot made, or brought back
        from deletion, in the same transaction: a stop or a full disk leaves both or
        neither)."""
        now = time.time()
        with self.connection:
            if bot is None:
                cursor = self.connection.execute(
                    "INSERT INTO server_bots (owner_id, name, created_at) VALUES (?, ?, ?)",
                    (owner_id, name, now))
                assert cursor.lastrowid is not None
                bot_id = cursor.lastrowid
            else:
                bot_id = bot.id
                if bot.deleted:
                    self.connection.execute(
                        "UPDATE server_bots SET deleted = 0, disabled = 0 WHERE id = ?",
                        (bot_id,))
            cursor = self.connection.execute(
                "INSERT INTO server_versions (bot_id, number, uploader_id, state, folder,"
                " archive_bytes, uploaded_at, content_hash)"
                " VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
                (bot_id, number, uploader_id, folder, archive_bytes, now, content_hash))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def version(self, version_id: int) -> Version | None:
        if version_id not in _ROW_IDS:  # (a visitor's number: no such version)
            return None
        row = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.id = ?",
            (version_id,)).fetchone()
        return None if row is None else _version(row)

    def versions(self, bot_id: int) -> list[Version]:
        rows = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.bot_id = ?"
            " ORDER BY v.number", (bot_id,))
        return [_version(row) for row in rows]

    def pending_versions(self) -> list[Version]:
        rows = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.state = 'pending'"
            " AND b.deleted = 0 ORDER BY v.id")
        return [_version(row) for row in rows]

    def ladder_versions(self) -> list[Version]:
        """The newest valid version of every bot that is neither disabled nor deleted:
        the ladder's roster (a new valid version replaces its predecessor)."""
        rows = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.state = 'valid'"
            " AND b.disabled = 0 AND b.deleted = 0 AND v.number = (SELECT MAX(number)"
            " FROM server_versions w WHERE w.bot_id = v.bot_id AND w.state = 'valid')"
            " AND v.paused = '' ORDER BY v.id")
        return [_version(row) for row in rows]

    def version_folders(self) -> set[str]:
        """The folder of every version (relative to the server folder)."""
        return {row[0] for row in self.connection.execute("SELECT folder FROM server_versions")}

    def pause(self, version_id: int, reason: str) -> None:
        """The ladder leaves the version out until its owner enables the bot again."""
        with self.connection:
            self.connection.execute("UPDATE server_versions SET paused = ? WHERE id = ?",
                                    (printable(reason)[:500], version_id))

    def unpause_bot(self, bot_id: int, failures_from: int) -> None:
        """Every paused version of the bot back in play, its failures counted afresh
        from ladder game ``failures_from`` on."""
        with self.connection:
            self.connection.execute(
                "UPDATE server_versions SET paused = '', failures_from = ?"
                " WHERE bot_id = ? AND paused != ''", (failures_from, bot_id))

    # -- ladder games handed to the league, not stored yet (replayed after a stop) --
    def add_inflight(self, games: list[ScheduledGame]) -> None:
        """Recorded before any of them is played: a stop loses none of them."""
        now = time.time()
        with self.connection:
            self.connection.executemany(
                "INSERT OR IGNORE INTO server_inflight (game_id, game, added_at)"
                " VALUES (?, ?, ?)",
                [(g.game_id, json.dumps(dataclasses.asdict(g)), now) for g in games])

    def inflight(self) -> list[tuple[ScheduledGame, int]]:
        """The recorded games, oldest first, with how often each was handed out."""
        rows = self.connection.execute(
            "SELECT game, fed FROM server_inflight ORDER BY rowid").fetchall()
        found = []
        for text, fed in rows:
            data = json.loads(text)
            data["seats"] = tuple(data["seats"])
            found.append((ScheduledGame(**data), int(fed)))
        return found

    def inflight_fed(self, game_id: str) -> None:
        with self.connection:
            self.connection.execute(
                "UPDATE server_inflight SET fed = fed + 1 WHERE game_id = ?", (game_id,))

    def clear_inflight(self, game_ids: Iterable[str]) -> None:
        with self.connection:
            self.connection.executemany("DELETE FROM server_inflight WHERE game_id = ?",
                                        [(game_id,) for game_id in game_ids])

    def all_ladder_names(self) -> dict[str, Version]:
        """Every version that was ever valid, by its ladder name (for the leaderboard)."""
        rows = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.state = 'valid'")
        return {version.ladder_name: version for version in map(_version, rows)}

    def finish_validation(self, version_id: int, state: str, manifest_version: str,
                          report: dict[str, Any] | None, message: str,
                          stderr_tail: str, build_log: str = "") -> None:
        with self.connection:
            self.connection.execute(
                "UPDATE server_versions SET state = ?, manifest_version = ?, report = ?,"
                " message = ?, stderr_tail = ?, build_log = ?, validated_at = ?"
                " WHERE id = ?",
                (state, printable(manifest_version),
                 None if report is None else json.dumps(printable_json(report)),
                 printable(message), printable(stderr_tail), printable(build_log),
                 time.time(), version_id))

    def recent_versions(self, limit: int = 30) -> list[Version]:
        """The newest uploads of every bot (the admin page)."""
        rows = self.connection.execute(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE b.deleted = 0"
            " ORDER BY v.id DESC LIMIT ?", (limit,))
        return [_version(row) for row in rows]

    def set_pending(self, version_id: int) -> None:
        """A version back on the validation queue: its verdict forgotten."""
        with self.connection:
            self.connection.execute(
                "UPDATE server_versions SET state = 'pending', report = NULL, message = '',"
                " stderr_tail = '', build_log = '', validated_at = NULL WHERE id = ?",
                (version_id,))

    def set_bot_disabled(self, bot_id: int, disabled: bool) -> None:
        with self.connection:
            self.connection.execute("UPDATE server_bots SET disabled = ? WHERE id = ?",
                                    (int(disabled), bot_id))

    def delete_bot(self, bot_id: int) -> None:
        """A deleted bot leaves the ladder and the listings; its versions and their games
        stay.  Its owner keeps the name: a new upload brings it back with the next version
        number (so that a ladder name OWNER/NAME@N always means the same files)."""
        with self.connection:
            self.connection.execute(
                "UPDATE server_bots SET deleted = 1, disabled = 1 WHERE id = ?", (bot_id,))

    # -- friendly games (unrated; their records are in the friendly store) ---------
    def add_friendly(self, requester_id: int, bot_id: int, seats: list[str],
                     games: int) -> int:
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO server_friendly (requester_id, bot_id, seats, games, state,"
                " created_at) VALUES (?, ?, ?, ?, 'queued', ?)",
                (requester_id, bot_id, json.dumps(seats), games, time.time()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _friendlies(self, where: str, params: tuple[Any, ...], limit: int = -1
                    ) -> list[Friendly]:
        rows = self.connection.execute(
            "SELECT f.id, u.name, f.bot_id, f.seats, f.games, f.played, f.state, f.message,"
            " f.created_at FROM server_friendly f JOIN server_users u ON f.requester_id = u.id"
            f" WHERE {where} ORDER BY f.id DESC LIMIT ?", (*params, limit)).fetchall()
        found = []
        for row in rows:
            ids = tuple(r[0] for r in self.connection.execute(
                "SELECT game_id FROM server_friendly_games WHERE request_id = ?"
                " ORDER BY rowid", (row[0],)))
            found.append(Friendly(row[0], row[1], row[2], tuple(json.loads(row[3])),
                                  row[4], row[5], row[6], row[7], row[8], ids))
        return found

    def friendlies(self, bot_id: int, limit: int = 20) -> list[Friendly]:
        return self._friendlies("f.bot_id = ?", (bot_id,), limit)

    def next_friendly(self) -> Friendly | None:
        """The oldest request not yet played (one left "playing" by a stop comes first)."""
        found = self._friendlies("f.state IN ('queued', 'playing')", ())
        return found[-1] if found else None

    def open_friendlies(self, requester_id: int) -> int:
        row = self.connection.execute(
            "SELECT COUNT(*) FROM server_friendly WHERE requester_id = ?"
            " AND state IN ('queued', 'playing')", (requester_id,)).fetchone()
        return int(row[0])

    def friendly_state(self, request_id: int, state: str, message: str = "") -> None:
        with self.connection:
            self.connection.execute(
                "UPDATE server_friendly SET state = ?, message = ? WHERE id = ?",
                (state, message, request_id))

    def friendly_played(self, request_id: int, game_id: str) -> None:
        with self.connection:
            self.connection.execute(
                "INSERT OR IGNORE INTO server_friendly_games (request_id, game_id)"
                " VALUES (?, ?)", (request_id, game_id))
            self.connection.execute(
                "UPDATE server_friendly SET played = (SELECT COUNT(*) FROM"
                " server_friendly_games WHERE request_id = ?) WHERE id = ?",
                (request_id, request_id))

    # -- version verdicts (computed in arena.server.verdicts) ------------------------
    def _verdicts(self, where: str, params: tuple[Any, ...]) -> list[Verdict]:
        rows = self.connection.execute(
            "SELECT d.version_id, d.against_id, v.bot_id, u.name || '/' || b.name,"
            " v.number, a.number, d.state, d.elo, d.low, d.high, d.games, d.started_at,"
            " d.decided_at FROM server_verdicts d"
            " JOIN server_versions v ON d.version_id = v.id"
            " JOIN server_versions a ON d.against_id = a.id"
            " JOIN server_bots b ON v.bot_id = b.id JOIN server_users u ON b.owner_id = u.id"
            f" WHERE {where} ORDER BY d.version_id", params)
        return [Verdict(r[0], r[1], r[2], f"{r[3]}@{r[4]}", f"{r[3]}@{r[5]}", r[4], r[5],
                        *r[6:]) for r in rows]

    def verdicts(self, bot_id: int | None = None, *, open_only: bool = False
                 ) -> list[Verdict]:
        """The verdicts of one bot's versions (or of every bot), oldest first."""
        clauses, params = ["1"], []
        if bot_id is not None:
            clauses.append("v.bot_id = ?")
            params.append(bot_id)
        if open_only:
            clauses.append("d.state = 'testing'")
        return self._verdicts(" AND ".join(clauses), tuple(params))

    def verdict(self, version_id: int) -> Verdict | None:
        found = self._verdicts("d.version_id = ?", (version_id,))
        return found[0] if found else None

    def start_verdict(self, version_id: int, against_id: int) -> bool:
        """A test of a version against its predecessor, unless it has one (True: new)."""
        with self.connection:
            cursor = self.connection.execute(
                "INSERT OR IGNORE INTO server_verdicts (version_id, against_id, state,"
                " started_at) VALUES (?, ?, 'testing', ?)",
                (version_id, against_id, time.time()))
        return cursor.rowcount == 1

    def save_verdict(self, version_id: int, state: str, elo: float | None,
                     low: float | None, high: float | None, games: int) -> None:
        """An open test's figures recomputed (and its end, if ``state`` is not
        "testing"); a test that has ended is never changed again."""
        if state not in VERDICT_STATES:
            raise ArenaError(f"no verdict state {state!r}")
        with self.connection:
            self.connection.execute(
                "UPDATE server_verdicts SET state = ?, elo = ?, low = ?, high = ?, games = ?,"
                " decided_at = ? WHERE version_id = ? AND state = 'testing'",
                (state, elo, low, high, games, None if state == "testing" else time.time(),
                 version_id))

    def iter_text(self) -> Iterator[str]:
        """Every text value of the server's tables (tests look for secrets in clear)."""
        for (table,) in self.connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"):
            for row in self.connection.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, str):
                        yield value
                    elif isinstance(value, bytes):
                        yield value.decode("latin-1")
