"""A transport that only a plugin knows: the ``arena_open_bot`` hook of an installed
distribution serves ``connect = "loop://..."`` bots, and the arena plays them exactly as
its own transports' bots, with the same failure reasons."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.plugins.manager import loaded_plugins
from arena.runner.botspec import BotSpec
from arena.runner.players import random_player
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from tests.runner.helpers import FAST
from tests.runner.toygame import NIM

# The plugin: an in-memory bot per channel; "loop://first" answers with the first legal
# choice, "loop://mute" never answers.
PLUGIN = """
import json

import trio
import trio.testing

from arena.plugins import hookimpl
from arena.runner.channel import StreamChannel
from arena.runner.failures import BotFailure
from arena.runner.lines import LineReader


async def bot(stream, mute):
    lines = LineReader(stream, 1 << 20)
    while True:
        try:
            message = json.loads(await lines.next_line())
        except BotFailure:  # the arena closed the channel: this bot's life is over
            return
        reply = None
        if message["type"] == "hello":
            reply = {"type": "ready", "name": "loop", "version": "1",
                     "protocol": "ra-arena/1"}
        elif message["type"] == "ping":
            reply = {"type": "pong", "id": message["id"]}
        elif message["type"] == "request" and not mute:
            reply = {"type": "reply", "id": message["id"], "index": 0}
        if reply is not None:
            await stream.send_all(json.dumps(reply).encode() + b"\\n")


@hookimpl
def arena_open_bot(spec, limits):
    if not (spec.connect or "").startswith("loop://"):
        return None

    async def open_loop(nursery, log_dir):
        arena_end, bot_end = trio.testing.memory_stream_pair()
        nursery.start_soon(bot, bot_end, spec.connect.endswith("mute"))
        return StreamChannel(arena_end, limits.max_line_bytes, "loop")

    return open_loop
"""


@pytest.fixture
def loop_transport(fake_distribution: Callable[..., Path]) -> None:
    fake_distribution("loop-transport", {"loop": "loop_transport"},
                      {"loop_transport": PLUGIN})


def _play(connect: str) -> dict[str, Any]:
    spec = BotSpec(name="looped", version="1", command=(), folder=None,
                   games={"nim": (2,)}, source="test", connect=connect)

    async def main() -> dict[str, Any]:
        async with open_bot_pool(FAST) as pool, pool.seated([spec]) as (bot,):
            record = await play_game(NIM, [bot, random_player()], seed=3, limits=FAST)
        return record.playthrough_json()

    return trio.run(main)


def test_a_plugin_transport_plays_its_bots(loop_transport: None) -> None:
    record = _play("loop://first")
    assert record["failures"] == [] and record["players"][0]["kind"] == "loop"


def test_its_bots_get_the_arenas_time_limits(loop_transport: None) -> None:
    record = _play("loop://mute")
    (failure,) = record["failures"]
    assert (failure["reason"], failure["phase"]) == ("timeout", "decision")


def test_without_the_plugin_the_scheme_is_not_served() -> None:
    loaded_plugins.cache_clear()
    record = _play("loop://first")
    (failure,) = record["failures"]
    assert "no installed transport serves loop://" in failure["detail"]


def test_one_plugin_manager_serves_discovery_and_the_transports(
    loop_transport: None,
) -> None:
    from arena.plugins import discover, manager
    from arena.runner import transports

    assert transports.transport_lookup() is manager.open_bot  # installed by arena.plugins
    discover([], include_bundled=False)
    loaded = manager.loaded_plugins()
    record = _play("loop://first")  # no second manager: the one discovery used
    assert record["failures"] == [] and manager.loaded_plugins() is loaded
    names = [impl.plugin_name for impl in loaded.manager.hook.arena_open_bot.get_hookimpls()]
    # called from the end: the plugin first, the bundled transports last
    assert names[0] == manager.BUNDLED_TRANSPORTS and names[-1].startswith("entry point loop")


def test_the_runner_does_not_import_the_plugins_layer() -> None:
    code = ("import sys, arena.runner.pool, arena.runner.transports as t\n"
            "assert t.transport_lookup() is t.bundled_opener\n"
            "print(sorted(m for m in sys.modules if m.startswith('arena.plugins')))\n")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert found.strip() == "[]"
