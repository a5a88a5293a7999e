"""A league's results: one SQLite file (WAL mode) in the league's results folder.

What is kept: the configuration (the latest snapshot, and the settings every game was
played under), the bots (name, version, content hash), and every finished game: its
:class:`~arena.records.GameRecord` whole, plus the columns that reading a league needs
without parsing records (seating, seed, scores, placements, failure reasons, timings).
A record goes in through :meth:`Store._stored_row` and comes out through
:meth:`Store._record_from_row` and nowhere else.

Records are kept small (schema version 2; ``arena bench store`` measures it against the
JSON text of version 1 in the same run): each record is zlib-compressed with a preset
dictionary, the first record stored of its game.  Game records share most of their text
(keys, actions, tile names), so a dictionary taken from one of them cuts the compressed
size by a third to a half; taking it from the store's own first game keeps any game,
bundled or from a plugin, working without a dictionary shipped for it, and keeping it in
the store (table ``dictionaries``) keeps every record readable whatever later arenas do.
zlib was chosen by measurement: zstd with a trained dictionary saved under 10% more and is
not in the standard library.  Pages are 16 KB, so several records share a page (with 4 KB
pages each ~2 KB row had a page to itself).  A store written by an older arena (version 1,
JSON text) is read as it is and converted when it is next opened for playing.

Crash safety: each game is written in its own transaction, and only once it is finished,
so killing the arena at any moment (even ``kill -9``) loses at most the games in flight.
Game ids are primary keys, so a game can never be stored twice.  ``synchronous=NORMAL``
in WAL mode survives a killed process; a power cut may lose the last few games, never
the file's consistency.

Ratings and reports read the games through :func:`open_store` and :meth:`Store.results`
(:class:`~arena.records.GameResult`, from the columns alone).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import inspect
import json
import os
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol, TextIO

from arena import fastjson
from arena.deals import new_deal_key
from arena.errors import ArenaError
from arena.records import GameRecord, GameResult
from arena.storage import (
    Duplicate,
    StorageBusy,
    StorageDamaged,
    StorageError,
    StorageFull,
    StorageGone,
)

DB_NAME = "league.sqlite"
LOCK_NAME = "league.lock"
SCHEMA_VERSION = 2
RECORD_COMPRESSION_LEVEL = 6  # zlib: level 9 saves 2% more at twice the time
PAGE_SIZE = 16384
DICTIONARY_BYTES = 32768  # zlib's window: a longer dictionary is not used
RESULTS_CHUNK = 5000  # games whose summary columns are parsed at once (Store.results)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    content_hash TEXT,
    source TEXT NOT NULL,
    first_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    table_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    num_players INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    scores TEXT NOT NULL,
    placements TEXT NOT NULL,
    failures TEXT NOT NULL,
    record BLOB NOT NULL,
    dictionary INTEGER REFERENCES dictionaries (id),
    finished_at REAL NOT NULL,
    worker TEXT
);
CREATE TABLE IF NOT EXISTS dictionaries (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL UNIQUE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS dictionary_copies (
    id INTEGER NOT NULL REFERENCES dictionaries (id),
    copy INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (id, copy)
);
"""
# Every record of a game needs its dictionary: the store keeps spare copies of each on
# other pages, so that one damaged page cannot make every record unreadable.  A copy is
# only read when decompressing with the one before fails (zlib checks the dictionary's
# Adler-32 and the text's, so a damaged dictionary never yields a wrong record).
DICTIONARY_COPIES = 2


@dataclass(frozen=True)
class StoredBot:
    name: str
    version: str
    content_hash: str | None
    source: str


@dataclass(frozen=True)
class PackedRecord:
    """A finished game as the store keeps it, made where it was played: a worker process
    encodes (and, once the store has its dictionary, compresses) the record, so that the
    coordinator, the league's one writer, only inserts rows (encoding, compressing and
    unpickling a whole record cost it most of a millisecond per game; with many cores it
    would be the limit).  Made by :func:`pack_record` only."""

    game_id: str
    game: str
    table: str
    round: int
    seats: tuple[str, ...]
    seed: int
    scores: tuple[float, ...]
    placements: tuple[int, ...]
    forfeits: Mapping[int, str]
    # the record's JSON text (GameRecord.playthrough_json), compressed with the store's
    # dictionary ``dictionary`` (its id); None: the text itself
    data: bytes
    dictionary: int | None
    finished_at: float | None
    worker: str | None

    def in_league(self, game_id: str, table: str, round: int) -> PackedRecord:
        return dataclasses.replace(self, game_id=game_id, table=table, round=round)

    def result(self) -> GameResult:
        return GameResult(game_id=self.game_id, game=self.game, bots=self.seats,
                          scores=tuple(float(s) for s in self.scores),
                          placements=self.placements, failures=self.forfeits)


def pack_record(record: GameRecord, dictionary: tuple[int, bytes] | None = None
                ) -> PackedRecord:
    """``record`` as the store keeps it; compressed if ``dictionary`` (the store's for
    its game, :meth:`Store.dictionary`) is given."""
    text = fastjson.dumps(record.playthrough_json())  # the standard library's values
    return PackedRecord(
        game_id=record.game_id, game=record.game, table=record.table, round=record.round,
        seats=record.seats, seed=record.seed, scores=tuple(record.scores),
        placements=tuple(record.placements), forfeits=record.forfeits,
        data=text if dictionary is None else compress(text, dictionary[1]),
        dictionary=None if dictionary is None else dictionary[0],
        finished_at=record.finished_at, worker=record.worker)


