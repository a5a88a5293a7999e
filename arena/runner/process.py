"""One running bot process: start, talk, drain stderr, kill the whole group, reap.

The process is started synchronously from the arena's thread (a fork takes milliseconds)
rather than through ``trio.open_process``, which forks from a worker thread: a bot whose
parent-death signal is tied to that thread would be killed when the thread retires.
Its exit is awaited through a pidfd, its pipes are trio streams.

Waiting for a reply: a quick bot answers within tens of microseconds.  Sleeping in the
event loop at once lets the arena's CPU go idle, and where the bot runs on another CPU
each decision then pays for waking two idle CPUs; on a virtual machine (a halted vCPU
is woken through the host) that measured about 60 µs per round trip (90 against 30 with
both on one CPU), more than everything else in a decision together.  So
:meth:`BotProcess.receive` first busy-waits a short, bounded moment
(``Limits.reply_busy_wait_seconds``) for the reply, which keeps the arena's CPU awake:
that saved about 45 µs of a 130 µs lean decision (``arena bench protocol`` measures it
in every run).  Only with more than one CPU (on one CPU the bot cannot run meanwhile),
and only while the bot's last reply came within that moment (a bot that thinks costs
one such moment, not one per decision).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import trio

from arena.runner.failures import BotFailure
from arena.runner.lines import LineReader
from arena.runner.pipes import PipeEnd
from arena.runner.protocol import BotMessage, decode_bot_message, encode
from arena.runner.sandbox import LaunchPlan

# a reply caught busy-waiting yields to the event loop only if it has not run for this
# long: a yield costs as much as the wake-ups saved, but other tasks (games played
# alongside, stderr drainers) must not wait more than about this
YIELD_EVERY_SECONDS = 1e-3
_last_yield = 0.0  # time.perf_counter() when a reply was last awaited in the event loop


class StderrLog:
    """A bot's stderr: the log file keeps its first and last ``cap // 2`` bytes (what
    went wrong first, and how it ended) with a line saying how much was dropped between;
    the last ``tail`` bytes are also kept in memory for the game record."""

    def __init__(self, path: Path | None, cap: int, tail: int) -> None:
        self.path = path
        self._file = open(path, "ab") if path is not None else None  # noqa: SIM115
        self._head_cap = cap - cap // 2
        self._end_cap = cap // 2
        self._end = bytearray()  # the last bytes beyond the head, written at close
        self._tail_size = tail
        self._tail = bytearray()
        self.written = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
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


class BotProcess:
    def __init__(self, plan: LaunchPlan, max_line: int, stderr_log: StderrLog,
                 busy_wait_seconds: float = 0.0) -> None:
        """Start the process now.  Raises BotFailure("crash") if it cannot be started.
        ``busy_wait_seconds``: see the module docstring (ignored with one CPU)."""
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
            raise BotFailure("crash", f"could not start {plan.argv[0]!r}: {error}") from None
        finally:
            plan.close_fds()
            for fd in child_ends:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.pid = self._popen.pid  # also the process group id (start_new_session)
        self.stdout_inode = os.fstat(pipes[1][0]).st_ino  # to find who holds its output
        self._pidfd = os.pidfd_open(self.pid)
        self._stdin = PipeEnd(pipes[0][1])
        self._stdout = PipeEnd(pipes[1][0])
        self._stderr = trio.lowlevel.FdStream(pipes[2][0])
        self._lines = LineReader(self._stdout, max_line)
        self.stderr_log = stderr_log
        self.stderr_done = trio.Event()  # the drainer has read stderr to its end
        self.killed = False
        # how long to busy-wait for a reply (module docstring); 0 never
        self.spin_seconds = busy_wait_seconds if len(os.sched_getaffinity(0)) > 1 else 0.0
        self._quick = True  # the last reply came within spin_seconds

    # ------------------------------------------------------------ talking

    async def send(self, message: dict[str, object]) -> None:
        await self.send_raw(encode(message))

    async def send_raw(self, data: bytes) -> None:
        """Write already encoded lines."""
        try:
            await self._stdin.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise BotFailure("crash", "closed its input") from None

    async def receive(self, answer_to_fresh_message: bool = False) -> BotMessage:
        """The next message.  A crash is reported at once; how the process ended is
        added by :meth:`exit_description` outside the decision's time limit.

        ``answer_to_fresh_message``: the message answers what was just written, so it
        is almost never there yet: wait for it without trying a read first (one system
        call less per decision)."""
        if answer_to_fresh_message and not self._lines.buffered:
            await self._wait_for_answer()
        return decode_bot_message(await self._lines.next_line())

    async def _wait_for_answer(self) -> None:
        """Until the pipe has something (or is closed): a short busy-wait when the bot
        has been quick (see the module docstring), else sleep in the event loop."""
        global _last_yield
        spin = self.spin_seconds
        if self._quick and spin > 0 and self._stdout.poll_readable(spin):
            now = time.perf_counter()
            if now - _last_yield >= YIELD_EVERY_SECONDS:
                _last_yield = now
                await trio.lowlevel.checkpoint()
            return
        started = time.perf_counter()
        with contextlib.suppress(trio.ClosedResourceError):  # next_line reports it
            await self._stdout.wait_readable()
        _last_yield = time.perf_counter()
        self._quick = _last_yield - started <= spin

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
