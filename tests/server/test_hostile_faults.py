"""Faults (issue 33 item 8), in process: a stop in the middle of an upload or of a
validation, a full disk during an upload, a corrupt upload folder: a clear message,
nothing lost or doubled, the server goes on where it was at its next start."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest
import trio

from arena.server import archives
from tests.server.conftest import bot_archive, in_process

pytestmark = pytest.mark.anyio


async def test_a_stop_during_an_upload_and_a_validation_resumes_at_the_next_start(
        server_folder: tuple[Path, str]) -> None:
    folder = server_folder[0]
    # the first run stores a pending version, then stops before validating it (the queue
    # is not running: as after a kill -9 during the validation); an upload was being
    # unpacked at that moment (its staging folder stays behind)
    async with in_process(folder) as api:
        ada = await api.account("ada")
        answer = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert answer.status_code == 202 and answer.json()["state"] == "pending"
        staging = api.server.settings.uploads / "ada" / "mine" / ".upload-123"
        (staging / "half").mkdir(parents=True)
        (staging / "half" / "bot.py").write_bytes(b"half written")
    async with in_process(folder, background=True) as api:
        assert not staging.exists()
        assert any("unfinished upload" in line for line in api.server.log_lines)
        done = await api.wait_state(answer.json()["id"], ada)
        assert done["state"] == "valid"
        versions = (await api.client.get("/api/v1/bots/ada/mine")).json()["versions"]
        assert [(v["number"], v["state"]) for v in versions] == [(1, "valid")]
        again = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert again.json()["number"] == 2  # nothing doubled, nothing skipped


async def test_a_full_disk_during_an_upload_says_so_and_stores_nothing(
        server_folder: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = archives._write

    def full(*args: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    async with in_process(server_folder[0]) as api:
        ada = await api.account("ada")
        monkeypatch.setattr(archives, "_write", full)
        answer = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert answer.status_code == 507, answer.text
        assert answer.json()["error"].startswith("the server's disk is full")
        assert "\n" not in answer.json()["error"]
        assert any("disk is full" in line for line in api.server.log_lines)
        bot_uploads = api.server.settings.uploads / "ada" / "mine"
        assert list(bot_uploads.iterdir()) == []
        assert (await api.client.get("/api/v1/bots/ada/mine")).status_code == 404
        monkeypatch.setattr(archives, "_write", real_write)
        answer = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert answer.status_code == 202 and answer.json()["number"] == 1


async def test_a_corrupt_upload_folder_leaves_that_bot_out_with_a_clear_line(
        server_folder: tuple[Path, str]) -> None:
    folder = server_folder[0]
    async with in_process(folder, background=True) as api:
        ada = await api.account("ada")
        bob = await api.account("bob")
        ids = [(await api.upload(token, name, "mine", bot_archive("mine"))).json()["id"]
               for token, name in ((ada, "ada"), (bob, "bob"))]
        for version_id in ids:
            assert (await api.wait_state(version_id))["state"] == "valid"
        folders = [api.server.folder_of(api.server.store.version(i))  # type: ignore[arg-type]
                   for i in ids]
    (folders[0] / "bot.toml").write_bytes(b"\x00\xff not toml [[[")
    shutil.rmtree(folders[1])
    async with in_process(folder, background=True) as api:
        with_lines = []
        for _ in range(100):
            with_lines = [line for line in api.server.log_lines if "left out" in line]
            if len(with_lines) >= 2:
                break
            await trio.sleep(0.1)
        assert any(line.startswith("ada/mine@1 left out of the ladder") for line in with_lines)
        assert any(line.startswith("bob/mine@1 left out of the ladder") for line in with_lines)
        assert all("\n" not in line for line in with_lines)
        assert (await api.client.get("/")).status_code == 200
        assert (await api.client.get("/bots/ada/mine")).status_code == 200
        answer = await api.upload(ada, "ada", "mine", bot_archive("mine"))  # a fix: v2
        assert answer.status_code == 202 and answer.json()["number"] == 2
