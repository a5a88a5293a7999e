"""A real server on 127.0.0.1 (a free port), a real `arena login` and `arena upload` of a
bot folder: the upload validated and playing in the ladder; a backup taken while it runs
serves."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import trio

from tests.server.conftest import (
    PASSWORD,
    arena,
    bot_folder,
    free_port,
    in_process,
    make_server_folder,
    start_server,
    wait_until,
)

pytestmark = pytest.mark.slow


def test_a_real_server_login_upload_validate_and_play(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)  # no house bots: the two uploads play each other
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    server = start_server(folder, port, tmp_path / "server.log", env)
    try:
        # a non-loopback plain-http URL is refused before any password is asked
        refused = arena("login", "http://192.0.2.1:8080", "--name", "ada", "--password-stdin",
                        env=env, stdin=PASSWORD + "\n")
        assert refused.returncode == 2 and "in clear" in refused.stderr
        for name in ("ada", "bob"):
            answer = httpx.post(f"{url}/api/v1/register",
                                json={"name": name, "password": PASSWORD})
            assert answer.status_code == 201
        wrong = arena("login", url, "--name", "ada", "--password-stdin", env=env,
                      stdin="not the password\n")
        assert wrong.returncode != 0 and "wrong name or password" in wrong.stderr
        logged = arena("login", url, "--name", "ada", "--password-stdin", env=env,
                       stdin=PASSWORD + "\n")
        assert logged.returncode == 0, logged.stderr
        config = tmp_path / "config" / "ra-arena" / "servers.json"
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        assert stat.S_IMODE(config.parent.stat().st_mode) == 0o700
        saved = json.loads(config.read_text())
        assert saved["default"] == url and saved["servers"][url]["user"] == "ada"
        bots = tmp_path / "bots"
        bots.mkdir()
        uploaded = arena("upload", str(bot_folder(bots, "alpha")), "--wait", env=env)
        assert uploaded.returncode == 0, uploaded.stdout + uploaded.stderr
        assert "ada/alpha version 1" in uploaded.stdout and "valid" in uploaded.stdout
        # a second player from another account, through the same commands
        env_bob = {**env, "XDG_CONFIG_HOME": str(tmp_path / "config-bob")}
        assert arena("login", url, "--name", "bob", "--password-stdin", env=env_bob,
                     stdin=PASSWORD + "\n").returncode == 0
        second = arena("upload", str(bot_folder(bots, "beta", "first")), "--wait",
                       env=env_bob)
        assert second.returncode == 0, second.stdout + second.stderr

        def played() -> dict | None:  # type: ignore[type-arg]
            board = httpx.get(f"{url}/api/v1/leaderboard?players=2").json()
            names = {row["bot"] for row in board["bots"]}
            return board if {"ada/alpha@1", "bob/beta@1"} <= names else None

        board = wait_until(played, 120, "a ladder game of the uploads")
        assert board["roster"] == ["ada/alpha@1", "bob/beta@1"]
        # a stored game, as `arena export` writes it
        with httpx.stream("GET", f"{url}/api/v1/events", timeout=30) as events:
            for line in events.iter_lines():
                if line.startswith("data:") and "game_id" in line:
                    game_id = json.loads(line[5:])["game_id"]
                    break
        record = httpx.get(f"{url}/api/v1/games/{game_id}").json()
        assert record["game_id"] == game_id and record["game"] == "ra"
        assert "ada/alpha@1" in json.dumps(record)
        # a backup while it runs; the copy serves
        copy = tmp_path / "copy"
        backed = arena("serve", "backup", str(folder), str(copy), env=env)
        assert backed.returncode == 0, backed.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)

    async def serve_the_copy() -> None:
        async with in_process(copy) as api:
            version = (await api.client.get("/api/v1/versions/1")).json()
            assert version["state"] == "valid" and version["bot"] == "ada/alpha"
            assert api.server.league_store.count() >= 1
            assert api.server.load_spec(api.server.folder_of(
                api.server.store.version(1))).name == "alpha"  # type: ignore[arg-type]
            token = await api.token("ada")
            assert token.startswith("ra_")

    trio.run(serve_the_copy)


def test_serve_refuses_a_public_address_without_tls(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    done = arena("serve", str(folder), "--host", "0.0.0.0", "--port", str(free_port()),
                 env=dict(os.environ), timeout=60)
    assert done.returncode == 2 and "TLS" in done.stderr and "--insecure" in done.stderr
    again = arena("serve", "init", str(folder), env=dict(os.environ), timeout=60)
    assert again.returncode == 2 and "not empty" in again.stderr


def test_tls_serves_https_with_secure_cookies_on_any_address(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    if shutil.which("openssl") is None:
        if os.environ.get("CI") == "true":
            raise AssertionError("openssl is needed to make the test's certificate")
        pytest.skip("openssl is not installed")
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{'tls_cert = ""': 'tls_cert = "cert.pem"',
                                          'tls_key = ""': 'tls_key = "key.pem"'})
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(folder / "key.pem"),
                    "-out", str(folder / "cert.pem")], check=True, capture_output=True)
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    # TLS: a non-loopback bind needs no --insecure (0.0.0.0 still answers on 127.0.0.1)
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder),
                               "--host", "0.0.0.0", "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        def up() -> httpx.Response | None:
            try:
                return httpx.get(f"https://127.0.0.1:{port}/login", verify=False, timeout=2)
            except httpx.HTTPError:
                assert server.poll() is None, (tmp_path / "server.log").read_text()
                return None

        page = wait_until(up, 60, "the TLS server to answer")
        assert page.status_code == 200
        cookie = page.headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie
        with pytest.raises(httpx.HTTPError):  # no plain http on the TLS port
            httpx.get(f"http://127.0.0.1:{port}/login", timeout=5)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
