"""Waiting for a bot's reply: a short wait in the kernel first (arena.runner.process),
bounded, and never starving the other tasks of the event loop."""

from __future__ import annotations

import fcntl
import os
import resource
import time
from dataclasses import replace

import pytest
import trio

from arena.bench.protocol import TRIVIAL_LEAN_SPEC
from arena.errors import ArenaError
from arena.runner.pipes import PipeEnd
from arena.runner.pool import open_bot_pool
from arena.runner.process import YIELD_EVERY_SECONDS, BotProcess
from arena.runner.protocol import Reply, decode_bot_message
from arena.settings import Limits
from tests.runner.helpers import FAST


@pytest.mark.parametrize("high", [False, True], ids=["select", "poll"])
def test_the_quick_wait_waits_at_most_its_time_and_sees_data_and_a_closed_writer(
        high: bool) -> None:
    read_fd, write_fd = os.pipe()
    if high:  # a descriptor select cannot take: the wait uses poll (milliseconds) instead
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft <= 1100:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
        moved = fcntl.fcntl(read_fd, fcntl.F_DUPFD, 1100)
        os.close(read_fd)
        read_fd = moved
    reader = PipeEnd(read_fd)
    started = time.perf_counter()
    assert reader.wait_readable_blocking(0.002) is False
    assert time.perf_counter() - started >= 0.002
    os.write(write_fd, b"x\n")
    assert reader.wait_readable_blocking(10.0) is True  # at once: it does not wait its time
    assert os.read(read_fd, 10) == b"x\n"
    os.close(write_fd)
    assert reader.wait_readable_blocking(10.0) is True  # end of stream: the read reports it
    reader.close()
    assert reader.wait_readable_blocking(10.0) is True  # a closed end: the read reports it


def _request(request_id: int) -> bytes:
    return (b'{"type":"request","id":%d,"legal":[{}],"time":{"move_ms":1000,'
            b'"bank_ms":null}}\n' % request_id)


def test_quick_replies_still_let_the_other_tasks_run() -> None:
    """A bot answering at once is caught by the quick wait; the event loop must still
    get its turn every YIELD_EVERY_SECONDS or so (other games, stderr drainers)."""
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


def test_the_quick_wait_catches_replies_on_a_single_cpu_too() -> None:
    """Waiting in the kernel leaves the CPU to the bot: on one CPU the reply still comes
    within the quick wait (a busy-wait could not have seen it).  The wait is long here
    (half a second, not the league's milliseconds), so that a loaded machine, which may
    leave the bot off the CPU for a while, does not decide the outcome: the test is about
    where the arena waits, not how fast the machine is."""
    allowed = os.sched_getaffinity(0)
    patient = replace(FAST, quick_reply_wait_seconds=0.5)

    async def main() -> tuple[float, int]:
        async with open_bot_pool(patient) as pool, pool.seated([TRIVIAL_LEAN_SPEC]) as seated:
            await seated[0].handshake()
            channel = seated[0]._running()
            process: BotProcess = channel.process
            slept = 0
            original = process._sleep_until_readable

            async def counted() -> None:
                nonlocal slept
                slept += 1
                await original()

            process._sleep_until_readable = counted  # type: ignore[method-assign]
            for request_id in range(1, 51):
                line = await channel.exchange(_request(request_id), trio.current_time() + 5)
                assert line is not None and decode_bot_message(line) == Reply(request_id, 0)
            return process.quick_wait_seconds, slept

    os.sched_setaffinity(0, {min(allowed)})
    try:
        wait, slept = trio.run(main)
    finally:
        os.sched_setaffinity(0, allowed)
    assert wait == patient.quick_reply_wait_seconds
    assert slept < 25  # most replies came within the quick wait, not the event loop


def test_the_quick_wait_is_a_limit_a_league_can_turn_off() -> None:
    with pytest.raises(ArenaError, match="quick_reply_wait_seconds"):
        Limits(quick_reply_wait_seconds=-0.001)
    off = replace(FAST, quick_reply_wait_seconds=0.0)

    async def main() -> float:
        async with open_bot_pool(off) as pool, pool.seated([TRIVIAL_LEAN_SPEC]) as seated:
            await seated[0].handshake()
            process = seated[0]._running().process
            for request_id in (1, 2):  # replies still arrive, sleeping in the event loop
                await process.send_raw(_request(request_id))
                reply = await process.receive(answer_to_fresh_message=True)
                assert reply == Reply(request_id, 0)
            return process.quick_wait_seconds

    assert trio.run(main) == 0.0