class LeagueStore(Protocol):
    """What leagues, ratings, export, merge and reports ask of a league's store.  The
    SQLite :class:`Store` is the implementation; nothing outside this module speaks SQL,
    so another store (in memory, a server's database) needs only these operations.

    A store has one writer: the league engine (or ``arena merge``) that opened it with
    :func:`create_store`; readers open it with :func:`open_store`."""

    path: Path

    # -- the league's setup
    @property
    def league_name(self) -> str: ...
    @property
    def config_snapshot(self) -> dict[str, Any] | None: ...
    @property
    def game_settings(self) -> dict[str, Any] | None: ...
    @property
    def stop_result(self) -> dict[str, Any] | None: ...
    def save_stop(self, summary: Mapping[str, Any]) -> None: ...
    @property
    def tune_setup(self) -> dict[str, Any] | None:
        """What ``arena tune`` started in this store (None: it holds no tune)."""
    def save_tune_setup(self, setup: Mapping[str, Any]) -> None: ...
    def deal_key(self, wanted: str | None = None) -> str:
        """The key this league's games are dealt from (arena/deals.py): ``wanted`` (the
        shards' shared key) or a random one, made on first use and kept; never in a
        record.  ArenaError if the store already keeps another than ``wanted``."""
    def stored_deal_key(self) -> str | None:
        """The deal key the store keeps, None if it has never dealt a secret game."""
    def bots(self) -> dict[str, StoredBot]: ...
    def save_setup(self, league_name: str, config: Mapping[str, Any],
                   game_settings: Mapping[str, Any], bots: Sequence[StoredBot]) -> None: ...

    # -- games
    def played_ids(self) -> set[str]: ...
    def bots_with_games(self) -> set[str]: ...
    def count(self) -> int: ...
    def add_game(self, record: GameRecord | PackedRecord) -> bool:
        """Store one finished game whole (its own transaction); False if it was there."""
    def results(self, game: str | None = None,
                num_players: int | None = None) -> list[GameResult]: ...
    def games(self, game: str | None = None, num_players: int | None = None,
              unreadable: list[str] | None = None) -> Iterator[GameRecord]: ...
    def game_ids_matching(self, prefix: str, limit: int = 6) -> list[str]: ...
    def tables_of(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]: ...
    def records_of(self, game_ids: Sequence[str]) -> Iterator[GameRecord]: ...
    def find_game(self, game_id: str) -> GameRecord: ...
    def export(self, out: TextIO, game: str | None = None, num_players: int | None = None,
               unreadable: list[str] | None = None) -> int: ...
    def finish_times(self) -> list[float]:
        """When each stored game finished (time.time()), in that order."""
    def dictionary(self, game: str) -> tuple[int, bytes] | None:
        """The compression dictionary of ``game``'s records, for packing where games are
        played (:func:`pack_record`); None before its first game is stored."""

    # -- the file as a whole
    def check(self) -> None: ...
    def close(self) -> None: ...


def _translated(cls: type[Store]) -> type[Store]:
    """``cls`` with every public method and property turning SQLite's errors into
    :mod:`arena.storage`'s (:func:`sqlite_failure`): nothing outside this module sees
    ``sqlite3``."""
    def wrap(function: Any) -> Any:
        if inspect.isgeneratorfunction(function):
            @functools.wraps(function)
            def generator(self: Store, *args: Any, **kwargs: Any) -> Any:
                try:
                    yield from function(self, *args, **kwargs)
                except sqlite3.DatabaseError as problem:
                    raise sqlite_failure(problem, self.path, "reading it") from None
            return generator

        writes = function.__name__.startswith(("save_", "add_", "make_", "deal_key", "upgrade"))

        @functools.wraps(function)
        def method(self: Store, *args: Any, **kwargs: Any) -> Any:
            try:
                return function(self, *args, **kwargs)
            except sqlite3.DatabaseError as problem:
                raise sqlite_failure(problem, self.path, "writing to it" if writes
                                     else "reading it") from None
        return method

    for name, value in list(vars(cls).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, property) and value.fget is not None:
            setattr(cls, name, property(wrap(value.fget)))
        elif inspect.isfunction(value):
            setattr(cls, name, wrap(value))
    return cls


