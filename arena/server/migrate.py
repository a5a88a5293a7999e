"""``arena serve migrate DIR postgresql://...``: a SQLite server copied into PostgreSQL.

Everything the server keeps in ``league.sqlite`` (users, tokens, sessions, bots and
their versions, verdicts, friendly requests, the games in flight, the counters) and the
games of its two league stores (the ladder's and the friendly ones: their settings, bots,
compression dictionaries, the deal key, every record as stored) is copied table by table,
keeping every id, into the database's schemas ``arena``, ``ladder`` and ``friendly``.

* **Run again after an interruption**: each batch is one transaction; the games resume
  after the last one copied, every other table is copied again over what is there (an
  upsert by its key), so a second run finishes the first and a third changes nothing.
  The destination remembers which server it holds (a digest of its secret key): another
  server's copy, or a database already used otherwise, is refused.
* **Checked**: every table's rows counted on both sides, then a sample of rows compared
  column by column, and a sample of games read back whole from both stores and compared.
* **Then** settings.toml says ``database = "postgresql://..."``; ``league.sqlite`` is left
  as it was (serve the folder again with ``database = ""`` to go back).

The source server must be stopped (its league store's lock is taken for the copy).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.server.settings import SECRET_NAME, SETTINGS_NAME, ServerSettings

BATCH = 500
SAMPLE_GAMES = 50
SAMPLE_ROWS = 20
PROGRESS_SECONDS = 2.0
MIGRATION_KEY = "migrated_from"  # in the destination's server_meta

# (table, key, upsert): in an order that keeps every reference valid; a table copied by
# an upsert gets a row changed since the last run again, one without only new rows
SERVER_TABLES: tuple[tuple[str, str, bool], ...] = (
    ("server_users", "id", True), ("server_tokens", "id", True),
    ("server_sessions", "id_hash", True), ("server_bots", "id", True),
    ("server_versions", "id", True), ("server_verdicts", "version_id", True),
    ("server_friendly", "id", True), ("server_friendly_games", "game_id", False),
    ("server_inflight", "game_id", True), ("server_meta", "key", True))
LEAGUE_TABLES: tuple[tuple[str, str, bool], ...] = (
    ("meta", "key", True), ("bots", "name", True), ("dictionaries", "id", True),
    ("games", "seq", False))
# identity columns whose sequences must start after the copied ids
IDENTITIES = {"server_users": "id", "server_tokens": "id", "server_bots": "id",
              "server_versions": "id", "server_friendly": "id", "dictionaries": "id",
              "games": "seq"}
# rows kept in insertion order (SQLite's rowid; PostgreSQL numbers them as they come)
IN_ORDER = {"server_inflight", "server_friendly_games"}


@dataclass
class Report:
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # table -> (from, to)
    compared_rows: int = 0
    compared_games: int = 0
    copied: dict[str, int] = field(default_factory=dict)

    def mismatched(self) -> list[str]:
        return [f"{table} ({a} here, {b} there)" for table, (a, b) in self.counts.items()
                if a != b]


def source_digest(settings: ServerSettings) -> str:
    """Which server this is, without saying its secret: the secret key's sha256."""
    secret = (settings.folder / SECRET_NAME).read_bytes().strip()
    return hashlib.sha256(b"ra-arena server " + secret).hexdigest()


@dataclass
class Side:
    """One side of a copy: the server's tables and each league's, as connections
    (arena.server.sql_store.Connection plus ``columns``/``reset_identity``), and the
    name each league's tables go by on it (``ladder.games`` on PostgreSQL, one
    connection for all)."""

    server: Any
    leagues: dict[str, tuple[Any, str]]  # league -> (connection, prefix of its tables)
    stores: dict[str, Any]  # league -> its store (games read back whole)


def migrate(settings: ServerSettings, url: str, say: Callable[[str], None]) -> Report:
    """Copy the SQLite server of ``settings`` into the PostgreSQL database at ``url``
    and check the copy (ArenaError, in one line, if it differs)."""
    from arena.league.pg_store import PgLeagueStore, describe
    from arena.league.store import DB_NAME, create_store
    from arena.server.pg_store import PgServerStore
    from arena.server.sqlite_store import SqliteServerStore
    from arena.server.store import FRIENDLY, LADDER, league_folder

    if settings.postgres:
        raise ArenaError(f"{settings.folder} already uses {describe(settings.database)}: "
                         "there is nothing to migrate")
    where = describe(url)
    closing: list[Any] = [create_store(settings.folder)]  # its lock: no server runs now
    try:
        friendly_folder = league_folder(settings, FRIENDLY)
        if (friendly_folder / DB_NAME).exists():
            closing.append(create_store(friendly_folder))
        leagues = dict(zip([LADDER, FRIENDLY], closing, strict=False))
        server = SqliteServerStore(settings.sqlite_path)
        target = PgServerStore(url, name="arena serve migrate")
        closing += [server, target]
        targets = {league: PgLeagueStore(url, league, name="arena serve migrate")
                   for league in leagues}
        closing += list(targets.values())
        _claim(target, source_digest(settings), where)
        source = Side(server.db, {league: (store.raw_tables(), "")
                                  for league, store in leagues.items()}, leagues)
        copy = Side(target.db, {league: (store.db, "") for league, store in targets.items()},
                    targets)
        report = copy_server(source, copy, say)
        # the destination's own mark is one more row of its server_meta
        mine, theirs = report.counts["server_meta"]
        report.counts["server_meta"] = (mine, theirs - 1)
        check(report, source, copy, where)
        return report
    finally:
        for store in reversed(closing):
            store.close()


