"""Every language's bot, as ``arena new-bot`` made it, uploaded as source with ``arena
upload`` to a real ``arena serve``: the server builds it, validates it and plays it in its
ladder, and no game of the ladder has a failure."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from arena.league.store import open_store
from arena.workspace import LANGUAGES
from tests.bot_templates.conftest import bot_name, require_toolchain
from tests.server.conftest import (
    PASSWORD,
    arena,
    free_port,
    make_server_folder,
    start_server,
    wait_until,
)

pytestmark = pytest.mark.slow


def test_every_language_uploaded_as_source_is_built_validated_and_played(
        workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for language in LANGUAGES:
        require_toolchain(language)
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{"uploads_per_day = 20": "uploads_per_day = 7",
                                          "active_bots = 3 ": "active_bots = 7 "})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    server = start_server(folder, port, tmp_path / "server.log", env)
    wanted = {f"ada/{bot_name(language)}@1" for language in LANGUAGES}
    try:
        assert httpx.post(f"{url}/api/v1/register",
                          json={"name": "ada", "password": PASSWORD}).status_code == 201
        logged = arena("login", url, "--name", "ada", "--password-stdin", env=env,
                       stdin=PASSWORD + "\n")
        assert logged.returncode == 0, logged.stderr
        for language in LANGUAGES:
            uploaded = arena("upload", str(workspace / "bots" / bot_name(language)), "--wait",
                             env=env, timeout=600)
            assert uploaded.returncode == 0, (language, uploaded.stdout + uploaded.stderr)
            assert ": valid: " in uploaded.stdout, (language, uploaded.stdout)

        def everyone_played() -> bool:
            board = httpx.get(f"{url}/api/v1/leaderboard?players=2").json()
            return wanted <= {row["bot"] for row in board["bots"]}

        wait_until(everyone_played, 300, "a ladder game of every language")
    finally:
        server.terminate()
        server.wait(timeout=60)
    store = open_store(folder)
    try:
        records = list(store.games())
    finally:
        store.close()
    assert wanted <= {player["name"] for record in records for player in record.players}
    assert [(record.game_id, record.failures, record.incidents) for record in records
            if record.failures or record.incidents] == []
