"""A real server (Hypercorn's trio worker on a free loopback port, in this trio program):
slow clients are dropped within the configured timeouts (issue 33 item 3), and a
hostile bot cannot reach the server's port nor read its database (item 4)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from tests.server.conftest import PASSWORD, free_port, make_server_folder, tar_gz

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

IDLE = 2.0
REQUEST = 3.0


async def start(folder: Path, nursery: trio.Nursery) -> tuple[object, int]:
    """``arena serve``'s own serve() on a free port; the Server and the port."""
    from arena.server.commands import serve
    from arena.server.core import Server

    server = Server.open(folder)
    port = free_port()
    nursery.start_soon(serve, server, "127.0.0.1", port)
    with trio.fail_after(30):
        while True:
            try:
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                await stream.aclose()
                return server, port
            except OSError:
                await trio.sleep(0.1)


async def dribble(port: int, head: bytes, then: bytes, limit: float) -> tuple[float, bytes]:
    """Send ``head`` at once, then ``then`` one byte a second; how long until the server
    closes the connection (at most ``limit`` seconds), and what it answered."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    began = trio.current_time()
    answer = b""
    closed = False

    async def read() -> None:
        nonlocal answer, closed
        try:
            while data := await stream.receive_some(65536):
                answer += data
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        closed = True
        nursery.cancel_scope.cancel()

    async def write() -> None:
        try:
            if head:
                await stream.send_all(head)
            for byte in then:
                await trio.sleep(1.0)
                await stream.send_all(bytes([byte]))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await trio.sleep_forever()
        await trio.sleep_forever()

    with trio.move_on_after(limit):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            nursery.start_soon(write)
    await stream.aclose()
    return (trio.current_time() - began) if closed else float("inf"), answer


async def test_slow_clients_are_dropped_within_the_timeouts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{
        "idle_seconds = 5 ": f"idle_seconds = {IDLE} ",
        "request_seconds = 30 ": f"request_seconds = {REQUEST} "})
    async with trio.open_nursery() as nursery:
        server, port = await start(folder, nursery)
        slack = 1.5
        results = {}
        async with trio.open_nursery() as clients:
            async def run(name: str, head: bytes, then: bytes, limit: float) -> None:
                results[name] = await dribble(port, head, then, limit)

            # a head sent a byte a second (slowloris): closed after idle_seconds
            clients.start_soon(run, "slow head", b"", b"GET / HTTP/1.1\r\nHost: x\r\n" * 3,
                               IDLE + 10)
            # connected and silent
            clients.start_soon(run, "silent", b"", b"", IDLE + 10)
            # a whole head, then a body a byte a second: 408 after request_seconds
            clients.start_soon(run, "slow body",
                               b"POST /api/v1/register HTTP/1.1\r\nHost: x\r\nContent-Type: "
                               b"application/json\r\nContent-Length: 1000\r\n\r\n",
                               b"{" + b" " * 60, REQUEST + 10)
            # a head over the 16 KiB limit
            clients.start_soon(run, "huge head",
                               b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000,
                               b"", IDLE + 10)
            # an event stream is not a slow client: it stays open past both timeouts
            clients.start_soon(run, "events",
                               b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n", b"",
                               REQUEST + 3)
        took = {name: round(seconds, 1) for name, (seconds, _) in results.items()}
        print("seconds until dropped:", took)
        assert took["slow head"] <= IDLE + slack, took
        assert took["silent"] <= IDLE + slack, took
        assert took["slow body"] <= REQUEST + slack, took
        assert b" 408 " in results["slow body"][1].split(b"\r\n")[0], results["slow body"]
        assert took["huge head"] <= IDLE + slack, took
        assert results["huge head"][1] == b"" or b" 4" in results["huge head"][1][:15]
        assert took["events"] == float("inf") and b"ra-arena events" in results["events"][1]
        # and the server still answers
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            assert (await client.get("/api/v1/leaderboard")).status_code == 200
        nursery.cancel_scope.cancel()
    server.close()  # type: ignore[attr-defined]


HOSTILE_BOT = """\
import os, socket, sys
lines = []
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    lines.append("REACHED the server's port")
except OSError as problem:
    lines.append(f"port: {{problem!r}}")
