"""Faults, in process: an older server folder's tables upgraded, the pause settings
checked, the ladder's recorded unfinished games sorted into replayed and dropped, a full
disk recognised in every form it takes."""

from __future__ import annotations

import dataclasses
import errno
import json
import sqlite3
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.league.schedule import table_games
from arena.league.store import sqlite_failure
from arena.server import sqlite_store as server_store
from arena.server.settings import load_settings
from arena.server.sql_store import SERVER_SCHEMA_VERSION
from arena.server.sqlite_store import SqliteServerStore as ServerStore
from arena.storage import StorageBusy, StorageFull, disk_full
from tests.server.conftest import make_server_folder


@pytest.mark.sqlite_only  # (PostgreSQL's tables start at this schema)
def test_a_schema_1_database_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    connection = sqlite3.connect(path)
    connection.executescript(server_store._SCHEMA.split("CREATE TABLE IF NOT EXISTS "
                                                        "server_inflight")[0])
    connection.execute("INSERT INTO server_meta VALUES ('schema_version', '1')")
    connection.execute("INSERT INTO server_users VALUES (1, 'ada', 'x', 'user', 1, 0)")
    connection.execute("INSERT INTO server_bots VALUES (1, 1, 'mine', 0, 0, 0)")
    connection.execute(
        "INSERT INTO server_versions (id, bot_id, number, uploader_id, state, folder,"
        " archive_bytes, uploaded_at) VALUES (1, 1, 1, 1, 'valid', 'uploads/ada/mine/1',"
        " 10, 0)")
    connection.commit()
    connection.close()
    store = ServerStore(path)
    try:
        assert store.meta("schema_version") == SERVER_SCHEMA_VERSION == 3
        version = store.version(1)
        assert version is not None
        assert (version.paused, version.content_hash, version.failures_from) == ("", "", 0)
        assert [v.id for v in store.ladder_versions()] == [1]
        store.pause(1, "paused: failed in 11 of its last 20 games")
        assert store.ladder_versions() == []
        store.unpause_bot(1, failures_from=42)
        again = store.version(1)
        assert again is not None and (again.paused, again.failures_from) == ("", 42)
        assert store.inflight() == []
    finally:
        store.close()
    reopened = ServerStore(path)  # upgraded once: opening it again changes nothing
    reopened.close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE server_meta SET value = ? WHERE key = 'schema_version'",
                       (json.dumps(SERVER_SCHEMA_VERSION + 1),))
    connection.commit()
    connection.close()
    with pytest.raises(ArenaError, match="written by a newer arena"):
        ServerStore(path)


def test_the_pause_settings_are_checked(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    settings = load_settings(folder)
    assert (settings.pause_window, settings.pause_failures) == (20, 0.5)
    path = folder / "settings.toml"
    good = path.read_text()
    for old, new, words in [
        ("pause_failures = 0.5", "pause_failures = 1.5", "a share of games from 0 to 1"),
        ("pause_failures = 0.5", "pause_failures = -0.1", "at least 0"),
        ("pause_window = 20", "pause_window = 0", "at least 1"),
        ("pause_window = 20", 'pause_window = "many"', "must be int"),
    ]:
        path.write_text(good.replace(old, new))
        with pytest.raises(ArenaError, match=f"ladder.pause_.*{words}"):
            load_settings(folder)


def test_the_unfinished_games_replayed_are_those_still_playable(
        server_folder: tuple[Path, str]) -> None:
    from arena.server.core import Server
    from arena.server.ladder import REPLAY_TRIES

    server = Server.open(server_folder[0])
    try:
        random = server.registry.bots["random"]
        specs = [dataclasses.replace(random, name=name, games={"ra": (2,)})
                 for name in ("ada/a@1", "bob/b@1")]
        playable = table_games("ra", ["ada/a@1", "bob/b@1"], seed=7, round=0)
        left = table_games("ra", ["ada/a@1", "cyd/gone@1"], seed=8, round=1)
        tried = table_games("ra", ["bob/b@1", "ada/a@1"], seed=9, round=2)[:1]
        for games in (playable, left, tried):
            server.store.add_inflight(games)
        server.store.add_inflight(playable)  # recorded twice: kept once
        for _ in range(REPLAY_TRIES):
            server.store.inflight_fed(tried[0].game_id)
        replayed = server.ladder._unfinished(specs)
        assert replayed == playable
        assert [game for game, _ in server.store.inflight()] == playable
        assert any("1 ladder game(s) dropped: handed out 3 times" in line
                   for line in server.log_lines)
        assert any("playing 2 unfinished ladder game(s) again" in line
                   for line in server.log_lines)
    finally:
        server.close()


@pytest.mark.no_store
def test_a_full_disk_is_recognised_in_every_form() -> None:
    full = sqlite_failure(sqlite3.OperationalError("database or disk is full"),
                          "league.sqlite", "storing")
    assert isinstance(full, StorageFull) and str(full).startswith(
        "league.sqlite: database or disk is full while storing; every game")
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert disk_full(full)
    assert disk_full(ExceptionGroup("one", [full]))
    assert not disk_full(OSError(errno.EACCES, "Permission denied"))
    locked = sqlite_failure(sqlite3.OperationalError("database is locked"), "x", "storing")
    assert isinstance(locked, StorageBusy) and not disk_full(locked)
    assert not disk_full(sqlite3.OperationalError("database or disk is full"))  # untranslated
    assert not disk_full(ExceptionGroup("two", [full, ValueError()]))
