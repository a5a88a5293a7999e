"""The ladder inside the server: valid versions play, a new valid version replaces its
predecessor once their verdict is given (the predecessor's games and rating stay), a
disabled bot leaves; settings are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.server.settings import load_settings
from tests.server.conftest import Api, bot_archive, in_process, make_server_folder

pytestmark = pytest.mark.anyio


async def games_of(api: Api, bot: str, seconds: float = 120) -> int:
    with trio.fail_after(seconds):
        while True:
            played = sum(bot in result.bots for result in api.server.league_store.results())
            if played:
                return played
            await trio.sleep(0.2)


async def test_a_new_valid_version_replaces_its_predecessor(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{
        "house_bots = []": 'house_bots = ["random"]',
        "tables_per_minute = 60": "tables_per_minute = 0",
        "verdict_max_games = 1000": "verdict_max_games = 4"})
    async with in_process(folder, background=True) as api:
        token = await api.account("ada")
        first = (await api.upload(token, "ada", "mine", bot_archive("mine"))).json()
        assert (await api.wait_state(first["id"]))["state"] == "valid"
        assert await games_of(api, "ada/mine@1")
        second = (await api.upload(token, "ada", "mine", bot_archive("mine", "first"))).json()
        assert (await api.wait_state(second["id"]))["state"] == "valid"
        assert await games_of(api, "ada/mine@2")
        with trio.fail_after(120):  # the predecessor plays until their verdict is given
            while (await api.client.get("/api/v1/bots/ada/mine")).json()["verdict"][
                    "state"] == "testing":
                await trio.sleep(0.2)
            while "ada/mine@1" in {spec.name for spec in api.server.ladder.roster}:
                await trio.sleep(0.1)
        roster = [spec.name for spec in api.server.ladder.roster]
        assert "ada/mine@2" in roster and "ada/mine@1" not in roster
        before = sum("ada/mine@1" in r.bots for r in api.server.league_store.results())
        await trio.sleep(1)
        after = sum("ada/mine@1" in r.bots for r in api.server.league_store.results())
        assert after == before  # the predecessor plays no more; its games stay
        await api.server.leaderboards.compute()
        board = (await api.client.get("/api/v1/leaderboard?players=2")).json()
        names = {row["bot"] for row in board["bots"]}
        assert {"ada/mine@1", "ada/mine@2"} <= names  # its rating history stays
        # disabled: out of the ladder (only the house bot is left: nothing plays)
        disabled = await api.client.post("/api/v1/bots/ada/mine/disable",
                                         headers={"Authorization": f"Bearer {token}"})
        assert disabled.status_code == 200
        with trio.fail_after(30):
            while api.server.ladder.running:
                await trio.sleep(0.1)
        assert [spec.name for spec in api.server.ladder.roster] == [
            spec.name for spec in api.server.house_bots]


def test_settings_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    path = folder / "settings.toml"
    good = path.read_text()
    assert load_settings(folder).players == (2,)
    for old, new, words in [
        ("players = [2]", "players = [1]", "ladder.players"),
        ("port = 8080", 'port = "x"', "server.port"),
        ("max_files = 20", "max_files = 0", "at least 1"),
        ("[validation]", "[validation]\nbogus = 1", "unknown key"),
        ('tls_cert = ""', 'tls_cert = "cert.pem"', "both"),
    ]:
        path.write_text(good.replace(old, new))
        with pytest.raises(ArenaError, match=words):
            load_settings(folder)
    with pytest.raises(ArenaError, match="not a server folder"):
        load_settings(tmp_path)


def test_no_sandbox_no_server_unless_the_settings_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from arena.runner import sandbox
    from arena.server.core import Server

    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    real = sandbox.choose_level("auto")
    missing = dataclasses.replace(real, level="none", why="auto: bubblewrap is not installed")
    monkeypatch.setattr(sandbox, "choose_level", lambda requested: missing)
    with pytest.raises(ArenaError, match="no sandbox on this machine.*unsandboxed_ok"):
        Server.open(folder)
    path = folder / "settings.toml"
    path.write_text(path.read_text().replace("unsandboxed_ok = false", "unsandboxed_ok = true"))
    server = Server.open(folder)
    assert server.sandbox == "none"
    server.close()


def test_the_ladder_plays_on_a_cluster_when_the_settings_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server import ladder
    from arena.server.core import Server

    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{"house_bots = []": 'house_bots = ["random", "first"]'})
    with pytest.raises(ArenaError, match="not on this machine and not encrypted"):
        Server.open(folder, cluster="tcp://203.0.113.5:8786")  # refused before opening
    path = folder / "settings.toml"
    path.write_text(path.read_text().replace('address = ""', 'address = "tcp://127.0.0.1:1"'))
    seen: dict[str, object] = {}

    async def fake_play_league(config, **options):  # type: ignore[no-untyped-def]
        seen.update(options, config=config)
        async for _ in options["games"]:
            break  # the ladder feeds tables; one is enough here
        await trio.sleep_forever()

    monkeypatch.setattr(ladder, "play_league", fake_play_league)
    server = Server.open(folder)
    try:
        async def main() -> None:
            with trio.move_on_after(10):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(server.ladder.run)
                    while "cluster" not in seen:
                        await trio.sleep(0.01)
                    nursery.cancel_scope.cancel()

        trio.run(main)
    finally:
        server.close()
    assert seen["cluster"] is not None
    assert seen["cluster"].address == "tcp://127.0.0.1:1"  # type: ignore[attr-defined]
    assert [bot.name.split("@")[0] for bot in seen["bots"]] == [  # type: ignore[attr-defined]
        "arena/random", "arena/first"]
