"""Per-bot accounting: memory and process count over a bot's whole process tree.

rlimits are per process (three children of 200 MB each pass a 256 MB RLIMIT_AS), and
RLIMIT_NPROC counts a *user's* processes.  A control group covers the whole tree, memory
of files the bot writes to a tmpfs included.  What this machine offers, best first:

``cgroup2``
    a cgroup v2 subtree delegated to us (our own cgroup has the ``memory`` and ``pids``
    controllers available): one child group per bot process, ``memory.max`` and
    ``pids.max``; going over is read from ``memory.events`` (``oom_kill``) and
    ``pids.events`` (``max``).
``cgroup1``
    the v1 ``memory`` and ``pids`` hierarchies, writable: ``memory.limit_in_bytes`` and
    ``pids.max``; going over is read from ``memory.oom_control`` (``oom_kill``) and
    ``pids.events``.
``rlimits``
    neither: the per-process rlimits, and for memory the arena's own watch over the
    bot's processes (:class:`MemoryWatch`), which kills a bot that goes over.

Where the machine allows it (cgroup v2's ``cpu`` controller, or a writable v1 ``cpu``
hierarchy) each bot also gets a CPU quota: ``Limits.cores`` CPU-seconds per second over
its whole process tree (``cpu.max``, v1 ``cpu.cfs_quota_us``), so a bot with many busy
threads cannot take the cores of the bots at the next tables.

A group is created by the arena before the bot starts, joined by the bot's first process
between fork and exec (so everything it starts is in it), and removed when the bot is
done.  Groups are named after the arena's pid; :func:`sweep_stale` removes those of
arenas that are provably dead (their lease is free, :func:`arena.runner.identity.arena_is_dead`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP_PREFIX = "ra-arena-"
CPU_PERIOD_US = 100_000  # the CPU quota's period: a bot gets cores * this per period
_numbers = itertools.count(1)


@dataclass(frozen=True)
class Accounting:
    kind: str  # "cgroup2", "cgroup1" or "rlimits"
    why: str  # one line: what is used, or why nothing better is
    # the parent directories bot groups are created in (one per v1 hierarchy)
    parents: tuple[Path, ...] = ()
    # how a bot's cores are bounded ("cgroup v2 cpu.max", ...), None: not by a cgroup
    cpu_quota: str | None = None
    # v1: the cpu hierarchy's parent directory (v2: the one group of ``parents``)
    quota_parent: Path | None = None

    @property
    def enforced(self) -> bool:
        return self.kind != "rlimits"


def _own_path(controller: str) -> str | None:
    """Our cgroup's path in the hierarchy of ``controller`` ("" for v2)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(",") or (controller == "" and not controllers):
                return path
    return None


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


@cache
def detect() -> Accounting:
    """The best accounting this machine allows (probed once per process)."""
    reasons = []
    v2_path = _own_path("")
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        controllers = mount / "cgroup.controllers"
        if v2_path is None or not controllers.exists():
            continue
        parent = mount / v2_path.lstrip("/")
        try:
            available = (parent / "cgroup.controllers").read_text().split()
        except OSError:
            continue
        if {"memory", "pids"} <= set(available) and _writable_dir(parent):
            if _v2_delegate(parent):
                quota = "cgroup v2 cpu.max" if "cpu" in available and _v2_enable_cpu(parent) \
                    else None
                return Accounting("cgroup2", f"cgroup v2 at {parent}", (parent,), quota)
            reasons.append(f"cgroup v2 at {parent} has processes in it, no subtree for bots")
        else:
            reasons.append(f"cgroup v2 at {mount} has no memory+pids controllers for us")
    parents = []
    for controller in ("memory", "pids"):
        own = _own_path(controller)
        parent = CGROUP_ROOT / controller / (own or "/").lstrip("/")
        if own is None or not _writable_dir(parent):
            reasons.append(f"no writable cgroup v1 {controller} hierarchy")
            break
        parents.append(parent)
    else:
        own = _own_path("cpu")
        quota_parent = CGROUP_ROOT / "cpu" / (own or "/").lstrip("/")
        quota = None
        if own is not None and _writable_dir(quota_parent) \
                and (quota_parent / "cpu.cfs_quota_us").exists():
            quota = "cgroup v1 cpu.cfs_quota_us"
        own = _own_path("cpuacct")
        parent = CGROUP_ROOT / "cpuacct" / (own or "/").lstrip("/")
        if own is not None and _writable_dir(parent):
            parents.append(parent)
            return Accounting("cgroup1", "cgroup v1 memory, pids and cpuacct", tuple(parents),
                              quota, quota_parent if quota else None)
        return Accounting("cgroup1", "cgroup v1 memory and pids (CPU time per process only)",
                          tuple(parents), quota, quota_parent if quota else None)
    return Accounting("rlimits", "; ".join(reasons) or "no cgroups")


