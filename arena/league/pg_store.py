"""A league's store on PostgreSQL (psycopg 3), and the connection every PostgreSQL store
of the arena speaks through.

A server whose settings name ``database = "postgresql://..."`` keeps its ladder's games
here instead of in ``league.sqlite``: the same tables as the SQLite store (its records
compressed the same way, with a preset dictionary per game), one PostgreSQL schema per
league (``ladder``, ``friendly``), so that several web processes and machines share them.
What differs from SQLite: no file (so no damaged page to read past: PostgreSQL keeps its
own pages whole), ids and sequence numbers from identity columns, and errors translated
from PostgreSQL's (:func:`pg_failure`) rather than SQLite's.

:class:`PgConnection` is the connection in autocommit mode (each statement its own
transaction unless inside :meth:`PgConnection.transaction`), statements written with
``?`` as SQLite's are; it reconnects after a lost connection, and a call that fails
raises one of :mod:`arena.storage`'s errors.  psycopg's synchronous API is used from the
caller's thread (the server's event loop: a query on a nearby server takes a fraction of
a millisecond, about what a hop to a worker thread costs; docs/server.md says more).
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from arena.deals import new_deal_key
from arena.errors import ArenaError
from arena.league.store import (
    DICTIONARY_BYTES,
    RESULTS_CHUNK,
    SCHEMA_VERSION,
    PackedRecord,
    StoredBot,
    _filters,
    decompress,
    pack_record,
    record_from_row,
    results_from_rows,
    stored_row,
)
from arena.records import GameRecord, GameResult
from arena.storage import (
    Duplicate,
    StorageBusy,
    StorageDamaged,
    StorageError,
    StorageFull,
    StorageGone,
)

POSTGRES_HINT = ("PostgreSQL needs psycopg 3: pip install 'ra-arena[postgres]' "
                 "(docs/server.md, \"Past one machine\")")
CONNECT_SECONDS = 10
# how long a statement waits for another's lock before it is a StorageBusy, and how long
# a session may sit in a transaction doing nothing (a client that died mid-way)
LOCK_TIMEOUT = "30s"
IDLE_IN_TRANSACTION_TIMEOUT = "60s"
# a server that vanished without closing the connection (a machine lost) is noticed
# within about idle + interval * count seconds
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
              "keepalives_count": 3}


def is_postgres(database: str) -> bool:
    return database.startswith(("postgresql://", "postgres://"))


def psycopg_module() -> Any:
    """psycopg, or an ArenaError saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise ArenaError(POSTGRES_HINT) from None
    return psycopg


def describe(url: str) -> str:
    """The database's address as messages show it: never its password."""
    psycopg = psycopg_module()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as problem:
        raise ArenaError(f"database = {url.split('@')[-1]!r}: not a PostgreSQL address "
                         f"({problem})") from None
    host, port = parts.get("host", "localhost"), parts.get("port", "5432")
    user = f"{parts['user']}@" if parts.get("user") else ""
    return f"postgresql://{user}{host}:{port}/{parts.get('dbname', '')}"


def pg_failure(problem: Exception, where: str, doing: str) -> StorageError:
    """PostgreSQL's error while ``doing`` something with the database ``where`` as one
    line (a StorageError of the kind it is; the transaction was rolled back)."""
    psycopg = psycopg_module()
    errors = psycopg.errors
    first = (str(problem).strip().splitlines() or [type(problem).__name__])[0]
    text = f"{where}: {first} while {doing}"
    if isinstance(problem, errors.DiskFull | errors.OutOfMemory):
        return StorageFull(f"{text}; nothing was changed: free some space on the "
                           "database's disk")
    if isinstance(problem, errors.LockNotAvailable | errors.DeadlockDetected
                  | errors.SerializationFailure | errors.QueryCanceled
                  | errors.TooManyConnections):
        return StorageBusy(f"{text} (another session kept it busy)")
    if isinstance(problem, errors.DataCorrupted | errors.IndexCorrupted):
        return StorageDamaged(f"{text}; the database's files are damaged: restore it "
                              "from a backup")
    if isinstance(problem, psycopg.OperationalError | psycopg.InterfaceError):
        return StorageGone(f"{text} (the database cannot be reached; every change "
                           "committed before is kept)")
    return StorageError(text)