@_translated
class Store:
    """The SQLite implementation of :class:`LeagueStore`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        self.lock: IO[str] | None = None  # held while a league is being played
        self._dictionaries: dict[int, bytes] = {}  # id -> preset dictionary
        self._dictionary_ids: dict[str, int] = {}  # game -> its dictionary's id

    # -- metadata -------------------------------------------------------------------
    def _meta(self, key: str) -> Any:
        row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _set_meta(self, key: str, value: Any) -> None:
        self.connection.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value))
        )

    @property
    def league_name(self) -> str:
        return str(self._meta("league_name") or self.path.parent.name)

    @property
    def config_snapshot(self) -> dict[str, Any] | None:
        value = self._meta("config")
        return value if isinstance(value, dict) else None

    @property
    def game_settings(self) -> dict[str, Any] | None:
        value = self._meta("game_settings")
        return value if isinstance(value, dict) else None

    @property
    def stop_result(self) -> dict[str, Any] | None:
        """The state of the league's sequential test when it last ran (None: no test)."""
        value = self._meta("stop")
        return value if isinstance(value, dict) else None

    def save_stop(self, summary: Mapping[str, Any]) -> None:
        """Keep the sequential test's decision and LLR (arena.league.stop)."""
        with self.connection:
            self._set_meta("stop", dict(summary))

    @property
    def tune_setup(self) -> dict[str, Any] | None:
        value = self._meta("tune")
        return value if isinstance(value, dict) else None

    def save_tune_setup(self, setup: Mapping[str, Any]) -> None:
        """Keep what ``arena tune`` started here (arena/tune/tuner.py): its games and its
        state follow from it and the stored games."""
        with self.connection:
            self._set_meta("tune", dict(setup))

    def deal_key(self, wanted: str | None = None) -> str:
        key = self.stored_deal_key()
        if key is None:
            with self.connection:  # a concurrent first use keeps the first key
                self.connection.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('deal_key', ?)",
                    (json.dumps(wanted or new_deal_key()),))
            key = self.stored_deal_key()
            assert key is not None
        if wanted is not None and key != wanted:
            raise ArenaError(
                f"{self.path.parent} deals its games from another deal key than the one "
                "given: the games of one league come from one key (for shards: the same "
                "--deal-key FILE on every machine; otherwise another results folder)")
        return key

    def stored_deal_key(self) -> str | None:
        value = self._meta("deal_key")
        return value if isinstance(value, str) else None

    def bots(self) -> dict[str, StoredBot]:
        rows = self.connection.execute(
            "SELECT name, version, content_hash, source FROM bots ORDER BY name"
        )
        return {row[0]: StoredBot(*row) for row in rows}

    def save_setup(
        self,
        league_name: str,
        config: Mapping[str, Any],
        game_settings: Mapping[str, Any],
        bots: Sequence[StoredBot],
    ) -> None:
        """Record the configuration and the bots (in one transaction)."""
        with self.connection:
            self._set_meta("league_name", league_name)
            self._set_meta("config", dict(config))
            if self.count() == 0:  # the settings the stored games were played under
                self._set_meta("game_settings", dict(game_settings))
            now = time.time()
            for bot in bots:
                self.connection.execute(
                    "INSERT OR REPLACE INTO bots (name, version, content_hash, source, first_seen)"
                    " VALUES (?, ?, ?, ?, COALESCE("
                    "(SELECT first_seen FROM bots WHERE name = ?), ?))",
                    (bot.name, bot.version, bot.content_hash, bot.source, bot.name, now),
                )

    # -- games ----------------------------------------------------------------------
    def played_ids(self) -> set[str]:
        return {row[0] for row in self.connection.execute("SELECT game_id FROM games")}

    def bots_with_games(self) -> set[str]:
        """The bots that sat in at least one stored game."""
        return {
            bot for (seats,) in self.connection.execute("SELECT seats FROM games")
            for bot in json.loads(seats)
        }

    def count(self) -> int:
        row = self.connection.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(row[0])

    def finish_times(self) -> list[float]:
        """When each stored game finished (time.time()), in that order."""
        return [row[0] for row in self.connection.execute(
            "SELECT finished_at FROM games ORDER BY finished_at")]

    def add_game(self, record: GameRecord | PackedRecord) -> bool:
        """Store one finished game in its own transaction.  False if it was already there."""
        try:
            row = self._stored_row(record)
            columns = ", ".join(row)
            with store_faults(self.path, f"storing game {record.game_id}"), self.connection:
                cursor = self.connection.execute(
                    f"INSERT OR IGNORE INTO games ({columns}) "
                    f"VALUES ({', '.join('?' * len(row))})",
                    tuple(row.values()),
                )
                return cursor.rowcount == 1
        except BaseException:
            # a dictionary made in the failed transaction went with it: read it again
            self._dictionary_ids.pop(record.game, None)
            raise

    def add_games(self, records: Iterable[GameRecord | PackedRecord]) -> int:
        """Many finished games in one transaction (synthetic stores for benchmarks);
        returns how many were new."""
        rows = [self._stored_row(record) for record in records]
        if not rows:
            return 0
        columns = ", ".join(rows[0])
        with store_faults(self.path, f"storing {len(rows)} games"), self.connection:
            before = self.connection.total_changes
            self.connection.executemany(
                f"INSERT OR IGNORE INTO games ({columns}) "
                f"VALUES ({', '.join('?' * len(rows[0]))})",
                [tuple(row.values()) for row in rows],
            )
            return self.connection.total_changes - before

    def make_dictionary(self, game: str, sample: GameRecord) -> tuple[int, bytes]:
        """``game``'s compression dictionary, made from ``sample`` if the store has none
        yet (so that records can be packed compressed before the first is stored)."""
        with store_faults(self.path, "storing a dictionary"), self.connection:
            return self._dictionary_for(game, pack_record(sample).data)

    def check(self) -> None:
        """An ArenaError naming the first problem if SQLite's quick check of the whole
        file fails (a damaged page anywhere, also one no query has read yet)."""
        with store_faults(self.path, "checking it"):
            rows = self.connection.execute("PRAGMA quick_check(5)").fetchall()
        if rows != [("ok",)]:
            problems = "; ".join(" ".join(str(row[0]).split()) for row in rows)
            raise ArenaError(f"{self.path} is damaged (the integrity check says: "
                             f"{problems[:300]}); {_DAMAGED_ADVICE}")

    def results(self, game: str | None = None, num_players: int | None = None) -> list[GameResult]:
        """Every stored game as a :class:`GameResult`, in the order they finished."""
        query = "SELECT seq, game_id, game, seats, scores, placements, failures FROM games"
        clauses, params = _filters(game, num_players)
        cursor = self.connection.execute(f"{query}{clauses} ORDER BY seq", params)
        results: list[GameResult] = []
        while rows := cursor.fetchmany(RESULTS_CHUNK):  # a chunk's text at a time in memory
            results += results_from_rows(rows)
        return results

    def games(
        self, game: str | None = None, num_players: int | None = None,
        unreadable: list[str] | None = None,
    ) -> Iterator[GameRecord]:
        """Every stored game in full, in the order they finished.  A game whose record
        cannot be read is an ArenaError, or, given ``unreadable``, its id is added there
        and the others are read on: also past a damaged page of the games table (the
        games on that page are named from the table's index of ids, where it is whole)."""
        clauses, params = _filters(game, num_players)
        last = 0  # the seq of the last row read
        try:
            cursor = self.connection.execute(f"SELECT * FROM games{clauses} ORDER BY seq",
                                             params)
            names = [column[0] for column in cursor.description]
            while True:
                row = cursor.fetchone()  # (a damaged page raises here)
                if row is None:
                    return
                values = dict(zip(names, row, strict=True))
                last = values["seq"]
                record = self._readable(values, unreadable)
                if record is not None:
                    yield record
        except sqlite3.DatabaseError:
            if unreadable is None:
                raise
        yield from self._salvage(last, clauses, params, unreadable)

    def _readable(self, row: Mapping[str, Any], unreadable: list[str] | None
                  ) -> GameRecord | None:
        try:
            return self._record_from_row(row)
        except ArenaError:
            if unreadable is None:
                raise
            unreadable.append(row["game_id"])
            return None

    def _salvage(self, after: int, clauses: str, params: list[Any], unreadable: list[str]
                 ) -> Iterator[GameRecord]:
        """The games after seq ``after`` of a store with a damaged page, read one by one
        (a row on a damaged page fails alone).  Their seqs and ids come from the index of
        game ids (another page than the rows), else every seq up to the table's last one
        is tried (``#N``: the Nth game stored, whose id was on the damaged page)."""
        try:
            ids: dict[int, str] = dict(self.connection.execute(
                "SELECT seq, game_id FROM games INDEXED BY sqlite_autoindex_games_1 "
                "WHERE seq > ?", (after,)).fetchall())
            seqs = sorted(ids)
        except sqlite3.DatabaseError:  # the index is damaged too
            ids = {}
            row = self.connection.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'games'").fetchone()
            seqs = list(range(after + 1, (row[0] if row else after) + 1))
        where = f"{clauses} AND seq = ?" if clauses else " WHERE seq = ?"
        for seq in seqs:
            try:
                cursor = self.connection.execute(f"SELECT * FROM games{where}",
                                                 [*params, seq])
                row = cursor.fetchone()
            except sqlite3.DatabaseError:
                unreadable.append(ids.get(seq, f"#{seq}"))
                continue
            if row is None:  # another game or player count (or never stored)
                continue
            names = [column[0] for column in cursor.description]
            record = self._readable(dict(zip(names, row, strict=True)), unreadable)
            if record is not None:
                yield record

    def tables_of(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """The round and table id of each stored game of ``game_ids`` (the games of one
        table are its seat rotations on one seed: a server's version verdicts take
        them as one unit)."""
        found: dict[str, tuple[int, str]] = {}
        ids = list(game_ids)
        for start in range(0, len(ids), 500):  # SQLite's limit on parameters
            chunk = ids[start:start + 500]
            found.update((row[0], (row[1], row[2])) for row in self.connection.execute(
                "SELECT game_id, round, table_id FROM games WHERE game_id IN"
                f" ({', '.join('?' * len(chunk))})", chunk))
        return found

    def records_of(self, game_ids: Sequence[str]) -> Iterator[GameRecord]:
        """The stored records of ``game_ids`` in full (ids not stored are left out), in
        the order they finished within each 500 (a failure's detail and stderr are only
        in the record: ``arena games --failed``, the report's failures)."""
        ids = list(game_ids)
        for start in range(0, len(ids), 500):  # SQLite's limit on parameters
            chunk = ids[start:start + 500]
            cursor = self.connection.execute(
                f"SELECT * FROM games WHERE game_id IN ({', '.join('?' * len(chunk))})"
                " ORDER BY seq", chunk)
            names = [column[0] for column in cursor.description]
            for row in cursor:
                yield self._record_from_row(dict(zip(names, row, strict=True)))

    def game_ids_matching(self, prefix: str, limit: int = 6) -> list[str]:
        """The ids of up to ``limit`` stored games starting with ``prefix``."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [row[0] for row in self.connection.execute(
            "SELECT game_id FROM games WHERE game_id LIKE ? ESCAPE '\\' ORDER BY seq LIMIT ?",
            (pattern, limit))]

    def find_game(self, game_id: str) -> GameRecord:
        """The game whose id is or starts with ``game_id`` (ArenaError if none or several)."""
        ids = self.game_ids_matching(game_id)
        if not ids:
            raise ArenaError(f"no game {game_id!r} in {self.path}; `arena games "
                             f"{self.path.parent}` lists the stored games")
        if len(ids) > 1:
            raise ArenaError(f"{game_id!r} matches several games ({', '.join(ids)}); "
                             "give more characters")
        cursor = self.connection.execute("SELECT * FROM games WHERE game_id = ?", (ids[0],))
        names = [column[0] for column in cursor.description]
        return self._record_from_row(dict(zip(names, cursor.fetchone(), strict=True)))

    def export(self, out: TextIO, game: str | None = None, num_players: int | None = None,
               unreadable: list[str] | None = None) -> int:
        """Every stored game as one line of JSON (docs/records.md); returns the count.
        ``unreadable``: as for :meth:`games` (every readable game is written)."""
        count = 0
        for record in self.games(game, num_players, unreadable):
            out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            count += 1
        return count

    # -- how a record is kept ---------------------------------------------------------
    def _dictionary_for(self, game: str, text: bytes) -> tuple[int, bytes]:
        """The preset dictionary of ``game``'s records: the first one stored (``text``)."""
        known = self.dictionary(game)
        if known is not None:
            return known
        data = text[-DICTIONARY_BYTES:]
        cursor = self.connection.execute(
            "INSERT INTO dictionaries (game, data) VALUES (?, ?)", (game, data)
        )
        ident = cursor.lastrowid
        assert ident is not None
        self._copy_dictionary(ident, data)
        self._dictionaries[ident] = data
        self._dictionary_ids[game] = ident
        return ident, data

    def _copy_dictionary(self, ident: int, data: bytes) -> None:
        self.connection.executemany(
            "INSERT OR IGNORE INTO dictionary_copies (id, copy, data) VALUES (?, ?, ?)",
            [(ident, copy, data) for copy in range(1, DICTIONARY_COPIES + 1)])

    def _dictionaries_of(self, ident: int) -> Iterator[bytes]:
        """Dictionary ``ident``: the one that worked last, then the stored one, then each
        spare copy (a damaged page makes its read fail or its bytes wrong)."""
        if ident in self._dictionaries:
            yield self._dictionaries[ident]
        queries = [("SELECT data FROM dictionaries WHERE id = ?", (ident,))] + [
            ("SELECT data FROM dictionary_copies WHERE id = ? AND copy = ?", (ident, copy))
            for copy in range(1, DICTIONARY_COPIES + 1)]
        found = False
        for query, params in queries:
            try:
                row = self.connection.execute(query, params).fetchone()
            except sqlite3.DatabaseError:
                continue  # that copy's page is damaged: the next one
            if row is not None and row[0] != self._dictionaries.get(ident):
                found = True
                self._dictionaries[ident] = row[0]
                yield row[0]
        if not found and ident not in self._dictionaries:
            raise ValueError(f"its compression dictionary {ident} is missing or unreadable")

    def _decompress(self, data: bytes, ident: int | None) -> bytes:
        if ident is None:
            return decompress(data)
        problem: zlib.error | None = None
        for dictionary in self._dictionaries_of(ident):
            try:
                return decompress(data, dictionary)
            except zlib.error as error:  # this copy (or the record) is damaged
                problem = error
        raise problem or ValueError(f"no readable copy of compression dictionary {ident}")

    def dictionary(self, game: str) -> tuple[int, bytes] | None:
        """The preset dictionary of ``game``'s records (its id and bytes), once a game of
        it is stored: what :func:`pack_record` compresses with where games are played."""
        if game not in self._dictionary_ids:
            row = self.connection.execute(
                "SELECT id, data FROM dictionaries WHERE game = ?", (game,)).fetchone()
            if row is None:
                return None
            self._dictionary_ids[game] = row[0]
            self._dictionaries[row[0]] = row[1]
        ident = self._dictionary_ids[game]
        return ident, self._dictionaries[ident]

    def _stored_row(self, record: GameRecord | PackedRecord) -> dict[str, Any]:
        """The games row of a record: the one place a record is written to the store
        (inside the caller's transaction: a new dictionary and its first game go in
        together)."""
        return stored_row(record, self._dictionary_ids, self._dictionary_for)

    def _record_from_row(self, row: Mapping[str, Any]) -> GameRecord:
        """The record of a games row: the one place a record is read from the store."""
        try:
            stored = row["record"]
            if isinstance(stored, bytes):
                stored = self._decompress(stored, row.get("dictionary"))
            return record_from_row(row, stored)
        except (ValueError, zlib.error) as problem:  # not JSON, or a RecordError
            raise ArenaError(
                f"{self.path}: game {row['game_id']} cannot be read ({problem})"
            ) from None

    def upgrade(self) -> None:
        """Bring a store written by an older arena up to :data:`SCHEMA_VERSION` in one
        transaction (a crash leaves the old store whole), then repack its pages."""
        connection = self.connection
        if _schema_version(connection, self.path) == SCHEMA_VERSION:
            with connection:  # a new store gets its version written now
                connection.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (json.dumps(SCHEMA_VERSION),),
                )
                # spare copies of dictionaries stored before copies were kept (a table an
                # older arena ignores: no new version)
                for ident, data in connection.execute(
                        "SELECT id, data FROM dictionaries WHERE id NOT IN "
                        "(SELECT id FROM dictionary_copies)").fetchall():
                    self._copy_dictionary(ident, data)
            return
        columns = {row[1] for row in connection.execute("PRAGMA table_info(games)")}
        connection.execute("BEGIN IMMEDIATE")  # DDL too: sqlite3 would not open one for it
        try:
            if "dictionary" not in columns:
                connection.execute("ALTER TABLE games ADD COLUMN dictionary INTEGER "
                                   "REFERENCES dictionaries (id)")
            rows = connection.execute(
                "SELECT seq, game, record FROM games WHERE typeof(record) = 'text' ORDER BY seq"
            ).fetchall()
            for seq, game, text in rows:
                data = text.encode()
                ident, dictionary = self._dictionary_for(game, data)
                connection.execute(
                    "UPDATE games SET record = ?, dictionary = ? WHERE seq = ?",
                    (compress(data, dictionary), ident, seq),
                )
            if "worker" not in columns:
                connection.execute("ALTER TABLE games ADD COLUMN worker TEXT")
            if "timings" in columns:  # a copy of the record's own timings
                connection.execute("ALTER TABLE games DROP COLUMN timings")
            connection.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (json.dumps(SCHEMA_VERSION),),
            )
            connection.commit()
        except BaseException:
            connection.rollback()
            self._dictionary_ids.clear()  # any made in the transaction went with it
            raise
        # Repack into larger pages; the page size of a WAL database changes only outside WAL.
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute(f"PRAGMA page_size={PAGE_SIZE}")
        connection.execute("VACUUM")
        connection.execute("PRAGMA journal_mode=WAL")

    def raw_tables(self) -> SqliteConnection:
        """The store's tables as rows (arena serve migrate reads them): its connection."""
        return SqliteConnection(self.path, connection=self.connection)

    def close(self) -> None:
        self.connection.close()
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def stored_row(record: GameRecord | PackedRecord, dictionary_ids: Mapping[str, int],
               dictionary_for: Callable[[str, bytes], tuple[int, bytes]]) -> dict[str, Any]:
    """The games row of a record, compressed with its game's dictionary (``dictionary_for``
    makes it from the record if the store has none; a record packed where it was played
    must have been packed with the store's, ``dictionary_ids``)."""
    packed = record if isinstance(record, PackedRecord) else pack_record(record)
    data, ident = packed.data, packed.dictionary
    if ident is None:  # the JSON text: compressed here
        ident, dictionary = dictionary_for(packed.game, data)
        data = compress(data, dictionary)
    elif ident != dictionary_ids.get(packed.game):
        raise ArenaError(f"game {packed.game_id} was compressed with dictionary {ident}, "
                         f"which is not this store's for {packed.game}")
    return games_row(packed, data, ident)


