"""Waiting for a bot's reply: a short busy-wait first (arena.runner.process), bounded,
off on one CPU, and never starving the other tasks of the event loop."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest
import trio

from arena.bench.protocol import TRIVIAL_LEAN_SPEC
from arena.errors import ArenaError
from arena.runner.pipes import PipeEnd
from arena.runner.pool import open_bot_pool
from arena.runner.process import YIELD_EVERY_SECONDS, BotProcess
from arena.runner.protocol import Reply
from arena.settings import Limits
from tests.runner.helpers import FAST


def test_poll_readable_waits_at_most_its_time_and_sees_data_and_a_closed_writer() -> None:
    read_fd, write_fd = os.pipe()
    reader = PipeEnd(read_fd)
    started = time.perf_counter()
    assert reader.poll_readable(0.002) is False
    assert time.perf_counter() - started >= 0.002
    os.write(write_fd, b"x\n")
    assert reader.poll_readable(10.0) is True  # at once: it does not wait its time out
    assert os.read(read_fd, 10) == b"x\n"
    os.close(write_fd)
    assert reader.poll_readable(10.0) is True  # end of stream: the read reports it
    reader.close()
    assert reader.poll_readable(10.0) is True  # a closed end: the read reports it


def _request(request_id: int) -> bytes:
    return (b'{"type":"request","id":%d,"legal":[{}],"time":{"move_ms":1000,'
            b'"bank_ms":null}}\n' % request_id)


def test_quick_replies_still_let_the_other_tasks_run() -> None:
    """A bot answering at once is caught busy-waiting; the event loop must still get
    its turn every YIELD_EVERY_SECONDS or so (other games, stderr drainers)."""
    seconds = 40 * YIELD_EVERY_SECONDS

    async def main() -> tuple[int, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await trio.sleep(0)

        async with open_bot_pool(FAST) as pool, pool.seated([TRIVIAL_LEAN_SPEC]) as seated:
            player = seated[0]
            await player.handshake()
            process = player._running().process
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ticker)
                await trio.sleep(0)
                ticks, replies = 0, 0
                deadline = time.perf_counter() + seconds
                while time.perf_counter() < deadline:
                    replies += 1
                    await process.send_raw(_request(replies))
                    reply = await process.receive(answer_to_fresh_message=True)
                    assert reply == Reply(id=replies, index=0)
                during = ticks
                nursery.cancel_scope.cancel()
        return during, replies

    during, replies = trio.run(main)
    assert replies > 10
    # at least one turn per YIELD_EVERY_SECONDS (generously: a quarter of them)
    assert during >= min(replies, 40) // 4


def test_no_busy_wait_with_a_single_cpu() -> None:
    """On one CPU the bot cannot run while the arena spins: the arena sleeps at once."""
    allowed = os.sched_getaffinity(0)

    async def main() -> tuple[float, float]:
        async with open_bot_pool(FAST) as pool, pool.seated([TRIVIAL_LEAN_SPEC]) as seated:
            await seated[0].handshake()
            process: BotProcess = seated[0]._running().process
            spin = process.spin_seconds
            await process.send_raw(_request(1))
            assert await process.receive(answer_to_fresh_message=True) == Reply(1, 0)
        return spin, FAST.reply_busy_wait_seconds

    os.sched_setaffinity(0, {min(allowed)})
    try:
        one_cpu, _ = trio.run(main)
    finally:
        os.sched_setaffinity(0, allowed)
    assert one_cpu == 0.0
    if len(allowed) < 2:
        pytest.skip("one CPU only: the multi-CPU default cannot be seen here")
    several, default = trio.run(main)
    assert several == default > 0


def test_the_busy_wait_is_a_limit_a_league_can_turn_off() -> None:
    with pytest.raises(ArenaError, match="reply_busy_wait_seconds"):
        Limits(reply_busy_wait_seconds=-0.001)
    off = replace(FAST, reply_busy_wait_seconds=0.0)

    async def main() -> float:
        async with open_bot_pool(off) as pool, pool.seated([TRIVIAL_LEAN_SPEC]) as seated:
            await seated[0].handshake()
            process = seated[0]._running().process
            for request_id in (1, 2):  # replies still arrive, sleeping at once
                await process.send_raw(_request(request_id))
                reply = await process.receive(answer_to_fresh_message=True)
                assert reply == Reply(request_id, 0)
            return process.spin_seconds

    assert trio.run(main) == 0.0
