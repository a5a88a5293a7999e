"""The referee with the real engines (Ra, Ra: The Dice Game) and real bot processes."""

from __future__ import annotations

import dataclasses
import json
import shutil
from typing import Any

import jsonschema
import pytest
import trio

from arena.plugins import load_game
from arena.runner.players import PythonPlayer, random_player
from arena.runner.pool import open_bot_pool
from arena.runner.protocol import DecisionRequest, Reply, schema
from arena.runner.referee import play_game

from .helpers import FAST, SANDBOXES, assert_no_survivors, zoo_spec
from .test_bundled_bots import spec

BOTS = ["random", "random-js", "first"] if shutil.which("node") else ["random", "first",
                                                                      "random"]


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game_name", ["ra", "ra_dice"])
def test_bundled_bots_play_a_real_game(game_name: str, sandbox: str) -> None:
    game = load_game(game_name)
    limits = dataclasses.replace(FAST, sandbox=sandbox, move_seconds=2.0)

    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits) as pool, \
                pool.seated([spec(name) for name in BOTS]) as players:
            outcome = await play_game(game, players, seed=11, limits=limits)
        assert_no_survivors([pid for player in players for pid in player.pids])
        return outcome.playthrough_json()

    record = json.loads(json.dumps(trio.run(main)))
    assert record["failures"] == [] and record["incidents"] == []
    state = game.replay(record["engine"])
    assert state.is_terminal()
    assert record["scores"] == state.returns()
    assert record["placements"] == state.placements()


@pytest.mark.parametrize("game_name", ["ra", "ra_dice"])
def test_a_bot_that_fails_in_a_real_game_is_placed_last(game_name: str) -> None:
    game = load_game(game_name)

    async def main() -> dict[str, Any]:
        async with open_bot_pool(FAST) as pool, \
                pool.seated([zoo_spec("crash_midgame")]) as (bad,):
            outcome = await play_game(game, [random_player("a"), bad, random_player("b")],
                                      seed=5, limits=FAST)
        return outcome.playthrough_json()

    record = trio.run(main)
    assert [(f["seat"], f["reason"]) for f in record["failures"]] == [(1, "crash")]
    assert record["placements"][1] == 3
    assert sorted(record["placements"][0::2]) in ([1, 2], [1, 1])
    assert game.replay(record["engine"]).is_terminal()


@pytest.mark.parametrize("game_name", ["ra", "ra_dice"])
def test_real_requests_match_the_request_schema(game_name: str) -> None:
    requests: list[DecisionRequest] = []

    class Spy(PythonPlayer):
        async def choose(self, request: DecisionRequest) -> Reply:
            requests.append(request)
            return await super().choose(request)

    players = [Spy(f"p{i}", lambda obs, legal: len(legal) // 2) for i in range(3)]
    trio.run(lambda: play_game(load_game(game_name), players, 2))
    request_schema = schema("request")
    for request in requests[::7]:
        jsonschema.validate(json.loads(json.dumps(request.to_json())), request_schema)