def games_row(packed: PackedRecord, data: bytes, ident: int | None) -> dict[str, Any]:
    """The games row of a packed record whose text is ``data`` (compressed with
    dictionary ``ident``): every league store's columns."""
    return {
        "game_id": packed.game_id,
        "game": packed.game,
        "table_id": packed.table,
        "round": packed.round,
        "num_players": len(packed.seats),
        "seats": json.dumps(list(packed.seats)),
        "seed": packed.seed,
        "status": "failed" if packed.forfeits else "ok",
        "scores": json.dumps([float(s) for s in packed.scores]),
        "placements": json.dumps(list(packed.placements)),
        "failures": json.dumps({str(seat): why for seat, why in packed.forfeits.items()}),
        "record": data,
        "dictionary": ident,
        # kept when a game is copied (``arena merge``); else the time it is stored
        "finished_at": packed.finished_at if packed.finished_at is not None else time.time(),
        "worker": packed.worker,  # a cluster worker's address; NULL: this machine
    }


def record_from_row(row: Mapping[str, Any], text: str | bytes) -> GameRecord:
    """The record of a games row whose record is ``text`` (decompressed).  The summary
    columns are derived from the record when it is written, so only the league's own
    columns and the record are read; ValueError (a RecordError) if it is not one."""
    return GameRecord.from_json({
        "game_id": row["game_id"],
        "sequence": row["seq"] - 1,
        "table": row["table_id"],
        "round": row["round"],
        "finished_at": row["finished_at"],
        "worker": row.get("worker"),
        "record": json.loads(text),
    })