def backup_postgres(settings: ServerSettings, out: Any, say: Callable[[str], None]
                    ) -> Report:
    """The PostgreSQL server of ``settings`` copied, as one moment of it (a snapshot),
    into SQLite stores in the new folder ``out`` (a server folder of its own, which
    ``arena serve migrate`` brings back into a database)."""
    from arena.league.pg_store import PgConnection, PgLeagueStore, describe
    from arena.league.store import create_store
    from arena.server.pg_store import SERVER_SCHEMA
    from arena.server.sqlite_store import SqliteServerStore
    from arena.server.store import FRIENDLY, LADDER

    ladder = create_store(out)
    (out / FRIENDLY).mkdir(mode=0o700, exist_ok=True)  # (private, as the original's)
    friendly = create_store(out / FRIENDLY)
    server = SqliteServerStore(out / "league.sqlite")
    reader = PgConnection(settings.database, SERVER_SCHEMA, name="arena serve backup")
    readers = {league: PgLeagueStore(settings.database, league, name="arena serve backup")
               for league in (LADDER, FRIENDLY)}
    try:
        with reader.snapshot():
            source = Side(reader, {league: (reader, f"{league}.")
                                   for league in (LADDER, FRIENDLY)}, readers)
            copy = Side(server.db, {LADDER: (ladder.raw_tables(), ""),
                                    FRIENDLY: (friendly.raw_tables(), "")},
                        {LADDER: ladder, FRIENDLY: friendly})
            report = copy_server(source, copy, say)
            check(report, source, copy, describe(settings.database))
        return report
    finally:
        closing: list[Any] = [reader, *readers.values(), server, friendly, ladder]
        for store in closing:
            store.close()


def copy_server(source: Side, target: Side, say: Callable[[str], None]) -> Report:
    """Every table of the server and of its leagues, from ``source`` to ``target``."""
    report = Report()
    copier = _Copier(report, say)
    copier.tables(source.server, "", target.server, SERVER_TABLES, "")
    for league, (connection, prefix) in source.leagues.items():
        into, _ = target.leagues[league]
        copier.tables(connection, prefix, into, LEAGUE_TABLES, f"{league}.")
    say("checking the copy: counts, a sample of rows and of games")
    _count_all(report, source.server, "", target.server, SERVER_TABLES, "")
    for league, (connection, prefix) in source.leagues.items():
        into, _ = target.leagues[league]
        _count_all(report, connection, prefix, into, LEAGUE_TABLES, f"{league}.")
    return report


def check(report: Report, source: Side, target: Side, where: str) -> None:
    """The counts equal, then a sample of rows and of whole games compared."""
    if report.mismatched():
        raise ArenaError(f"the copy of {where} differs: {', '.join(report.mismatched())}"
                         "; run the same command again")
    _compare_rows(report, source.server, "", target.server, SERVER_TABLES)
    for league, (connection, prefix) in source.leagues.items():
        into, _ = target.leagues[league]
        _compare_rows(report, connection, prefix, into, LEAGUE_TABLES)
        _compare_games(report, source.stores[league], target.stores[league], where)


def _claim(target: Any, digest: str, where: str) -> None:
    """The destination holds this server's copy, or nothing yet (then it is marked as
    this server's); another server's, or a database used otherwise, is refused."""
    claimed = target.meta(MIGRATION_KEY)
    if claimed == digest:
        return
    if claimed is not None or target.users():
        raise ArenaError(f"{where} already holds another server's accounts: migrate into "
                         "an empty database")
    target.set_meta(MIGRATION_KEY, digest)


