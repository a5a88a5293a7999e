"""The PostgreSQL stores' own behaviour: its errors reach the server as arena.storage's
(a full disk, a busy database, a lost connection), a lost connection is made again at
the next call, and the API describes every answer whatever the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.settings import load_settings
from arena.server.store import open_server_store
from arena.storage import StorageBusy, StorageError, StorageFull, StorageGone, disk_full
from tests.server.conftest import in_process, make_server_folder, read

pytestmark = pytest.mark.anyio


@pytest.mark.postgresql_only
def test_postgresql_errors_are_the_stores_errors() -> None:
    import psycopg

    from arena.league.pg_store import pg_failure

    full = pg_failure(psycopg.errors.DiskFull("could not extend file"), "db", "storing")
    assert isinstance(full, StorageFull) and disk_full(full)
    assert str(full).startswith("db: could not extend file while storing; nothing was")
    for busy in (psycopg.errors.LockNotAvailable("lock timeout"),
                 psycopg.errors.DeadlockDetected("deadlock"),
                 psycopg.errors.QueryCanceled("statement timeout")):
        assert isinstance(pg_failure(busy, "db", "writing"), StorageBusy)
    gone = pg_failure(psycopg.OperationalError("server closed the connection\nmore"),
                      "db", "reading")
    assert isinstance(gone, StorageGone) and "\n" not in str(gone)
    other = pg_failure(psycopg.errors.UndefinedTable("no table"), "db", "reading")
    assert type(other) is StorageError and not disk_full(other)


@pytest.mark.postgresql_only
async def test_a_lost_connection_is_one_503_then_made_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    async with in_process(folder) as api:
        token = await api.account("ada")
        auth = {"Authorization": f"Bearer {token}"}
        assert (await api.client.get("/api/v1/me", headers=auth)).status_code == 200
        # the database ends the server's sessions (a restart of PostgreSQL, a failover)
        read(folder, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE"
                     " application_name LIKE 'arena serve%' AND pid <> pg_backend_pid()")
        lost = await api.client.get("/api/v1/me", headers=auth)
        assert lost.status_code == 503 and "did not answer" in lost.json()["error"]
        assert (await api.client.get("/api/v1/me", headers=auth)).status_code == 200
        assert any("cannot be reached" in line for line in api.server.log_lines)


async def test_the_api_describes_every_answer(server_folder: tuple[Path, str]) -> None:
    """/api/v1/openapi.json names a model for every JSON answer (issue 42)."""
    async with in_process(server_folder[0]) as api:
        openapi = (await api.client.get("/api/v1/openapi.json")).json()
    schemas = openapi["components"]["schemas"]
    for name in ("Account", "NewToken", "TokenInfo", "VersionInfo", "VerdictInfo",
                 "BotInfo", "BotListing", "Leaderboard", "LeaderboardRow",
                 "GameRecordJson"):
        assert name in schemas, name
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            if path == "/api/v1/events":
                continue
            answers = {code: answer for code, answer in operation["responses"].items()
                       if code.startswith("2")}
            content = next(iter(answers.values()))["content"]["application/json"]
            assert content["schema"], (method, path)  # a model, not just "object"
    board = openapi["paths"]["/api/v1/leaderboard"]["get"]["responses"]["200"]
    assert board["content"]["application/json"]["schema"]["$ref"].endswith("/Leaderboard")
    assert "approved" in schemas["Account"]["properties"]


@pytest.mark.postgresql_only
def test_a_new_server_refuses_a_database_holding_another(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    make_server_folder(tmp_path / "one", capsys)
    database = load_settings(tmp_path / "one").database
    assert main(["serve", "init", str(tmp_path / "two"), "--database", database]) == 2
    assert "already holds a server's accounts" in capsys.readouterr().err
    assert not (tmp_path / "two").exists()  # nothing half made
    store = open_server_store(load_settings(tmp_path / "one"))
    assert [user.name for user in store.users()] == ["root"]
    store.close()