def results_from_rows(rows: Sequence[Sequence[Any]]) -> list[GameResult]:
    """GameResults of rows of (seq, game_id, game, seats, scores, placements, failures):
    each summary column is parsed with one JSON call for all the rows (a call per game
    and column took most of ``arena leaderboard``'s time on 100,000 games)."""
    if not rows:
        return []
    seqs, ids, games, seats, scores, placements, failures = zip(*rows, strict=True)
    return [
        GameResult(
            game_id=game_id,
            game=game_name,
            bots=tuple(bots),
            scores=tuple(points),
            placements=tuple(places),
            failures={} if failed == "{}"
            else {int(k): v for k, v in json.loads(failed).items()},
            sequence=seq - 1,
        )
        for seq, game_id, game_name, bots, points, places, failed in zip(
            seqs, ids, games, _json_lists(seats), _json_lists(scores),
            _json_lists(placements), failures, strict=True)
    ]


def _filters(game: str | None, num_players: int | None) -> tuple[str, list[Any]]:
    conditions: list[str] = []
    params: list[Any] = []
    if game is not None:
        conditions.append("game = ?")
        params.append(game)
    if num_players is not None:
        conditions.append("num_players = ?")
        params.append(num_players)
    return (" WHERE " + " AND ".join(conditions) if conditions else ""), params


