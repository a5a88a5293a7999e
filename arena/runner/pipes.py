"""Non-blocking pipe ends for trio, without per-call scheduling.

``trio.lowlevel.FdStream`` yields to the scheduler on every call, which doubles the
round trip of a small message (measured: 16 µs against 6 µs per echo).  These ends try
the system call first and only wait for readiness when the pipe is full or empty, so a
decision costs one wake-up.  They still honour cancellation (``move_on_after``).

:meth:`PipeEnd.poll_readable` busy-waits briefly for data, for the caller that expects
an answer within microseconds (see :meth:`arena.runner.process.BotProcess.receive`).
"""

from __future__ import annotations

import contextlib
import os
import select
import time

import trio


class PipeEnd:
    """One end of a pipe, owned by this object (closed by :meth:`close`)."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self._poller: select.poll | None = None  # made on the first poll_readable

    async def send_all(self, data: bytes) -> None:
        """Write everything; raises trio.BrokenResourceError if the reader is gone."""
        view = memoryview(data)
        while view:
            if self.fd < 0:
                raise trio.ClosedResourceError("pipe closed")
            try:
                written = os.write(self.fd, view)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(self.fd)
                continue
            except (BrokenPipeError, ConnectionResetError) as error:
                raise trio.BrokenResourceError(str(error)) from None
            view = view[written:]
        await trio.lowlevel.checkpoint_if_cancelled()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """Up to ``max_bytes`` bytes; b"" at the end of the stream."""
        max_bytes = max_bytes or 65536
        while True:
            if self.fd < 0:
                raise trio.ClosedResourceError("pipe closed")
            try:
                data = os.read(self.fd, max_bytes)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(self.fd)
                continue
            await trio.lowlevel.checkpoint_if_cancelled()
            return data

    async def wait_readable(self) -> None:
        """Wait until there is something to read (or the writer is gone)."""
        if self.fd < 0:
            raise trio.ClosedResourceError("pipe closed")
        await trio.lowlevel.wait_readable(self.fd)

    def poll_readable(self, seconds: float) -> bool:
        """Busy-wait up to ``seconds`` (no yield to trio) until there is something to
        read or the writer is gone; False if nothing came in time.  Only for waits of
        microseconds: it holds the CPU and the event loop meanwhile."""
        if self.fd < 0:
            return True  # the read that follows reports the closed end
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self.fd, select.POLLIN)  # POLLHUP comes regardless
        poll, clock = self._poller.poll, time.perf_counter
        deadline = clock() + seconds
        while not poll(0):
            if clock() >= deadline:
                return False
        return True

    def close(self) -> None:
        self._poller = None  # registered by fd number, which the system may reuse
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            with contextlib.suppress(RuntimeError):  # outside trio nobody can be waiting
                trio.lowlevel.notify_closing(fd)
            os.close(fd)
