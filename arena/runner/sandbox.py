"""How a bot process is launched: who it runs as, what it sees, what it may do.

Bot code is hostile.  The levels (``Limits.sandbox``; docs/security.md states what each
one promises and what it does not):

``"auto"`` (the default)
    ``bwrap`` where it works on this machine, else ``none``; :func:`choose_level` says
    which and why, and a league announces it in one line.
``"bwrap"``
    The bot runs inside bubblewrap with new PID, IPC, UTS, network and cgroup namespaces
    and a new session; it sees a read-only /usr (and the few /etc files programs need),
    its own /proc with /proc/sys read-only, a minimal /dev, a private size-limited tmpfs
    as /tmp (its HOME), the interpreter and the arena package read-only, and its own
    folder read-only; nothing else.  When the arena runs as root, bubblewrap sets up
    those mounts as root (so an interpreter under /root, mode 0700, is reachable) and
    then ``setpriv`` switches to the bot's own unprivileged uid/gid
    (:mod:`arena.runner.identity`) with no capabilities, an empty bounding set and
    ``no_new_privs``: the bot cannot remount anything (EPERM).  Run by another user,
    bubblewrap makes a user namespace in which the bot has no capabilities and may not
    make another; ``prlimit`` sets RLIMIT_NPROC inside it, where it counts only the bot's
    own processes (a user namespace has its own process counts).  Either way a syscall
    filter (bubblewrap's ``--seccomp``, built with libseccomp) refuses mount, ptrace, bpf,
    keyctl, unshare, setns, namespace-creating clone flags and kernel-module calls.
``"none"``
    For trusted bots.  The bot runs as a child of the arena in its own session with the
    rlimits and a scrubbed environment and a fresh scratch folder as HOME and TMPDIR.
    When the arena runs as root the bot still runs under its own unprivileged uid (it
    cannot signal, trace or read the arena, the store or other bots), in a mount
    namespace where root's home is hidden and only the interpreter is put back, and an
    IPC namespace of its own.  Otherwise it runs as the arena's user, in a user namespace
    of its own (its uid mapped to itself, no capabilities once it runs) with an IPC
    namespace, where RLIMIT_NPROC counts only its processes.  The same syscall filter
    applies, and refuses it Unix sockets (``socket(AF_UNIX)``; ``socketpair`` works): the
    machine's (D-Bus, ssh-agent, X11) are in its reach at this level.

At every level the bot's whole process tree is accounted in a control group when the
machine allows it (:mod:`arena.runner.cgroups`), with a CPU quota of ``Limits.cores``
where the machine has cgroup CPU control, else a CPU affinity mask of that many CPUs
(the filter refuses ``sched_setaffinity``, so the bot cannot widen it).

Processes are started from the arena's main thread (see :mod:`arena.runner.process`):
PR_SET_PDEATHSIG and bubblewrap's ``--die-with-parent`` fire when the *thread* that
forked the bot exits, so starting bots from trio's worker threads would kill them after
ten idle seconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import itertools
import math
import os
import resource
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import arena
from arena.errors import ArenaError
from arena.runner import cgroups, identity
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.settings import PROCESS_SANDBOX_LEVELS, TRUSTED, Limits

PYTHON_PLACEHOLDER = "{python}"
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# the directory that contains the ``arena`` package: on PYTHONPATH for bots
ARENA_ROOT = str(Path(arena.__file__).resolve().parent.parent)
ARENA_PACKAGE = str(Path(arena.__file__).resolve().parent)
# /etc files that dynamic linking, locales and user lookups read
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
             "nsswitch.conf", "passwd", "group", "hosts")
# /etc folders of runtimes, those this machine has: Debian's OpenJDK keeps its
# configuration there (java.security: without it SecureRandom, and so UUID, fail)
ETC_RUNTIME_FOLDERS = ("java*",)
BWRAP_INSTALL_HINT = (
    "the bwrap sandbox needs bubblewrap, which is not installed: "
    "install it with `apt-get install bubblewrap` (Debian/Ubuntu), "
    "`dnf install bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch), "
    "or use sandbox = \"none\" (trusted bots only)"
)
SANDBOX_HOME = "/tmp"  # the bot's private tmpfs under bwrap: HOME and TMPDIR
SCRATCH_DIR_NAME = "ra-arena-scratch"
# syscalls no bot needs, that change mounts or namespaces, look into other processes or
# reach far into the kernel: a bot that makes one is killed at once (reason "forbidden")
FORBIDDEN_SYSCALLS = (
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr", "unshare", "setns",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "bpf", "keyctl", "add_key", "request_key",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at", "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog",
    "iopl", "ioperm",
)
# syscalls that runtimes probe for (libuv tries io_uring): refused with EPERM, not killed
REFUSED_SYSCALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register",
                    "userfaultfd", "perf_event_open", "fanotify_init", "name_to_handle_at",
                    # the CPUs a bot may run on are the arena's to choose (Limits.cores)
                    "sched_setaffinity")
# clone flags that make a namespace (CLONE_NEWNS ... CLONE_NEWNET, CLONE_NEWTIME)
NAMESPACE_CLONE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000,
                         0x20000000, 0x40000000, 0x00000080)
LEVELS = PROCESS_SANDBOX_LEVELS  # the levels a bot process can run at
# RLIMIT_AS is a backstop, not the memory limit (a control group, else the memory watch,
# bounds what a bot really uses): runtimes reserve far more address space than they
# touch (a JVM with -Xmx8g about 11 GiB, Node 11 GiB for one WebAssembly memory), and
# reserving costs nothing.  The backstop only stops an allocation of absurd size at once.
ADDRESS_SPACE_FLOOR_MB = 32 << 10
ADDRESS_SPACE_PER_MEMORY_MB = 16
# the share of memory_mb a managed runtime's heap is sized to by default (the rest: its
# code, stacks, metadata and buffers); Go's GOMEMLIMIT counts all of Go's own memory
MANAGED_HEAP_SHARE = 0.5
GO_MEMORY_SHARE = 0.75
_scratch_numbers = itertools.count(1)
# CPU -> bots of this process pinned to it now (affinity, where no cgroup CPU quota)
_cpu_users: Counter[int] = Counter()


# ------------------------------------------------------------------ choosing a level

@dataclass(frozen=True)
class SandboxChoice:
    requested: str
    level: str  # "bwrap" or "none"
    why: str  # why this level (and not a stronger one)
    accounting: cgroups.Accounting
    syscall_filter: str | None  # why there is none, or None when there is one
    # how a bot's processes are bounded without a control group: "rlimit-uid" (its own
    # uid), "rlimit-userns" (RLIMIT_NPROC in its own user namespace), or why there is no
    # bound per bot; unused where the control group bounds them
    process_bound: str = "rlimit-uid"

    @property
    def processes_bounded(self) -> bool:
        return self.accounting.enforced or self.process_bound in ("rlimit-uid",
                                                                   "rlimit-userns")

    def announcement(self) -> str:
        """One line for the start of a run."""
        line = f"sandbox: {self.level} ({self.why})"
        if self.level == "none":
            abi = landlock_abi()
            line += "; for trusted bots only; " + (
                f"Landlock ABI {abi} keeps them to their folders" if abi else
                "no Landlock: they can read what their user can")
        if self.accounting.enforced:
            line += f"; per-bot memory and process limits by {self.accounting.why}"
        else:
            line += (f"; WARNING: no usable cgroups ({self.accounting.why}): memory per "
                     "bot watched by the arena every "
                     f"{cgroups.MEMORY_LOOK_SECONDS * 1000:g} ms, not by the kernel; CPU "
                     "time per process only")
            if self.process_bound == "rlimit-uid":
                line += "; processes per bot by RLIMIT_NPROC of its own uid"
            elif self.process_bound == "rlimit-userns":
                line += "; processes per bot by RLIMIT_NPROC in its own user namespace"
            else:
                line += ("; WARNING: processes are not bounded per bot "
                         f"({self.process_bound})")
        line += "; cores per bot by " + (self.accounting.cpu_quota or
                                         "CPU affinity (the bot may not change it)")
        if self.syscall_filter is not None:
            line += f"; no syscall filter ({self.syscall_filter})"
        return line


def bwrap_path() -> str:
    """The bubblewrap executable, or an ArenaError that says how to install it."""
    path = shutil.which("bwrap")
    if path is None:
        raise ArenaError(BWRAP_INSTALL_HINT)
    return path


def setpriv_path() -> str:
    path = shutil.which("setpriv", path=SAFE_PATH)
    if path is None:
        raise ArenaError("the bwrap sandbox run as root needs setpriv (util-linux) to drop "
                         "to the bot's uid: install it with `apt-get install util-linux`")
    return path


@cache
def _bwrap_problem() -> str | None:
    """Why bubblewrap cannot run a sandbox here, or None when it can (probed once)."""
    try:
        path = bwrap_path()
        prefix = [path, *_namespace_args(), "--ro-bind", "/usr", "/usr", *_top_level_args(),
                  "--proc", "/proc", "--dev", "/dev", "--"]
        if identity.running_as_root():
            prefix += [setpriv_path(), "--reuid", "65534", "--regid", "65534",
                       "--clear-groups"]
    except ArenaError as error:
        return str(error)
    try:
        probe = subprocess.run([*prefix, "/usr/bin/true"], capture_output=True, timeout=10,
                               env={"PATH": SAFE_PATH})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not start: {error}"
    if probe.returncode != 0:
        message = probe.stderr.decode(errors="replace").strip().splitlines()
        return ("bubblewrap cannot make a sandbox here: "
                + (message[-1] if message else f"exit code {probe.returncode}"))
    return None


@cache
def _userns_problem() -> str | None:
    """Why a bot at level none cannot get a user namespace of its own here (run by a
    user other than root), or None when it can (probed once)."""
    try:
        subprocess.run(["/bin/true"], check=True, timeout=10, env={},
                       preexec_fn=_own_user_namespace(os.geteuid(), os.getegid()))
    except (OSError, subprocess.SubprocessError):
        return ("no user namespace for a bot here (unprivileged user namespaces are "
                "disabled), and RLIMIT_NPROC would count every process of the arena's user")
    return None


def _process_bound(level: str) -> str:
    """How a bot's processes are bounded when no control group does it (see
    SandboxChoice.process_bound)."""
    if identity.running_as_root():
        return "rlimit-uid"
    if level == "bwrap":
        if prlimit_path() is None:
            return ("prlimit (util-linux) is missing, and RLIMIT_NPROC would count every "
                    "process of the arena's user")
        return "rlimit-userns"
    problem = _userns_problem()
    return "rlimit-userns" if problem is None else problem


def prlimit_path() -> str | None:
    return shutil.which("prlimit", path=SAFE_PATH)


@cache
def _syscall_filter_problem() -> str | None:
    try:
        _seccomp_program("bwrap")
    except (ImportError, OSError, RuntimeError, ValueError) as error:
        return f"libseccomp unusable: {error}"
    return None


def probe_again() -> None:
    """Forget what was probed about control groups (this process moved to another group,
    as ``arena bench league`` does to count a league's CPU): bots started from now on
    get their groups where this process is now."""
    cgroups.detect.cache_clear()
    choose_level.cache_clear()


@cache
def choose_level(requested: str) -> SandboxChoice:
    """The level bots will run at; an ArenaError when ``requested`` cannot be had."""
    if requested == TRUSTED:
        raise ArenaError(f"sandbox level {TRUSTED!r} starts no bot process (bots play inside "
                         "a league's workers); here choose one of: " + ", ".join(LEVELS))
    if requested not in LEVELS:
        raise ArenaError(f"unknown sandbox level {requested!r}; choose one of: "
                         + ", ".join(LEVELS))
    accounting = cgroups.detect()
    seccomp = _syscall_filter_problem()
    if requested == "none":
        return SandboxChoice(requested, "none", "asked for", accounting, seccomp,
                             _process_bound("none"))
    problem = _bwrap_problem()
    if requested == "bwrap":
        if problem is not None:
            raise ArenaError(problem if "not installed" in problem
                             else f"{problem}; {BWRAP_INSTALL_HINT.split(': ', 1)[1]}")
        return SandboxChoice(requested, "bwrap", "asked for", accounting, seccomp,
                             _process_bound("bwrap"))
    if problem is None:
        return SandboxChoice(requested, "bwrap", "auto: the strongest level here",
                             accounting, seccomp, _process_bound("bwrap"))
    return SandboxChoice(requested, "none", f"auto: {problem}", accounting, seccomp,
                         _process_bound("none"))


def forget_probes() -> None:
    """Probe the machine again on the next :func:`choose_level` (for tests)."""
    for probe in (choose_level, _bwrap_problem, _syscall_filter_problem, _userns_problem,
                  cgroups.detect):
        probe.cache_clear()


# ------------------------------------------------------------------ launching

@dataclass
class LaunchPlan:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    preexec: Callable[[], None]
    pass_fds: tuple[int, ...] = ()  # to keep open in the child; closed by close_fds()
    # used by ``preexec`` only (close-on-exec), closed by close_fds() too
    owned_fds: tuple[int, ...] = ()

    def close_fds(self) -> None:
        """Close the parent's copies of the descriptors once the child has started."""
        for fd in (*self.pass_fds, *self.owned_fds):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = self.owned_fds = ()


@dataclass
class BotLaunch:
    """Everything one bot process needs besides its pipes, and what to undo after it:
    its uid lease, its control group, its scratch folder."""

    plan: LaunchPlan
    level: str
    limits: Limits
    identity: identity.BotIdentity | None = None
    group: cgroups.BotGroup | None = None
    # its memory, looked at by the arena where no control group bounds it
    memory_watch: cgroups.MemoryWatch | None = None
    scratch: Path | None = None
    cpus: tuple[int, ...] = ()  # the CPUs it is pinned to (no cgroup CPU quota here)
    command: tuple[str, ...] = ()  # the bot's own argv (no sandbox prefix)
    # level none run by a user other than root: the user namespace of its own (its
    # inode), where every process it starts stays (it may not make another): what the
    # release kills, as a leased uid is swept when the arena runs as root
    userns: int | None = None
    _userns_report: int = field(default=-1, repr=False)  # the pipe that tells it
    _released: bool = field(default=False, repr=False)

    def started(self) -> None:
        """Once the process has started (its set-up ran before its exec): learn which
        user namespace it entered, if it entered one."""
        if self._userns_report < 0:
            return
        with contextlib.suppress(OSError, ValueError):
            self.userns = int(os.read(self._userns_report, 64) or b"0") or None
        os.close(self._userns_report)
        self._userns_report = -1

    def watch_memory(self, leader: int) -> cgroups.MemoryWatch | None:
        """Start the memory watch on the started bot whose first process is ``leader``
        (None: its control group bounds its memory).  Processes that leave its tree are
        found by its uid, or its user namespace; under bwrap none can leave."""
        watch = self.memory_watch
        if watch is None:
            return None
        if self.level == "bwrap":  # orphans stay in its PID namespace, below the leader
            watch.start(leader, private_tmp=True)
        elif self.identity is not None:
            uid = self.identity.uid
            watch.start(leader, lambda: identity.processes_of(uid))
        elif self.userns is not None:
            userns = self.userns
            watch.start(leader, lambda: identity.processes_in_user_namespace(userns))
        else:
            watch.start(leader)
        return watch

    def exceeded(self) -> tuple[str, str] | None:
        """(reason, detail) if the bot went over its memory or process limit."""
        if self.memory_watch is not None and self.memory_watch.over is not None:
            return "memory", self.memory_watch.over
        if self.group is None:
            return None
        reason = self.group.exceeded()
        if reason is None:
            return None
        return reason, self.group.exceeded_detail(reason, self.limits.memory_mb,
                                                  self.limits.max_processes)

    def crash_cause(self, returncode: int | None) -> tuple[str, str] | None:
        """(reason, detail) for a bot process that ended this way, when the exit code
        alone would not say it: killed for a forbidden system call, or (bubblewrap
        reports a signal as 128 + its number) by which signal."""
        if returncode is None:
            return None
        signal_number = self.signal_of(returncode)
        if signal_number == signal.SIGSYS:
            return "forbidden", ("made a system call the sandbox forbids (such as mount, "
                                 "unshare, ptrace, bpf or keyctl); killed by SIGSYS")
        if signal_number > 0 and returncode > 0:
            try:
                return "crash", f"killed by {signal.Signals(signal_number).name}"
            except ValueError:
                return None
        return None

    def signal_of(self, returncode: int) -> int:
        """The signal that ended the bot's first process, 0 if it exited (bubblewrap
        reports its child's signal as 128 + its number)."""
        return -returncode if returncode < 0 else (
            returncode - 128 if self.level == "bwrap" and returncode > 128 else 0)

    def why_silent(self, leader: int, returncode: int | None, output_inode: int,
                   input_inode: int | None = None) -> str | None:
        """For a bot that did not answer: why, if it is not thinking but gone.  Its
        first process ended while a descendant keeps the output open, or no process of
        the bot holds its output, or its input, any more (bubblewrap's own processes
        keep a copy of the pipes, so the arena never sees them close: without this look
        a bot that closed its input would time out under bwrap and crash at none)."""
        if returncode is not None and self.level == "none":
            how = (f"exited with code {returncode}" if returncode >= 0
                   else f"killed by signal {-returncode}")
            return f"{how}; a process it started kept its output open"
        bot = set(cgroups.descendants(leader))
        if self.identity is not None:
            bot |= set(identity.processes_of(self.identity.uid))
        output, reads = f"pipe:[{output_inode}]", f"pipe:[{input_inode}]"
        holds_output = holds_input = False
        for pid in bot:
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":
                    continue
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    holds_output |= link == output
                    holds_input |= link == reads
        if not bot:
            return "exited"
        if not holds_output:
            return "closed its output; still running"
        if input_inode is not None and not holds_input:
            return "closed its input; still running"
        return None  # still there: really too slow

    def release(self) -> None:
        """After the process is killed: nothing of the bot may be left."""
        if self._released:
            return
        self._released = True
        self.plan.close_fds()
        if self._userns_report >= 0:  # never started
            os.close(self._userns_report)
            self._userns_report = -1
        if self.userns is not None:
            identity.sweep_user_namespace(self.userns)
        _cpu_users.subtract(self.cpus)
        if self.group is not None:
            self.group.remove()
        if self.identity is not None:
            self.identity.release()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def prepare_launch(spec: BotSpec, limits: Limits, *, build: bool = False) -> BotLaunch:
    """Lease a uid, make the control group and scratch folder, plan the launch.

    ``build``: the launch of ``spec.command`` as the bot's build step (arena/runner/
    build.py): its folder writable, no network at any level, the toolchains' caches in
    its scratch HOME; everything else as for the bot."""
    if not spec.command:
        raise ArenaError(f"bot {spec.name!r} has an empty command")
    choice = choose_level(limits.sandbox)
    if build and choice.level == "none" and not identity.running_as_root() \
            and choice.process_bound != "rlimit-userns":
        raise ArenaError(f"a build at sandbox level none needs a user namespace of its own "
                         f"(for a network namespace without a network): "
                         f"{choice.process_bound}")
    identity.hold_arena_lease()  # before anything named after this process
    sweep_leftovers(limits.bot_uid)
    if identity.running_as_root() and spec.folder is not None:
        _check_readable_by_others(spec.folder.resolve())
    launch = BotLaunch(LaunchPlan([], "", {}, _nothing), choice.level, limits,
                       command=tuple(bot_argv(spec)))
    try:
        if identity.running_as_root():
            launch.identity = identity.lease_identity(limits.bot_uid)
        if choice.accounting.enforced:
            launch.group = cgroups.BotGroup(choice.accounting, limits.memory_mb << 20,
                                            limits.max_processes, limits.cpu_seconds,
                                            limits.cores)
        else:
            launch.memory_watch = cgroups.MemoryWatch(limits.memory_mb)
        if choice.accounting.cpu_quota is None:
            launch.cpus = _pick_cpus(limits.cores)
            _cpu_users.update(launch.cpus)
        if choice.level == "none":
            launch.scratch = _make_scratch(launch.identity)
        own_userns = choice.level == "none" and launch.identity is None \
            and choice.process_bound == "rlimit-userns"
        report = -1
        if own_userns:
            report, launch._userns_report = _pipe_pair()
        launch.plan = plan_launch(spec, limits, launch.scratch, launch.identity,
                                  launch.group, choice, launch.cpus, build=build,
                                  userns_report=report)
    except BaseException:
        launch.release()
        raise
    return launch


def _pick_cpus(cores: float) -> tuple[int, ...]:
    """The ``ceil(cores)`` usable CPUs with the fewest of this process's bots on them (the
    arena's pid spreads the ties of worker processes); () when that is all of them."""
    try:
        usable = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return ()
    wanted = math.ceil(cores)
    if wanted >= len(usable):
        return ()
    offset = os.getpid() % len(usable)
    order = sorted(range(len(usable)),
                   key=lambda i: (_cpu_users[usable[i]], (i - offset) % len(usable)))
    return tuple(sorted(usable[i] for i in order[:wanted]))


def _check_readable_by_others(folder: Path) -> None:
    """Bots do not run as root: a bot whose folder its own uid cannot read fails with a
    reason that says so, rather than with "permission denied" from deep in its start.
    (The folders above it need not be enterable: bubblewrap, or at level none a tmpfs
    over the first closed one, recreates them; see child_setup.)"""
    mode = folder.stat().st_mode
    needs = stat.S_IXOTH | stat.S_IROTH
    if mode & needs != needs:
        raise BotFailure("crash", f"bots never run as root and the bot's uid cannot read "
                         f"{folder} (mode {stat.S_IMODE(mode):o}): make the bot folder "
                         f"readable by all, e.g. `chmod -R a+rX {folder}`")


def bot_argv(spec: BotSpec) -> list[str]:
    """The bot's command with "{python}" made the arena's interpreter."""
    return [part.replace(PYTHON_PLACEHOLDER, sys.executable) for part in spec.command]


def plan_launch(spec: BotSpec, limits: Limits, scratch: Path | None,
                bot: identity.BotIdentity | None = None,
                group: cgroups.BotGroup | None = None,
                choice: SandboxChoice | None = None, cpus: tuple[int, ...] = (),
                *, build: bool = False, userns_report: int = -1) -> LaunchPlan:
    """The argv, environment and child set-up that start ``spec`` at ``choice``'s level;
    ``scratch`` (level none) must exist.  ``build``: see :func:`prepare_launch`;
    ``userns_report``: the write end of a pipe on which the child says which user
    namespace it entered (level none, run by a user other than root)."""
    choice = choice or choose_level(limits.sandbox)
    argv = bot_argv(spec)
    home = SANDBOX_HOME if choice.level == "bwrap" else str(scratch)
    folder = str(spec.folder.resolve()) if spec.folder is not None else home
    env = {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONPATH": ARENA_ROOT,
        "PYTHONDONTWRITEBYTECODE": "1",  # the bot's folder may be read-only
        "PYTHONHASHSEED": "0",  # same seed, same game, also for bots that iterate sets
        **runtime_environment(limits),
    }
    if build:
        env.update(build_environment(home))
    program = None if choice.syscall_filter is not None else _seccomp_program(choice.level)
    own_userns = bot is None and choice.process_bound == "rlimit-userns"
    if choice.level == "bwrap":
        pass_fds: tuple[int, ...] = ()
        prefix = bwrap_argv(folder, limits, writable_folder=build)
        if program is not None:
            fd = _memfd_with(program)
            pass_fds = (fd,)
            prefix[-1:-1] = ["--seccomp", str(fd)]
        if bot is not None:
            prefix += [setpriv_path(), "--reuid", str(bot.uid), "--regid", str(bot.gid),
                       "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                       "--no-new-privs"]
        elif own_userns and group is None:
            # in bubblewrap's user namespace RLIMIT_NPROC counts the processes of that
            # namespace only: the bot's, and bubblewrap's own init (hence the + 1)
            nproc = limits.max_processes + 1
            prefix += [str(prlimit_path()), f"--nproc={nproc}:{nproc}", "--"]
        return LaunchPlan(prefix + argv, folder, env,
                          child_setup(limits, group, None, None, cpus=cpus), pass_fds)
    writable = [home, "/dev/null", "/dev/zero", "/dev/full", *([folder] if build else [])]
    ruleset = landlock_ruleset(readable=[*_interpreter_prefixes(), ARENA_PACKAGE, folder,
                                         *_system_paths(), "/dev/urandom", "/dev/random"],
                               listable=[ARENA_ROOT], writable=writable)
    owned = (() if ruleset is None else (ruleset,)) + \
        (() if userns_report < 0 else (userns_report,))
    return LaunchPlan(argv, folder, env,
                      child_setup(limits, group, bot, program,
                                  reachable=[*_interpreter_prefixes(), ARENA_ROOT,
                                             *([folder] if folder != home else [])],
                                  ruleset=ruleset, cpus=cpus, own_userns=own_userns,
                                  writable_folder=folder if build else None,
                                  no_network=build, userns_report=userns_report),
                      owned_fds=owned)


def build_environment(home: str) -> dict[str, str]:
    """What a build adds to a bot's environment: the toolchains' caches and settings in
    its private scratch ``home``, and offline (there is no network: nothing may try)."""
    return {
        "XDG_CACHE_HOME": f"{home}/.cache",
        "XDG_CONFIG_HOME": f"{home}/.config",
        "GOCACHE": f"{home}/.cache/go-build",
        "GOPATH": f"{home}/go",
        "GOPROXY": "off",
        "GOFLAGS": "-buildvcs=false",  # (a vendor folder is used as go decides)
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
        "CARGO_HOME": f"{home}/.cargo",
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TERM_COLOR": "never",
        "npm_config_cache": f"{home}/.npm",
        "npm_config_offline": "true",
        "PIP_NO_INDEX": "1",
        "PIP_CACHE_DIR": f"{home}/.cache/pip",
    }


def _pipe_pair() -> tuple[int, int]:
    """(write end, read end) of a close-on-exec pipe; the write end is for a child's
    set-up, which closes it before its exec."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(read_end, False)  # a child that never wrote leaves it empty
    return write_end, read_end


def runtime_environment(limits: Limits) -> dict[str, str]:
    """Settings that size managed runtimes by the bot's limits rather than by the
    machine's (a JVM would reserve a quarter of the machine's memory for its heap and
    start a GC thread per CPU; Go and Node would run a thread per CPU, and ``pids.max``
    counts threads).  A bot's own flags override them (``java -Xmx300m``, ``node
    --max-old-space-size=N``, ``debug.SetMemoryLimit``); whatever it sets, its real
    memory stays bounded by the control group or the memory watch.  The JVM's own
    messages go to stderr (by default they go to stdout, where they break the
    protocol); with one core it picks the serial collector by itself, and a bot may
    still choose another."""
    heap_mb = max(16, int(limits.memory_mb * MANAGED_HEAP_SHARE))
    threads = str(math.ceil(limits.cores))
    return {
        "JAVA_TOOL_OPTIONS": (
            f"-XX:MaxRAM={limits.memory_mb}m "
            f"-XX:MaxRAMPercentage={MANAGED_HEAP_SHARE * 100:g} "
            f"-XX:ActiveProcessorCount={threads} -XX:-UsePerfData "
            "-XX:+DisplayVMOutputToStderr -XX:+ErrorFileToStderr"),
        "GOMEMLIMIT": f"{int(limits.memory_mb * GO_MEMORY_SHARE)}MiB",
        "GOMAXPROCS": threads,
        "NODE_OPTIONS": f"--max-old-space-size={heap_mb} --v8-pool-size={threads}",
        # OpenMP and BLAS (numpy) start a thread per CPU
        "OMP_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
    }


# ------------------------------------------------------------------ Landlock (level none)

SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
# filesystem rights, by the ABI version that brought them
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_ALL_V1 = (1 << 13) - 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@cache
def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    version = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0,
                            LANDLOCK_CREATE_RULESET_VERSION)
    return max(0, int(version))


def _system_paths() -> list[str]:
    return ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc",
            "/sys"]


def landlock_ruleset(readable: list[str], listable: list[str], writable: list[str]
                     ) -> int | None:
    """A Landlock ruleset (its descriptor) for a bot at level none: it may read and run
    what is under ``readable``, list ``listable`` (the folder holding the arena package:
    Python lists it to import), and write under ``writable``; nothing else of the file
    system.  With ABI 4 no TCP at all, with ABI 6 no signal to a process outside the
    bot and no abstract Unix socket outside it.  None where the kernel has no Landlock."""
    abi = landlock_abi()
    if abi < 1:
        return None
    handled = FS_ALL_V1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0) \
        | (FS_IOCTL_DEV if abi >= 5 else 0)
    attr = _RulesetAttr(handled, (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
                        (SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET) if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        return None
    read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
    rules = [(path, read) for path in readable] + [(path, FS_READ_DIR) for path in listable]
    rules += [(path, handled) for path in writable]
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # (a folder this system does not have)
        try:
            if not os.path.isdir(path):  # a file: only rights that apply to files
                access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
            rule = _PathBeneathAttr(access & handled, fd)
            _libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                          ctypes.byref(rule), 0)
        finally:
            os.close(fd)
    os.set_inheritable(ruleset, False)
    return int(ruleset)


def _nothing() -> None:
    pass


def _namespace_args() -> list[str]:
    args = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if not identity.running_as_root():
        # bubblewrap needs a user namespace; the bot has no capabilities in it
        args += ["--unshare-user", "--disable-userns"]
    return args


def _top_level_args() -> list[str]:
    args = []
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def _interpreter_prefixes() -> list[str]:
    """The installations "{python}" needs: the venv and the Python it was made from."""
    return sorted({sys.base_prefix, sys.prefix})


def bwrap_argv(folder: str, limits: Limits, *, writable_folder: bool = False) -> list[str]:
    """The bubblewrap prefix (ending in ``--``): see the module docstring.
    ``writable_folder``: the bot's folder bound writable (a build's copy)."""
    args = [bwrap_path(), *_namespace_args(), "--ro-bind", "/usr", "/usr", *_top_level_args()]
    args += ["--perms", "0755", "--dir", "/etc"]  # (bubblewrap's own default: 0700)
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for pattern in ETC_RUNTIME_FOLDERS:
        for path in sorted(glob.glob(f"/etc/{pattern}")):
            args += ["--ro-bind", path, path]
    # files in the tmpfs are memory: bounded by the memory limit (and, with cgroups,
    # charged to the bot)
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(limits.memory_mb << 20), "--tmpfs", "/tmp"]
    binds = [prefix for prefix in _interpreter_prefixes() if not prefix.startswith("/usr/")]
    binds.append(ARENA_PACKAGE)
    if folder != SANDBOX_HOME:
        binds.append(folder)
    # bubblewrap makes missing parents mode 0700 when run as root: the bot's uid could
    # not pass them, so make them first, enterable by all
    parents = sorted({str(parent) for path in binds for parent in Path(path).parents
                      if str(parent) not in ("/", "/tmp", "/usr")
                      and not str(parent).startswith("/usr/")})
    for parent in parents:
        args += ["--perms", "0755", "--dir", parent]
    for path in binds:
        bind = "--bind" if writable_folder and path == folder else "--ro-bind"
        args += [bind, path, path]
    args += ["--chdir", folder, "--"]
    return args


# ------------------------------------------------------------------ the syscall filter

@cache
def _seccomp_program(level: str) -> bytes:
    """The compiled BPF program for a bot at ``level`` (libseccomp through pyseccomp: it
    knows each architecture's syscall numbers and guards against the x32 ABI)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pyseccomp as seccomp  # type: ignore[import-untyped]
    rules = _seccomp_filter(seccomp, level)
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def _seccomp_filter(seccomp: Any, level: str = "bwrap") -> Any:
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    if level == "none":
        # the machine's Unix sockets (D-Bus, ssh-agent, X11, /run/...) are in reach at
        # this level, Landlock does not cover connecting to them: no Unix socket at all
        # (socketpair, a separate call, still works); under bwrap the bot sees none
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "socket",
                       seccomp.Arg(0, seccomp.EQ, socket.AF_UNIX))
    for names, action in ((FORBIDDEN_SYSCALLS, seccomp.KILL_PROCESS),
                          (REFUSED_SYSCALLS, seccomp.ERRNO(errno.EPERM))):
        for name in names:
            with contextlib.suppress(RuntimeError, ValueError):  # unknown on this machine
                rules.add_rule(action, name)
    for flag in NAMESPACE_CLONE_FLAGS:
        rules.add_rule(seccomp.KILL_PROCESS, "clone",
                       seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes the C
    # library fall back to clone, which is checked
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    return rules


def _memfd_with(data: bytes) -> int:
    """A fresh file descriptor holding ``data`` at offset 0 (bubblewrap reads it once)."""
    fd = os.memfd_create("ra-arena-seccomp", 0)  # inheritable: passed to bubblewrap
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ------------------------------------------------------------------ the child's set-up

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWNET = (0x00020000, 0x08000000, 0x10000000,
                                                         0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REMOUNT, MS_REC, MS_PRIVATE = (
    1, 2, 4, 4096, 32, 16384, 1 << 18)
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _hidden_ancestor(path: str) -> str | None:
    """The topmost directory above ``path`` that other users may not enter, if any."""
    parts = Path(path).parts
    for depth in range(2, len(parts)):  # the folders above it, not itself
        directory = os.path.join(*parts[:depth])
        with contextlib.suppress(OSError):
            info = os.stat(directory)
            if stat.S_ISDIR(info.st_mode) and not info.st_mode & stat.S_IXOTH:
                return directory
    return None


def _own_user_namespace(uid: int, gid: int, no_network: bool = False) -> Callable[[], None]:
    """A preexec step: enter a new user namespace (with a new IPC namespace, and with
    ``no_network`` a network namespace) in which the caller's uid and gid map to
    themselves.  Its processes are counted apart from the
    user's others (RLIMIT_NPROC), its System V IPC objects die with it, and after the
    exec its processes have no capabilities (their uid is not 0 in it)."""
    maps = ((b"/proc/self/uid_map", f"{uid} {uid} 1".encode()),
            (b"/proc/self/setgroups", b"deny"),
            (b"/proc/self/gid_map", f"{gid} {gid} 1".encode()))

    def enter() -> None:
        _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWIPC
                             | (CLONE_NEWNET if no_network else 0)), "unshare user namespace")
        for path, text in maps:
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, text)
            finally:
                os.close(fd)

    return enter


