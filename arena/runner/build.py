"""A bot's build step, run once in the sandbox its bot gets (arena/runner/sandbox.py).

:func:`run_build` runs a manifest's ``build`` argv with its working directory at the root
of a private, writable copy of the bot's folder (the caller makes the copy and keeps what
the build leaves there: arena/plugins/builds.py).  It goes through the bots' own launch
path (``prepare_launch(..., build=True)``), so a build is contained as its bot would be
at the same level: bubblewrap, or level none with a uid of its own (root) or a user
namespace of its own (another user), Landlock and the syscall filter, a control group
where the machine has one; besides, its folder is writable and it has no network at any
level (level none gets a network namespace of its own).  Its own limits
(:class:`arena.settings.BuildLimits`):

* time: wall-clock seconds from its start; then its processes are killed;
* memory and processes: the bots' bounds (``Limits.memory_mb``, ``max_processes``) at
  the build's values;
* disk: what it writes into its folder (and, at level none, its scratch folder) is
  measured every :data:`DISK_LOOK_SECONDS` (apparent sizes, at least a block per entry,
  so a million empty files count); over ``disk_mb`` it is killed.  No file may grow over
  ``max_file_mb`` (RLIMIT_FSIZE: the kernel stops it at once);
* output: stdout and stderr together go to one log, of which the first and last halves of
  ``log_kb`` are kept (:class:`arena.runner.process.StderrLog`).

Whatever way it ends, every process it started is killed before :func:`run_build`
returns (its process group, its control group, its uid or its user namespace, its PID
namespace under bubblewrap), and its scratch folder is removed.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from arena.runner.botspec import BotSpec
from arena.runner.cgroups import MEMORY_LOOK_SECONDS
from arena.runner.failures import BotFailure
from arena.runner.process import StderrLog
from arena.runner.sandbox import PYTHON_PLACEHOLDER, BotLaunch, prepare_launch
from arena.settings import BuildLimits

# how often the build's files are measured against its disk limit
DISK_LOOK_SECONDS = 0.25
# an entry of the build's folders counts at least this much (a block)
ENTRY_BYTES = 4096
# after the build's first process ended, how long its output is read to its end (a
# process it left behind may hold the pipe open for ever)
DRAIN_SECONDS = 0.5
LOG_TAIL_BYTES = 4096

Progress = Callable[[float, bytes], None]  # (seconds since the start, new output)


@dataclass(frozen=True)
class BuildRun:
    """How one build ended."""

    ok: bool
    reason: str  # one line, why it failed ("" when ok): "exited with code 2", ...
    seconds: float
    log_tail: str  # the end of its output (what a person reads first)
    log_bytes: int  # everything it wrote, kept or not


def describe_argv(argv: tuple[str, ...]) -> str:
    """The argv as a shell would read it, "{python}" readable."""
    return " ".join(arg if arg == PYTHON_PLACEHOLDER else shlex.quote(arg) for arg in argv)


def run_build(spec: BotSpec, work: Path, limits: BuildLimits, sandbox: str, bot_uid: int,
              log_path: Path, progress: Progress | None = None) -> BuildRun:
    """Run ``spec.build`` in ``work`` (a copy of the bot's folder that the build may
    change; when the arena runs as root, owned by nobody but the arena, which hands it
    to the build's uid here) at sandbox level ``sandbox``; its log goes to ``log_path``.
    ``progress`` is called about ten times a second and with each piece of output.
    An ArenaError when the sandbox cannot be had at all (not the bot's fault)."""
    process_limits = limits.process_limits(sandbox, bot_uid)
    launch = prepare_launch(replace(spec, command=spec.build, folder=work), process_limits,
                            build=True)
    log = StderrLog(log_path, limits.log_kb << 10, LOG_TAIL_BYTES)
    started = time.monotonic()
    try:
        if launch.identity is not None:
            _hand_over(work, launch.identity.uid, launch.identity.gid)
        reason = _watch(launch, work, limits, log, started, progress)
    except BotFailure as failure:  # it could not be started
        reason = failure.detail
    finally:
        launch.release()  # every process it left, its group, uid, namespace, scratch
        log.close()
    return BuildRun(reason is None, reason or "", time.monotonic() - started, log.tail(),
                    log.total)


def _watch(launch: BotLaunch, work: Path, limits: BuildLimits, log: StderrLog,
           started: float, progress: Progress | None) -> str | None:
    """Start the build, read its output, keep it within its limits; why it failed."""
    plan = launch.plan
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        try:
            process = subprocess.Popen(
                plan.argv, stdin=subprocess.DEVNULL, stdout=write_end, stderr=write_end,
                cwd=plan.cwd, env=plan.env, preexec_fn=plan.preexec,
                start_new_session=True, close_fds=True, pass_fds=plan.pass_fds)
        except (OSError, subprocess.SubprocessError) as error:
            raise BotFailure("crash", f"could not be started: {error}") from None
        finally:
            plan.close_fds()
            os.close(write_end)
        launch.started()
        launch.watch_memory(process.pid)  # (where no control group bounds its memory)
        try:
            return _follow(process, read_end, launch, work, limits, log, started, progress)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    finally:
        os.close(read_end)


def _follow(process: subprocess.Popen[bytes], output: int, launch: BotLaunch, work: Path,
            limits: BuildLimits, log: StderrLog, started: float,
            progress: Progress | None) -> str | None:
    deadline = started + limits.seconds
    next_disk_look = started + DISK_LOOK_SECONDS
    ended_at: float | None = None  # when its first process ended
    output_open = True
    folders = [work, *([launch.scratch] if launch.scratch is not None else [])]
    watch = launch.memory_watch
    wait = 0.1 if watch is None else MEMORY_LOOK_SECONDS
    next_memory_look = started
    while True:
        now = time.monotonic()
        chunk = b""
        if output_open:
            readable, _, _ = select.select([output], [], [], wait)
            if readable:
                chunk = os.read(output, 65536)
                output_open = bool(chunk)  # else every process of it closed its output
                log.add(chunk)
        else:
            time.sleep(min(wait, 0.05))
        if progress is not None:
            progress(now - started, chunk)
        if watch is not None and now >= next_memory_look:
            next_memory_look = now + MEMORY_LOOK_SECONDS
            watch.enforce(process.pid)
        if (over := launch.exceeded()) is not None:
            return over[1]
        if now >= next_disk_look:
            next_disk_look = now + DISK_LOOK_SECONDS
            if _usage_over(folders, limits.disk_mb << 20):
                return (f"wrote more than {limits.disk_mb} MiB into its folder and scratch "
                        "files (the build's disk limit; ARENA_BUILD_DISK_MB raises it); "
                        "killed")
        if process.poll() is not None:
            ended_at = now if ended_at is None else ended_at
            # read its last output; a process it left may hold the pipe for ever
            if not output_open or now - ended_at > DRAIN_SECONDS:
                break
        if now >= deadline:
            return (f"took longer than {limits.seconds} s (the build's time limit; "
                    "ARENA_BUILD_SECONDS raises it); killed")
    if (over := launch.exceeded()) is not None:
        return over[1]
    code = process.returncode
    return None if code == 0 else _exit_reason(code, launch, limits)


def _exit_reason(code: int, launch: BotLaunch, limits: BuildLimits) -> str:
    """One line for a build that ended with ``code`` (bubblewrap reports a signal as
    128 + its number)."""
    number = -code if code < 0 else code - 128 if launch.level == "bwrap" and code > 128 \
        else 0
    if number == signal.SIGXFSZ:
        return (f"wrote a file larger than {limits.max_file_mb} MiB (the build's limit "
                "per file); killed by SIGXFSZ")
    if number == signal.SIGXCPU:
        return "used more CPU time than the build's time limit allows; killed by SIGXCPU"
    if number == signal.SIGSYS:
        cause = launch.crash_cause(code)
        if cause is not None:
            return cause[1]
    if number > 0:
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with code {code}"


def _usage_over(folders: list[Path], cap: int) -> bool:
    """Do the files under ``folders`` take more than ``cap`` bytes (apparent sizes, at
    least :data:`ENTRY_BYTES` per entry)?  Stops counting once they do.  A folder the
    build made unreadable to the arena (its own user: mode 000) is opened again first."""
    total = 0
    pending = list(folders)
    while pending:
        folder = pending.pop()
        try:
            listing = os.scandir(folder)
        except PermissionError:
            with contextlib.suppress(OSError):
                os.chmod(folder, stat.S_IRWXU)
                pending.append(folder)
                continue
            continue
        except OSError:
            continue
        with listing:
            for entry in listing:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += max(info.st_size, ENTRY_BYTES)
                if total > cap:
                    return True
                if stat.S_ISDIR(info.st_mode):
                    pending.append(Path(entry.path))
    return False


def _hand_over(work: Path, uid: int, gid: int) -> None:
    """The copy the arena made for the build, owned by the build's uid (root only):
    every entry is the arena's own fresh copy, nothing is followed."""
    for root, folders, files in os.walk(work):
        for name in (*folders, *files):
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
    os.chown(work, uid, gid)


def remove_tree(path: Path, patience: float = 5.0) -> None:
    """``path`` and everything under it, also what a build made unreadable or
    unwritable to its own user (mode 000 folders) or the arena made read-only (a built
    copy); never follows a link.  Tried again for up to ``patience`` seconds while
    something is left: the processes of a killed sandbox die a moment after the kill,
    and may write until then."""
    deadline = time.monotonic() + patience
    while os.path.lexists(path):
        if os.path.islink(path) or not os.path.isdir(path):
            with contextlib.suppress(OSError):
                os.unlink(path)
        else:
            with contextlib.suppress(OSError):
                os.chmod(path, stat.S_IRWXU)
            for root, folders, _files in os.walk(path):  # top down: opened before entered
                for name in folders:
                    with contextlib.suppress(OSError):
                        if not os.path.islink(os.path.join(root, name)):
                            os.chmod(os.path.join(root, name), stat.S_IRWXU)
            shutil.rmtree(path, ignore_errors=True)
        if time.monotonic() > deadline:
            return
        if os.path.lexists(path):
            time.sleep(0.01)
