"""A player backed by a bot process, reused across games (one game at a time).

Life of the process: started (hello -> ready within ``handshake_seconds``) when a game
needs it; between games a ping must be answered with a pong within ``ping_seconds``.
After any failure the whole process group is killed; the next game starts a fresh one.
A process that has used half of its CPU-seconds limit (RLIMIT_CPU counts over the
process's whole life) is retired between games and replaced, not counted as a failure.
A failure found between games (no pong, process gone) is an *incident*: it goes into the
next game's record, but the bot does not forfeit if the fresh process works.

Notifications (``action`` messages) are queued and written together with the next
message the bot gets (its next request, or game_over): one write and one wake-up of the
bot per decision instead of one per action.  The bot still sees every action, in order,
before it must decide.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

import arena
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.runner.limits import Limits
from arena.runner.process import BotProcess, StderrLog, group_cpu_seconds
from arena.runner.protocol import (
    EVERYTHING,
    PROTOCOL,
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Pong,
    Ready,
    Reply,
    Wants,
    encode,
    hello,
    ping,
    quit_message,
)
from arena.runner.sandbox import BotLaunch, prepare_launch

JSON = Any
# queued notifications are flushed on their own beyond this size (a very long game)
MAX_PENDING_BYTES = 1 << 20
# a process that has used this share of its CPU-seconds limit is replaced between games
CPU_RECYCLE = 0.5
# how often, at most, a playing bot's control group is checked for a limit it went over
# (reading the counters costs about as much as a quick decision); always at game over
LIMIT_CHECK_SECONDS = 0.05
_starts = itertools.count(1)
_CORES = os.cpu_count() or 1


class ProcessPlayer:
    kind = "process"

    def __init__(self, spec: BotSpec, limits: Limits, nursery: trio.Nursery,
                 log_dir: Path) -> None:
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self.limits = limits.for_bot(spec.resources)
        self._nursery = nursery
        self._log_dir = log_dir
        self._process: BotProcess | None = None
        self._launch: BotLaunch | None = None  # uid, control group, scratch of the process
        self._incidents: list[dict[str, JSON]] = []
        self._pings = itertools.count(1)
        self.ready: Ready | None = None  # what the running process said about itself
        self.pids: list[int] = []  # every process started so far, oldest first
        self._pending: list[bytes] = []  # encoded notifications not yet written
        self._pending_bytes = 0
        # CPU seconds the process had used at the last look (see _cpu_nearly_spent)
        self._cpu_used, self._cpu_checked_at = 0.0, time.monotonic()
        self._next_limit_check = 0.0  # time.monotonic() of the next look at the group

    @property
    def alive(self) -> bool:
        return self._process is not None

    @property
    def pid(self) -> int | None:
        """Process (and process group) id of the running process."""
        return None if self._process is None else self._process.pid

    @property
    def log_path(self) -> Path | None:
        return None if self._process is None else self._process.stderr_log.path

    # ------------------------------------------------------------ Player interface

    async def start_game(self, info: GameInfo) -> None:
        if self._process is not None and self._cpu_nearly_spent():
            await self.close()  # retire it before RLIMIT_CPU kills it in mid-game
        if self._process is not None:
            try:
                await self._ping()
            except BotFailure as failure:
                tail = await self.abandon(failure)
                self._incidents.append({"bot": self.name, "phase": "between games",
                                        "reason": failure.reason, "detail": failure.detail,
                                        "stderr_tail": tail})
        if self._process is None:
            await self._start()
        await self._send_bounded(encode(info.to_json()))

    @property
    def wants(self) -> Wants:
        """What the running process asked for in its ready message."""
        return EVERYTHING if self.ready is None else self.ready.wants

    async def choose(self, request: DecisionRequest) -> Reply:
        process = self._running()
        if request.observation is not None and not self.wants.observation:
            request = replace(request, observation=None)  # a caller that did not ask
        line = encode(request.to_json())
        await process.send_raw(self._take_pending() + line if self._pending else line)
        message = await process.receive(answer_to_fresh_message=True)
        if not isinstance(message, Reply):
            raise BotFailure("protocol", f"sent {type(message).__name__.lower()} "
                                         f"while a reply to request {request.id} was due")
        self._check_group(force=False)
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
        self._check_group(force=True)
        await self._send_bounded(encode(result.to_json()))

    async def abandon(self, failure: BotFailure) -> str:
        if self._process is None:
            return ""
        process, self._process = self._process, None
        self._take_pending()
        if self._launch is not None and (over := self._launch.exceeded()) is not None:
            failure.reason, failure.detail = over  # the real cause of the crash or stall
        elif failure.reason == "crash":  # say how it ended: exit code, signal, still running
            failure.detail = await process.exit_description(failure.detail,
                                                            self.limits.quit_grace_seconds)
            cause = None if self._launch is None else \
                self._launch.crash_cause(process.returncode)
            if cause is not None:
                failure.reason, how = cause
                failure.detail = re.sub(r"(exited with code|killed by) \S+$", how,
                                        failure.detail)
        elif failure.reason in ("timeout", "stall") and self._launch is not None:
            # silent because it is gone, though something still holds its output?
            gone = self._launch.why_silent(process.pid, process.returncode,
                                           process.stdout_inode)
            if gone is not None:
                failure.reason, failure.detail = "crash", gone
        await process.kill()
        self._cleanup_scratch()
        # let the drainer read what the bot wrote last (often why it failed)
        with trio.move_on_after(self.limits.quit_grace_seconds):
            await process.stderr_done.wait()
        return process.stderr_log.tail()

    def take_incidents(self) -> list[dict[str, JSON]]:
        incidents, self._incidents = self._incidents, []
        return incidents

    async def close(self) -> None:
        """Ask the process to quit, give it a moment, then kill its group regardless."""
        if self._process is None:
            return
        process, self._process = self._process, None
        with trio.CancelScope(shield=True):
            with trio.move_on_after(self.limits.quit_grace_seconds):
                try:
                    await process.send(quit_message())
                    await process.wait()
                except BotFailure:
                    pass
            await process.kill()
        self._cleanup_scratch()

    async def handshake(self) -> None:
        """Start a fresh process and do hello -> ready (``start_game`` does this itself
        when needed; ``arena validate`` times it on its own).  Raises BotFailure."""
        if self._process is not None:
            raise RuntimeError("the process is already running")
        await self._start()

    async def ping(self) -> None:
        """Ping the running process; raises BotFailure without a pong in time."""
        await self._ping()

    # ------------------------------------------------------------ helpers

    def _running(self) -> BotProcess:
        if self._process is None:
            raise BotFailure("crash", "the process is not running")
        return self._process

    async def _start(self) -> None:
        self._launch = prepare_launch(self.spec, self.limits)
        plan = self._launch.plan
        number = next(_starts)
        # the arena's pid keeps the logs of two runs into one directory apart
        log = StderrLog(self._log_dir / f"{_slug(self.name)}-{os.getpid()}-{number}.stderr.log",
                        self.limits.stderr_log_bytes, self.limits.stderr_tail_bytes)
        try:
            process = BotProcess(plan, self.limits.max_line_bytes, log,
                                 self.limits.reply_busy_wait_seconds)
        except BotFailure:
            log.close()
            self._cleanup_scratch()
            raise
        self._process = process
        self._cpu_used, self._cpu_checked_at = 0.0, time.monotonic()
        self.pids.append(process.pid)
        self._nursery.start_soon(process.drain_stderr)
        with trio.move_on_after(self.limits.handshake_seconds) as scope:
            await process.send(hello(arena.__version__, self.limits.protocol_json()))
            message = await process.receive()
        if scope.cancelled_caught:
            raise BotFailure("timeout", f"no ready within {self.limits.handshake_seconds:g} s"
                                        " of hello")
        if not isinstance(message, Ready):
            raise BotFailure("protocol", f"answered hello with {type(message).__name__.lower()}"
                                         ", not ready")
        if message.protocol != PROTOCOL:
            raise BotFailure("protocol", f"speaks {message.protocol!r}, the arena {PROTOCOL!r}")
        self.ready = message

    async def _ping(self) -> None:
        process = self._running()
        ping_id = next(self._pings)
        with trio.move_on_after(self.limits.ping_seconds) as scope:
            await process.send(ping(ping_id))
            message = await process.receive()
        if scope.cancelled_caught:
            raise BotFailure("stall", f"no pong within {self.limits.ping_seconds:g} s")
        if not isinstance(message, Pong):
            raise BotFailure("protocol", f"answered ping with {type(message).__name__.lower()}")
        if message.id != ping_id:
            raise BotFailure("protocol", f"pong id {message.id!r}, expected {ping_id}")

    async def _send_bounded(self, data: bytes) -> None:
        """Send queued notifications and ``data`` outside a decision: a bot that stops
        reading its input stalls."""
        process = self._running()
        with trio.move_on_after(self.limits.ping_seconds) as scope:
            await process.send_raw(self._take_pending() + data)
        if scope.cancelled_caught:
            raise BotFailure("stall", "stopped reading its input")

    def _check_group(self, force: bool) -> None:
        """Raise BotFailure("memory" or "processes") if the bot's processes went over a
        limit of their control group (looked at every LIMIT_CHECK_SECONDS, or now)."""
        if self._launch is None or self._launch.group is None:
            return
        now = time.monotonic()
        if not force and now < self._next_limit_check:
            return
        self._next_limit_check = now + LIMIT_CHECK_SECONDS
        over = self._launch.exceeded()
        if over is not None:
            raise BotFailure(*over)

    def _cpu_nearly_spent(self) -> bool:
        """Has the process used CPU_RECYCLE of its CPU-seconds limit?  Scanning /proc
        costs milliseconds, so it is skipped while even every core busy since the last
        scan could not have reached the threshold."""
        threshold = CPU_RECYCLE * self.limits.cpu_seconds
        now = time.monotonic()
        most = self._cpu_used + (now - self._cpu_checked_at) * _CORES
        if most <= threshold or self._process is None:
            return False
        self._cpu_used, self._cpu_checked_at = group_cpu_seconds(self._process.pid), now
        return self._cpu_used > threshold

    def _take_pending(self) -> bytes:
        pending = b"".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        return pending

    def _cleanup_scratch(self) -> None:
        """After the process is killed: its uid, control group and scratch folder."""
        if self._launch is not None:
            self._launch.release()
            self._launch = None


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"
