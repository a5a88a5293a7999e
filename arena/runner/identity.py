"""Who a bot runs as, and sweeping up after it.

When the arena runs as root, no bot ever runs as root: each bot *process* gets a uid/gid
of its own from a range (``Limits.bot_uid`` and the next ``BOT_UID_COUNT - 1``), so two
bots playing at the same time can neither signal nor trace each other nor the arena, and
files of one are not the other's.  A uid is leased with an exclusive ``flock`` on a lock
file in a root-only directory, so the worker processes of a league (and two leagues on
one machine) never hand out the same uid; the kernel drops the lock when its holder dies,
even by ``kill -9``.

What an arena process names after itself (scratch folders, control groups) is swept only
once that arena is provably dead: each arena process holds a shared ``flock`` on a lease
file named after its pid (:func:`hold_arena_lease`) for its whole life, and
:func:`arena_is_dead` says dead only when it can take that lock exclusively.  A running
arena whose pid this process cannot see (another PID namespace, ``hidepid``) is thus never
taken for a dead one.

Before a uid is handed out, and again when its bot is done, everything left behind under
it is swept: every process of that uid is killed (a ``setsid`` double fork at sandbox level
``none`` escapes the process group, never its uid), and its files in the shared temporary
folders are deleted.  A uid whose previous holder was killed with ``kill -9`` is thus
cleaned before its next use, and :func:`sweep_abandoned` cleans every unleased uid when a
league starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError

BOT_UID_COUNT = 1000
# where a bot at level "none" may have written outside its scratch folder
SHARED_TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
LEASE_DIR_NAME = "ra-arena-uids"
ARENA_LEASE_DIR_NAME = "ra-arena-leases"
_held_arena_leases: dict[int, int] = {}  # pid -> the descriptor holding its lease


@dataclass
class BotIdentity:
    """A leased uid/gid; :meth:`release` sweeps it and frees it for the next bot."""

    uid: int
    gid: int
    _lock_fd: int

    def release(self) -> None:
        if self._lock_fd < 0:
            return
        sweep_uid(self.uid)
        os.close(self._lock_fd)  # drops the flock
        self._lock_fd = -1


def running_as_root() -> bool:
    return os.geteuid() == 0


def lease_directory() -> Path:
    """A root-only directory of lock files, one per uid in use."""
    base = Path("/run") if os.access("/run", os.W_OK) else Path("/tmp")
    return _private_directory(base / LEASE_DIR_NAME, "the bot uid leases")


def _arena_lease_directory() -> Path:
    """This user's directory of arena leases (in the shared temporary folder, so that
    arenas in other PID namespaces of the machine find each other's)."""
    return _private_directory(
        Path(tempfile.gettempdir()) / f"{ARENA_LEASE_DIR_NAME}-{os.geteuid()}",
        "the arena leases")


def _private_directory(directory: Path, holds: str) -> Path:
    """``directory``, made if need be, owned by this process's uid, mode 0700."""
    directory.mkdir(mode=0o700, exist_ok=True)
    info = directory.lstat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o077 or not directory.is_dir():
        raise ArenaError(f"{directory} must be a directory owned by uid {os.geteuid()} "
                         f"with mode 0700 (it holds {holds}); remove it")
    return directory


def hold_arena_lease() -> None:
    """Hold this process's arena lease (once per process, until it exits): what it names
    after its pid is not swept while it lives."""
    pid = os.getpid()
    if pid in _held_arena_leases:
        return
    path = _arena_lease_directory() / str(pid)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)  # shared: arenas of one pid in two PID namespaces
        try:  # a sweeper may have removed the file of a dead namesake meanwhile
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                _held_arena_leases[pid] = fd
                return
        except FileNotFoundError:
            pass
        os.close(fd)


def arena_is_dead(owner: str) -> bool:
    """Is the arena process ``owner`` (a pid, as it appears in the names of what it made)
    provably dead?  Its lease is free (then the lease is removed), or, for what an arena
    of before the leases left, no process of that pid exists."""
    if not owner.isdigit():
        return False
    path = _arena_lease_directory() / owner
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return not Path(f"/proc/{owner}").exists()
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # held: that arena is running (maybe where we cannot see it)
        with contextlib.suppress(OSError):
            os.unlink(path)  # under the lock: a new holder of the name checks the inode
        return True
    finally:
        os.close(fd)


def sweep_free_arena_leases() -> int:
    """Remove the leases of arenas that are gone (after what they left was swept): an
    arena that ended normally leaves its lease file; the number removed."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in _arena_lease_directory().iterdir():
            if entry.name != str(os.getpid()) and entry.name.isdigit() \
                    and entry.exists() and arena_is_dead(entry.name):
                removed += 1
    return removed


def lease_identity(first_uid: int) -> BotIdentity:
    """A uid/gid of the range that no other bot holds now, swept clean."""
    directory = lease_directory()
    for uid in range(first_uid, first_uid + BOT_UID_COUNT):
        fd = os.open(directory / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        sweep_uid(uid)  # a holder killed with -9 may have left something
        return BotIdentity(uid, uid, fd)
    raise ArenaError(f"all {BOT_UID_COUNT} bot uids from {first_uid} are in use")


def sweep_abandoned(first_uid: int) -> int:
    """Sweep every uid of the range that no live arena holds; the number swept."""
    if not running_as_root():
        return 0
    directory = lease_directory()
    swept = 0
    for entry in directory.iterdir():
        if not entry.name.isdigit() or not first_uid <= int(entry.name) < first_uid + BOT_UID_COUNT:
            continue
        fd = os.open(entry, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # in use by a live arena
        finally:
            os.close(fd)
        sweep_uid(int(entry.name))
        swept += 1
    return swept


def processes_of(uid: int) -> list[int]:
    """Live processes whose real or effective uid is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                status = handle.read()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                real, effective = (int(part) for part in line.split()[1:3])
                if uid in (real, effective) and "State:\tZ" not in status:
                    found.append(int(entry))
                break
    return found


def sweep_uid(uid: int, patience: float = 5.0) -> None:
    """Kill every process of ``uid`` (repeatedly: a fork bomb refills) and delete its
    files in the shared temporary folders."""
    if uid == 0 or uid == os.geteuid():
        raise ValueError("refusing to sweep the arena's own uid")
    _kill_all(lambda: processes_of(uid), f"bot uid {uid}", patience)
    for top in SHARED_TEMP_DIRS:
        with contextlib.suppress(OSError), os.scandir(top) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != uid:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)


def processes_in_user_namespace(inode: int) -> list[int]:
    """Live processes of the user namespace ``inode`` (this user's, as the owner of a
    namespace it made may look into it)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}/ns/user").st_ino == inode:
                    found.append(int(entry))
    return found


def sweep_user_namespace(inode: int, patience: float = 5.0) -> None:
    """Kill every process of the user namespace ``inode`` (repeatedly: a fork bomb
    refills): a bot run by a user other than root at level none, and whatever it
    started, even in a session of its own, stays in the namespace it was given."""
    if inode == os.stat("/proc/self/ns/user").st_ino:
        raise ValueError("refusing to sweep the arena's own user namespace")
    _kill_all(lambda: processes_in_user_namespace(inode), "a bot's user namespace", patience)


def _kill_all(find: Callable[[], list[int]], whose: str, patience: float) -> None:
    """SIGKILL every process ``find`` names until it names none (a fork bomb refills);
    an ArenaError after ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while pids := find():
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise ArenaError(f"cannot kill the processes of {whose}: {pids[:10]}")
        time.sleep(0.001)
