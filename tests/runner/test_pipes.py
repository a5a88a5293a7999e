"""PipeEnd: non-blocking pipe ends for trio."""

from __future__ import annotations

import os

import pytest
import trio

from arena.runner.pipes import PipeEnd


def test_a_large_write_waits_for_the_reader_and_arrives_whole() -> None:
    read_fd, write_fd = os.pipe()
    reader, writer = PipeEnd(read_fd), PipeEnd(write_fd)
    data = bytes(range(256)) * 4096  # 1 MiB: far more than the pipe holds

    async def main() -> bytes:
        received = bytearray()

        async def read_all() -> None:
            while chunk := await reader.receive_some(65536):
                received.extend(chunk)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read_all)
            await writer.send_all(data)
            writer.close()
        return bytes(received)

    assert trio.run(main) == data
    reader.close()


def test_writing_to_a_closed_reader_is_a_broken_resource() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    writer = PipeEnd(write_fd)
    with pytest.raises(trio.BrokenResourceError):
        trio.run(writer.send_all, b"hello\n")
    writer.close()


def test_a_blocked_read_can_be_cancelled_and_a_closed_end_refuses_work() -> None:
    read_fd, write_fd = os.pipe()
    reader = PipeEnd(read_fd)

    async def main() -> bool:
        with trio.move_on_after(0.05) as scope:
            await reader.receive_some(10)
        return scope.cancelled_caught

    assert trio.run(main)
    reader.close()
    os.close(write_fd)
    with pytest.raises(trio.ClosedResourceError):
        trio.run(reader.receive_some, 10)
