"""Fixtures of the server's tests: a server folder, the app in process (httpx's ASGI
transport under trio), accounts and bot archives.

Every test here runs twice, once on each store (``[sqlite]``, ``[postgresql]``: the
autouse fixture ``store_kind``), unless marked ``no_store`` (it makes no server folder),
``sqlite_only`` (what it checks is SQLite's own: its files, a full disk under it) or
``postgresql_only`` (several web processes, a migration into PostgreSQL).
Under ``postgresql`` every server folder made by :func:`make_server_folder` gets a
database of its own from the session's PostgreSQL (tests/postgres.py).

The server's dependencies are main dependencies: in CI (CI=true) a missing one fails the
tests here instead of skipping them, and so does a missing PostgreSQL."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

DEPENDENCIES = ("fastapi", "hypercorn", "jinja2", "argon2", "itsdangerous", "python_multipart",
                "httpx")


def require(*modules: str) -> None:
    for module in modules:
        if os.environ.get("CI") == "true":
            __import__(module)  # CI: missing means failing
        else:
            pytest.importorskip(module)


require(*DEPENDENCIES)

import httpx  # noqa: E402
import trio  # noqa: E402

from arena.package_data import package_folder  # noqa: E402
from tests import postgres  # noqa: E402

PASSWORD = "correct horse battery"
TEST_SETTINGS = {
    "players = [3]": "players = [2]",
    "games = 2 ": "games = 1 ",
    'house_bots = ["random", "first"]': "house_bots = []",
    "uploads_per_day = 20": "uploads_per_day = 5",
    "active_bots = 3 ": "active_bots = 2 ",
    "max_files = 200": "max_files = 20",
    "max_unpacked_mb = 20": "max_unpacked_mb = 1",
    "max_archive_mb = 5 ": "max_archive_mb = 0.5 ",
}


STORES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marks = {mark.name for mark in metafunc.definition.iter_markers()}
    if "store_kind" not in metafunc.fixturenames or marks & {"no_store", "sqlite_only"}:
        return
    metafunc.parametrize("store_kind", ["postgresql"] if "postgresql_only" in marks
                         else STORES, indirect=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[postgres.Cluster]:
    problem = postgres.available()
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(problem)
        pytest.skip(problem)
    cluster = postgres.Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(autouse=True)
def store_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """The store of this test's servers (see the module)."""
    kind = getattr(request, "param", "sqlite")
    current = postgres.CURRENT  # (one module for both names pytest gives this conftest)
    current.cluster = request.getfixturevalue("postgres_cluster") \
        if kind == "postgresql" else None
    current.databases = []
    try:
        yield kind
    finally:
        if current.cluster is not None:
            for url in current.databases:
                current.cluster.drop(url)
        current.cluster = None


def new_database() -> str:
    """A database for a new server of this test: "" (SQLite) or a PostgreSQL address."""
    current = postgres.CURRENT
    if current.cluster is None:
        return ""
    url = current.cluster.new_database()
    current.databases.append(url)
    return url


def read(folder: Path, query: str) -> list[tuple[Any, ...]]:
    """The rows of ``query`` (plain SQL over the server's tables and the ladder's games)
    in the database of the server folder ``folder``, whichever it is, read beside a
    running server."""
    from arena.server.settings import load_settings

    settings = load_settings(folder)
    if settings.postgres:
        import psycopg

        with psycopg.connect(settings.database, autocommit=True,
                             options="-c search_path=arena,ladder") as connection:
            return [tuple(row) for row in connection.execute(query).fetchall()]
    import sqlite3

    connection = sqlite3.connect(f"file:{folder / 'league.sqlite'}?mode=ro", uri=True,
                                 timeout=30)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def stored_games(folder: Path) -> list[str]:
    """The ids of the ladder's stored games, in the order they were stored."""
    return [row[0] for row in read(folder, "SELECT game_id FROM games ORDER BY seq")]


def sqlite_files(folder: Path) -> list[Path]:
    """The SQLite files a server folder has (none with PostgreSQL)."""
    return [folder / name for name in ("league.sqlite", "league.lock")
            if (folder / name).exists()]


def make_server_folder(folder: Path, capsys: pytest.CaptureFixture[str],
                       sqlite: bool = False, **changes: str) -> str:
    """``arena serve init`` into ``folder`` with the test settings (and a database of
    its own on PostgreSQL, unless ``sqlite``); the admin password."""
    from arena.server.commands import init_server

    init_server(folder, "root", "" if sqlite else new_database())
    out = capsys.readouterr().out
    password = out.split("(shown this once): ")[1].split()[0]
    path = folder / "settings.toml"
    text = path.read_text()
    for old, new in {**TEST_SETTINGS, **changes}.items():
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text)
    return password


