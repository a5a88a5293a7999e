"""Secrets (issue 33 item 5): what test_app.py's test_nothing_secret_is_stored_in_clear
(passwords and tokens only as hashes in the database) does not cover: the admin password
and other secrets never logged, and the server's files private to its user."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    in_process,
    make_server_folder,
    sqlite_files,
)

pytestmark = pytest.mark.anyio


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


async def test_no_password_nor_token_is_ever_logged(
        server_folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    folder, admin_password = server_folder
    async with in_process(folder) as api:
        token = await api.account("ada")
        for name, password in (("root", admin_password), ("root", "wrong password"),
                               ("ada", PASSWORD), ("nobody", admin_password)):
            await api.client.post("/api/v1/tokens", json={"name": name, "password": password})
            page = await api.client.get("/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
            await api.client.post("/login", data={"csrf": csrf, "name": name,
                                                  "password": password})
        await api.upload(token, "ada", "mine", bot_archive("mine"))
        await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}x"})

        def boom(*args: object) -> None:
            raise RuntimeError("a crash while a secret is about")

        api.server.store.user_of_token = boom  # type: ignore[method-assign]
        crash = await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert crash.status_code == 500
        logged = "\n".join(api.server.log_lines)
        assert "a crash while a secret is about" in logged  # the log does record
    out = capsys.readouterr()
    secret_key = (folder / "secret.key").read_text().strip()
    for secret in (admin_password, PASSWORD, token, token[3:], secret_key):
        assert secret not in logged
        assert secret not in out.out and secret not in out.err


async def test_the_server_files_are_private_to_its_user(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.server.commands import backup
    from arena.server.core import Server

    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    assert mode(folder) == 0o700  # nobody else can even list it: uploads included
    files = ["secret.key", "settings.toml", *(path.name for path in sqlite_files(folder))]
    for name in files:
        assert mode(folder / name) == 0o600, name
    assert mode(folder / "uploads") == 0o700  # (issue 43: it was 0755, the lock 0644)
    async with in_process(folder) as api:
        token = await api.account("ada")
        assert (await api.upload(token, "ada", "mine", bot_archive("mine"))).status_code == 202
    for name in ("league.sqlite-wal", "league.sqlite-shm"):
        if (folder / name).exists():
            assert mode(folder / name) & 0o077 == 0, name
    copy = tmp_path / "copy"
    backup(folder, copy)
    assert mode(copy) == 0o700
    for name in ("league.sqlite", "secret.key", "settings.toml"):  # (always SQLite)
        assert mode(copy / name) & 0o077 == 0, name
    # a folder made before (or copied with a loose umask) is tightened at start, and the
    # log says so
    os.chmod(folder, 0o755)
    for name in files:
        os.chmod(folder / name, 0o644)
    os.chmod(folder / "uploads", 0o755)
    (folder / "logs").mkdir(mode=0o755)
    server = Server.open(folder)
    try:
        assert mode(folder) == 0o700
        assert all(mode(folder / name) == 0o600 for name in files), files
        assert mode(folder / "uploads") == 0o700 == mode(folder / "logs")
        # a version's own folder stays readable by the uid its bot runs under
        version = next((folder / "uploads" / "ada" / "mine").iterdir())
        assert mode(version) & 0o005 == 0o005
        assert any("private to this user" in line for line in server.log_lines)
    finally:
        server.close()
