"""A PostgreSQL for the tests: one cluster per test session, started from the
distribution's binaries into a temporary folder on a free port of 127.0.0.1 (as user
nobody when the tests run as root: PostgreSQL refuses to run as root), and a database per
test copied from a template that already holds the arena's tables (CREATE DATABASE ...
TEMPLATE is a file copy: milliseconds, where making the tables takes a second).

``ARENA_TEST_POSTGRESQL=postgresql://USER@HOST/DB`` uses a running server instead (its
user may create databases).  Without either, the tests that need one skip with one line
saying how to run them (and fail under CI=true, where .ci/apt-packages installs it)."""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

HINT = ("PostgreSQL tests need PostgreSQL's programs (apt-get install postgresql) and "
        "psycopg (pip install -e '.[test]'), or ARENA_TEST_POSTGRESQL=postgresql://USER@HOST"
        "/DB of a server whose user may create databases")
NOBODY = 65534
TEMPLATE = "arena_template"


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: Debian's /usr/lib/postgresql/N/bin (newest), or
    the PATH's."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda path: int(path.parent.parent.name)
                   if path.parent.parent.name.isdigit() else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A PostgreSQL server for the session: ``new_database()`` for each server folder."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.url = os.environ.get("ARENA_TEST_POSTGRESQL", "")
        self.numbers = itertools.count(1)
        self.made: list[str] = []
        self.prefix = f"arena_test_{os.getpid()}"
        if not self.url:
            self._start()
        self._make_template()

    # -- the server ---------------------------------------------------------------------
    def _as_postgres(self, command: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return command
        return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                *command]

    def _start(self) -> None:
        bin_folder = binaries()
        assert bin_folder is not None, HINT
        self.folder = Path(tempfile.mkdtemp(prefix="arena-test-postgres-"))
        data = self.folder / "data"
        if os.geteuid() == 0:
            os.chown(self.folder, NOBODY, NOBODY)
        env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
        subprocess.run(self._as_postgres([
            str(bin_folder / "initdb"), "-D", str(data), "-U", "arena", "--auth=trust",
            "--encoding=UTF8", "--no-sync"]), check=True, capture_output=True, env=env)
        port = _free_port()
        # fsync off: a test's database need not survive a power cut (the tests that kill
        # processes kill the arena's, never PostgreSQL)
        options = (f"-c listen_addresses=127.0.0.1 -c port={port} "
                   f"-c unix_socket_directories={self.folder} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=300 -c shared_buffers=32MB")
        subprocess.run(self._as_postgres([
            str(bin_folder / "pg_ctl"), "-D", str(data), "-o", options, "-l",
            str(self.folder / "log"), "-w", "-t", "60", "start"]),
            check=True, capture_output=True, env=env)
        self.bin_folder = bin_folder
        self.data = data
        self.url = f"postgresql://arena@127.0.0.1:{port}/postgres"

    def stop(self) -> None:
        for name in self.made:
            with contextlib.suppress(Exception):
                self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if self.folder is not None:
            subprocess.run(self._as_postgres([
                str(self.bin_folder / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                "-w", "stop"]), capture_output=True)
            shutil.rmtree(self.folder, ignore_errors=True)

    # -- databases ----------------------------------------------------------------------
    def url_of(self, database: str) -> str:
        base, _, _ = self.url.rpartition("/")
        return f"{base}/{database}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(sql)

    def _make_template(self) -> None:
        """A database holding the arena's tables, every test's database a copy of it."""
        from arena.league.pg_store import PgLeagueStore
        from arena.server.pg_store import PgServerStore
        from arena.server.store import FRIENDLY, LADDER

        template = f"{self.prefix}_{TEMPLATE}"
        self._admin(f'CREATE DATABASE "{template}"')
        self.made.append(template)
        url = self.url_of(template)
        for store in (PgServerStore(url), PgLeagueStore(url, LADDER),
                      PgLeagueStore(url, FRIENDLY)):
            store.close()
        self.template = template

    def new_database(self) -> str:
        """A new database with the arena's tables and nothing in them: its address."""
        name = f"{self.prefix}_{next(self.numbers)}"
        for attempt in range(50):  # a copy waits for the template's last session to end
            try:
                self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
                break
            except Exception as problem:
                if "being accessed by other users" not in str(problem) or attempt == 49:
                    raise
                time.sleep(0.1)
        self.made.append(name)
        return self.url_of(name)

    def drop(self, url: str) -> None:
        """The database at ``url`` dropped, its sessions (a killed server's) ended."""
        name = url.rpartition("/")[2]
        with contextlib.suppress(Exception):
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            self.made.remove(name)


def available() -> str | None:
    """None if a PostgreSQL can be had for the tests, else why not (HINT)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return HINT
    if os.environ.get("ARENA_TEST_POSTGRESQL"):
        return None
    if binaries() is None:
        return HINT
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return HINT + " (as root: setpriv, from util-linux, to run it as nobody)"
    return None


class Current:
    """The store the running server test uses: None for SQLite, else the session's
    PostgreSQL, and the databases made for the test (dropped after it).  Kept here: pytest
    imports the server tests' conftest under two names, each with its own globals."""

    def __init__(self) -> None:
        self.cluster: Cluster | None = None
        self.databases: list[str] = []


CURRENT = Current()
