"""Every SQL statement of the server's tables, once, for both databases: the
:class:`SqlServerStore` speaks through a :class:`Connection` (SQLite's in
:mod:`arena.server.sqlite_store`, PostgreSQL's in :mod:`arena.server.pg_store`), which
runs these statements in its own dialect (placeholders, new ids, transactions) and
translates its driver's errors into :mod:`arena.storage`'s."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from arena.errors import ArenaError
from arena.league.schedule import ScheduledGame
from arena.server.store import (
    VERDICT_STATES,
    Bot,
    Friendly,
    Token,
    User,
    Verdict,
    Version,
    printable,
    printable_json,
)
from arena.storage import Duplicate, StorageError

SERVER_SCHEMA_VERSION = 3
# the database's integers: an id beyond them names no row (and SQLite refuses to compare
# it)
ROW_IDS = range(-(2 ** 63), 2 ** 63)


class Connection(Protocol):
    """One connection to the server's tables.  Statements are written with ``?`` for
    their parameters; each runs in a transaction of its own unless inside
    :meth:`transaction`."""

    # the column that keeps the order rows were inserted in (SQLite's rowid)
    insertion_order: str

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None: ...
    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """The number of rows changed; arena.storage.Duplicate on a unique key's violation."""
    def run_many(self, sql: str, params: Iterable[Sequence[Any]]) -> None: ...
    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """An INSERT into a table with an ``id`` column: the new row's id."""
    def transaction(self) -> AbstractContextManager[None]:
        """All of the block's statements or none (a failure rolls them back)."""
    def lock(self, name: str) -> None:
        """Inside a transaction: other processes' transactions that take the same lock
        wait for this one to end (SQLite's writers wait for each other anyway)."""
    def tables(self) -> list[str]: ...
    def close(self) -> None: ...


_USER_COLUMNS = "id, name, role, approved, created_at"
_VERSION_COLUMNS = (
    "v.id, v.bot_id, u.name, b.name, v.number, v.state, v.manifest_version, v.folder, "
    "v.archive_bytes, v.report, v.message, v.stderr_tail, v.uploaded_at, v.validated_at, "
    "v.paused, v.content_hash, v.failures_from, v.build_log"
)
_VERSION_FROM = (
    "server_versions v JOIN server_bots b ON v.bot_id = b.id "
    "JOIN server_users u ON b.owner_id = u.id"
)
_BOT_QUERY = ("SELECT b.id, u.name, b.name, b.disabled, b.deleted, b.created_at"
              " FROM server_bots b JOIN server_users u ON b.owner_id = u.id")


def _user(row: tuple[Any, ...]) -> User:
    return User(row[0], row[1], row[2], bool(row[3]), row[4])


def _bot(row: tuple[Any, ...]) -> Bot:
    return Bot(row[0], row[1], row[2], bool(row[3]), bool(row[4]), row[5])


def _version(row: tuple[Any, ...]) -> Version:
    values = list(row)
    values[9] = None if values[9] is None else json.loads(values[9])
    return Version(*values)