class _Copier:
    def __init__(self, report: Report, say: Callable[[str], None]) -> None:
        self.report = report
        self.say = say
        self.last = time.monotonic()  # (a small server is copied without a word)

    def tables(self, source: Any, prefix: str, target: Any,
               tables: Sequence[tuple[str, str, bool]], label: str) -> None:
        for table, key, upsert in tables:
            wanted = set(target.columns(table))
            columns = [c for c in source.columns(prefix + table) if c in wanted
                       and not (table in IN_ORDER and c == "seq")]
            self.report.copied[label + table] = self.table(
                source, prefix + table, target, table, key, columns, upsert, label)
            if table in IDENTITIES:
                target.reset_identity(table, IDENTITIES[table])

    def table(self, source: Any, name: str, target: Any, table: str, key: str,
              columns: list[str], upsert: bool, label: str) -> int:
        names = ", ".join(columns)
        conflict = (f"ON CONFLICT ({key}) DO UPDATE SET "
                    + ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)
                    if upsert and len(columns) > 1 else f"ON CONFLICT ({key}) DO NOTHING")
        insert = (f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})"
                  f" {conflict}")
        total = _count(source, name)
        if table in IN_ORDER:  # small tables, whose order is their insertion's
            rows = source.rows(f"SELECT {names} FROM {name}"
                               f" ORDER BY {source.insertion_order}")
            with target.transaction():
                target.run_many(insert, [_plain(row) for row in rows])
            return len(rows)
        after: Any = None
        if not upsert:  # (games: never changed once stored) resume after the last one
            row = target.row(f"SELECT MAX({key}) FROM {table}")
            after = row[0] if row else None
        copied = 0
        while True:
            where, params = (f" WHERE {key} > ?", [after]) if after is not None else ("", [])
            rows = [_plain(row) for row in source.rows(
                f"SELECT {names} FROM {name}{where} ORDER BY {key} LIMIT ?",
                [*params, BATCH])]
            if not rows:
                return copied
            with target.transaction():
                target.run_many(insert, rows)
            copied += len(rows)
            after = rows[-1][columns.index(key)]
            if time.monotonic() - self.last > PROGRESS_SECONDS:
                self.last = time.monotonic()
                self.say(f"copying {label}{table}: {copied} of {total} rows")


def _plain(row: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


def _count(connection: Any, table: str) -> int:
    row = connection.row(f"SELECT COUNT(*) FROM {table}")
    return int(row[0]) if row else 0


def _count_all(report: Report, source: Any, prefix: str, target: Any,
               tables: Sequence[tuple[str, str, bool]], label: str) -> None:
    for table, _, _ in tables:
        report.counts[label + table] = (_count(source, prefix + table), _count(target, table))


def _normal(value: Any) -> Any:
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, bool):
        return int(value)
    return value


def _compare_rows(report: Report, source: Any, prefix: str, target: Any,
                  tables: Sequence[tuple[str, str, bool]]) -> None:
    """A sample of each table's rows, the same column by column on both sides."""
    chooser = random.Random(time.time_ns())
    for table, key, _ in tables:
        wanted = set(target.columns(table))
        names = ", ".join(c for c in source.columns(prefix + table) if c in wanted
                          and not (table in IN_ORDER and c == "seq"))
        keys = [row[0] for row in source.rows(f"SELECT {key} FROM {prefix}{table}")]
        for value in chooser.sample(keys, min(SAMPLE_ROWS, len(keys))):
            mine = source.row(f"SELECT {names} FROM {prefix}{table} WHERE {key} = ?",
                              (value,))
            theirs = target.row(f"SELECT {names} FROM {table} WHERE {key} = ?", (value,))
            if theirs is None or [_normal(v) for v in mine or ()] != [
                    _normal(v) for v in theirs]:
                raise ArenaError(f"the copy differs in {table} row {key} = {value!r}; run "
                                 "the same command again")
            report.compared_rows += 1


def _compare_games(report: Report, source: Any, target: Any, where: str) -> None:
    """A sample of the copied games read back whole from both stores: the same records."""
    ids = sorted(target.played_ids())
    chooser = random.Random(time.time_ns())
    for game_id in chooser.sample(ids, min(SAMPLE_GAMES, len(ids))):
        if json.dumps(source.find_game(game_id).to_json(), sort_keys=True) != json.dumps(
                target.find_game(game_id).to_json(), sort_keys=True):
            raise ArenaError(f"game {game_id} of {where} reads otherwise in its copy; run "
                             "the same command again")
        report.compared_games += 1


def use_database(settings: ServerSettings, url: str) -> None:
    """settings.toml's ``database`` set to ``url`` (its comments and the rest kept)."""
    import tomlkit

    path = settings.folder / SETTINGS_NAME
    document = tomlkit.parse(path.read_text(encoding="utf-8"))
    table = document.get("server")
    if table is None:
        table = tomlkit.table()
        document["server"] = table
    table["database"] = url
    path.write_text(tomlkit.dumps(document), encoding="utf-8")


def migrate_command(folder: str, url: str) -> int:
    from arena.league.pg_store import describe, is_postgres
    from arena.server.settings import load_settings

    if not is_postgres(url):
        raise ArenaError(f"arena serve migrate DIR URL: the URL is a postgresql:// address, "
                         f"not {url.split('@')[-1]!r}")
    settings = load_settings(__import__("pathlib").Path(folder))
    began = time.monotonic()

    def say(line: str) -> None:
        print(f"arena serve migrate: {line}", file=sys.stderr, flush=True)

    report = migrate(settings, url, say)
    use_database(settings, url)
    games = report.counts.get("ladder.games", (0, 0))[0]
    print(f"copied {settings.folder} into {describe(url)} in "
          f"{time.monotonic() - began:.1f} s: {len(report.counts)} tables, the same rows "
          f"on both sides ({games} ladder games); {report.compared_rows} rows and "
          f"{report.compared_games} games compared whole; settings.toml now names the "
          f"database (league.sqlite is left as it was)")
    return 0
