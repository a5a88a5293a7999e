"""Several web processes (``arena serve DIR --workers N``, PostgreSQL): every one serves
pages, the API and events; an event reaches the watchers of every process; sessions and
rate limits are shared; exactly one process coordinates the ladder, and when it is
killed (kill -9) another takes over within seconds, no table doubled or lost.  With
SQLite, --workers above 1 is refused in one line."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from arena.cli import main
from tests.server.conftest import (
    PASSWORD,
    csrf_of,
    free_port,
    make_server_folder,
    read,
    stored_games,
    wait_until,
)

pytestmark = pytest.mark.slow
LADDER = {'house_bots = []': 'house_bots = ["random", "first"]',
          "tables_per_minute = 60": "tables_per_minute = 0",
          "login_per_minute = 10": "login_per_minute = 4"}


@pytest.mark.sqlite_only
def test_several_web_processes_on_sqlite_are_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    assert main(["serve", str(folder), "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--workers 2: several web processes need PostgreSQL" \
        in err, err
    assert main(["serve", str(folder), "--workers", "0"]) == 2
    assert "1 or more" in capsys.readouterr().err


def _children(parent: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat[stat.rindex(")") + 2:].split()[1]) == parent:
                    found.add(int(entry))
    return found


def _coordinator(folder: Path) -> int | None:
    import json

    rows = read(folder, "SELECT value FROM server_shared WHERE kind = 'coordinator'")
    return int(json.loads(rows[0][0])["pid"]) if rows else None


def _stream(port: int) -> tuple[socket.socket, str]:
    """An event stream's socket and the process that serves it (its first comment)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(f"GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                       .encode())
    text = b""
    while b"ra-arena events" not in text or b"\n\n" not in text.split(b"ra-arena events")[1]:
        text += connection.recv(4096)
    comment = text.split(b"ra-arena events")[1].split(b"\n")[0].decode()
    return connection, comment


def _wait_for(connection: socket.socket, event: str, seconds: float) -> None:
    connection.settimeout(seconds)
    text = b""
    deadline = time.monotonic() + seconds
    while f"event: {event}".encode() not in text:
        assert time.monotonic() < deadline, f"no {event} on the stream"
        text += connection.recv(65536)


@pytest.mark.postgresql_only
def test_two_web_processes_share_the_work_and_survive_the_coordinators_kill_9(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **LADDER)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder),
                                   "--port", str(port), "--workers", "2"],
                                  stdout=output, stderr=subprocess.STDOUT)
    streams: list[socket.socket] = []
    try:
        def up() -> bool:
            assert server.poll() is None, log.read_text()
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{url}/api/v1/leaderboard", timeout=2).status_code == 200
            return False

        wait_until(up, 90, "the server to answer")
        assert "(2 web processes; ladder: ra" in log.read_text()
        web = _children(server.pid)
        assert len(web) == 2
        # an event reaches the watchers of every process: a stream on each (the second
        # process may still be starting when the first answers)
        seen: dict[str, socket.socket] = {}
        deadline = time.monotonic() + 90
        while len(seen) < 2 and time.monotonic() < deadline:
            connection, comment = _stream(port)
            if comment in seen:
                connection.close()
                time.sleep(0.1)
            else:
                seen[comment] = connection
        assert sorted(seen) == [" (web process 1 of 2)", " (web process 2 of 2)"], seen
        streams = list(seen.values())
        for connection in streams:
            _wait_for(connection, "game_stored", 120)
        # sessions are shared: logged in once, known on every connection (any process)
        httpx.post(f"{url}/api/v1/register", json={"name": "ada", "password": PASSWORD})
        with httpx.Client(base_url=url) as client:
            page = client.get("/login")
            client.post("/login", data={"csrf": csrf_of(page.text), "name": "ada",
                                        "password": PASSWORD})
            cookie = client.cookies.get("ra_session")
        for _ in range(12):  # a new connection each: both processes answer some
            with httpx.Client(base_url=url, cookies={"ra_session": cookie or ""}) as fresh:
                assert fresh.get("/account").status_code == 200
        # rate limits are shared: 4 attempts a minute from one address (the login above
        # was the first), whichever process takes each
        codes = []
        for number in range(8):
            with httpx.Client(base_url=url) as fresh:
                codes.append(fresh.post("/api/v1/tokens", json={
                    "name": "ada", "password": f"wrong {number}"}).status_code)
        assert codes == [401] * 3 + [429] * 5, codes
        # exactly one coordinates; kill -9 it: the other takes over within seconds
        first = wait_until(lambda: _coordinator(folder), 30, "a coordinator")
        assert first in web
        wait_until(lambda: len(stored_games(folder)) >= 6, 120, "ladder games")
        in_flight = {row[0] for row in read(folder, "SELECT game_id FROM server_inflight")}
        before = stored_games(folder)
        os.kill(first, signal.SIGKILL)
        killed = time.monotonic()
        def another() -> int | None:
            now = _coordinator(folder)
            return now if now not in (None, first) else None

        second = wait_until(another, 30, "another process to coordinate")
        took = time.monotonic() - killed
        assert second in web and took < 15, took
        wait_until(lambda: len(stored_games(folder)) >= len(before) + 6, 120,
                   "ladder games after the takeover")
        wait_until(lambda: in_flight <= set(stored_games(folder)), 120,
                   "the games in flight at the kill stored")
        after = stored_games(folder)
        assert set(before) <= set(after) and len(after) == len(set(after))  # none lost,
        rows = read(folder, "SELECT table_id, num_players FROM games")  # nor doubled:
        seats = Counter(table for table, _ in rows)  # a table: its seat rotations, once
        assert all(count <= players for (table, players) in rows
                   for count in [seats[table]]), seats
        # a stop: one line, no process left, the other processes' too
        web = _children(server.pid)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        text = log.read_text()
        assert text.count("arena serve: stopped (SIGTERM)") == 1, text
        assert "web process 1 (pid" in text or "web process 2 (pid" in text  # restarted
        time.sleep(1)
        assert not [pid for pid in web if Path(f"/proc/{pid}").exists()]
    finally:
        for connection in streams:
            connection.close()
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.postgresql_only
def test_web_processes_that_cannot_start_stop_the_server_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A database nobody answers at: every web process ends at its start; after a few
    tries the server stops, saying why, rather than starting them for ever."""
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, sqlite=True)
    settings = folder / "settings.toml"
    settings.write_text(settings.read_text().replace(
        'database = ""', f'database = "postgresql://arena@127.0.0.1:{free_port()}/none"'))
    done = subprocess.run([sys.executable, "-m", "arena", "serve", str(folder), "--port",
                           str(free_port()), "--workers", "2"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("arena: error: web process") and "3 times in a row" in last
    assert "cannot be reached" in done.stderr  # each web process said why
