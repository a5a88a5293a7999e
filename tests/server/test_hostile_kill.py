"""Faults (issue 33 item 8) on a real server: ``kill -9`` during a validation and during
the ladder's games; the restarted server validates what was pending once, keeps every
stored game, doubles none and plays on."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    free_port,
    make_server_folder,
    start_server,
    wait_until,
)
from tests.server.conftest import (
    stored_games as games,
)

pytestmark = pytest.mark.slow


def test_kill_9_during_a_validation_and_a_game_resumes_where_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{"tables_per_minute = 60": "tables_per_minute = 0"})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    server = start_server(folder, port, log)
    try:
        tokens = {}
        for name in ("ada", "bob"):
            httpx.post(f"{url}/api/v1/register", json={"name": name, "password": PASSWORD})
            tokens[name] = httpx.post(f"{url}/api/v1/tokens", json={
                "name": name, "password": PASSWORD}).json()["token"]
        ids = []
        for name, source in (("ada", "random"), ("bob", "first")):
            answer = httpx.post(f"{url}/api/v1/bots/{name}/{name}bot/versions",
                                content=bot_archive(f"{name}bot", source), headers={
                                    "Authorization": f"Bearer {tokens[name]}",
                                    "Content-Type": "application/gzip"})
            assert answer.status_code == 202, answer.text
            ids.append(answer.json()["id"])
        time.sleep(0.5)  # the first validation is under way
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        server = start_server(folder, port, log)

        def validated() -> bool:
            states = [httpx.get(f"{url}/api/v1/versions/{i}").json()["state"] for i in ids]
            return all(state == "valid" for state in states)

        wait_until(validated, 180, "both versions validated after the restart")
        wait_until(lambda: len(games(folder)) >= 3, 120, "ladder games")
        os.kill(server.pid, signal.SIGKILL)  # in the middle of the ladder's games
        server.wait()
        before = games(folder)
        server = start_server(folder, port, log)
        wait_until(lambda: len(games(folder)) >= len(before) + 3, 120,
                   "ladder games after the restart")
        after = games(folder)
        assert set(before) <= set(after)  # nothing lost
        assert len(after) == len(set(after))  # nothing doubled
        for name in ("ada", "bob"):
            bot = httpx.get(f"{url}/api/v1/bots/{name}/{name}bot").json()
            assert [(v["number"], v["state"]) for v in bot["versions"]] == [(1, "valid")]
        assert ids == [1, 2]
    finally:
        server.terminate()
        server.wait(timeout=30)
