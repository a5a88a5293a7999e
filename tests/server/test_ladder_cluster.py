"""The server's ladder on a real Dask cluster (a scheduler and two workers on loopback,
started as a user would): an uploaded version and the house bots play there, every
game stored once by the server, each game's record naming the worker that played it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio

from tests.league.test_cluster import dask_cluster  # noqa: F401 (a fixture)
from tests.server.conftest import bot_archive, in_process, make_server_folder

pytestmark = pytest.mark.anyio


async def test_the_ladder_plays_an_upload_on_dask_workers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]) -> None:  # noqa: F811
    address, _ = dask_cluster
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{
        "house_bots = []": 'house_bots = ["random", "first"]',
        "tables_per_minute = 60": "tables_per_minute = 0",
        'address = ""': f'address = "{address}"'})
    async with in_process(folder, background=True) as api:
        assert api.server.cluster is not None and api.server.cluster.address == address
        token = await api.account("ada")
        uploaded = (await api.upload(token, "ada", "mine", bot_archive("mine"))).json()
        assert (await api.wait_state(uploaded["id"]))["state"] == "valid"
        with trio.fail_after(180):
            while True:
                results = api.server.league_store.results()
                if sum("ada/mine@1" in r.bots for r in results) >= 4 and len(results) >= 12:
                    break
                await trio.sleep(0.3)
        games = list(api.server.league_store.games())
    ids = [game.game_id for game in games]
    assert len(ids) == len(set(ids))  # each game stored once
    workers = {game.worker for game in games}
    assert None not in workers, "a ladder game was played on the server's own machine"
    assert all(worker and worker.startswith("tcp://127.0.0.1:") for worker in workers), workers
    bots = {bot for game in games for bot in game.seats}
    assert {"arena/random", "arena/first", "ada/mine@1"} <= {
        bot.split("@")[0] if bot.startswith("arena/") else bot for bot in bots}
