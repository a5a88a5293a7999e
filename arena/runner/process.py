"""The local-process transport: one running bot process (start, talk, drain stderr, kill
the whole group, reap) as a :class:`~arena.runner.channel.BotChannel`.

:func:`open_process_channel` plans the launch (``none`` or ``bwrap``, see
:mod:`arena.runner.sandbox`), starts the process with a private scratch folder and a
stderr log, and returns a :class:`ProcessChannel`.  A process that has used half of its
CPU-seconds limit (RLIMIT_CPU counts over the process's whole life) says it is worn out,
so the connection replaces it between games rather than have it killed in mid-game.

The process is started synchronously from the arena's thread (a fork takes milliseconds)
rather than through ``trio.open_process``, which forks from a worker thread: a bot whose
parent-death signal is tied to that thread would be killed when the thread retires.
Its exit is awaited through a pidfd, its pipes are trio streams.

Waiting for a reply: a quick bot answers within tens of microseconds.  Sleeping in the
event loop costs tens of microseconds of the arena's CPU per decision (registering the
pipe with epoll, scheduling the task), more than the rest of a quick decision.  So a
decision first waits for the reply in the kernel, outside the event loop, for a short
bounded moment (``Limits.quick_reply_wait_seconds``, one ``select``): the arena's CPU is
free meanwhile (the bot may run on it) and the reply wakes it with one system call.  Until
issue 16 this moment was a busy-wait; measured on this project's 2-vCPU machines, waiting
in the kernel gave the same median round trip with half the arena's CPU and a third of
its 90th percentile.  Only while the bot's last reply came within that moment (a bot
that thinks costs one such moment, not one per decision); the event loop and every other
task wait meanwhile, which is why the moment is short.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena.runner.cgroups import MEMORY_LOOK_SECONDS
from arena.runner.diagnosis import could_not_start, died_before_handshake
from arena.runner.failures import BotFailure
from arena.runner.lines import CHUNK, LineReader
from arena.runner.pipes import PipeEnd
from arena.runner.protocol import BotMessage, decode_bot_message, encode
from arena.runner.sandbox import (
    BotLaunch,
    LaunchPlan,
    address_space_backstop,
    prepare_launch,
)

if TYPE_CHECKING:
    from arena.runner.botspec import BotSpec
    from arena.runner.cgroups import BotGroup, MemoryWatch
    from arena.settings import Limits

# the start of a bot's stderr kept in memory: why a runtime could not start
STDERR_HEAD_BYTES = 4096
# what is read of a dead bot's unread output to see why it died
OUTPUT_LOOK_BYTES = 4096
# a reply caught by the quick wait yields to the event loop only if it has not run for
# this long: a yield costs as much as the quick wait saves, but other tasks (games played
# alongside, stderr drainers) must not wait more than about this
YIELD_EVERY_SECONDS = 1e-3
_last_yield = 0.0  # time.perf_counter() when a reply was last awaited in the event loop


async def _yield_now_and_then() -> None:
    """Let other tasks run if replies caught by the quick wait kept the event loop from
    them for :data:`YIELD_EVERY_SECONDS`: a yield costs as much as the quick wait saves."""
    global _last_yield
    now = time.perf_counter()
    if now - _last_yield >= YIELD_EVERY_SECONDS:
        _last_yield = now
        await trio.lowlevel.checkpoint()


class StderrLog:
    """A bot's stderr: the log file keeps its first and last ``cap // 2`` bytes (what
    went wrong first, and how it ended) with a line saying how much was dropped between;
    the last ``tail`` bytes are also kept in memory for the game record, and the first
    :data:`STDERR_HEAD_BYTES` for a bot that dies before its handshake (a runtime says
    first why it cannot start)."""

    def __init__(self, path: Path | None, cap: int, tail: int) -> None:
        self.path = path
        # owner-only (0600), like the folder it is in: a bot's output may hold secrets
        self._file = os.fdopen(os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600), "ab") \
            if path is not None else None
        self._head_cap = cap - cap // 2
        self._end_cap = cap // 2
        self._end = bytearray()  # the last bytes beyond the head, written at close
        self._tail_size = tail
        self._tail = bytearray()
        self._first = bytearray()  # the first STDERR_HEAD_BYTES, for excerpt()
        self.written = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        if len(self._first) < STDERR_HEAD_BYTES:
            self._first += chunk[: STDERR_HEAD_BYTES - len(self._first)]
        self.total += len(chunk)
        if self._file is not None:
            part = chunk[: self._head_cap - self.written] if self.written < self._head_cap \
                else b""
            if part:
                self._file.write(part)
                self.written += len(part)
            rest = chunk[len(part):]
            if rest and self._end_cap:
                self._end += rest[-self._end_cap:]
                if len(self._end) > self._end_cap:
                    del self._end[: len(self._end) - self._end_cap]
        self._tail += chunk[-self._tail_size:]
        if len(self._tail) > self._tail_size:
            del self._tail[: len(self._tail) - self._tail_size]

    def tail(self) -> str:
        text = bytes(self._tail).decode("utf-8", errors="replace")
        if self.total > len(self._tail):
            text = "..." + text
        return text

    def head(self) -> str:
        """The first :data:`STDERR_HEAD_BYTES` (all of it when that is all)."""
        return bytes(self._first).decode("utf-8", errors="replace")

    def excerpt(self) -> str:
        """Its start and its end, at most ``tail`` bytes in all (all of it when short),
        with a line where bytes are left out."""
        if self.total <= self._tail_size or not self._tail_size:
            return self.tail()
        first = self._first[: self._tail_size // 4]
        end = self._tail[len(self._tail) - (self._tail_size - len(first)):]
        left_out = self.total - len(first) - len(end)
        return (bytes(first).decode("utf-8", errors="replace")
                + f"\n[arena: {left_out} bytes of stderr left out here]\n"
                + bytes(end).decode("utf-8", errors="replace"))

    def close(self) -> None:
        if self._file is not None:
            dropped = self.total - self.written - len(self._end)
            if dropped > 0:
                self._file.write(f"\n[arena: {dropped} bytes of stderr dropped here]\n"
                                 .encode())
            self._file.write(self._end)
            self._file.close()
            self._file = None


def group_cpu_seconds(pgid: int) -> float:
    """The most CPU time (user + system) used by one live process of group ``pgid``:
    what RLIMIT_CPU, a per-process limit, is measured against.  0.0 if none is found."""
    ticks = os.sysconf("SC_CLK_TCK")
    most = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # the name may hold spaces
        if int(fields[2]) == pgid:
            most = max(most, (int(fields[11]) + int(fields[12])) / ticks)
    return most


def bot_cpu_seconds(pgid: int, group: BotGroup | None) -> float:
    """CPU seconds the bot has used: over its whole process tree where its control group
    counts them, else the most of one live process of its group (RLIMIT_CPU's view)."""
    tree = None if group is None else group.cpu_seconds()
    return tree if tree is not None else group_cpu_seconds(pgid)


class BotProcess:
    def __init__(self, plan: LaunchPlan, max_line: int, stderr_log: StderrLog,
                 quick_wait_seconds: float = 0.0, command: Sequence[str] = ()) -> None:
        """Start the process now.  Raises BotFailure("crash") if it cannot be started
        (its detail says why: ``command`` is the bot's own argv, without a sandbox's
        prefix).  ``quick_wait_seconds``: see the module docstring."""
        pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(3)]
        child_ends = (pipes[0][0], pipes[1][1], pipes[2][1])
        try:
            self._popen = subprocess.Popen(
                plan.argv, stdin=child_ends[0], stdout=child_ends[1], stderr=child_ends[2],
                cwd=plan.cwd, env=plan.env, preexec_fn=plan.preexec,
                start_new_session=True, close_fds=True, pass_fds=plan.pass_fds,
            )
        except (OSError, subprocess.SubprocessError) as error:
            for read_end, write_end in pipes:
                os.close(read_end)
                os.close(write_end)
            detail = could_not_start(command or plan.argv, Path(plan.cwd),
                                     plan.env.get("PATH", ""), error) \
                if isinstance(error, OSError) else f"could not start {plan.argv[0]!r}: {error}"
            raise BotFailure("crash", detail) from None
        finally:
            plan.close_fds()
            for fd in child_ends:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.pid = self._popen.pid  # also the process group id (start_new_session)
        self.stdout_inode = os.fstat(pipes[1][0]).st_ino  # to find who holds its output
        self.stdin_inode = os.fstat(pipes[0][1]).st_ino  # ... and who holds its input
        self._pidfd = os.pidfd_open(self.pid)
        self._stdin = PipeEnd(pipes[0][1])
        self._stdout = PipeEnd(pipes[1][0])
        self._stderr = trio.lowlevel.FdStream(pipes[2][0])
        self._lines = LineReader(self._stdout, max_line)
        self.stderr_log = stderr_log
        self.stderr_done = trio.Event()  # the drainer has read stderr to its end
        self.killed = False
        # how long to wait for a reply outside the event loop (module docstring); 0 never
        self.quick_wait_seconds = quick_wait_seconds
        self._quick = True  # the last reply came within quick_wait_seconds
        self._poller: select.poll | None = None  # for unread_output

    # ------------------------------------------------------------ talking

    async def send(self, message: dict[str, object]) -> None:
        await self.send_raw(encode(message))

    def unread_output(self) -> bool:
        """Has the bot written something the arena has not read (its end not counted)?
        The protocol has the bot speak only when spoken to, so before the arena writes
        this must be False: a reply written before its request guessed the id."""
        if self._lines.buffered:
            return True
        if self._stdout.fd < 0:
            return False
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self._stdout.fd, select.POLLIN)
        return any(events & select.POLLIN for _, events in self._poller.poll(0))

    def rest_of_output(self, limit: int = OUTPUT_LOOK_BYTES) -> bytes:
        """What the bot wrote that the arena has not read, up to ``limit`` bytes, without
        waiting (for a dead bot: the rest of what it said)."""
        rest = bytes(self._lines.take_buffered())
        while self._stdout.fd >= 0 and len(rest) < limit:
            try:
                chunk = os.read(self._stdout.fd, limit - len(rest))
            except OSError:  # nothing more now (EAGAIN), or closed
                break
            if not chunk:
                break
            rest += chunk
        return rest[:limit]

    async def send_raw(self, data: bytes) -> None:
        """Write already encoded lines."""
        try:
            await self._stdin.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise BotFailure("crash", "closed its input") from None

    async def receive_line(self, *, fresh: bool = False) -> bytes:
        """The next line.  A crash is reported at once; how the process ended is
        added by :meth:`exit_description` outside the decision's time limit.

        ``fresh``: the line answers what was just written, so it is almost never there
        yet: wait for it without trying a read first (one system call less per
        decision)."""
        if fresh and not self._lines.buffered:
            await self._wait_for_answer()
        return await self._lines.next_line()

    async def receive(self, answer_to_fresh_message: bool = False) -> BotMessage:
        """The next line as a message (for tests of the process alone)."""
        return decode_bot_message(await self.receive_line(fresh=answer_to_fresh_message))

    async def _wait_for_answer(self) -> None:
        """Until the pipe has something (or is closed): a short wait in the kernel when
        the bot has been quick (see the module docstring), else sleep in the event loop."""
        if self._quick and self.quick_wait_seconds > 0 and \
                self._stdout.wait_readable_blocking(self.quick_wait_seconds):
            await _yield_now_and_then()
            return
        await self._sleep_until_readable()

    async def _sleep_until_readable(self) -> None:
        global _last_yield
        started = time.perf_counter()
        with contextlib.suppress(trio.ClosedResourceError):  # next_line reports it
            await self._stdout.wait_readable()
        _last_yield = time.perf_counter()
        self._quick = _last_yield - started <= self.quick_wait_seconds

    async def exchange(self, data: bytes, deadline: float) -> bytes | None:
        """Write ``data`` (a request) and return the line that answers it, or None if
        none came by ``deadline`` (trio's clock).

        A quick bot's decision is done without the event loop: one write, a short wait
        in the kernel, one read.  Only a bot that does not answer within it (or a
        full pipe, a partial line) costs a cancel scope and a sleep in the event loop;
        the deadline is enforced there."""
        fd = self._stdin.fd
        sent = 0
        if fd >= 0 and not self._lines.buffered:
            try:
                sent = os.write(fd, data)
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise BotFailure("crash", "closed its input") from None
            if sent == len(data) and self._quick and self.quick_wait_seconds > 0 and \
                    self._stdout.wait_readable_blocking(self.quick_wait_seconds):
                try:
                    chunk = os.read(self._stdout.fd, CHUNK)
                except OSError:
                    chunk = b""
                line = self._lines.line_now(chunk) if chunk else None
                if line is not None:
                    await _yield_now_and_then()
                    return line
        with trio.move_on_at(deadline):
            if sent < len(data):
                await self.send_raw(data[sent:])
            if not self._lines.buffered:
                await self._sleep_until_readable()
            return await self._lines.next_line()
        return None

    async def drain_stderr(self) -> None:
        """Run in a nursery for the life of the process."""
        try:
            while chunk := await self._stderr.receive_some(65536):
                self.stderr_log.add(chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._stderr.close()
            self.stderr_log.close()
            self.stderr_done.set()

    # ------------------------------------------------------------ life and death

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        """Wait for the process to exit and reap it."""
        if self._popen.returncode is None and self._pidfd >= 0:
            await trio.lowlevel.wait_readable(self._pidfd)
        return self._popen.wait()

    async def exit_description(self, what: str, grace: float = 0.5) -> str:
        """``what`` happened; add how the process ended, waiting ``grace`` seconds."""
        with trio.move_on_after(grace):
            await self.wait()
        code = self._popen.returncode
        if code is None:
            return f"{what}; still running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"{what}; killed by {name}"
        return f"{what}; exited with code {code}"

    async def kill(self) -> None:
        """Kill the whole process group, reap the leader, close the pipes."""
        self.killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with trio.CancelScope(shield=True):
            await self.wait()
            if self._pidfd >= 0:
                os.close(self._pidfd)
                self._pidfd = -1
            self._stdin.close()
            self._stdout.close()
            # stderr is closed by its drainer once it has read the last bytes; if a
            # stray descendant still holds it open, the pool's nursery cancels the drainer


# ------------------------------------------------------------------ the channel

# the failures before a bot's ready that may be its death (its channel then says why)
START_DEATHS = ("crash", "malformed", "timeout")
# a process that has used this share of its CPU-seconds limit is replaced between games
CPU_RECYCLE = 0.5
# Quick decisions look at the bot's control group at most this often (every other
# message to the bot, every failure and the end of a game always do).  The kernel enforces the
# group's limits at once; the look only names the limit a bot broke, so naming it up
# to this much later costs nothing but saves a quick decision most of its time.
GROUP_LOOK_SECONDS = 0.01
# ... and after every decision that took longer than this (a look is cheap beside it)
SLOW_DECISION_SECONDS = 0.5e-3
_CORES = os.cpu_count() or 1
_starts = itertools.count(1)


class ProcessChannel:
    """A :class:`~arena.runner.channel.BotChannel` to a local bot process."""

    kind = "process"

    def __init__(self, process: BotProcess, limits: Limits, launch: BotLaunch) -> None:
        self.process = process
        self.limits = limits
        self.launch = launch  # its uid, control group and scratch folder
        # CPU seconds the process had used at the last look (see worn_out)
        self._cpu_used, self._cpu_checked_at = 0.0, time.monotonic()
        self._next_group_look = 0.0  # perf_counter time of the next look at the group

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def log_path(self) -> Path | None:
        return self.process.stderr_log.path

    async def send(self, data: bytes) -> None:
        self._check_group()
        if self.process.unread_output():
            raise BotFailure("protocol", "wrote a message before the arena asked for one "
                                         "(a reply before its request)")
        await self.process.send_raw(data)

    async def receive_line(self, *, fresh: bool = False) -> bytes:
        line = await self.process.receive_line(fresh=fresh)
        self._check_group()
        return line

    async def exchange(self, data: bytes, deadline: float) -> bytes | None:
        """A request and its answer (see :meth:`BotProcess.exchange`).  The control
        group is looked at after the answer when the decision took longer than
        :data:`SLOW_DECISION_SECONDS`, else at most every :data:`GROUP_LOOK_SECONDS`: a
        look reads three kernel files (about 20 µs, more than a quick decision)."""
        if self.process.unread_output():
            raise BotFailure("protocol", "wrote a message before the arena asked for one "
                                         "(a reply before its request)")
        started = time.perf_counter()
        line = await self.process.exchange(data, deadline)
        now = time.perf_counter()
        # a decision that took a while (forking, allocating) is looked at right after it
        if now >= self._next_group_look or now - started > SLOW_DECISION_SECONDS:
            self._check_group()
        return line

    def _check_group(self) -> None:
        """BotFailure("memory", "processes" or "cpu") once the bot's processes went over
        a limit of their control group (or the memory watch stopped them)."""
        self._next_group_look = time.perf_counter() + GROUP_LOOK_SECONDS
        if (over := self.launch.exceeded()) is not None:
            raise BotFailure(*over)

    async def watch_memory(self, watch: MemoryWatch) -> None:
        """Where no control group bounds the bot's memory: :func:`enforce_memory` until
        the process is killed (the connection then reads the end of its output, and
        :meth:`BotLaunch.exceeded` names the reason)."""
        await enforce_memory(watch, self.process.pid, lambda: self.process.killed)

    async def close(self, grace: float) -> None:
        with trio.CancelScope(shield=True):
            with trio.move_on_after(grace):
                await self.process.wait()
            await self.process.kill()
        self.launch.release()

    async def abort(self, failure: BotFailure, grace: float) -> str:
        process, launch = self.process, self.launch
        starting = failure.before_handshake and failure.reason in START_DEATHS
        if starting:  # a runtime that cannot start says so and exits: did it?
            with trio.move_on_after(grace):
                await process.wait()
        if (over := launch.exceeded()) is not None:
            failure.reason, failure.detail = over  # the real cause of the crash or stall
        elif starting and process.returncode is not None:
            await self._diagnose_start(failure, grace)
        elif failure.reason == "crash":  # say how it ended: exit code, signal, still running
            failure.detail = await process.exit_description(failure.detail, grace)
            cause = launch.crash_cause(process.returncode)
            if cause is not None:
                failure.reason, how = cause
                failure.detail = re.sub(r"(exited with code|killed by) \S+$", how,
                                        failure.detail)
        elif failure.reason in ("timeout", "stall"):
            # silent because it is gone, though something still holds its output?
            gone = launch.why_silent(process.pid, process.returncode, process.stdout_inode,
                                     process.stdin_inode)
            if gone is not None:
                failure.reason, failure.detail = "crash", gone
        await process.kill()
        launch.release()
        # let the drainer read what the bot wrote last (often why it failed)
        with trio.move_on_after(grace):
            await self.process.stderr_done.wait()
        log = self.process.stderr_log
        return log.excerpt() if failure.before_handshake else log.tail()

    async def _diagnose_start(self, failure: BotFailure, grace: float) -> None:
        """The bot died before its handshake: say why (arena/runner/diagnosis.py)."""
        process, launch = self.process, self.launch
        returncode = process.returncode
        assert returncode is not None
        cause = launch.crash_cause(returncode)
        if cause is not None and cause[0] == "forbidden":
            failure.reason, failure.detail = cause
            return
        with trio.move_on_after(grace):  # it is dead: its stderr ends soon
            await process.stderr_done.wait()
        log = process.stderr_log
        stderr = log.head() if log.total <= STDERR_HEAD_BYTES else f"{log.head()}\n{log.tail()}"
        output = b"\n".join((failure.output, process.rest_of_output()))
        signal_number = launch.signal_of(returncode)
        failure.reason = "crash"
        failure.detail = died_before_handshake(
            launch.command, Path(launch.plan.cwd), launch.plan.env.get("PATH", ""),
            None if signal_number else returncode, signal_number,
            output.decode("utf-8", errors="replace"), stderr, launch.limits.memory_mb,
            address_space_backstop(launch.limits) >> 20)

    def worn_out(self) -> bool:
        """Has the process used CPU_RECYCLE of its CPU-seconds limit?  Scanning /proc
        costs milliseconds, so it is skipped while even every core busy since the last
        scan could not have reached the threshold."""
        threshold = CPU_RECYCLE * self.limits.cpu_seconds
        now = time.monotonic()
        most = self._cpu_used + (now - self._cpu_checked_at) * _CORES
        if most <= threshold:
            return False
        used = bot_cpu_seconds(self.process.pid, self.launch.group)
        self._cpu_used, self._cpu_checked_at = used, now
        return self._cpu_used > threshold


async def enforce_memory(watch: MemoryWatch, leader: int, done: Callable[[], bool]) -> bool:
    """:meth:`MemoryWatch.enforce` every :data:`~arena.runner.cgroups.MEMORY_LOOK_SECONDS`
    until ``done()``; True once it killed the bot (``watch.over`` says why)."""
    while not done():
        await trio.sleep(MEMORY_LOOK_SECONDS)
        if not done() and watch.enforce(leader):
            return True
    return False


def open_process_channel(spec: BotSpec, limits: Limits, nursery: trio.Nursery,
                         log_dir: Path) -> ProcessChannel:
    """Start ``spec``'s process (sandboxed as ``limits.sandbox`` says) with a private
    scratch folder; its stderr drains into a log under ``log_dir`` from ``nursery``.
    Raises BotFailure("crash") if it cannot be started."""
    launch = prepare_launch(spec, limits)
    try:
        plan = launch.plan
        number = next(_starts)
        bound_logs(log_dir, limits.logs_total_bytes - limits.stderr_log_bytes)
        # the arena's pid keeps the logs of two runs into one directory apart
        log = StderrLog(log_dir / f"{slug(spec.name)}-{os.getpid()}-{number}.stderr.log",
                        limits.stderr_log_bytes, limits.stderr_tail_bytes)
        try:
            process = BotProcess(plan, limits.max_line_bytes, log,
                                 limits.quick_reply_wait_seconds, launch.command)
        except BotFailure:
            log.close()
            raise
        launch.started()
    except BaseException:
        launch.release()
        raise
    nursery.start_soon(process.drain_stderr)
    channel = ProcessChannel(process, limits, launch)
    watch = launch.watch_memory(process.pid)
    if watch is not None:
        nursery.start_soon(channel.watch_memory, watch)
    return channel


def bound_logs(log_dir: Path, total: int) -> None:
    """Delete the oldest stderr logs in ``log_dir`` until the rest take at most
    ``total`` bytes: a league's logs are bounded, however many processes it starts."""
    try:
        logs = []
        with os.scandir(log_dir) as entries:
            for entry in entries:
                if entry.name.endswith(".stderr.log") and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    logs.append((info.st_mtime, info.st_size, entry.path))
    except OSError:
        return
    size = sum(length for _, length, _ in logs)
    for _, length, path in sorted(logs):
        if size <= total:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            size -= length


def slug(name: str) -> str:
    """A bot's name as a safe part of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"
