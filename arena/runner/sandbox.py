"""How a bot process is launched: argv, environment, working directory, resource limits.

Two levels (``Limits.sandbox``):

``"none"``
    The bot runs as a child of the arena in its own session and process group, with
    rlimits (see :mod:`arena.settings`), a scrubbed environment, its own folder as
    working directory and a fresh scratch directory as HOME and TMPDIR.  It dies with the
    arena (PR_SET_PDEATHSIG).  It can still read what the arena's user can read.
``"bwrap"``
    The same, inside bubblewrap: every namespace unshared (no network, private PID space:
    when the sandbox's first process dies every process in it dies), a read-only /usr (and
    the few /etc files programs need), private /tmp, /proc and /dev, and nothing else but
    the bot's folder (read-only), its scratch directory (writable), the Python interpreter
    and the arena package (read-only, so bots can ``from arena.sdk import run``).
    Works as root in a container without extra flags: ``--unshare-all`` only *tries* to
    unshare the user namespace.

Bubblewrap's ``--new-session`` is not used, so that the bot stays in the process group the
arena kills; the bot has no controlling terminal anyway (``start_new_session``), which is
what ``--new-session`` protects against (TIOCSTI).

Processes are started from the arena's main thread (see :mod:`arena.runner.process`):
PR_SET_PDEATHSIG and bubblewrap's ``--die-with-parent`` fire when the *thread* that
forked the bot exits, so starting bots from trio's worker threads would kill them after
ten idle seconds.
"""

from __future__ import annotations

import ctypes
import os
import resource
import shutil
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import arena
from arena.errors import ArenaError
from arena.runner.botspec import BotSpec
from arena.settings import Limits

PYTHON_PLACEHOLDER = "{python}"
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# the directory that contains the ``arena`` package: on PYTHONPATH for bots
ARENA_ROOT = str(Path(arena.__file__).resolve().parent.parent)
ARENA_PACKAGE = str(Path(arena.__file__).resolve().parent)
# /etc files that dynamic linking, locales and user lookups read
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
             "nsswitch.conf", "passwd", "group", "hosts")
BWRAP_INSTALL_HINT = (
    "the bwrap sandbox needs bubblewrap, which is not installed: "
    "install it with `apt-get install bubblewrap` (Debian/Ubuntu), "
    "`dnf install bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch), "
    "or use sandbox = \"none\""
)


@dataclass(frozen=True)
class LaunchPlan:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    preexec: Callable[[], None]


def bwrap_path() -> str:
    """The bubblewrap executable, or an ArenaError that says how to install it."""
    path = shutil.which("bwrap")
    if path is None:
        raise ArenaError(BWRAP_INSTALL_HINT)
    return path


def plan_launch(spec: BotSpec, limits: Limits, scratch: Path) -> LaunchPlan:
    """Everything needed to start ``spec`` under ``limits``; ``scratch`` must exist."""
    if not spec.command:
        raise ArenaError(f"bot {spec.name!r} has an empty command")
    argv = [part.replace(PYTHON_PLACEHOLDER, sys.executable) for part in spec.command]
    cwd = str(spec.folder.resolve()) if spec.folder is not None else str(scratch)
    env = {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "PYTHONPATH": ARENA_ROOT,
        "PYTHONDONTWRITEBYTECODE": "1",  # the bot's folder may be read-only
        "PYTHONHASHSEED": "0",  # same seed, same game, also for bots that iterate sets
    }
    if limits.sandbox == "bwrap":
        argv = bwrap_argv(cwd, str(scratch)) + argv
    return LaunchPlan(argv=argv, cwd=cwd, env=env, preexec=rlimit_setter(limits))


def bwrap_argv(folder: str, scratch: str) -> list[str]:
    """The bubblewrap prefix: read-only system, private /tmp, only ``folder`` visible."""
    args = [bwrap_path(), "--unshare-all", "--die-with-parent",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    # the interpreter that "{python}" names (a venv and the Python it was made from)
    for prefix in sorted({sys.base_prefix, sys.prefix}):
        if not prefix.startswith("/usr/"):
            args += ["--ro-bind", prefix, prefix]
    args += ["--ro-bind", ARENA_PACKAGE, ARENA_PACKAGE]
    if folder != scratch:
        args += ["--ro-bind", folder, folder]
    args += ["--bind", scratch, scratch, "--chdir", folder, "--"]
    return args


def rlimit_setter(limits: Limits) -> Callable[[], None]:
    """A preexec function: runs in the child between fork and exec."""
    mib = 1 << 20
    settings = [
        (resource.RLIMIT_AS, limits.memory_mb * mib, limits.memory_mb * mib),
        # SIGXCPU at the soft limit, SIGKILL at the hard one
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5),
        (resource.RLIMIT_NPROC, limits.max_processes, limits.max_processes),
        (resource.RLIMIT_FSIZE, limits.max_file_mb * mib, limits.max_file_mb * mib),
        (resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]

    def preexec() -> None:
        _die_with_parent()
        for which, soft, hard in settings:
            current_soft, current_hard = resource.getrlimit(which)
            if current_hard != resource.RLIM_INFINITY:  # never ask for more than allowed
                soft, hard = min(soft, current_hard), min(hard, current_hard)
            resource.setrlimit(which, (soft, hard))

    return preexec


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the process-group kill still applies
        pass
