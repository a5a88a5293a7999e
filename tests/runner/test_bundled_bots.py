"""The bundled bots (random, first, random-js) through the whole stack."""

from __future__ import annotations

import dataclasses
import shutil
import tomllib
from typing import Any

import pytest
import trio

from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game

from .helpers import BOTS, FAST, SANDBOXES, assert_no_survivors
from .toygame import NIM

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def spec(folder: str) -> BotSpec:
    """A BotSpec straight from the manifest (the plugins' loader does this for real)."""
    manifest = tomllib.loads((BOTS / folder / "bot.toml").read_text())
    return BotSpec(name=manifest["name"], version=manifest["version"],
                   command=tuple(manifest["command"]), folder=BOTS / folder,
                   games={"nim": (2, 3, 4), **{g: tuple(c) for g, c in
                                                manifest["games"].items()}},
                   source=f"folder {BOTS / folder}", description=manifest["description"],
                   resources=manifest.get("resources", {}))


@pytest.mark.parametrize("folder", ["random", "first", "random-js"])
def test_manifests_have_the_agreed_fields(folder: str) -> None:
    manifest = tomllib.loads((BOTS / folder / "bot.toml").read_text())
    assert manifest["name"] == folder
    assert {"version", "authors", "description", "command", "games"} <= set(manifest)
    assert manifest["games"] == {"ra": [2, 3, 4, 5], "ra_dice": [2, 3, 4]}


def play(folders: list[str], seeds: list[int], sandbox: str = "none"
         ) -> list[dict[str, Any]]:
    limits = dataclasses.replace(FAST, sandbox=sandbox, move_seconds=2.0)

    async def main() -> list[dict[str, Any]]:
        records = []
        async with open_bot_pool(limits) as pool:
            for seed in seeds:
                async with pool.seated([spec(f) for f in folders]) as players:
                    outcome = await play_game(NIM, players, seed, options={"pile": 40},
                                              limits=limits)
                records.append(outcome.playthrough_json())
            pids = [pid for player in pool._all for pid in player.pids]
        assert_no_survivors(pids)
        return records

    return trio.run(main)


def choices(record: dict[str, Any], seat: int) -> list[int]:
    return [a["action"] for a in record["engine"]["actions"] if a["seat"] == seat]


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("bots", [
    ["random", "first"],
    pytest.param(["random-js", "random", "first"], marks=needs_node),
])
def test_bundled_bots_play_cleanly_and_deterministically(sandbox: str, bots: list[str]
                                                         ) -> None:
    first, again, other = play(bots, [3, 3, 4], sandbox)
    for record in (first, again, other):
        assert record["failures"] == [] and record["incidents"] == []
    assert [p["name"] for p in first["players"]] == bots
    assert first["engine"] == again["engine"]  # seeded: same game seed, same choices
    assert first["engine"] != other["engine"]
    assert set(choices(first, bots.index("first"))) == {1}  # always the first legal choice
    random_seat = bots.index("random")
    assert len(set(choices(first, random_seat)) | set(choices(other, random_seat))) > 1


@pytest.mark.parametrize("folder", [
    "first", "random", pytest.param("random-js", marks=needs_node)])
def test_bundled_bots_that_ignore_the_observation_ask_for_lean_requests(folder: str) -> None:
    async def main() -> Any:
        async with open_bot_pool(FAST) as pool, pool.seated([spec(folder)]) as (bot,):
            await bot.handshake()
            return bot.wants

    wants = trio.run(main)
    assert (wants.observation, wants.notifications) == (False, False)
