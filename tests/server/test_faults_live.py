"""Faults of the server (issue 32 item 6, issue 33 item 8) on a real `arena serve`
process killed with SIGKILL: the ladder's unfinished games are played again (none lost,
none doubled), an upload cut by a kill is whole or absent, a full disk (a real small
tmpfs) is said in one line and the ladder resumes when space returns, a bot failing in
most of its games is paused with the reason shown to its owner, a version whose files
changed on disk is left out."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sqlite3
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    free_port,
    make_server_folder,
    read,
    start_server,
    tar_gz,
    wait_until,
)
from tests.server.conftest import stored_games as games
from tests.server.test_pages_browser import CRASHY, CRASHY_TOML

pytestmark = pytest.mark.slow
FAST = {"tables_per_minute = 60": "tables_per_minute = 0"}


class Live:
    """A real server of ``folder`` on a free port, started again after each kill."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.folder = folder
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = start_server(folder, self.port, log)
        self.tokens: dict[str, str] = {}

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def restart(self) -> None:
        self.process = start_server(self.folder, self.port, self.log)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def account(self, name: str) -> str:
        answer = httpx.post(f"{self.url}/api/v1/register",
                            json={"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        self.tokens[name] = httpx.post(f"{self.url}/api/v1/tokens", json={
            "name": name, "password": PASSWORD}).json()["token"]
        return self.tokens[name]

    def upload(self, owner: str, name: str, data: bytes, timeout: float = 60
               ) -> httpx.Response:
        return httpx.post(f"{self.url}/api/v1/bots/{owner}/{name}/versions", content=data,
                          headers={"Authorization": f"Bearer {self.tokens[owner]}",
                                   "Content-Type": "application/gzip"}, timeout=timeout)

    def get(self, path: str, as_user: str | None = None) -> Any:
        headers = {} if as_user is None else {
            "Authorization": f"Bearer {self.tokens[as_user]}"}
        return httpx.get(f"{self.url}{path}", headers=headers, timeout=30).json()

    def wait_valid(self, version_id: int) -> None:
        wait_until(lambda: self.get(f"/api/v1/versions/{version_id}")["state"] == "valid",
                   180, f"version {version_id} validated")

    def roster(self) -> list[str]:
        return list(self.get("/api/v1/leaderboard?players=2")["roster"])


@pytest.fixture
def live(tmp_path: Path, capsys: pytest.CaptureFixture[str],
         request: pytest.FixtureRequest) -> Iterator[Live]:
    changes = getattr(request, "param", {})
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{**FAST, **changes})
    server = Live(folder, tmp_path / "server.log")
    try:
        yield server
    finally:
        server.stop()


def two_bots(live: Live) -> None:
    for name, source in (("ada", "random"), ("bob", "first")):
        live.account(name)
        answer = live.upload(name, f"{name}bot", bot_archive(f"{name}bot", source))
        assert answer.status_code == 202, answer.text
        live.wait_valid(answer.json()["id"])


def test_kill_9_during_games_plays_the_unfinished_ones_again(live: Live) -> None:
    two_bots(live)
    for _ in range(5):  # until a kill finds games handed out and not stored (nearly always)
        wait_until(lambda: len(games(live.folder)) >= 4, 120, "ladder games")
        live.kill()
        before = games(live.folder)
        recorded = {row[0] for row in read(live.folder, "SELECT game_id FROM server_inflight")}
        unfinished = recorded - set(before)
        if unfinished:
            break
        live.restart()
    assert unfinished, "no kill found a game in flight"
    live.restart()
    wait_until(lambda: unfinished <= set(games(live.folder)), 120,
               "the unfinished games played after the restart")
    after = games(live.folder)
    assert set(before) <= set(after)  # nothing lost
    assert len(after) == len(set(after))  # nothing doubled
    assert "unfinished ladder game(s) again, with the same seeds and ids" \
        in live.log.read_text()
    wait_until(lambda: not unfinished & {row[0] for row in read(
        live.folder, "SELECT game_id FROM server_inflight")}, 30, "their records cleared")


