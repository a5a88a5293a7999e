"""Non-blocking pipe ends for trio, without per-call scheduling.

``trio.lowlevel.FdStream`` yields to the scheduler on every call, which doubles the
round trip of a small message (measured: 16 µs against 6 µs per echo).  These ends try
the system call first and only wait for readiness when the pipe is full or empty, so a
decision costs one wake-up.  They still honour cancellation (``move_on_after``).
"""

from __future__ import annotations

import contextlib
import os

import trio


class PipeEnd:
    """One end of a pipe, owned by this object (closed by :meth:`close`)."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self.fd = fd

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

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            with contextlib.suppress(RuntimeError):  # outside trio nobody can be waiting
                trio.lowlevel.notify_closing(fd)
            os.close(fd)