for path in {paths!r}:
    try:
        with open(path, "rb") as source:
            lines.append(f"READ {{path}}: {{source.read(16)!r}}")
    except OSError as problem:
        lines.append(f"file: {{problem!r}}")
try:
    lines.append(f"listing of the server folder: {{os.listdir({folder!r})}}")
except OSError as problem:
    lines.append(f"folder: {{problem!r}}")
sys.stderr.write("\\n".join(lines) + "\\n")
sys.stderr.flush()
sys.exit(3)
"""


async def test_a_hostile_bot_cannot_reach_the_server_nor_read_its_database(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.server.core import Server

    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    async with trio.open_nursery() as nursery:
        server, port = await start(folder, nursery)
        assert isinstance(server, Server)
        if server.sandbox != "bwrap":
            nursery.cancel_scope.cancel()
            pytest.skip(f"no bubblewrap here (sandbox {server.sandbox})")
        settings = server.settings
        paths = [str(settings.sqlite_path), str(settings.folder / "secret.key"),
                 str(settings.folder / "settings.toml")]
        manifest = (Path(__file__).parents[2] / "arena" / "bots" / "random" / "bot.toml"
                    ).read_text().replace('name = "random"', 'name = "spy"')
        manifest = "\n".join(line for line in manifest.splitlines()
                             if not line.startswith("entry_point")) + "\n"
        bot = HOSTILE_BOT.format(port=port, paths=paths, folder=str(settings.folder))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                     timeout=30) as client:
            await client.post("/api/v1/register", json={"name": "eve", "password": PASSWORD})
            token = (await client.post("/api/v1/tokens", json={
                "name": "eve", "password": PASSWORD})).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            answer = await client.post(
                "/api/v1/bots/eve/spy/versions", headers={**auth,
                                                          "Content-Type": "application/gzip"},
                content=tar_gz({"bot.toml": manifest.encode(), "bot.py": bot.encode()}))
            assert answer.status_code == 202, answer.text
            with trio.fail_after(180):
                while True:
                    version = (await client.get(f"/api/v1/versions/{answer.json()['id']}",
                                                headers=auth)).json()
                    if version["state"] != "pending":
                        break
                    await trio.sleep(0.3)
        nursery.cancel_scope.cancel()
    server.close()
    tail = version["stderr_tail"]
    print("the hostile bot's stderr:", tail)
    assert version["state"] == "rejected", version
    assert "port: " in tail and "REACHED" not in tail, tail
    assert tail.count("file: ") == 3 and "READ" not in tail, tail
    assert "listing of the server folder" not in tail or "league.sqlite" not in tail, tail


async def test_event_stream_clients_leaving_mid_event_leave_the_server_sound(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    async with trio.open_nursery() as nursery:
        server, port = await start(folder, nursery)

        async def publish() -> None:
            number = 0
            while True:
                number += 1
                server.events.publish("game_stored", {"n": number})  # type: ignore[attr-defined]
                await trio.sleep(0.001)

        nursery.start_soon(publish)

        async def leave_mid_stream() -> None:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                with trio.move_on_after(0.3):
                    async with client.stream("GET", "/api/v1/events") as stream:
                        async for _ in stream.aiter_bytes():
                            pass

        for _ in range(5):
            async with trio.open_nursery() as clients:
                for _ in range(20):
                    clients.start_soon(leave_mid_stream)
        await trio.sleep(0.5)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            assert (await client.get("/api/v1/leaderboard")).status_code == 200
        nursery.cancel_scope.cancel()
    server.close()  # type: ignore[attr-defined]
    log = capsys.readouterr().err
    assert "Cancel scope stack corrupted" not in log
    assert "Error in ASGI Framework" not in log