def _v2_delegate(parent: Path) -> bool:
    """Can child groups with memory and pids limits be made under ``parent``?"""
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        if {"memory", "pids"} <= set(enabled):
            return True
        (parent / "cgroup.subtree_control").write_text("+memory +pids")
        return True
    except OSError:  # EBUSY: processes in a non-root group ("no internal processes")
        return False


def _v2_enable_cpu(parent: Path) -> bool:
    """Can child groups of ``parent`` have a CPU quota (cpu.max)?"""
    try:
        if "cpu" in (parent / "cgroup.subtree_control").read_text().split():
            return True
        (parent / "cgroup.subtree_control").write_text("+cpu")
        return True
    except OSError:
        return False


def quota_micros(cores: float) -> int:
    """The CPU quota per period of a bot that may keep ``cores`` cores busy."""
    return max(1000, round(cores * CPU_PERIOD_US))


def _write_v1_quota(group: Path, cores: float) -> None:
    """``cores`` as the v1 group's CFS quota.  v1 refuses (EINVAL) a quota above its
    parent's, as when a league allows more cores than the container the arena runs in
    has: the parent's own then, which is what the bot could have at most anyway."""
    try:
        (group / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(quota_micros(cores)))
    except OSError:
        parent = group.parent
        period = (parent / "cpu.cfs_period_us").read_text().strip()
        quota = (parent / "cpu.cfs_quota_us").read_text().strip()
        (group / "cpu.cfs_period_us").write_text(period)
        (group / "cpu.cfs_quota_us").write_text(quota)


