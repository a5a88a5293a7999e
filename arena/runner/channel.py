"""The byte channel between the arena and one bot: lines out, lines in, an end.

A :class:`BotChannel` is what a *transport* opens (see :mod:`arena.runner.transports` and
the ``arena_open_bot`` hook): a local process, a process in the bwrap sandbox, a TCP
connection to a bot server, or an in-memory pair in tests.  The conversation on top of it
(protocol ra-arena/1: handshake, requests, pings, failure reasons) is
:class:`arena.runner.connection.BotConnection`, the same for every transport, so time
limits, size limits and failure reasons are enforced identically everywhere.

:class:`StreamChannel` turns any trio-style byte stream (``send_all``/``receive_some``/
``aclose``: a TCP socket, ``trio.testing.memory_stream_pair``) into a channel; the process
transport has its own (:class:`arena.runner.process.ProcessChannel`) because a process
also has stderr, a process group to kill and a CPU budget.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

import trio

from arena.runner.failures import BotFailure
from arena.runner.lines import LineReader


class BotChannel(Protocol):
    """One bot, reachable as lines of bytes.  Every method raises :class:`BotFailure`
    (``crash`` when the other end is gone, ``oversize`` for a line over the limit)."""

    @property
    def kind(self) -> str:
        """What plays the seat, as game records name it ("process", "tcp", ...)."""

    @property
    def pid(self) -> int | None:
        """The bot's process (group) id, when it is a local process."""

    @property
    def log_path(self) -> Path | None:
        """Where its stderr goes, when it has one."""

    async def send(self, data: bytes) -> None:
        """Write already encoded, newline-terminated lines."""

    async def receive_line(self, *, fresh: bool = False) -> bytes:
        """The next line, without its newline.  ``fresh``: it answers what was just
        sent, so it is almost never there yet (a channel may wait for it cleverly)."""

    async def close(self, grace: float) -> None:
        """A polite end (the bot was told to quit): wait up to ``grace`` seconds for it to
        go, then end it by force.  Never raises."""

    async def abort(self, failure: BotFailure, grace: float) -> str:
        """End it now, after ``failure``; may add to ``failure.detail`` how it ended (an
        exit code).  Returns the tail of what the bot wrote to its stderr, if anything."""

    def worn_out(self) -> bool:
        """Should it be replaced before the next game (e.g. near its CPU-seconds limit)?"""

    # Optional, for speed: ``async def exchange(data: bytes, deadline: float) -> bytes |
    # None`` sends a request and returns the line that answers it, or None when none came
    # by ``deadline`` (trio's clock).  Without it a decision is ``send`` then
    # ``receive_line(fresh=True)`` under a cancel scope; the process channel has it so
    # that a quick bot's decision never sleeps in the event loop.


class ByteStream(Protocol):
    async def send_all(self, data: bytes | bytearray | memoryview) -> None: ...

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray: ...

    async def aclose(self) -> None: ...


class StreamChannel:
    """A :class:`BotChannel` over a trio byte stream (TCP, an in-memory pair)."""

    pid: int | None = None
    log_path: Path | None = None

    def __init__(self, stream: ByteStream, max_line: int, kind: str, peer: str = "") -> None:
        self.stream = stream
        self.kind = kind
        self.peer = peer  # for messages: "127.0.0.1:9000"
        self._lines = LineReader(stream, max_line)
        self._closed = False

    async def send(self, data: bytes) -> None:
        if self._closed:
            raise BotFailure("crash", "the connection is closed")
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            raise BotFailure("crash", "closed the connection") from None

    async def receive_line(self, *, fresh: bool = False) -> bytes:
        try:
            return await self._lines.next_line()
        except BotFailure as failure:
            if failure.reason == "crash":
                failure.detail = "closed the connection"
            raise

    async def close(self, grace: float) -> None:
        with trio.CancelScope(shield=True), trio.move_on_after(grace):
            await self._aclose()

    async def abort(self, failure: BotFailure, grace: float) -> str:
        with trio.CancelScope(shield=True), trio.move_on_after(grace):
            await self._aclose()
        return ""

    def worn_out(self) -> bool:
        return False

    async def _aclose(self) -> None:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError,
                                     OSError):
                await self.stream.aclose()


# What a transport returns: given the nursery that owns the bot's helpers (stderr
# drainers) and the folder for its logs, open a channel to the bot, or raise BotFailure.
ChannelOpener = Callable[[trio.Nursery, Path], Awaitable[BotChannel]]
