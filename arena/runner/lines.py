"""Reading lines from an untrusted byte stream without ever holding more than a bound.

The arena never buffers more than ``max_line`` bytes plus one chunk of a bot's output: a
line that grows past the limit fails as "oversize" at once, before the rest arrives.
"""

from __future__ import annotations

from typing import Protocol

import trio

from arena.runner.failures import BotFailure

CHUNK = 65536


class ByteSource(Protocol):
    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray: ...


class LineReader:
    def __init__(self, stream: ByteSource, max_line: int) -> None:
        self._stream = stream
        self._max_line = max_line
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline

    async def next_line(self) -> bytes:
        """The next line without its ``\\n`` (a trailing ``\\r`` is dropped too).

        Raises BotFailure("oversize") for a line longer than the limit and
        BotFailure("crash") when the stream ends (a last line without newline is lost:
        a message only counts once it is complete)."""
        while (line := self._take_line()) is None:
            try:
                chunk = await self._stream.receive_some(CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk:
                raise BotFailure("crash", "closed its output")
            self._buffer += chunk
        return line

    def line_now(self, chunk: bytes) -> bytes | None:
        """Add ``chunk`` (read by the caller without waiting) and return the next whole
        line if there is one now; None if it is not complete yet (:meth:`next_line`
        then waits for the rest).  Raises BotFailure("oversize")."""
        self._buffer += chunk
        return self._take_line()

    def _take_line(self) -> bytes | None:
        """The next whole line from the buffer, or None; never holds more than the
        limit (plus one chunk) without failing as "oversize"."""
        newline = self._buffer.find(b"\n", self._scanned)
        if newline < 0:
            self._scanned = len(self._buffer)
            if len(self._buffer) > self._max_line:
                raise BotFailure("oversize", self._oversize_detail())
            return None
        line = bytes(self._buffer[:newline])
        del self._buffer[: newline + 1]
        self._scanned = 0
        if len(line) > self._max_line:
            raise BotFailure("oversize", self._oversize_detail())
        return line[:-1] if line.endswith(b"\r") else line

    def take_buffered(self) -> bytearray:
        """Everything read and not returned as lines yet (the reader is then empty)."""
        rest, self._buffer, self._scanned = self._buffer, bytearray(), 0
        return rest

    @property
    def buffered(self) -> int:
        """Bytes read but not yet returned as lines."""
        return len(self._buffer)

    def _oversize_detail(self) -> str:
        return f"a line longer than {self._max_line} bytes"
