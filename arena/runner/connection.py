"""A player that is a bot reached over a channel: protocol ra-arena/1 as a conversation.

:class:`BotConnection` is the protocol's state machine (handshake, request and reply,
ping, notifications, failure reasons) over a :class:`~arena.runner.channel.BotChannel`
that a transport opens (a local process, the bwrap sandbox, TCP, or a plugin's; see
:mod:`arena.runner.transports`).  It knows nothing of processes, so it is tested over
in-memory channels, and every transport gets the same rules.  The one place where a
bot's bytes become values is :func:`arena.runner.protocol.decode_bot_message`.

Life of a bot: reached (hello -> ready within ``handshake_seconds``) when a game needs
it and reused across games (one game at a time); between games a ping must be answered
with a pong within ``ping_seconds``.  After any failure the channel is aborted (for a
process: its whole process group killed); the next game opens a fresh one.  A channel that
says it is worn out (a process near its CPU-seconds limit) is replaced between games, not
counted as a failure.  A failure found between games (no pong, bot gone) is an
*incident*: it goes into the next game's record, but the bot does not forfeit if the
fresh one works.

Notifications (``action`` messages) are queued and written together with the next
message the bot gets (its next request, or game_over): one write and one wake-up of the
bot per decision instead of one per action.  The bot still sees every action, in order,
before it must decide.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

import arena
from arena.runner.botspec import BotSpec
from arena.runner.channel import BotChannel
from arena.runner.failures import BotFailure
from arena.runner.protocol import (
    EVERYTHING,
    PROTOCOL,
    ActionNotice,
    BotMessage,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Pong,
    Ready,
    Reply,
    Wants,
    decode_bot_message,
    encode,
    hello,
    ping,
    quit_message,
)
from arena.runner.trace import traced
from arena.settings import Limits

JSON = Any
# queued notifications are flushed on their own beyond this size (a very long game)
MAX_PENDING_BYTES = 1 << 20
# opens a fresh channel to the bot (default: through the transports hook)
ChannelFactory = Callable[[], Awaitable[BotChannel]]


class BotConnection:
    """A bot as a :class:`~arena.runner.players.Player`, over channels from ``opener``
    (default: the transports hook for ``spec``)."""

    def __init__(self, spec: BotSpec, limits: Limits, nursery: trio.Nursery,
                 log_dir: Path, opener: ChannelFactory | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self.limits = limits.for_bot(spec.resources)
        self._nursery = nursery
        self._log_dir = log_dir
        self._opener = opener or self._open_through_transports
        self._channel: BotChannel | None = None
        self._incidents: list[dict[str, JSON]] = []
        self._pings = itertools.count(1)
        self.ready: Ready | None = None  # what the bot said about itself when reached
        self.pids: list[int] = []  # every local process started so far, oldest first
        self.kind = "tcp" if spec.connect is not None else "process"  # for game records
        self._pending: list[bytes] = []  # encoded notifications not yet written
        self._pending_bytes = 0

    @property
    def alive(self) -> bool:
        return self._channel is not None

    @property
    def pid(self) -> int | None:
        """Process (and process group) id of the running process, for a local one."""
        return None if self._channel is None else self._channel.pid

    @property
    def log_path(self) -> Path | None:
        return None if self._channel is None else self._channel.log_path

    # ------------------------------------------------------------ Player interface

    async def start_game(self, info: GameInfo) -> None:
        if self._channel is not None and self._channel.worn_out():
            await self.close()  # retire it before RLIMIT_CPU kills it in mid-game
        if self._channel is not None:
            try:
                await self._ping()
            except BotFailure as failure:
                tail = await self.abandon(failure)
                self._incidents.append({"bot": self.name, "phase": "between games",
                                        "reason": failure.reason, "detail": failure.detail,
                                        "stderr_tail": tail})
        if self._channel is None:
            await self._start()
        await self._send_bounded(encode(info.to_json()))

    @property
    def wants(self) -> Wants:
        """What the running process asked for in its ready message."""
        return EVERYTHING if self.ready is None else self.ready.wants

    # the referee need not enter a cancel scope per decision: choose stops at the deadline
    enforces_deadline = True

    async def choose(self, request: DecisionRequest) -> Reply | None:
        channel = self._running()
        if request.observation is not None and not self.wants.observation:
            request = replace(request, observation=None)  # a caller that did not ask
        line = encode(request.to_json())
        if self._pending:
            line = self._take_pending() + line
        exchange = getattr(channel, "exchange", None)
        if exchange is not None:
            answer = await exchange(line, request.deadline)
        else:  # a plugin's channel without the fast path
            answer = None
            with trio.move_on_at(request.deadline):
                await channel.send(line)
                answer = await channel.receive_line(fresh=True)
        if answer is None:
            return None
        message = decode_bot_message(answer)
        if not isinstance(message, Reply):
            raise BotFailure("protocol", f"sent {type(message).__name__.lower()} "
                                         f"while a reply to request {request.id} was due")
        return message

    async def notify(self, notice: ActionNotice) -> None:
        if not self.wants.notifications:
            return
        line = notice.line
        self._pending.append(line)
        self._pending_bytes += len(line)
        if self._pending_bytes > MAX_PENDING_BYTES:
            await self._send_bounded(b"")

    async def game_over(self, result: GameOverInfo) -> None:
        await self._send_bounded(encode(result.to_json()))

    async def abandon(self, failure: BotFailure) -> str:
        if self._channel is None:
            return ""
        channel, self._channel = self._channel, None
        self._take_pending()
        return await channel.abort(failure, self.limits.quit_grace_seconds)

    def take_incidents(self) -> list[dict[str, JSON]]:
        incidents, self._incidents = self._incidents, []
        return incidents

    async def close(self) -> None:
        """Tell the bot to quit, give it a moment, then end it regardless."""
        if self._channel is None:
            return
        channel, self._channel = self._channel, None
        with trio.CancelScope(shield=True):
            with trio.move_on_after(self.limits.quit_grace_seconds), \
                    contextlib.suppress(BotFailure):  # gone already: nothing to tell
                await channel.send(encode(quit_message()))
            await channel.close(self.limits.quit_grace_seconds)

    async def handshake(self) -> None:
        """Reach a fresh bot and do hello -> ready (``start_game`` does this itself
        when needed; ``arena validate`` times it on its own).  Raises BotFailure."""
        if self._channel is not None:
            raise RuntimeError("the bot is already reached")
        await self._start()

    async def ping(self) -> None:
        """Ping the running process; raises BotFailure without a pong in time."""
        await self._ping()

    # ------------------------------------------------------------ helpers

    def _running(self) -> BotChannel:
        if self._channel is None:
            raise BotFailure("crash", "the process is not running")
        return self._channel

    async def _open_through_transports(self) -> BotChannel:
        from arena.runner.transports import open_bot_channel

        return await open_bot_channel(self.spec, self.limits, self._nursery, self._log_dir)

    async def _receive(self) -> BotMessage:
        return decode_bot_message(await self._running().receive_line())

    async def _start(self) -> None:
        """Open a fresh channel and do the handshake.  A failure is marked as one before
        the handshake: the channel then says whether the bot died, and why."""
        try:
            await self._handshake()
        except BotFailure as failure:
            failure.before_handshake = True
            raise

    async def _handshake(self) -> None:
        with trio.move_on_after(self.limits.handshake_seconds) as scope:
            channel = traced(await self._opener(), self.name)  # --trace: its lines, timed
            self._channel = channel
            self.kind = channel.kind
            if channel.pid is not None:
                self.pids.append(channel.pid)
            await channel.send(encode(hello(arena.__version__, self.limits.protocol_json(),
                                            self.spec.parameters_json())))
            line = await channel.receive_line()
            try:
                message = decode_bot_message(line)
            except BotFailure as failure:
                failure.output = line  # a runtime's own words, maybe (diagnosis.py)
                raise
        if scope.cancelled_caught:
            if self._channel is None:
                raise BotFailure("timeout", f"not reached within "
                                            f"{self.limits.handshake_seconds:g} s")
            raise BotFailure("timeout", f"no ready within {self.limits.handshake_seconds:g} s"
                                        " of hello")
        if not isinstance(message, Ready):
            raise BotFailure("protocol", f"answered hello with {type(message).__name__.lower()}"
                                         ", not ready")
        if message.protocol != PROTOCOL:
            raise BotFailure("protocol", f"speaks {message.protocol!r}, the arena {PROTOCOL!r}")
        self.ready = message

    async def _ping(self) -> None:
        channel = self._running()
        ping_id = next(self._pings)
        with trio.move_on_after(self.limits.ping_seconds) as scope:
            await channel.send(encode(ping(ping_id)))
            message = await self._receive()
        if scope.cancelled_caught:
            raise BotFailure("stall", f"no pong within {self.limits.ping_seconds:g} s")
        if not isinstance(message, Pong):
            raise BotFailure("protocol", f"answered ping with {type(message).__name__.lower()}")
        if message.id != ping_id:
            raise BotFailure("protocol", f"pong id {message.id!r}, expected {ping_id}")

    async def _send_bounded(self, data: bytes) -> None:
        """Send queued notifications and ``data`` outside a decision: a bot that stops
        reading its input stalls."""
        channel = self._running()
        with trio.move_on_after(self.limits.ping_seconds) as scope:
            await channel.send(self._take_pending() + data)
        if scope.cancelled_caught:
            raise BotFailure("stall", "stopped reading its input")

    def _take_pending(self) -> bytes:
        pending = b"".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        return pending