class BotGroup:
    """The control group(s) of one bot process; see the module docstring."""

    def __init__(self, accounting: Accounting, memory_bytes: int, max_processes: int,
                 cpu_seconds: float | None = None, cores: float | None = None) -> None:
        self.kind = accounting.kind
        self.cpu_limit = cpu_seconds
        # the pid names the arena that owns it (swept once that arena is dead); the
        # random part keeps apart arenas of one pid in two PID namespaces
        name = f"{GROUP_PREFIX}{os.getpid()}-{next(_numbers)}-{secrets.token_hex(3)}"
        self.paths = tuple(parent / name for parent in accounting.parents)
        # v1: the group in the cpu hierarchy, unless it is one of the above (a
        # hierarchy mounted as cpu,cpuacct)
        self.quota_path: Path | None = None
        if cores is not None and accounting.quota_parent is not None:
            quota_path = accounting.quota_parent / name
            if all(quota_path.parent.resolve() != path.parent.resolve()
                   for path in self.paths):
                self.quota_path = quota_path
        try:
            for path in (*self.paths, *([self.quota_path] if self.quota_path else [])):
                path.mkdir()
            if self.kind == "cgroup2":
                (path,) = self.paths
                (path / "memory.max").write_text(str(memory_bytes))
                (path / "memory.swap.max").write_text("0")
                (path / "pids.max").write_text(str(max_processes))
                if cores is not None and accounting.cpu_quota is not None:
                    (path / "cpu.max").write_text(f"{quota_micros(cores)} {CPU_PERIOD_US}")
            elif self.kind == "cgroup1":
                memory, pids = self.paths[:2]
                (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
                with contextlib.suppress(OSError):  # only with swap accounting
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
                (pids / "pids.max").write_text(str(max_processes))
                if cores is not None and accounting.quota_parent is not None:
                    quota = self.quota_path or next(
                        path for path in self.paths
                        if path.parent.resolve() == accounting.quota_parent.resolve())
                    _write_v1_quota(quota, cores)
        except OSError:
            self.remove()
            raise
        # opened now, written between fork and exec (no allocation, no lookup there)
        self._procs = [os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                       for path in (*self.paths,
                                    *([self.quota_path] if self.quota_path else []))]
        # the counters of going over, kept open: a look costs two preads (~2 µs)
        v2 = self.kind == "cgroup2"
        memory_events = "memory.events" if v2 else "memory.oom_control"
        pids_path = self.paths[0 if v2 else 1] if self.paths else None
        self._counters = [
            ("memory", b"oom_kill", os.open(self.paths[0] / memory_events,
                                            os.O_RDONLY | os.O_CLOEXEC)),
            ("processes", b"max", os.open(pids_path / "pids.events",
                                          os.O_RDONLY | os.O_CLOEXEC)),
        ] if pids_path is not None else []
        # CPU time of the whole tree: cgroup v2's cpu.stat (always there), v1's cpuacct
        cpu_file = (self.paths[0] / "cpu.stat") if v2 and self.paths else \
            (self.paths[2] / "cpuacct.usage") if len(self.paths) == 3 else None
        self._cpu_fd = -1 if cpu_file is None else os.open(cpu_file, os.O_RDONLY | os.O_CLOEXEC)

    def join(self) -> None:
        """Move the calling process into the group(s): called in the child before exec."""
        pid = str(os.getpid()).encode()
        for fd in self._procs:
            os.write(fd, pid)

    def exceeded(self) -> str | None:
        """"memory" if the group's memory limit killed a process, "processes" if a fork
        was refused at its process limit, "cpu" if its processes together used more
        than the CPU time allowed, else None."""
        for reason, key, fd in self._counters:
            with contextlib.suppress(OSError):
                for line in os.pread(fd, 512, 0).splitlines():
                    name, _, value = line.partition(b" ")
                    if name == key and int(value) > 0:
                        return reason
        if self.cpu_limit is not None and (used := self.cpu_seconds()) is not None \
                and used > self.cpu_limit:
            return "cpu"
        return None

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) used by every process of the group so far; None
        where the machine does not count it per group."""
        if self._cpu_fd < 0:
            return None
        try:
            data = os.pread(self._cpu_fd, 512, 0)
        except OSError:
            return None
        if self.kind == "cgroup2":  # "usage_usec N" first
            for line in data.splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) / 1e6
            return None
        return int(data) / 1e9  # cpuacct.usage: nanoseconds

    def exceeded_detail(self, reason: str, memory_mb: int, max_processes: int) -> str:
        if reason == "cpu":
            return (f"its processes together used more than {self.cpu_limit:g} CPU seconds "
                    f"({self.cpu_seconds() or 0:.1f} s)")
        if reason == "memory":
            return (f"went over its memory limit of {memory_mb} MiB (all its processes "
                    "together); the kernel killed a process")
        return f"tried to run more than {max_processes} processes at once"

    def remove(self) -> None:
        """Kill whatever is left in the group(s) and remove them."""
        for fd in [*getattr(self, "_procs", []),
                   *(fd for _, _, fd in getattr(self, "_counters", [])),
                   getattr(self, "_cpu_fd", -1)]:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._procs, self._counters, self._cpu_fd = [], [], -1
        for path in (*self.paths, *([self.quota_path] if self.quota_path else [])):
            _remove_group(path)
        self.paths, self.quota_path = (), None


# The memory watch: how often it looks at a bot's processes (a bot that allocates a
# gigabyte a second is stopped within about 20 MB of its limit) ...
MEMORY_LOOK_SECONDS = 0.02
# ... every how many looks it also reads the children of every thread (a process started
# from another thread than the first; a JVM has 15, a read each) ...
THREADS_LOOK_EVERY = 10
# ... and looks for processes that left the tree (a setsid double fork: their parent
# died, the init process took them), which means reading all of /proc
STRAYS_LOOK_EVERY = 25
# the exact measure (smaps_rollup: about 0.5 ms for a JVM) at most this often, unless
# the resident sum grew by more than was left below the limit at the last one
EXACT_LOOK_SECONDS = 0.5
_PAGE = os.sysconf("SC_PAGE_SIZE")


class MemoryWatch:
    """A bot's real memory where no control group bounds it (:data:`MEMORY_LOOK_SECONDS`
    apart; its process channel kills the bot when :meth:`look` says it went over):

    * its processes: the first one and every process below it, and those that left the
      tree (``strays``: the processes of its own uid, or of its own user namespace;
      under bwrap none can leave, orphans go to the sandbox's own init);
    * their resident memory (``/proc/PID/statm``) summed, and only when the sum is over
      the limit the exact measure: proportional set sizes (``smaps_rollup``), where a
      page that forked processes share, or a library the whole machine maps, is counted
      once;
    * under bwrap, the files in its private ``/tmp`` (a tmpfs: memory too).

    Address space reserved and never touched (a JVM's heap, Go's arenas) costs nothing
    and counts nothing.  What no process maps (a memfd only written to, a System V
    segment no process attaches) is not seen: docs/security.md."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.limit = memory_mb << 20
        self.over: str | None = None  # why it was stopped, once it went over
        self.processes: list[int] = []  # the bot's processes at the last look
        self._leader = 0
        self._strays: Callable[[], Iterable[int]] | None = None
        self._stray_roots: list[int] = []
        self._private_tmp = False
        self._looks = 0
        # the last exact measure: (resident sum then, exact figure, when)
        self._exact = (0, 0, -math.inf)

    def start(self, leader: int, strays: Callable[[], Iterable[int]] | None = None,
              private_tmp: bool = False) -> None:
        """Watch the process ``leader`` (the bot's first) and everything it starts."""
        self._leader, self._strays, self._private_tmp = leader, strays, private_tmp

    def look(self) -> bool:
        """Measure once; True (and :attr:`over` says why, :attr:`processes` which to
        kill) when the bot's processes together use more than its limit."""
        self._looks += 1
        if self._strays is not None and self._looks % STRAYS_LOOK_EVERY == 1:
            self._find_strays()
        resident = self._walk(every_thread=self._looks % THREADS_LOOK_EVERY == 1)
        used = resident + self._tmp_used(self.processes)
        if used > self.limit:
            used = self._exact_use(resident, used, self.processes)
        if used <= self.limit:
            return False
        # to be killed: exactly the bot's processes now (a stray found half a second
        # ago may be gone, its pid another's)
        if self._strays is not None:
            self._find_strays()
        self._walk(every_thread=True)
        self.over = (f"went over its memory limit of {self.memory_mb} MiB (all its "
                     f"processes together used {used >> 20} MiB; no control group here, "
                     "the arena's memory watch stopped it)")
        return True

    def enforce(self, leader: int) -> bool:
        """:meth:`look`, and once over kill every process of the bot (and the process
        group of ``leader``, its first): True then (:attr:`over` says why)."""
        if not self.look():
            return False
        for pid in self.processes:  # found in this look: none can be reused yet
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, signal.SIGKILL)
        return True

    def _find_strays(self) -> None:
        assert self._strays is not None
        with contextlib.suppress(OSError):
            self._stray_roots = list(self._strays())

    def _walk(self, every_thread: bool) -> int:
        """Find the bot's processes (:attr:`processes`); their resident bytes."""
        found: list[int] = []
        seen: set[int] = set()
        resident = 0
        todo = [self._leader, *self._stray_roots]
        everyone = None if _CHILDREN_FILES else _children_of_all()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                with open(f"/proc/{pid}/statm", "rb") as handle:
                    pages = int(handle.read().split()[1])
                todo += _children(pid, every_thread) if everyone is None \
                    else everyone.get(pid, [])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            found.append(pid)
            resident += pages * _PAGE
        self.processes = found
        return resident

    def _exact_use(self, resident: int, estimate: int, pids: list[int]) -> int:
        """Proportional set sizes (plus the private tmpfs), or a bound on them from the
        last exact measure while it cannot have been crossed."""
        last_resident, last_exact, when = self._exact
        now = time.monotonic()
        if now - when < EXACT_LOOK_SECONDS and \
                last_exact + resident - last_resident <= self.limit:
            return last_exact + resident - last_resident
        exact = estimate - resident
        for pid in pids:
            with contextlib.suppress(OSError, ValueError), \
                    open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Pss:"):
                        exact += int(line.split()[1]) << 10
                        break
        self._exact = (resident, exact, now)
        return exact

    def _tmp_used(self, pids: list[int]) -> int:
        """Bytes in the bot's private /tmp (bwrap), seen through a process inside: the
        tmpfs of exactly its limit's size (bubblewrap sizes it so; a process still
        setting up the sandbox sees the machine's /tmp, which is not the bot's)."""
        if not self._private_tmp:
            return 0
        for pid in pids:
            if pid != self._leader:  # the leader is bubblewrap, outside the sandbox
                try:
                    info = os.statvfs(f"/proc/{pid}/root/tmp")
                except OSError:
                    continue
                if info.f_blocks * info.f_frsize == self.limit:
                    return (info.f_blocks - info.f_bfree) * info.f_frsize
        return 0