@pytest.fixture
def anyio_backend() -> str:
    """The async tests here run under trio, as the server does."""
    return "trio"


def csrf_of(html: str) -> str:
    """The CSRF token of a page's form."""
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, html
    return match.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(check, seconds: float, what: str):  # type: ignore[no-untyped-def]
    """``check()``'s first true value within ``seconds`` (polled), else a failure."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def arena(*args: str, env: dict[str, str], stdin: str = "", timeout: float = 300
          ) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a subprocess (a client of a real server, as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "arena", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout)


def start_server(folder: Path, port: int, log: Path, env: dict[str, str] | None = None
                 ) -> subprocess.Popen[bytes]:
    """A real ``arena serve FOLDER`` on 127.0.0.1:PORT (its output appended to ``log``),
    returned once it answers; killed if it never does."""
    with log.open("a") as output:  # the child keeps its own copy of the descriptor
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder),
                                   "--port", str(port)], stdout=output,
                                  stderr=subprocess.STDOUT, env=env)

    def up() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/v1/leaderboard",
                             timeout=2).status_code == 200
        except httpx.HTTPError:
            assert server.poll() is None, log.read_text()
            return False

    try:
        wait_until(up, 60, "the server to answer")
    except BaseException:
        server.kill()
        server.wait()
        raise
    return server


@pytest.fixture
def server_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    folder = tmp_path / "server"
    return folder, make_server_folder(folder, capsys)


def bot_folder(where: Path, name: str, source: str = "random") -> Path:
    """A copy of a bundled bot, renamed."""
    folder = where / name
    shutil.copytree(package_folder("bots") / source, folder)
    manifest = folder / "bot.toml"
    text = manifest.read_text().replace(f'name = "{source}"', f'name = "{name}"')
    manifest.write_text("\n".join(line for line in text.splitlines()
                                  if not line.startswith("entry_point")) + "\n")
    return folder


def tar_gz(files: dict[str, bytes], extra: Callable[[tarfile.TarFile], None] | None = None
           ) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
        if extra is not None:
            extra(archive)
    return out.getvalue()


def bot_archive(name: str, source: str = "random") -> bytes:
    folder = package_folder("bots") / source
    files = {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}
    text = files["bot.toml"].decode().replace(f'name = "{source}"', f'name = "{name}"')
    files["bot.toml"] = "\n".join(line for line in text.splitlines()
                                  if not line.startswith("entry_point")).encode() + b"\n"
    return tar_gz(files)


class Api:
    """An httpx client on the app in process, with helpers."""

    def __init__(self, client: httpx.AsyncClient, server: Any) -> None:
        self.client = client
        self.server = server

    async def account(self, name: str, password: str = PASSWORD) -> str:
        """Register ``name`` and return an API token."""
        answer = await self.client.post("/api/v1/register",
                                        json={"name": name, "password": password})
        assert answer.status_code == 201, answer.text
        return await self.token(name, password)

    async def token(self, name: str, password: str = PASSWORD) -> str:
        answer = await self.client.post("/api/v1/tokens", json={
            "name": name, "password": password, "token_name": "test"})
        assert answer.status_code == 201, answer.text
        return str(answer.json()["token"])

    async def upload(self, token: str, owner: str, name: str, data: bytes) -> httpx.Response:
        return await self.client.post(
            f"/api/v1/bots/{owner}/{name}/versions", content=data,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"})

    async def wait_state(self, version_id: int, token: str | None = None,
                         seconds: float = 120) -> dict[str, Any]:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        with trio.fail_after(seconds):
            while True:
                answer = await self.client.get(f"/api/v1/versions/{version_id}",
                                               headers=headers)
                data: dict[str, Any] = answer.json()
                if data["state"] != "pending":
                    return data
                await trio.sleep(0.2)


@contextlib.asynccontextmanager
async def in_process(folder: Path, background: bool = False) -> AsyncIterator[Api]:
    """The server of ``folder`` in this trio program, reached through httpx's ASGI
    transport; ``background``: with the validation queue and the ladder running.
    Without, it is taken for the coordinator all the same (what it is asked for the
    ladder, its tests read from its ladder and queue, as of a lone server)."""
    from arena.server.app import create_app
    from arena.server.core import Server

    server = Server.open(folder)
    server.coordinating = not background
    try:
        app = create_app(server)
        transport = httpx.ASGITransport(app, raise_app_exceptions=False)
        async with trio.open_nursery() as nursery:
            if background:
                await nursery.start(server.run)
            async with httpx.AsyncClient(transport=transport,
                                         base_url="http://127.0.0.1") as client:
                yield Api(client, server)
            nursery.cancel_scope.cancel()
    finally:
        server.close()
