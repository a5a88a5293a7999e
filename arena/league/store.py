"""A league's results: one SQLite file (WAL mode) in the league's results folder.

What is kept: the configuration (the latest snapshot, and the settings every game was
played under), the bots (name, version, content hash), and every finished game with its
seating, seed, scores, placements, failure reasons, timings and full record.

Crash safety: each game is written in its own transaction, and only once it is finished,
so killing the arena at any moment (even ``kill -9``) loses at most the games in flight.
Game ids are primary keys, so a game can never be stored twice.  ``synchronous=NORMAL``
in WAL mode survives a killed process; a power cut may lose the last few games, never
the file's consistency.

Ratings and reports read the games through :func:`open_store` and :meth:`Store.results`.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

from arena.errors import ArenaError
from arena.league.results import GameResult

DB_NAME = "league.sqlite"
LOCK_NAME = "league.lock"
SCHEMA_VERSION = 1

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
    timings TEXT NOT NULL,
    record TEXT NOT NULL,
    finished_at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class PlayedGame:
    """One finished game, as the scheduler hands it to the store."""

    game_id: str
    game: str
    table: str
    round: int
    seats: tuple[str, ...]
    seed: int
    status: str  # "ok", or "failed" when at least one bot failed (the game still counts)
    scores: tuple[float, ...]
    placements: tuple[int, ...]  # forfeits already placed last
    failures: Mapping[int, str] = field(default_factory=dict)  # seat -> reason
    timings: Mapping[str, Any] = field(default_factory=dict)
    record: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredBot:
    name: str
    version: str
    content_hash: str | None
    source: str


class Store:
    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        self.lock: IO[str] | None = None  # held while a league is being played

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
            self._set_meta("schema_version", SCHEMA_VERSION)
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

    def add_game(self, played: PlayedGame) -> bool:
        """Store one finished game in its own transaction.  False if it was already there."""
        with self.connection:
            cursor = self.connection.execute(
                "INSERT OR IGNORE INTO games (game_id, game, table_id, round, num_players,"
                " seats, seed, status, scores, placements, failures, timings, record,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    played.game_id,
                    played.game,
                    played.table,
                    played.round,
                    len(played.seats),
                    json.dumps(list(played.seats)),
                    played.seed,
                    played.status,
                    json.dumps(list(played.scores)),
                    json.dumps(list(played.placements)),
                    json.dumps({str(k): v for k, v in played.failures.items()}),
                    json.dumps(dict(played.timings)),
                    json.dumps(dict(played.record), separators=(",", ":")),
                    time.time(),
                ),
            )
            return cursor.rowcount == 1

    def results(self, game: str | None = None, num_players: int | None = None) -> list[GameResult]:
        """Every stored game as a :class:`GameResult`, in the order they finished."""
        query = "SELECT seq, game_id, game, seats, scores, placements, failures FROM games"
        clauses, params = _filters(game, num_players)
        rows = self.connection.execute(f"{query}{clauses} ORDER BY seq", params)
        return [
            GameResult(
                game_id=game_id,
                game=game_name,
                bots=tuple(json.loads(seats)),
                scores=tuple(json.loads(scores)),
                placements=tuple(json.loads(placements)),
                failures={int(k): v for k, v in json.loads(failures).items()},
                sequence=seq - 1,
            )
            for seq, game_id, game_name, seats, scores, placements, failures in rows
        ]

    def games(
        self, game: str | None = None, num_players: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every stored game in full (as JSON data), in the order they finished."""
        clauses, params = _filters(game, num_players)
        cursor = self.connection.execute(f"SELECT * FROM games{clauses} ORDER BY seq", params)
        names = [column[0] for column in cursor.description]
        for row in cursor:
            yield _game_json(dict(zip(names, row, strict=True)))

    def find_game(self, game_id: str) -> dict[str, Any]:
        """The game whose id is or starts with ``game_id`` (ArenaError if none or several)."""
        pattern = game_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        cursor = self.connection.execute(
            "SELECT * FROM games WHERE game_id LIKE ? ESCAPE '\\' ORDER BY seq LIMIT 6",
            (pattern,),
        )
        names = [column[0] for column in cursor.description]
        rows = cursor.fetchall()
        if not rows:
            raise ArenaError(
                f"no game {game_id!r} in {self.path}; `arena export` lists the stored games"
            )
        if len(rows) > 1:
            ids = ", ".join(row[names.index("game_id")] for row in rows)
            raise ArenaError(f"{game_id!r} matches several games ({ids}); give more characters")
        return _game_json(dict(zip(names, rows[0], strict=True)))

    def export(self, out: TextIO, game: str | None = None, num_players: int | None = None) -> int:
        count = 0
        for data in self.games(game, num_players):
            out.write(json.dumps(data, separators=(",", ":")) + "\n")
            count += 1
        return count

    def close(self) -> None:
        self.connection.close()
        if self.lock is not None:
            self.lock.close()
            self.lock = None


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


def _game_json(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "game_id": row["game_id"],
        "sequence": row["seq"] - 1,
        "game": row["game"],
        "table": row["table_id"],
        "round": row["round"],
        "seats": json.loads(row["seats"]),
        "seed": row["seed"],
        "status": row["status"],
        "scores": json.loads(row["scores"]),
        "placements": json.loads(row["placements"]),
        "failures": json.loads(row["failures"]),
        "timings": json.loads(row["timings"]),
        "finished_at": row["finished_at"],
        "record": json.loads(row["record"]),
    }


def _connect(path: Path) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(path, timeout=30, isolation_level="DEFERRED")
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
        lock = (results_dir / LOCK_NAME).open("a+")
    except OSError as problem:
        raise ArenaError(f"cannot create the results folder {results_dir}: {problem}") from None
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
    store = Store(_connect(path), path)
    store.lock = lock
    return store


def open_store(results_dir: Path) -> Store:
    """Open an existing league's store (ArenaError if there is none in ``results_dir``)."""
    path = Path(results_dir) / DB_NAME
    if not path.is_file():
        raise ArenaError(
            f"no league results in {results_dir} (expected {DB_NAME}); "
            "run the league first with `arena run LEAGUE.toml`"
        )
    return Store(_connect(path), path)