def big_archive(name: str, files: int) -> bytes:
    """A valid bot with FILES incompressible files of 8 KiB beside it (slow to unpack)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(bot_archive(name)), mode="r:gz") as source, \
            tarfile.open(fileobj=out, mode="w:gz", compresslevel=1) as archive:
        for member in source.getmembers():
            archive.addfile(member, source.extractfile(member))
        for number in range(files):
            data = os.urandom(8192)
            info = tarfile.TarInfo(f"data/{number}.bin")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize("live", [{
    "max_archive_mb = 0.5 ": "max_archive_mb = 40 ", "max_files = 20": "max_files = 5000",
    "max_unpacked_mb = 1": "max_unpacked_mb = 60"}], indirect=True)
def test_kill_9_during_an_upload_and_its_validation_leaves_it_whole_or_absent(
        live: Live) -> None:
    live.account("ada")
    data = big_archive("big", 3000)
    bot_uploads = live.folder / "uploads" / "ada" / "big"
    answers: list[httpx.Response | Exception] = []

    def send() -> None:
        try:
            answers.append(live.upload("ada", "big", data, timeout=120))
        except httpx.HTTPError as problem:
            answers.append(problem)

    sender = threading.Thread(target=send)
    sender.start()
    deadline = time.monotonic() + 60
    while not list(bot_uploads.glob(".upload-*")) and time.monotonic() < deadline:
        time.sleep(0.001)
    live.kill()  # while the server unpacks it
    sender.join()
    staging = list(bot_uploads.glob(".upload-*"))
    assert staging, f"the kill came after the unpacking: {answers}"
    assert isinstance(answers[0], httpx.HTTPError)  # the uploader saw no answer
    # a stop between the folder's rename and its row leaves a folder no row names
    unlisted = bot_uploads / "7"
    unlisted.mkdir()
    (unlisted / "bot.toml").write_text("name = 'big'\n")
    live.restart()
    assert not list(bot_uploads.iterdir())  # absent: no staging, no unlisted folder
    assert httpx.get(f"{live.url}/api/v1/bots/ada/big").status_code == 404
    assert read(live.folder, "SELECT COUNT(*) FROM server_versions") == [(0,)]
    assert "removed 2 unfinished upload(s) left by a stop" in live.log.read_text()
    answer = live.upload("ada", "big", data, timeout=120)  # whole: stored and validated
    assert answer.status_code == 202 and answer.json()["number"] == 1, answer.text
    live.kill()  # during its validation (a few games against the bundled bots)
    assert read(live.folder, "SELECT state FROM server_versions") == [("pending",)]
    live.restart()  # pending stays pending: validated again
    live.wait_valid(answer.json()["id"])
    version_folder = live.folder / read(live.folder, "SELECT folder FROM server_versions")[0][0]
    assert len(list((version_folder / "data").iterdir())) == 3000


def crashy_archive() -> bytes:
    return tar_gz({"bot.py": CRASHY, "bot.toml": CRASHY_TOML})


@pytest.mark.parametrize("live", [{"pause_window = 20 ": "pause_window = 4 "}],
                         indirect=True)
def test_a_bot_failing_in_most_of_its_games_is_paused_and_its_owner_sees_why(
        live: Live) -> None:
    for name in ("ada", "bob"):
        live.account(name)
    crashy = live.upload("ada", "crashy", crashy_archive()).json()
    steady = live.upload("bob", "steady", bot_archive("steady")).json()
    for version in (crashy, steady):
        live.wait_valid(version["id"])

    def paused() -> str:
        return str(live.get("/api/v1/bots/ada/crashy", "ada")["versions"][-1]["paused"])

    wait_until(paused, 180, "the crashing bot paused")
    assert paused().startswith("paused: failed in 3 of its last 3 games (crash 3; last: "
                               "crash in game "), paused()
    assert live.get("/api/v1/bots/ada/crashy")["versions"][-1]["paused"] == "paused"
    wait_until(lambda: live.roster() == ["bob/steady@1"], 30, "the roster without it")
    assert "ada/crashy@1 paused: failed in 3" in live.log.read_text()
    page = httpx.get(f"{live.url}/bots/ada/crashy").text
    assert "ada/crashy@1: paused" in page
    live.kill()  # the pause survives a stop
    live.restart()
    wait_until(lambda: live.roster() == ["bob/steady@1"], 30, "still out after a restart")
    enabled = httpx.post(f"{live.url}/api/v1/bots/ada/crashy/enable", headers={
        "Authorization": f"Bearer {live.tokens['ada']}"}).json()
    assert enabled["versions"][-1]["paused"] == ""
    wait_until(lambda: "ada/crashy@1" in live.roster(), 30, "it back in the ladder")
    wait_until(paused, 180, "paused again: its failures count afresh from the enable")
    assert paused().startswith("paused: failed in 3 of its last 3 games"), paused()


def test_a_version_whose_files_changed_on_disk_is_left_out_and_its_owner_told(
        live: Live) -> None:
    two_bots(live)
    folder = live.folder / read(live.folder, "SELECT folder FROM server_versions"
                                " WHERE id = 2")[0][0]
    live.kill()
    with (folder / "bot.py").open("a") as changed:
        changed.write("\n# changed behind the server's back\n")
    live.restart()
    wait_until(lambda: live.roster() == ["ada/adabot@1"], 60, "bob's bot left out")
    reason = live.get("/api/v1/bots/bob/bobbot", "bob")["versions"][-1]["paused"]
    assert reason == ("left out of the ladder: its files on the server are damaged (its "
                      "files on the server changed since the upload); upload it again, or "
                      "ask an admin"), reason
    assert "bob/bobbot@1 left out of the ladder: its files on the server changed" \
        in live.log.read_text()
    fixed = live.upload("bob", "bobbot", bot_archive("bobbot", "first"))
    live.wait_valid(fixed.json()["id"])
    wait_until(lambda: sorted(live.roster()) == ["ada/adabot@1", "bob/bobbot@2"], 60,
               "the new version in the ladder")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 MiB tmpfs (root only; in CI it must work, not skip)."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs the full-disk test as root (it mounts a small tmpfs)")
        pytest.skip("mounting a small tmpfs for a real full disk needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs",
                              str(disk)], capture_output=True, text=True)
    assert mounted.returncode == 0, f"cannot mount a tmpfs as root: {mounted.stderr}"
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Every free byte of ``disk`` taken by one file."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        for chunk in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while out.write(b"\1" * chunk):
                    pass
    return filler


@pytest.mark.sqlite_only  # (PostgreSQL's disk is its own: its errors, test_pg_store.py)
def test_a_full_disk_is_said_in_one_line_and_the_ladder_resumes_when_space_returns(
        small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.server.errors import DISK_FULL_ANSWER

    folder = small_disk / "server"
    make_server_folder(folder, capsys, **FAST)
    live = Live(folder, tmp_path / "server.log")
    try:
        two_bots(live)
        wait_until(lambda: len(games(folder)) >= 4, 120, "ladder games")
        # the write-ahead log emptied first, so that SQLite's next write needs new space
        # (a long log would take its writes for a while, a full disk or not)
        for _ in range(50):
            connection = sqlite3.connect(folder / "league.sqlite")
            busy = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            connection.close()
            if not busy:
                break
        filler = fill(small_disk)
        answer = live.upload("ada", "other", bot_archive("other"))
        assert (answer.status_code, answer.json()) == (507, {"error": DISK_FULL_ANSWER})
        wait_until(lambda: "the ladder stopped: the disk is full" in live.log.read_text(),
                   120, "the ladder to stop on the full disk")
        # reading still works: pages, the API with a token
        assert httpx.get(f"{live.url}/").status_code == 200
        assert httpx.get(f"{live.url}/bots/ada/adabot").status_code == 200
        assert live.get("/api/v1/bots/ada/adabot", "ada")["versions"][0]["state"] == "valid"
        registered = httpx.post(f"{live.url}/api/v1/register",
                                json={"name": "cyd", "password": PASSWORD})
        assert registered.status_code in (201, 507), registered.text
        if registered.status_code == 507:
            assert registered.json() == {"error": DISK_FULL_ANSWER}
        before = games(folder)
        # nothing half stored: no version row, no file (its empty bot folder may stay)
        assert list((folder / "uploads" / "ada").glob("other/*")) == []
        assert read(folder, "SELECT COUNT(*) FROM server_versions") == [(2,)]
        filler.unlink()
        wait_until(lambda: len(games(folder)) >= len(before) + 4, 120,
                   "the ladder resumed when space returned")
        after = games(folder)
        assert set(before) <= set(after) and len(after) == len(set(after))
        assert read(folder, "PRAGMA integrity_check") == [("ok",)]
        answer = live.upload("ada", "other", bot_archive("other"))
        assert answer.status_code == 202, answer.text
        live.wait_valid(answer.json()["id"])
    finally:
        live.stop()
