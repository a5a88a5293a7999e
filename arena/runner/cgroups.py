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
    neither: the per-process rlimits only (a warning says so).

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
import os
import secrets
import signal
import time
from collections.abc import Callable
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