def child_setup(limits: Limits, group: cgroups.BotGroup | None,
                bot: identity.BotIdentity | None, program: bytes | None,
                reachable: list[str] | None = None, ruleset: int | None = None,
                cpus: tuple[int, ...] = (), own_userns: bool = False,
                writable_folder: str | None = None, no_network: bool = False,
                userns_report: int = -1) -> Callable[[], None]:
    """A preexec function (runs in the child between fork and exec): join the control
    group, pin to ``cpus`` (when there is no CPU quota), set rlimits; at level none also
    enter namespaces of its own (IPC; run by root: mounts, with unreachable folders
    hidden and what the bot needs put back; else a user namespace), drop to the bot's
    uid and load the syscall filter.  ``writable_folder`` (one of ``reachable``) is put
    back writable; ``no_network``: a network namespace of its own at level none (a
    build's: only a loopback that is down); ``userns_report``: a pipe to write the inode
    of the user namespace it entered to."""
    mib = 1 << 20
    address_space = address_space_backstop(limits)
    settings = [
        (resource.RLIMIT_AS, address_space, address_space),
        # SIGXCPU at the soft limit, SIGKILL at the hard one
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5),
        (resource.RLIMIT_FSIZE, limits.max_file_mb * mib, limits.max_file_mb * mib),
        (resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if (bot is not None or own_userns) and group is None:
        # per user: once the bot has a uid, or a user namespace, of its own (with a
        # control group its pids.max counts first, so the reason is "processes")
        settings.append((resource.RLIMIT_NPROC, limits.max_processes, limits.max_processes))
    enter_userns = _own_user_namespace(os.geteuid(), os.getegid(), no_network) \
        if own_userns else None
    # worked out before the fork: between fork and exec only system calls
    binds: list[tuple[str, list[str]]] = []
    if bot is not None:
        hidden: dict[str, list[str]] = {}
        for path in reachable or []:
            top = _hidden_ancestor(path)
            if top is not None:
                hidden.setdefault(top, []).append(path)
        binds = sorted(hidden.items())
    prog = None
    buffer = ctypes.create_string_buffer(program or b"", len(program or b""))  # kept alive
    if program is not None:
        prog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))

    def preexec() -> None:
        if group is not None:
            group.join()
        if cpus:
            os.sched_setaffinity(0, cpus)
        if enter_userns is not None:  # before the rlimits: RLIMIT_NPROC counts in it
            enter_userns()
            if userns_report >= 0:
                os.write(userns_report, str(os.stat("/proc/self/ns/user").st_ino).encode())
                os.close(userns_report)
        # mounts first: the rlimit on open files would refuse the descriptors they need
        # when the arena has many open (fds are numbered above those it holds)
        if bot is not None:
            # System V IPC objects of its own, gone with it
            _check(_libc.unshare(CLONE_NEWIPC | (CLONE_NEWNS if binds else 0)
                                 | (CLONE_NEWNET if no_network else 0)), "unshare")
            if binds:
                _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount")
            for top, paths in binds:
                # keep the needed folders, then hide their unreachable ancestor behind an
                # empty tmpfs and bind them back, read-only
                kept = [os.open(path, os.O_PATH | os.O_CLOEXEC) for path in paths]
                _check(_libc.mount(b"tmpfs", top.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                                   b"mode=0755"), "mount tmpfs")
                for path, fd in zip(paths, kept, strict=True):
                    os.makedirs(path, exist_ok=True)
                    source = f"/proc/self/fd/{fd}".encode()
                    _check(_libc.mount(source, path.encode(), None, MS_BIND | MS_REC, None),
                           "bind")
                    read_only = 0 if path == writable_folder else MS_RDONLY
                    _check(_libc.mount(None, path.encode(), None,
                                       MS_BIND | MS_REMOUNT | read_only | MS_NOSUID, None),
                           "remount")
                    os.close(fd)
        for which, soft, hard in settings:
            current_soft, current_hard = resource.getrlimit(which)
            if current_hard != resource.RLIM_INFINITY:  # never ask for more than allowed
                soft, hard = min(soft, current_hard), min(hard, current_hard)
            resource.setrlimit(which, (soft, hard))
        if bot is not None:
            os.setgroups([])
            os.setresgid(bot.gid, bot.gid, bot.gid)
            os.setresuid(bot.uid, bot.uid, bot.uid)
        # after the uid change, which clears it
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if ruleset is not None or prog is not None:
            _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        if ruleset is not None:
            _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock")
        if prog is not None and buffer:  # the buffer holds the program
            _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0),
                   "seccomp")

    return preexec


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"sandbox set-up: {what}: {os.strerror(code)}")