def _json_lists(texts: Sequence[str]) -> list[Any]:
    """The JSON arrays of a column, parsed in one call."""
    values = json.loads("[" + ",".join(texts) + "]")
    if not isinstance(values, list) or len(values) != len(texts):
        raise ValueError("a summary column holds something other than one array per game")
    return values


@functools.lru_cache(maxsize=16)
def _packer(dictionary: bytes) -> Any:
    """A compressor with ``dictionary`` loaded, never used itself: each record gets a
    copy, the same bytes ~10% sooner (loading a 32 KB dictionary costs more than copying
    the loaded state; a decompressor loads it only when asked, so it gains nothing)."""
    return zlib.compressobj(RECORD_COMPRESSION_LEVEL, zdict=dictionary) if dictionary \
        else zlib.compressobj(RECORD_COMPRESSION_LEVEL)


def compress(text: bytes, dictionary: bytes = b"") -> bytes:
    packer = _packer(dictionary).copy()
    return packer.compress(text) + packer.flush()


def decompress(data: bytes, dictionary: bytes = b"") -> bytes:
    unpacker = zlib.decompressobj(zdict=dictionary) if dictionary else zlib.decompressobj()
    return unpacker.decompress(data) + unpacker.flush()


_DAMAGED_ADVICE = ("nothing more was written to it; save a copy, then `arena export` "
                   "writes every game still readable in it (and names the others), or "
                   "restore it from a backup")


