"""The protocol as a conversation, over in-memory channels: no process, no socket.

Each test plays a scripted bot on the far end of ``trio.testing.memory_stream_pair`` and
checks what :class:`BotConnection` makes of it: the handshake, requests and replies,
pings, batched notifications, and the failure reason for each way of breaking the
protocol (the same reasons the process and TCP tests see)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from arena.runner.botspec import BotSpec
from arena.runner.channel import StreamChannel
from arena.runner.connection import BotConnection
from arena.runner.failures import BotFailure
from arena.runner.lines import LineReader
from arena.runner.players import random_player
from arena.runner.referee import play_game

from .helpers import FAST
from .toygame import NIM

# no process to start: the handshake may be as quick as a decision
LIMITS = dataclasses.replace(FAST, handshake_seconds=0.3)
SPEC = BotSpec(name="scripted", version="1", command=("unused",), folder=None,
               games={"nim": (2, 3, 4)}, source="test")
Bot = Callable[["FarEnd"], Awaitable[None]]


class FarEnd:
    """The bot's side of the channel: JSON lines in and out, and what it was sent."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.lines = LineReader(stream, 1 << 20)
        self.received: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any] | None:
        try:
            line = await self.lines.next_line()
        except BotFailure:
            return None  # the arena closed the channel
        message: dict[str, Any] = json.loads(line)
        self.received.append(message)
        return message

    async def send(self, message: dict[str, Any] | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        await self.stream.send_all(data)

    async def serve(self, on_request: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
                    ready: dict[str, Any] | None = None) -> None:
        """A well-behaved bot unless told otherwise: ready, pong, first legal choice."""
        while (message := await self.receive()) is not None:
            kind = message["type"]
            if kind == "hello":
                await self.send(ready or {"type": "ready", "name": "s", "version": "1",
                                          "protocol": "ra-arena/1"})
            elif kind == "ping":
                await self.send({"type": "pong", "id": message["id"]})
            elif kind == "request":
                if on_request is None:
                    await self.send({"type": "reply", "id": message["id"], "index": 0})
                else:
                    await on_request(message)
            elif kind == "quit":
                await self.stream.aclose()
                return


async def _game(bot: Bot, games: int = 1) -> tuple[list[dict[str, Any]], list[FarEnd]]:
    far_ends: list[FarEnd] = []
    records = []
    async with trio.open_nursery() as nursery:

        async def opener() -> StreamChannel:
            arena_end, bot_end = trio.testing.memory_stream_pair()
            far = FarEnd(bot_end)
            far_ends.append(far)
            nursery.start_soon(bot, far)
            return StreamChannel(arena_end, LIMITS.max_line_bytes, "memory")

        connection = BotConnection(SPEC, LIMITS, nursery, Path("."), opener=opener)
        for seed in range(games):
            record = await play_game(NIM, [connection, random_player()], seed=seed,
                                     limits=LIMITS)
            records.append(record.playthrough_json())
        await connection.close()
        await trio.testing.wait_all_tasks_blocked()  # let the bot read its last lines
        nursery.cancel_scope.cancel()
    return records, far_ends


def play(bot: Bot, games: int = 1) -> tuple[list[dict[str, Any]], list[FarEnd]]:
    return trio.run(_game, bot, games)


def failure_of(record: dict[str, Any]) -> tuple[str, str]:
    (failure,) = record["failures"]
    return failure["reason"], failure["phase"]


def test_a_good_bot_plays_games_over_one_channel_with_pings_between() -> None:
    records, (far,) = play(lambda far: far.serve(), games=3)
    assert all(r["failures"] == [] and r["incidents"] == [] for r in records)
    assert records[0]["players"][0]["kind"] == "memory"
    kinds = [m["type"] for m in far.received]
    assert kinds[0] == "hello" and kinds.count("new_game") == 3 and kinds[-1] == "quit"
    assert kinds.count("ping") == 2  # between games, not before the first
    # every decision of the game reaches the bot as an action, in order, and all of
    # them before its own next request (notifications ride with the next message)
    first_game = far.received[: kinds.index("game_over") + 1]
    actions = [m["decision"] for m in first_game if m["type"] == "action"]
    assert actions == list(range(1, len(actions) + 1))
    for i, message in enumerate(first_game):
        if message["type"] == "request":
            told = [m["decision"] for m in first_game[:i] if m["type"] == "action"]
            assert told == list(range(1, message["id"]))
    hello = far.received[0]
    assert hello["protocol"] == "ra-arena/1" and "limits" in hello


async def _silent(far: FarEnd) -> None:
    async def nothing(_request: dict[str, Any]) -> None:
        await trio.sleep_forever()

    await far.serve(nothing)


async def _garbage(far: FarEnd) -> None:
    async def garbage(_request: dict[str, Any]) -> None:
        await far.send(b"I choose the second one, obviously!\n")

    await far.serve(garbage)


async def _oversize(far: FarEnd) -> None:
    async def huge(_request: dict[str, Any]) -> None:
        await far.send(b"x" * (LIMITS.max_line_bytes + 10) + b"\n")

    await far.serve(huge)


async def _hang_up(far: FarEnd) -> None:
    async def hang_up(_request: dict[str, Any]) -> None:
        await far.stream.aclose()

    await far.serve(hang_up)


async def _wrong_id(far: FarEnd) -> None:
    async def wrong(request: dict[str, Any]) -> None:
        await far.send({"type": "reply", "id": request["id"] + 1000, "index": 0})

    await far.serve(wrong)


async def _illegal(far: FarEnd) -> None:
    async def illegal(request: dict[str, Any]) -> None:
        await far.send({"type": "reply", "id": request["id"], "index": 10**6})

    await far.serve(illegal)


async def _early_pong(far: FarEnd) -> None:
    async def pong(request: dict[str, Any]) -> None:
        await far.send({"type": "pong", "id": 1})

    await far.serve(pong)


async def _wrong_protocol(far: FarEnd) -> None:
    await far.serve(ready={"type": "ready", "name": "s", "version": "1",
                           "protocol": "ra-arena/99"})


async def _silent_at_hello(far: FarEnd) -> None:
    await trio.sleep_forever()


@pytest.mark.parametrize(("bot", "reason", "phase"), [
    (_silent, "timeout", "decision"),
    (_garbage, "malformed", "decision"),
    (_oversize, "oversize", "decision"),
    (_hang_up, "crash", "decision"),
    (_wrong_id, "protocol", "decision"),
    (_illegal, "illegal", "decision"),
    (_early_pong, "protocol", "decision"),
    (_wrong_protocol, "protocol", "start"),
    (_silent_at_hello, "timeout", "start"),
], ids=lambda value: getattr(value, "__name__", str(value)).strip("_"))
def test_each_way_of_breaking_the_protocol_has_its_reason(bot: Bot, reason: str,
                                                          phase: str) -> None:
    (record,), _ = play(bot)
    assert failure_of(record) == (reason, phase)
    assert record["placements"][0] == 2  # the forfeiting seat comes last
    assert NIM.replay(record["engine"]).is_terminal()  # and the game was played out


def test_a_bot_that_fails_gets_a_fresh_channel_for_the_next_game() -> None:
    calls = 0

    async def once_silent(far: FarEnd) -> None:
        nonlocal calls
        calls += 1
        await (_silent(far) if calls == 1 else far.serve())

    records, far_ends = play(once_silent, games=2)
    assert failure_of(records[0]) == ("timeout", "decision")
    assert records[1]["failures"] == [] and len(far_ends) == 2


def test_no_pong_between_games_is_an_incident_not_a_forfeit() -> None:
    calls = 0

    async def deaf_to_pings(far: FarEnd) -> None:
        nonlocal calls
        calls += 1
        if calls > 1:
            await far.serve()
            return
        while (message := await far.receive()) is not None:
            if message["type"] == "hello":
                await far.send({"type": "ready", "name": "s", "version": "1",
                                "protocol": "ra-arena/1"})
            elif message["type"] == "request":
                await far.send({"type": "reply", "id": message["id"], "index": 0})

    records, far_ends = play(deaf_to_pings, games=2)
    assert records[1]["failures"] == []
    (incident,) = records[1]["incidents"]
    assert (incident["reason"], incident["phase"]) == ("stall", "between games")
    assert len(far_ends) == 2
