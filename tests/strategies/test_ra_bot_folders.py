"""bots/greedy and bots/mcts as processes: they speak the protocol and answer legally."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import trio

from arena.games.ra import GAME
from arena.games.ra.scenario import build_state
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.settings import Limits
from arena.strategies.greedy import GreedyStrategy
from arena.strategies.players import greedy_player, mcts_player

BOTS = Path(__file__).resolve().parents[2] / "arena" / "bots"


def conversation(bot: str, *args: str, clock_left_ms: int | None = None
                 ) -> list[dict[str, object]]:
    state = build_state(3, track=["gold", "pharaoh", "flood", "nile"], current=0)
    timing: dict[str, object] = {"move_ms": 300, "bank_ms": None}
    if clock_left_ms is not None:
        timing["game_ms_left"] = clock_left_ms
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    messages = [
        {"type": "hello", "protocol": "ra-arena/1", "arena": "test", "limits": {}},
        {"type": "new_game", "game": "ra", "options": {}, "num_players": 3, "seat": 0,
         "seed": 4, "players": ["a", "b", "c"], "time": {"move_ms": 300, "bank_ms": None}},
        {"type": "request", "id": 1, "observation": state.observation(0), "legal": legal,
         "time": timing},
        {"type": "quit"},
    ]
    text = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run([sys.executable, "bot.py", *args], cwd=BOTS / bot, input=text,
                          capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("bot", ["greedy", "mcts"])
def test_the_bot_process_says_ready_and_answers_a_legal_index(bot: str) -> None:
    ready, reply = conversation(bot)
    assert (ready["type"], ready["name"], ready["protocol"]) == ("ready", bot, "ra-arena/1")
    assert reply["type"] == "reply" and reply["id"] == 1
    assert reply["index"] in (0, 1)  # draw or invoke Ra


def test_the_greedy_process_answers_like_the_strategy() -> None:
    state = build_state(3, track=["gold", "pharaoh", "flood", "nile"], current=0)
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    expected = GreedyStrategy().choose(state.observation(0), legal)
    assert conversation("greedy")[1]["index"] == expected


def test_the_mcts_process_reads_the_game_clock_from_the_request() -> None:
    # 40 ms left on the clock: no time to search, it answers the greedy choice at once.
    state = build_state(3, track=["gold", "pharaoh", "flood", "nile"], current=0)
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    expected = GreedyStrategy().choose(state.observation(0), legal)
    assert conversation("mcts", clock_left_ms=40)[1]["index"] == expected


def test_mcts_refuses_a_thinking_time_that_is_not_positive() -> None:
    done = subprocess.run([sys.executable, "bot.py", "--seconds", "0"], cwd=BOTS / "mcts",
                          input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--seconds must be more than 0" in done.stderr


def test_the_mcts_process_plays_exactly_as_the_strategy_in_process() -> None:
    # With a fixed iteration count the search is deterministic, so the bot process and
    # the in-process strategy must play the same game from the same seed.
    limits = dataclasses.replace(Limits(), move_seconds=5.0)
    manifest = tomllib.loads((BOTS / "mcts" / "bot.toml").read_text())
    spec = BotSpec(name="mcts", version=manifest["version"],
                   command=(*manifest["command"], "--iterations", "25"),
                   folder=BOTS / "mcts", games={"ra": (2, 3, 4, 5)},
                   source=f"folder {BOTS / 'mcts'}", description=manifest["description"])

    async def as_process() -> GameRecord:
        async with open_bot_pool(limits) as pool, pool.seated([spec]) as (player,):
            return await play_game(GAME, [player, greedy_player(), greedy_player()], 13,
                                   limits=limits)

    async def in_process() -> GameRecord:
        return await play_game(GAME, [mcts_player(iterations=25), greedy_player(),
                                      greedy_player()], 13, limits=limits)

    process_record, local_record = trio.run(as_process), trio.run(in_process)
    assert process_record.forfeits == {}
    assert process_record.engine["actions"] == local_record.engine["actions"]