class SqlServerStore:
    """The server's accounts, tokens, sessions, bots, versions, games in flight,
    friendly games and verdicts (:class:`arena.server.store.ServerStore`)."""

    def __init__(self, db: Connection) -> None:
        self.db = db

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str) -> Any:
        row = self.db.row("SELECT value FROM server_meta WHERE key = ?", (key,))
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self.db.run("INSERT INTO server_meta (key, value) VALUES (?, ?) ON CONFLICT (key)"
                    " DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def next_counter(self, key: str) -> int:
        """0, 1, 2... across restarts (the ladder's table counter), one number per call
        whoever else asks at the same time."""
        with self.db.transaction():
            self.db.run("INSERT INTO server_meta (key, value) VALUES (?, '0')"
                        " ON CONFLICT (key) DO NOTHING", (key,))
            # the row's update locks it: a second caller waits, then reads the new value
            self.db.run("UPDATE server_meta SET value = CAST(CAST(value AS INTEGER) + 1"
                        " AS TEXT) WHERE key = ?", (key,))
            value = self.meta(key)
        return int(value) - 1

    # -- users --------------------------------------------------------------------
    def add_user(self, name: str, password_hash: str, role: str, approved: bool) -> User:
        now = time.time()
        try:
            ident = self.db.insert(
                "INSERT INTO server_users (name, password_hash, role, approved, created_at)"
                " VALUES (?, ?, ?, ?, ?)", (name, password_hash, role, int(approved), now))
        except Duplicate:
            raise ArenaError(f"the name {name!r} is taken") from None
        return User(ident, name, role, approved, now)

    def user(self, name: str) -> User | None:
        row = self.db.row(f"SELECT {_USER_COLUMNS} FROM server_users WHERE name = ?",
                          (name,))
        return None if row is None else _user(row)

    def user_by_id(self, user_id: int) -> User | None:
        row = self.db.row(f"SELECT {_USER_COLUMNS} FROM server_users WHERE id = ?",
                          (user_id,))
        return None if row is None else _user(row)

    def users(self) -> list[User]:
        return [_user(row) for row in self.db.rows(
            f"SELECT {_USER_COLUMNS} FROM server_users ORDER BY name")]

    def password_hash(self, user_id: int) -> str:
        row = self.db.row("SELECT password_hash FROM server_users WHERE id = ?", (user_id,))
        return str(row[0]) if row else ""

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        self.db.run("UPDATE server_users SET password_hash = ? WHERE id = ?",
                    (password_hash, user_id))

    def approve(self, user_id: int) -> None:
        self.db.run("UPDATE server_users SET approved = 1 WHERE id = ?", (user_id,))

    def disable_user(self, user_id: int) -> None:
        """An admin's stop: the account back to unapproved (no login, no token, no
        upload), its sessions ended, its tokens revoked, its bots disabled."""
        with self.db.transaction():
            self.db.run("UPDATE server_users SET approved = 0 WHERE id = ?", (user_id,))
            self.db.run("DELETE FROM server_sessions WHERE user_id = ?", (user_id,))
            self.db.run("UPDATE server_tokens SET revoked = 1 WHERE user_id = ?", (user_id,))
            self.db.run("UPDATE server_bots SET disabled = 1 WHERE owner_id = ?", (user_id,))

    # -- API tokens ---------------------------------------------------------------
    def add_token(self, user_id: int, name: str, token_hash: str) -> Token:
        now = time.time()
        ident = self.db.insert(
            "INSERT INTO server_tokens (user_id, name, token_hash, created_at)"
            " VALUES (?, ?, ?, ?)", (user_id, printable(name), token_hash, now))
        return Token(ident, printable(name), now, None, False)

    def tokens(self, user_id: int) -> list[Token]:
        rows = self.db.rows(
            "SELECT id, name, created_at, last_used, revoked FROM server_tokens"
            " WHERE user_id = ? ORDER BY id", (user_id,))
        return [Token(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def user_of_token(self, token_hash: str) -> User | None:
        row = self.db.row("SELECT t.id, t.user_id FROM server_tokens t"
                          " WHERE token_hash = ? AND revoked = 0", (token_hash,))
        if row is None:
            return None
        # a full disk (or a busy database): reading with a token still works
        with contextlib.suppress(StorageError):
            self.db.run("UPDATE server_tokens SET last_used = ? WHERE id = ?",
                        (time.time(), row[0]))
        return self.user_by_id(row[1])

    def revoke_token(self, user_id: int, token_id: int) -> bool:
        if token_id not in ROW_IDS:  # (a visitor's number: no such token)
            return False
        return self.db.run("UPDATE server_tokens SET revoked = 1 WHERE id = ? AND user_id = ?",
                           (token_id, user_id)) == 1

    # -- web sessions -------------------------------------------------------------
    def add_session(self, id_hash: str, user_id: int, lifetime: float) -> None:
        now = time.time()
        with self.db.transaction():
            self.db.run("DELETE FROM server_sessions WHERE expires_at < ?", (now,))
            self.db.run(
                "INSERT INTO server_sessions (id_hash, user_id, created_at, expires_at)"
                " VALUES (?, ?, ?, ?)", (id_hash, user_id, now, now + lifetime))

    def user_of_session(self, id_hash: str) -> User | None:
        row = self.db.row(
            "SELECT user_id FROM server_sessions WHERE id_hash = ? AND expires_at > ?",
            (id_hash, time.time()))
        return None if row is None else self.user_by_id(row[0])

    def end_session(self, id_hash: str) -> None:
        self.db.run("DELETE FROM server_sessions WHERE id_hash = ?", (id_hash,))

    # -- bots and versions --------------------------------------------------------
    def bot(self, owner: str, name: str, *, deleted: bool = False) -> Bot | None:
        """The bot OWNER/NAME (``deleted``: also a deleted one)."""
        row = self.db.row(f"{_BOT_QUERY} WHERE u.name = ? AND b.name = ?"
                          " AND (b.deleted = 0 OR ? = 1)", (owner, name, int(deleted)))
        return None if row is None else _bot(row)

    def bots(self, owner_id: int | None = None) -> list[Bot]:
        query = f"{_BOT_QUERY} WHERE b.deleted = 0"
        rows = (self.db.rows(query + " ORDER BY u.name, b.name") if owner_id is None
                else self.db.rows(query + " AND b.owner_id = ? ORDER BY b.name", (owner_id,)))
        return [_bot(row) for row in rows]

    def active_bots(self, owner_id: int) -> int:
        row = self.db.row("SELECT COUNT(*) FROM server_bots WHERE owner_id = ?"
                          " AND disabled = 0 AND deleted = 0", (owner_id,))
        return int(row[0]) if row else 0

    def uploads_since(self, user_id: int, since: float) -> int:
        row = self.db.row("SELECT COUNT(*) FROM server_versions WHERE uploader_id = ?"
                          " AND uploaded_at >= ?", (user_id, since))
        return int(row[0]) if row else 0

    def next_version_number(self, bot_id: int) -> int:
        row = self.db.row("SELECT COALESCE(MAX(number), 0) + 1 FROM server_versions"
                          " WHERE bot_id = ?", (bot_id,))
        return int(row[0]) if row else 1

    def add_version(self, bot: Bot | None, owner_id: int, name: str, number: int,
                    uploader_id: int, folder: str, archive_bytes: int,
                    content_hash: str) -> int:
        """A pending version NUMBER of OWNER's bot NAME (the bot made, or brought back
        from deletion, in the same transaction: a stop or a full disk leaves both or
        neither)."""
        now = time.time()
        with self.db.transaction():
            if bot is None:
                bot_id = self.db.insert(
                    "INSERT INTO server_bots (owner_id, name, created_at) VALUES (?, ?, ?)",
                    (owner_id, name, now))
            else:
                bot_id = bot.id
                if bot.deleted:
                    self.db.run("UPDATE server_bots SET deleted = 0, disabled = 0"
                                " WHERE id = ?", (bot_id,))
            return self.db.insert(
                "INSERT INTO server_versions (bot_id, number, uploader_id, state, folder,"
                " archive_bytes, uploaded_at, content_hash)"
                " VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
                (bot_id, number, uploader_id, folder, archive_bytes, now, content_hash))

    def version(self, version_id: int) -> Version | None:
        if version_id not in ROW_IDS:  # (a visitor's number: no such version)
            return None
        row = self.db.row(f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE v.id = ?",
                          (version_id,))
        return None if row is None else _version(row)

    def versions(self, bot_id: int) -> list[Version]:
        return self._versions("v.bot_id = ? ORDER BY v.number", (bot_id,))

    def _versions(self, where: str, params: Sequence[Any] = ()) -> list[Version]:
        return [_version(row) for row in self.db.rows(
            f"SELECT {_VERSION_COLUMNS} FROM {_VERSION_FROM} WHERE {where}", params)]

    def pending_versions(self) -> list[Version]:
        return self._versions("v.state = 'pending' AND b.deleted = 0 ORDER BY v.id")

    def ladder_versions(self) -> list[Version]:
        """The newest valid version of every bot that is neither disabled nor deleted:
        the ladder's roster (a new valid version replaces its predecessor)."""
        return self._versions(
            "v.state = 'valid' AND b.disabled = 0 AND b.deleted = 0 AND v.number = (SELECT"
            " MAX(number) FROM server_versions w WHERE w.bot_id = v.bot_id AND w.state ="
            " 'valid') AND v.paused = '' ORDER BY v.id")

    def version_folders(self) -> set[str]:
        """The folder of every version (relative to the server folder)."""
        return {row[0] for row in self.db.rows("SELECT folder FROM server_versions")}

    def pause(self, version_id: int, reason: str) -> None:
        """The ladder leaves the version out until its owner enables the bot again."""
        self.db.run("UPDATE server_versions SET paused = ? WHERE id = ?",
                    (printable(reason)[:500], version_id))

    def unpause_bot(self, bot_id: int, failures_from: int) -> None:
        """Every paused version of the bot back in play, its failures counted afresh
        from ladder game ``failures_from`` on."""
        self.db.run("UPDATE server_versions SET paused = '', failures_from = ?"
                    " WHERE bot_id = ? AND paused != ''", (failures_from, bot_id))

    def all_ladder_names(self) -> dict[str, Version]:
        """Every version that was ever valid, by its ladder name (for the leaderboard)."""
        return {version.ladder_name: version
                for version in self._versions("v.state = 'valid'")}

    def finish_validation(self, version_id: int, state: str, manifest_version: str,
                          report: dict[str, Any] | None, message: str,
                          stderr_tail: str, build_log: str = "") -> None:
        self.db.run(
            "UPDATE server_versions SET state = ?, manifest_version = ?, report = ?,"
            " message = ?, stderr_tail = ?, build_log = ?, validated_at = ? WHERE id = ?",
            (state, printable(manifest_version),
             None if report is None else json.dumps(printable_json(report)),
             printable(message), printable(stderr_tail), printable(build_log),
             time.time(), version_id))

    def recent_versions(self, limit: int = 30) -> list[Version]:
        """The newest uploads of every bot (the admin page)."""
        return self._versions("b.deleted = 0 ORDER BY v.id DESC LIMIT ?", (limit,))

    def set_pending(self, version_id: int) -> None:
        """A version back on the validation queue: its verdict forgotten."""
        self.db.run(
            "UPDATE server_versions SET state = 'pending', report = NULL, message = '',"
            " stderr_tail = '', build_log = '', validated_at = NULL WHERE id = ?",
            (version_id,))

    def set_bot_disabled(self, bot_id: int, disabled: bool) -> None:
        self.db.run("UPDATE server_bots SET disabled = ? WHERE id = ?",
                    (int(disabled), bot_id))

    def delete_bot(self, bot_id: int) -> None:
        """A deleted bot leaves the ladder and the listings; its versions and their games
        stay.  Its owner keeps the name: a new upload brings it back with the next version
        number (so that a ladder name OWNER/NAME@N always means the same files)."""
        self.db.run("UPDATE server_bots SET deleted = 1, disabled = 1 WHERE id = ?",
                    (bot_id,))

    # -- ladder games handed to the league, not stored yet (replayed after a stop) --
    def add_inflight(self, games: list[ScheduledGame]) -> None:
        """Recorded before any of them is played: a stop loses none of them."""
        now = time.time()
        with self.db.transaction():
            self.db.run_many(
                "INSERT INTO server_inflight (game_id, game, added_at) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO NOTHING",
                [(g.game_id, json.dumps(dataclasses.asdict(g)), now) for g in games])

    def inflight(self) -> list[tuple[ScheduledGame, int]]:
        """The recorded games, oldest first, with how often each was handed out."""
        found = []
        for text, fed in self.db.rows(f"SELECT game, fed FROM server_inflight"
                                      f" ORDER BY {self.db.insertion_order}"):
            data = json.loads(text)
            data["seats"] = tuple(data["seats"])
            data["parameters"] = tuple((name, tuple(map(tuple, values)))
                                       for name, values in data.get("parameters", ()))
            found.append((ScheduledGame(**data), int(fed)))
        return found

    def inflight_fed(self, game_id: str) -> None:
        self.db.run("UPDATE server_inflight SET fed = fed + 1 WHERE game_id = ?", (game_id,))

    def clear_inflight(self, game_ids: Iterable[str]) -> None:
        with self.db.transaction():
            self.db.run_many("DELETE FROM server_inflight WHERE game_id = ?",
                             [(game_id,) for game_id in game_ids])

    # -- friendly games (unrated; their records are in the friendly store) ---------
    def add_friendly(self, requester_id: int, bot_id: int, seats: list[str],
                     games: int) -> int:
        return self.db.insert(
            "INSERT INTO server_friendly (requester_id, bot_id, seats, games, state,"
            " created_at) VALUES (?, ?, ?, ?, 'queued', ?)",
            (requester_id, bot_id, json.dumps(seats), games, time.time()))

    def _friendlies(self, where: str, params: tuple[Any, ...], limit: int | None = None
                    ) -> list[Friendly]:
        rows = self.db.rows(
            "SELECT f.id, u.name, f.bot_id, f.seats, f.games, f.played, f.state, f.message,"
            " f.created_at FROM server_friendly f JOIN server_users u ON f.requester_id = u.id"
            f" WHERE {where} ORDER BY f.id DESC" + ("" if limit is None else " LIMIT ?"),
            params if limit is None else (*params, limit))
        found = []
        for row in rows:
            ids = tuple(r[0] for r in self.db.rows(
                "SELECT game_id FROM server_friendly_games WHERE request_id = ?"
                f" ORDER BY {self.db.insertion_order}", (row[0],)))
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
        row = self.db.row("SELECT COUNT(*) FROM server_friendly WHERE requester_id = ?"
                          " AND state IN ('queued', 'playing')", (requester_id,))
        return int(row[0]) if row else 0

    def friendly_state(self, request_id: int, state: str, message: str = "") -> None:
        self.db.run("UPDATE server_friendly SET state = ?, message = ? WHERE id = ?",
                    (state, message, request_id))

    def friendly_played(self, request_id: int, game_id: str) -> None:
        with self.db.transaction():
            self.db.run("INSERT INTO server_friendly_games (request_id, game_id)"
                        " VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING",
                        (request_id, game_id))
            self.db.run("UPDATE server_friendly SET played = (SELECT COUNT(*) FROM"
                        " server_friendly_games WHERE request_id = ?) WHERE id = ?",
                        (request_id, request_id))

    # -- version verdicts (computed in arena.server.verdicts) ------------------------
    def _verdicts(self, where: str, params: tuple[Any, ...]) -> list[Verdict]:
        rows = self.db.rows(
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
        clauses, params = ["1 = 1"], []
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
        return self.db.run(
            "INSERT INTO server_verdicts (version_id, against_id, state, started_at)"
            " VALUES (?, ?, 'testing', ?) ON CONFLICT (version_id) DO NOTHING",
            (version_id, against_id, time.time())) == 1

    def save_verdict(self, version_id: int, state: str, elo: float | None,
                     low: float | None, high: float | None, games: int) -> None:
        """An open test's figures recomputed (and its end, if ``state`` is not
        "testing"); a test that has ended is never changed again."""
        if state not in VERDICT_STATES:
            raise ArenaError(f"no verdict state {state!r}")
        self.db.run(
            "UPDATE server_verdicts SET state = ?, elo = ?, low = ?, high = ?, games = ?,"
            " decided_at = ? WHERE version_id = ? AND state = 'testing'",
            (state, elo, low, high, games, None if state == "testing" else time.time(),
             version_id))

    # -- rate limits every web process shares (accounts.RateEvents) ---------------------
    def rate_allow(self, bucket: str, keys: Sequence[str], limit: int, window: float,
                   now: float) -> bool:
        with self.db.transaction():
            self.db.lock(f"rate {bucket}")  # one check-and-add at a time per bucket
            self.db.run("DELETE FROM server_rate_events WHERE bucket = ? AND at <= ?",
                        (bucket, now - window))
            for key in keys:
                row = self.db.row("SELECT COUNT(*) FROM server_rate_events"
                                  " WHERE bucket = ? AND key = ?", (bucket, key))
                if row is not None and row[0] >= limit:
                    return False
            self.db.run_many("INSERT INTO server_rate_events (bucket, key, at)"
                             " VALUES (?, ?, ?)", [(bucket, key, now) for key in keys])
        return True

    def rate_times(self, bucket: str, key: str, since: float) -> list[float]:
        return [row[0] for row in self.db.rows(
            "SELECT at FROM server_rate_events WHERE bucket = ? AND key = ? AND at > ?"
            " ORDER BY at", (bucket, key, since))]

    def rate_add(self, bucket: str, key: str, at: float, keep: float) -> None:
        with self.db.transaction():
            self.db.run("DELETE FROM server_rate_events WHERE bucket = ? AND at <= ?",
                        (bucket, at - keep))
            self.db.run("INSERT INTO server_rate_events (bucket, key, at) VALUES (?, ?, ?)",
                        (bucket, key, at))

    # -- what the coordinator shares with every web process (arena/server/bus.py) -------
    def save_shared(self, kind: str, value: Any) -> None:
        self.db.run("INSERT INTO server_shared (kind, value) VALUES (?, ?)"
                    " ON CONFLICT (kind) DO UPDATE SET value = excluded.value",
                    (kind, json.dumps(value)))

    def shared(self, kind: str) -> Any:
        row = self.db.row("SELECT value FROM server_shared WHERE kind = ?", (kind,))
        return None if row is None else json.loads(row[0])

    def iter_text(self) -> Iterator[str]:
        """Every text value of the server's tables (tests look for secrets in clear)."""
        for table in self.db.tables():
            for row in self.db.rows(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, str):
                        yield value
                    elif isinstance(value, bytes | memoryview):
                        yield bytes(value).decode("latin-1")
