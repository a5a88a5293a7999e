"""The server's store on SQLite: its tables in the ladder's league store file
(``league.sqlite``, WAL), beside the games, on a connection of their own.  The SQL is
:mod:`arena.server.sql_store`'s; here are the connection, the tables and their upgrades
from older folders, and SQLite's errors made :mod:`arena.storage`'s."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from arena.errors import ArenaError
from arena.league.store import SqliteConnection
from arena.server.sql_store import SERVER_SCHEMA_VERSION, SqlServerStore

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
CREATE TABLE IF NOT EXISTS server_rate_events (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS server_rate_events_key ON server_rate_events (bucket, key, at);
CREATE TABLE IF NOT EXISTS server_shared (kind TEXT PRIMARY KEY, value TEXT NOT NULL);
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