def sqlite_failure(problem: sqlite3.Error, path: Path | str, doing: str) -> StorageError:
    """SQLite's error while ``doing`` something with the database at ``path`` as one clear
    line (a StorageError of the kind it is).  SQLite rolls the transaction back, so
    everything stored before is kept."""
    text = str(problem)
    if getattr(problem, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "full" in text:
        return StorageFull(
            f"{path}: {text} while {doing}; every game stored before is safe: free some "
            "space and run the same command again to resume")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return StorageDamaged(f"{path} is damaged ({text}, while {doing}); "
                              f"{_DAMAGED_ADVICE}")
    if "locked" in text or "busy" in text:
        return StorageBusy(f"{path}: {text} while {doing} (another process kept it "
                           "locked)")
    if isinstance(problem, sqlite3.OperationalError) and (
            "I/O" in text or "unable to open" in text or "readonly" in text):
        return StorageGone(
            f"{path}: {text} while {doing}; every game stored before is safe: free some "
            "space and run the same command again to resume")
    return StorageError(f"{path}: {text} while {doing}")


@contextlib.contextmanager
def store_faults(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite's errors while ``doing`` something with the store at ``path`` into one
    clear line (:func:`sqlite_failure`)."""
    try:
        yield
    except sqlite3.DatabaseError as problem:
        raise sqlite_failure(problem, path, doing) from None


class SqliteConnection:
    """A connection in autocommit mode: each statement its own transaction, unless
    inside :meth:`transaction` (BEGIN IMMEDIATE: a writer waits for another up to
    ``timeout`` seconds, rather than failing half-way)."""

    insertion_order = "rowid"

    def __init__(self, path: Path, timeout: float = 30,
                 connection: sqlite3.Connection | None = None) -> None:
        self.path = path
        self.depth = 0
        self.connection = connection if connection is not None else sqlite3.connect(
            path, timeout=timeout, isolation_level=None)

    @contextlib.contextmanager
    def _faults(self, sql: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.IntegrityError as problem:
            if "UNIQUE" in str(problem):
                raise Duplicate(str(problem)) from None
            raise sqlite_failure(problem, self.path, "writing to it") from None
        except sqlite3.Error as problem:
            doing = "reading it" if sql.lstrip().upper().startswith("SELECT") \
                else "writing to it"
            raise sqlite_failure(problem, self.path, doing) from None

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

    def lock(self, name: str) -> None:
        """(A transaction here is BEGIN IMMEDIATE: writers already take turns.)"""

    def columns(self, table: str) -> list[str]:
        return [row[1] for row in self.rows(f'PRAGMA table_info("{table}")')]

    def reset_identity(self, table: str, column: str) -> None:
        """(SQLite numbers new rows after the largest id there is.)"""

    def tables(self) -> list[str]:
        return [row[0] for row in self.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]

    def close(self) -> None:
        self.connection.close()


def _refuse_empty(path: Path) -> None:
    """A league store is never an empty file (a new one is made whole before it gets its
    name): one that is was truncated, and is not silently taken for a new league."""
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_size == 0:
            raise ArenaError(f"{path} is empty (0 bytes): it is not a league store, and its "
                             "results, if it had any, are gone; restore it from a backup, or "
                             "delete it to start the league afresh")


def _create_new(path: Path) -> None:
    """A new store, made complete under a temporary name and then linked into place (never
    replacing a store made meanwhile): a crash leaves no empty or half-made store."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC,
                         0o600))  # owner only: bots run under other uids
        _connect(temporary).close()
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    except OSError as problem:
        raise ArenaError(f"cannot create the league store {path}: {problem}") from None
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _schema_version(connection: sqlite3.Connection, path: Path) -> int:
    """The store's version; a store with no games and no version is a new one."""
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        empty = connection.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
        return SCHEMA_VERSION if empty else 1
    version = json.loads(row[0])
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ArenaError(
            f"{path} was written by a newer arena (store version {version}, this arena "
            f"reads up to {SCHEMA_VERSION}); upgrade with `pip install -U ra-arena`"
        )
    return version