def address_space_backstop(limits: Limits) -> int:
    """RLIMIT_AS in bytes: see ADDRESS_SPACE_FLOOR_MB."""
    return max(ADDRESS_SPACE_FLOOR_MB, ADDRESS_SPACE_PER_MEMORY_MB * limits.memory_mb) << 20


def rlimit_setter(limits: Limits) -> Callable[[], None]:
    """A preexec function with the rlimits only (no uid change, no filter)."""
    return child_setup(limits, None, None, None)


# ------------------------------------------------------------------ scratch and sweeping

def _scratch_root() -> Path:
    root = Path(tempfile.gettempdir()) / f"{SCRATCH_DIR_NAME}-{os.geteuid()}"
    root.mkdir(mode=0o711, exist_ok=True)
    info = root.lstat()
    if info.st_uid != os.geteuid() or not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o022:
        raise ArenaError(f"{root} must be a directory owned by uid {os.geteuid()} that "
                         "only it may write; remove it")
    return root


def _make_scratch(bot: identity.BotIdentity | None) -> Path:
    """A fresh scratch folder, named after the arena's pid so a later run can sweep it
    once that arena is dead (the random part keeps apart arenas of one pid in two PID
    namespaces)."""
    path = _scratch_root() / f"{os.getpid()}-{next(_scratch_numbers)}-{secrets.token_hex(3)}"
    path.mkdir(mode=0o700)
    if bot is not None:
        os.chown(path, bot.uid, bot.gid)
    return path


@cache
def sweep_leftovers(first_uid: int) -> None:
    """Once per process, before its first bot: :func:`sweep_now`."""
    sweep_now(first_uid)


def sweep_now(first_uid: int) -> None:
    """Remove what arenas killed with -9 left behind: their bots' processes (every bot
    uid no live arena holds), control groups and scratch folders.  Only what is provably
    dead: a uid whose lease is free, what an arena whose lease is free named after itself
    (a running arena in another PID namespace, whose pid this one cannot see, keeps its
    own; :func:`arena.runner.identity.arena_is_dead`)."""
    identity.sweep_abandoned(first_uid)
    verdicts: dict[str, bool] = {}  # one look per arena: a dead one's lease is removed

    def is_dead(owner: str) -> bool:
        if owner not in verdicts:
            verdicts[owner] = owner != str(os.getpid()) and identity.arena_is_dead(owner)
        return verdicts[owner]

    cgroups.sweep_stale(is_dead)
    with contextlib.suppress(OSError):
        for entry in _scratch_root().iterdir():
            if is_dead(entry.name.split("-")[0]):
                shutil.rmtree(entry, ignore_errors=True)
    identity.sweep_free_arena_leases()
