"""The server's store on SQLite: its tables in the ladder's league store file
(``league.sqlite``, WAL), beside the games, on a connection of their own.  The SQL is
:mod:`arena.server.sql_store`'s; here are the connection, the tables and their upgrades
from older folders, and SQLite's errors made :mod:`arena.storage`'s."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.league.store import sqlite_failure
from arena.server.sql_store import SERVER_SCHEMA_VERSION, NameTaken, SqlServerStore

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



class SqliteConnection:
    """A connection in autocommit mode: each statement its own transaction, unless
    inside :meth:`transaction` (BEGIN IMMEDIATE: a writer waits for another up to
    ``timeout`` seconds, rather than failing half-way)."""

    insertion_order = "rowid"

    def __init__(self, path: Path, timeout: float = 30) -> None:
        self.path = path
        self.depth = 0
        self.connection = sqlite3.connect(path, timeout=timeout, isolation_level=None)

    @contextlib.contextmanager
    def _faults(self, sql: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.IntegrityError as problem:
            if "UNIQUE" in str(problem):
                raise NameTaken(str(problem)) from None
            raise sqlite_failure(problem, self.path, "writing the server's tables") from None
        except sqlite3.Error as problem:
            doing = "reading" if sql.lstrip().upper().startswith("SELECT") else "writing"
            raise sqlite_failure(problem, self.path, f"{doing} the server's tables") from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._faults(sql):
            return self.connection.execute(sql, params).fetchall()

    def row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self._faults(sql):
            row: tuple[Any, ...] | None = self.connection.execute(sql, params).fetchone()
            return row

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._faults(sql):
            return self.connection.execute(sql, params).rowcount

    def run_many(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        with self._faults(sql):
            self.connection.executemany(sql, params)

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        with self._faults(sql):
            ident = self.connection.execute(sql, params).lastrowid
        assert ident is not None
        return ident

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self.depth:  # inside another: one transaction
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        with self._faults("BEGIN"):
            self.connection.execute("BEGIN IMMEDIATE")
        self.depth = 1
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.connection.execute("ROLLBACK")
            raise
        else:
            try:
                with self._faults("COMMIT"):
                    self.connection.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
                raise
        finally:
            self.depth = 0

    def script(self, sql: str) -> None:
        with self._faults(sql):
            self.connection.executescript(sql)

    def tables(self) -> list[str]:
        return [row[0] for row in self.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]

    def close(self) -> None:
        self.connection.close()


class SqliteServerStore(SqlServerStore):
    """The server's tables in the SQLite file ``path`` (made, or brought up to this
    schema, when opened)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            db = SqliteConnection(path)
            db.connection.execute("PRAGMA journal_mode=WAL")
            db.connection.execute("PRAGMA synchronous=NORMAL")
            db.connection.execute("PRAGMA foreign_keys=ON")
            db.connection.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
            db.connection.execute(
                "INSERT OR IGNORE INTO server_meta (key, value) VALUES (?, ?)",
                ("schema_version", json.dumps(1)))  # _SCHEMA's; upgraded below
        except sqlite3.DatabaseError as problem:
            raise ArenaError(f"{path}: not a usable server database ({problem})") from None
        super().__init__(db)
        version = self.meta("schema_version")
        if not isinstance(version, int) or version > SERVER_SCHEMA_VERSION:
            db.close()
            raise ArenaError(f"{path} was written by a newer arena (server schema "
                             f"{version}); upgrade with `pip install -U ra-arena`")
        if version < SERVER_SCHEMA_VERSION:
            self._upgrade(db)

    def _upgrade(self, db: SqliteConnection) -> None:
        """An older folder's tables brought to this schema, in one transaction (a stop
        in the middle leaves the old schema whole, upgraded again at the next start)."""
        try:
            with db.transaction():
                for table, columns in _ADDED_COLUMNS.items():
                    present = {row[1] for row in db.rows(f'PRAGMA table_info("{table}")')}
                    for name, declaration in columns:
                        if name not in present:
                            db.run(f'ALTER TABLE "{table}" ADD COLUMN {name} {declaration}')
                self.set_meta("schema_version", SERVER_SCHEMA_VERSION)
        except ArenaError as problem:
            db.close()
            raise ArenaError(f"{self.path}: could not upgrade the server's tables "
                             f"({problem}); nothing was changed") from None