@functools.lru_cache(maxsize=512)
def _pg_sql(sql: str) -> str:
    """A statement written with SQLite's ``?`` in psycopg's placeholders."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """A connection to PostgreSQL at ``url`` whose unqualified tables are those of
    ``schema`` (made if missing).  See the module for its rules."""

    insertion_order = "seq"

    def __init__(self, url: str, schema: str, *, name: str = "arena") -> None:
        self.url = url
        self.schema = schema
        self.name = name
        self.where = f"{describe(url)} ({schema})"
        self.depth = 0  # transactions open
        self._connection: Any = None
        self.connection  # noqa: B018 (connect now: a wrong address is said at once)

    @property
    def connection(self) -> Any:
        """The psycopg connection, made again if the last one was lost (never inside a
        transaction: its statements went with it)."""
        if self._connection is not None and not self._connection.closed \
                and not self._connection.broken:
            return self._connection
        if self.depth:
            raise StorageGone(f"{self.where}: the connection was lost in a transaction "
                              "(nothing of it was kept)")
        psycopg = psycopg_module()
        try:
            self._connection = psycopg.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_SECONDS,
                application_name=self.name[:60], **KEEPALIVES,
                options=(f"-c search_path={self.schema} -c lock_timeout={LOCK_TIMEOUT} "
                         "-c idle_in_transaction_session_timeout="
                         f"{IDLE_IN_TRANSACTION_TIMEOUT}"))
        except psycopg.Error as problem:
            self._connection = None
            raise pg_failure(problem, self.where, "connecting") from None
        return self._connection

    @contextlib.contextmanager
    def _faults(self, doing: str) -> Iterator[Any]:
        psycopg = psycopg_module()
        try:
            yield self.connection
        except psycopg.errors.UniqueViolation as problem:
            raise Duplicate(str(problem).splitlines()[0]) from None
        except psycopg.Error as problem:
            raise pg_failure(problem, self.where, doing) from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._faults("reading") as connection:
            return connection.execute(_pg_sql(sql), params).fetchall()  # type: ignore[no-any-return]

    def row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self._faults("reading") as connection:
            return connection.execute(_pg_sql(sql), params).fetchone()  # type: ignore[no-any-return]

    def named_rows(self, sql: str, params: Sequence[Any] = ()
                   ) -> list[dict[str, Any]]:
        """The rows as dictionaries by column name."""
        with self._faults("reading") as connection:
            cursor = connection.execute(_pg_sql(sql), params)
            names = [column.name for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def chunks(self, sql: str, params: Sequence[Any] = (), size: int = RESULTS_CHUNK
               ) -> Iterator[list[dict[str, Any]]]:
        """The rows, ``size`` at a time, from a cursor on the server (a whole league's
        records are never in memory at once)."""
        with self.transaction(), self._faults("reading") as connection, \
                connection.cursor(name=f"arena_{id(self)}_{time.monotonic_ns()}") as cursor:
            cursor.execute(_pg_sql(sql), params)
            names: list[str] | None = None
            while rows := cursor.fetchmany(size):
                names = names or [column.name for column in cursor.description]
                yield [dict(zip(names, row, strict=True)) for row in rows]

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._faults("writing") as connection:
            return connection.execute(_pg_sql(sql), params).rowcount  # type: ignore[no-any-return]

    def run_many(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        with self._faults("writing") as connection, connection.cursor() as cursor:
            cursor.executemany(_pg_sql(sql), list(params))

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        row = None
        with self._faults("writing") as connection:
            row = connection.execute(_pg_sql(sql) + " RETURNING id", params).fetchone()
        assert row is not None
        return int(row[0])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._faults("writing") as connection, connection.transaction():
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1

    def lock(self, name: str) -> None:
        """Inside a transaction: another session's transaction taking the same lock
        waits for this one to end."""
        self.run("SELECT pg_advisory_xact_lock(hashtext(?))", (name,))

    def columns(self, table: str) -> list[str]:
        """A table's columns (``schema.table`` or one of this connection's schema)."""
        schema, _, name = table.rpartition(".")
        return [row[0] for row in self.rows(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ?"
            " AND table_name = ? ORDER BY ordinal_position", (schema or self.schema, name))]

    def reset_identity(self, table: str, column: str) -> None:
        """New rows of ``table`` numbered after the largest ``column`` there is (after
        rows were copied in with their ids)."""
        self.row(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                 f" COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)")

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read of the block sees the database as it was at its start."""
        with self.transaction():
            self.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def script(self, sql: str, made: str) -> None:
        """Statements without parameters (the tables), unless table ``made`` of this
        schema exists already, in one transaction that holds the schema's lock:
        processes starting together make them once (and a reader takes no lock)."""
        if self.row("SELECT to_regclass(?)", (f'"{self.schema}".{made}',)) != (None,):
            return
        with self.transaction(), self._faults("making the tables") as connection:
            connection.execute("SELECT pg_advisory_xact_lock(hashtext('arena schema'))")
            connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            connection.execute(sql)

    def tables(self) -> list[str]:
        return [row[0] for row in self.rows(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            " ORDER BY tablename")]

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.close()
            self._connection = None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    content_hash TEXT,
    source TEXT NOT NULL,
    first_seen DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS dictionaries (
    id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game TEXT NOT NULL UNIQUE,
    data BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    table_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    num_players INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed BIGINT NOT NULL,
    status TEXT NOT NULL,
    scores TEXT NOT NULL,
    placements TEXT NOT NULL,
    failures TEXT NOT NULL,
    record BYTEA NOT NULL,
    dictionary INTEGER REFERENCES dictionaries (id),
    finished_at DOUBLE PRECISION NOT NULL,
    worker TEXT
);
CREATE INDEX IF NOT EXISTS games_game_players ON games (game, num_players, seq);
-- records are compressed already: PostgreSQL need not try again
ALTER TABLE games ALTER COLUMN record SET STORAGE EXTERNAL;
INSERT INTO meta (key, value) VALUES ('schema_version', '2') ON CONFLICT DO NOTHING;
"""
_GAME_COLUMNS = ("game_id", "game", "table_id", "round", "num_players", "seats", "seed",
                 "status", "scores", "placements", "failures", "record", "dictionary",
                 "finished_at", "worker")


class PgLeagueStore:
    """A league's store in schema ``schema`` of the PostgreSQL database at ``url``
    (:class:`arena.league.store.LeagueStore`)."""

    def __init__(self, url: str, schema: str, *, name: str = "arena") -> None:
        self.db = PgConnection(url, schema, name=name)
        self.where = self.db.where
        self.path = Path("postgresql") / schema  # (what messages name the store by)
        self._dictionaries: dict[int, bytes] = {}  # id -> preset dictionary
        self._dictionary_ids: dict[str, int] = {}  # game -> its dictionary's id
        try:
            self.db.script(_SCHEMA, made="games")
            version = self._meta("schema_version")
        except BaseException:
            self.db.close()
            raise
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            self.db.close()
            raise ArenaError(f"{self.where} was written by a newer arena (store version "
                             f"{version}); upgrade with `pip install -U ra-arena`")

    # -- metadata -------------------------------------------------------------------
    def _meta(self, key: str) -> Any:
        row = self.db.row("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else json.loads(row[0])

    def _set_meta(self, key: str, value: Any) -> None:
        self.db.run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key)"
                    " DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def _dict_meta(self, key: str) -> dict[str, Any] | None:
        value = self._meta(key)
        return value if isinstance(value, dict) else None

    @property
    def league_name(self) -> str:
        return str(self._meta("league_name") or self.db.schema)

    @property
    def config_snapshot(self) -> dict[str, Any] | None:
        return self._dict_meta("config")

    @property
    def game_settings(self) -> dict[str, Any] | None:
        return self._dict_meta("game_settings")

    @property
    def stop_result(self) -> dict[str, Any] | None:
        return self._dict_meta("stop")

    def save_stop(self, summary: Mapping[str, Any]) -> None:
        self._set_meta("stop", dict(summary))

    @property
    def tune_setup(self) -> dict[str, Any] | None:
        return self._dict_meta("tune")

    def save_tune_setup(self, setup: Mapping[str, Any]) -> None:
        self._set_meta("tune", dict(setup))

    def deal_key(self, wanted: str | None = None) -> str:
        """The key this league's games are dealt from: kept in ``meta``, never shown."""
        key = self.stored_deal_key()
        if key is None:  # a concurrent first use keeps the first key
            self.db.run("INSERT INTO meta (key, value) VALUES ('deal_key', ?)"
                        " ON CONFLICT (key) DO NOTHING",
                        (json.dumps(wanted or new_deal_key()),))
            key = self.stored_deal_key()
            assert key is not None
        if wanted is not None and key != wanted:
            raise ArenaError(
                f"{self.where} deals its games from another deal key than the one "
                "given: the games of one league come from one key")
        return key

    def stored_deal_key(self) -> str | None:
        value = self._meta("deal_key")
        return value if isinstance(value, str) else None

    def bots(self) -> dict[str, StoredBot]:
        rows = self.db.rows("SELECT name, version, content_hash, source FROM bots"
                            " ORDER BY name")
        return {row[0]: StoredBot(*row) for row in rows}

    def save_setup(self, league_name: str, config: Mapping[str, Any],
                   game_settings: Mapping[str, Any], bots: Sequence[StoredBot]) -> None:
        """Record the configuration and the bots (in one transaction)."""
        with self.db.transaction():
            self._set_meta("league_name", league_name)
            self._set_meta("config", dict(config))
            if self.count() == 0:  # the settings the stored games were played under
                self._set_meta("game_settings", dict(game_settings))
            self.db.run_many(
                "INSERT INTO bots (name, version, content_hash, source, first_seen)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                " version = excluded.version, content_hash = excluded.content_hash,"
                " source = excluded.source",
                [(bot.name, bot.version, bot.content_hash, bot.source, time.time())
                 for bot in bots])

    # -- games ----------------------------------------------------------------------
    def played_ids(self) -> set[str]:
        return {row[0] for row in self.db.rows("SELECT game_id FROM games")}

    def bots_with_games(self) -> set[str]:
        return {bot for (seats,) in self.db.rows("SELECT DISTINCT seats FROM games")
                for bot in json.loads(seats)}

    def count(self) -> int:
        row = self.db.row("SELECT COUNT(*) FROM games")
        return int(row[0]) if row else 0

    def finish_times(self) -> list[float]:
        return [row[0] for row in self.db.rows(
            "SELECT finished_at FROM games ORDER BY finished_at")]

    def add_game(self, record: GameRecord | PackedRecord) -> bool:
        """Store one finished game in its own transaction; False if it was there."""
        return self.add_games([record]) == 1

    def add_games(self, records: Iterable[GameRecord | PackedRecord]) -> int:
        """Finished games in one transaction; returns how many were new."""
        games = list(records)
        try:
            with self.db.transaction():
                rows = [self._stored_row(record) for record in games]
                added = 0
                for row in rows:
                    added += self.db.run(
                        f"INSERT INTO games ({', '.join(_GAME_COLUMNS)}) VALUES"
                        f" ({', '.join('?' * len(_GAME_COLUMNS))})"
                        " ON CONFLICT (game_id) DO NOTHING",
                        tuple(row[column] for column in _GAME_COLUMNS))
                return added
        except BaseException:
            for record in games:  # a dictionary made in the failed transaction went too
                self._dictionary_ids.pop(record.game, None)
            raise

    def make_dictionary(self, game: str, sample: GameRecord) -> tuple[int, bytes]:
        with self.db.transaction():
            return self._dictionary_for(game, pack_record(sample).data)

    def check(self) -> None:
        """PostgreSQL keeps its pages whole itself: the tables are there and readable."""
        self.count()

    def results(self, game: str | None = None, num_players: int | None = None
                ) -> list[GameResult]:
        """Every stored game as a GameResult, in the order they finished."""
        clauses, params = _filters(game, num_players)
        return results_from_rows(self.db.rows(
            "SELECT seq, game_id, game, seats, scores, placements, failures FROM games"
            f"{clauses} ORDER BY seq", params))

    def games(self, game: str | None = None, num_players: int | None = None,
              unreadable: list[str] | None = None) -> Iterator[GameRecord]:
        """Every stored game in full, in the order they finished (one whose record
        cannot be read: an ArenaError, or its id added to ``unreadable``)."""
        clauses, params = _filters(game, num_players)
        for rows in self.db.chunks(f"SELECT * FROM games{clauses} ORDER BY seq", params,
                                   size=500):
            for row in rows:
                try:
                    yield self._record_from_row(row)
                except ArenaError:
                    if unreadable is None:
                        raise
                    unreadable.append(row["game_id"])

    def tables_of(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        if not game_ids:
            return {}
        return {row[0]: (row[1], row[2]) for row in self.db.rows(
            "SELECT game_id, round, table_id FROM games WHERE game_id = ANY(?)",
            (list(game_ids),))}

    def records_of(self, game_ids: Sequence[str]) -> Iterator[GameRecord]:
        """The stored records of ``game_ids`` in full (ids not stored left out), in the
        order they finished within each 500."""
        ids = list(game_ids)
        for start in range(0, len(ids), 500):
            for row in self.db.named_rows("SELECT * FROM games WHERE game_id = ANY(?)"
                                          " ORDER BY seq", (ids[start:start + 500],)):
                yield self._record_from_row(row)

    def game_ids_matching(self, prefix: str, limit: int = 6) -> list[str]:
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [row[0] for row in self.db.rows(
            "SELECT game_id FROM games WHERE game_id LIKE ? ESCAPE '\\' ORDER BY seq"
            " LIMIT ?", (pattern, limit))]

    def find_game(self, game_id: str) -> GameRecord:
        ids = self.game_ids_matching(game_id)
        if not ids:
            raise ArenaError(f"no game {game_id!r} in {self.where}")
        if len(ids) > 1:
            raise ArenaError(f"{game_id!r} matches several games ({', '.join(ids)}); "
                             "give more characters")
        (row,) = self.db.named_rows("SELECT * FROM games WHERE game_id = ?", (ids[0],))
        return self._record_from_row(row)

    def export(self, out: TextIO, game: str | None = None, num_players: int | None = None,
               unreadable: list[str] | None = None) -> int:
        count = 0
        for record in self.games(game, num_players, unreadable):
            out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            count += 1
        return count

    # -- how a record is kept (as the SQLite store keeps it) -----------------------------
    def dictionary(self, game: str) -> tuple[int, bytes] | None:
        if game not in self._dictionary_ids:
            row = self.db.row("SELECT id, data FROM dictionaries WHERE game = ?", (game,))
            if row is None:
                return None
            self._dictionary_ids[game] = row[0]
            self._dictionaries[row[0]] = bytes(row[1])
        ident = self._dictionary_ids[game]
        return ident, self._dictionaries[ident]

    def _dictionary_for(self, game: str, text: bytes) -> tuple[int, bytes]:
        """The preset dictionary of ``game``'s records: the first one stored (``text``);
        inside the caller's transaction."""
        known = self.dictionary(game)
        if known is not None:
            return known
        self.db.run("INSERT INTO dictionaries (game, data) VALUES (?, ?)"
                    " ON CONFLICT (game) DO NOTHING", (game, text[-DICTIONARY_BYTES:]))
        found = self.dictionary(game)  # ours, or one another writer made first
        assert found is not None
        return found

    def _stored_row(self, record: GameRecord | PackedRecord) -> dict[str, Any]:
        return stored_row(record, self._dictionary_ids, self._dictionary_for)

    def _record_from_row(self, row: Mapping[str, Any]) -> GameRecord:
        try:
            stored, ident = bytes(row["record"]), row.get("dictionary")
            if ident is not None and ident not in self._dictionaries:
                found = self.db.row("SELECT data FROM dictionaries WHERE id = ?", (ident,))
                if found is None:
                    raise ValueError(f"its compression dictionary {ident} is missing")
                self._dictionaries[ident] = bytes(found[0])
            text = decompress(stored, self._dictionaries[ident] if ident is not None
                              else b"")
            return record_from_row(row, text)
        except (ValueError, zlib.error) as problem:  # not JSON, or a RecordError
            raise ArenaError(f"{self.where}: game {row['game_id']} cannot be read "
                             f"({problem})") from None

    def close(self) -> None:
        self.db.close()