def _connect(path: Path) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(path, timeout=30, isolation_level="DEFERRED")
        connection.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new file only
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.executescript(_SCHEMA)
    except sqlite3.DatabaseError as problem:
        raise ArenaError(f"{path}: not a usable league store ({problem})") from None
    return connection


def create_store(results_dir: Path) -> Store:
    """Open the store in ``results_dir`` for playing, creating the folder and the file if
    needed.  One league run at a time per store: a second one is refused (the lock is
    the open file's, so it goes away with the process, even after ``kill -9``)."""
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
        # owner-only, like the store (it names the process playing)
        lock = os.fdopen(os.open(results_dir / LOCK_NAME,
                                 os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600),
                         "a+")
    except PermissionError:
        raise ArenaError(
            f"no permission to write in the results folder {results_dir}: give yourself "
            "write access to it, or choose another results_dir"
        ) from None
    except OSError as problem:
        raise ArenaError(f"cannot create the results folder {results_dir}: "
                         f"{problem.strerror}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "another process"
        lock.close()
        raise ArenaError(
            f"{results_dir} is being played by {holder}; wait for it to finish or stop it"
        ) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"arena run (pid {os.getpid()})\n")
    lock.flush()
    path = results_dir / DB_NAME
    _refuse_empty(path)
    if not path.exists():
        _create_new(path)
    _private(path)
    store = Store(_connect(path), path)
    try:
        store.check()  # a damaged store gets no new games
        with store_faults(path, "upgrading it"):
            store.upgrade()
    except BaseException:
        store.close()
        lock.close()
        raise
    store.lock = lock
    return store


def _private(path: Path) -> None:
    """Make the store readable by its owner only (SQLite gives its -wal and -shm files the
    same mode): bots run under other uids and must not read it (docs/security.md)."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        try:
            if os.fstat(descriptor).st_uid == os.geteuid():
                os.fchmod(descriptor, 0o600)
        finally:
            os.close(descriptor)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f"{path}{suffix}", 0o600)
    except OSError as problem:
        raise ArenaError(f"cannot open the league store {path}: {problem}") from None


def backup_database(path: Path, target: Path) -> None:
    """A consistent copy of a live SQLite database (its online backup), owner-only."""
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(descriptor)
    source = sqlite3.connect(path, timeout=30)
    destination = sqlite3.connect(target)
    try:
        source.backup(destination)
        destination.execute("PRAGMA journal_mode=WAL")
    finally:
        destination.close()
        source.close()


# -- for the benchmarks and the migration tests -----------------------------------
VERSION_ONE_SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (name TEXT PRIMARY KEY, version TEXT NOT NULL, content_hash TEXT,
    source TEXT NOT NULL, first_seen REAL NOT NULL);
CREATE TABLE games (seq INTEGER PRIMARY KEY AUTOINCREMENT, game_id TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL, table_id TEXT NOT NULL, round INTEGER NOT NULL,
    num_players INTEGER NOT NULL, seats TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, scores TEXT NOT NULL, placements TEXT NOT NULL,
    failures TEXT NOT NULL, timings TEXT NOT NULL, record TEXT NOT NULL,
    finished_at REAL NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
"""


def write_version_one_store(folder: Path, records: Sequence[GameRecord]) -> None:
    """A store as arena 0.x wrote it (schema version 1): JSON text records, a timings
    column, 4 KB pages.  The baseline here, and the input of the migration tests."""
    folder.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(folder / DB_NAME)
    connection.executescript(VERSION_ONE_SCHEMA)
    for record in records:
        with connection:  # one transaction per game, as a league writes them
            connection.execute(
                "INSERT INTO games (game_id, game, table_id, round, num_players, seats, seed,"
                " status, scores, placements, failures, timings, record, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.game_id, record.game, record.table, record.round,
                 record.num_players, json.dumps(list(record.seats)), record.seed,
                 record.status, json.dumps([float(s) for s in record.scores]),
                 json.dumps(list(record.placements)),
                 json.dumps({str(s): why for s, why in record.forfeits.items()}),
                 json.dumps(record.timings),
                 json.dumps(record.playthrough_json(), separators=(",", ":")), time.time()),
            )
    connection.close()


def file_bytes(folder: Path) -> int:
    """The bytes the store in ``folder`` takes on disk, its write-ahead log emptied into
    the file first (``arena bench store``)."""
    connection = sqlite3.connect(folder / DB_NAME)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return sum(path.stat().st_size for path in folder.glob(f"{DB_NAME}*"))



def open_store(results_dir: Path) -> Store:
    """Open an existing league's store (ArenaError if there is none in ``results_dir``)."""
    path = Path(results_dir) / DB_NAME
    _refuse_empty(path)
    if not path.is_file():
        raise ArenaError(
            f"no league results in {results_dir} (expected {DB_NAME}); "
            "run the league first with `arena run LEAGUE.toml`"
        )
    connection = _connect(path)
    try:
        _schema_version(connection, path)  # a newer store is refused; an older one is read
    except sqlite3.DatabaseError:
        pass  # a damaged page under its version: what can be read still is (arena export)
    except BaseException:
        connection.close()
        raise
    return Store(connection, path)