def descendants(root: int) -> list[int]:
    """``root`` and every live process below it (one look at all of /proc)."""
    children = _children_of_all()
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _children_of_all() -> dict[int, list[int]]:
    """Every process's children, from each one's parent in /proc/PID/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat_line = Path(f"/proc/{entry}/stat").read_text()
                parent = int(stat_line[stat_line.rindex(")") + 2:].split()[1])
                children.setdefault(parent, []).append(int(entry))
    return children


# /proc/PID/task/TID/children (a kernel built with CONFIG_PROC_CHILDREN, as distributions
# build theirs): without them the memory watch reads every process's parent instead
_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _children(pid: int, every_thread: bool) -> list[int]:
    """The children of ``pid``: those its first thread started, or every thread's."""
    threads = os.listdir(f"/proc/{pid}/task") if every_thread else [str(pid)]
    children: list[int] = []
    for thread in threads:
        with contextlib.suppress(FileNotFoundError), \
                open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
            children += map(int, handle.read().split())  # (FileNotFoundError: it ended)
    return children


def _remove_group(path: Path, patience: float = 5.0) -> None:
    deadline = time.monotonic() + patience
    while path.exists():
        with contextlib.suppress(OSError):
            pids = [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        try:
            path.rmdir()
        except FileNotFoundError:
            return
        except OSError:  # EBUSY until the killed processes are gone
            if time.monotonic() > deadline:
                return
            time.sleep(0.002)


def sweep_stale(is_dead: Callable[[str], bool]) -> int:
    """Remove the bot groups of arenas that are provably dead (``is_dead`` of the pid in
    a group's name); the number removed."""
    removed = 0
    accounting = detect()
    quota = [accounting.quota_parent] if accounting.quota_parent is not None else []
    for parent in {*accounting.parents, *quota}:
        with contextlib.suppress(OSError):
            for entry in parent.iterdir():
                if not entry.name.startswith(GROUP_PREFIX) or not entry.is_dir():
                    continue
                owner = entry.name[len(GROUP_PREFIX):].split("-")[0]
                if is_dead(owner):
                    _remove_group(entry)
                    removed += 1
    return removed
