"""A decision's request and reply over a process's pipes (``exchange``): a quick bot is
answered without the event loop, and every slow way still ends at the deadline."""

from __future__ import annotations

import time

import pytest
import trio

from arena.bench.protocol import TRIVIAL_LEAN_SPEC
from arena.runner.pool import open_bot_pool
from arena.runner.process import ProcessChannel
from arena.runner.protocol import Reply, decode_bot_message

from .helpers import FAST, zoo_spec


def _request(request_id: int, padding: int = 0) -> bytes:
    return (b'{"type":"request","id":%d,"legal":[{}],"pad":"%s","time":{"move_ms":1000,'
            b'"bank_ms":null}}\n' % (request_id, b"x" * padding))


async def _channel(pool: object, spec: object) -> ProcessChannel:
    async with pool.seated([spec]) as (player,):  # type: ignore[attr-defined]
        await player.handshake()
        channel = player._running()
        assert isinstance(channel, ProcessChannel)
        return channel


def test_a_quick_bot_answers_every_request_in_order() -> None:
    async def main() -> list[Reply]:
        async with open_bot_pool(FAST) as pool:
            channel = await _channel(pool, TRIVIAL_LEAN_SPEC)
            replies = []
            for request_id in range(1, 201):
                line = await channel.exchange(_request(request_id),
                                              trio.current_time() + 5.0)
                assert line is not None
                message = decode_bot_message(line)
                assert isinstance(message, Reply)
                replies.append(message)
            return replies

    replies = trio.run(main)
    assert [r.id for r in replies] == list(range(1, 201))


def test_a_request_larger_than_the_pipe_reaches_a_quick_bot_whole() -> None:
    async def main() -> Reply:
        async with open_bot_pool(FAST) as pool:
            channel = await _channel(pool, TRIVIAL_LEAN_SPEC)
            line = await channel.exchange(_request(7, padding=300_000),
                                          trio.current_time() + 5.0)
            assert line is not None
            message = decode_bot_message(line)
            assert isinstance(message, Reply)
            return message

    assert trio.run(main).id == 7


@pytest.mark.parametrize(("script", "padding"), [
    ("never_answers", 0),  # nothing comes back
    ("half_line", 0),  # the start of a line, then nothing
    ("stops_reading", 300_000),  # the request itself cannot be written whole
])
def test_exchange_gives_up_at_the_deadline(script: str, padding: int) -> None:
    async def main() -> tuple[bytes | None, float]:
        async with open_bot_pool(FAST) as pool:
            channel = await _channel(pool, zoo_spec(script))
            if script == "stops_reading":  # its first request is read, then no more
                assert await channel.exchange(_request(1), trio.current_time() + 0.3) is None
            started = time.perf_counter()
            line = await channel.exchange(_request(2, padding), trio.current_time() + 0.3)
            return line, time.perf_counter() - started

    line, elapsed = trio.run(main)
    assert line is None
    assert 0.25 <= elapsed < 3.0  # at the deadline, not before and not much after
