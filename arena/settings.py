"""The settings a game is played under, defined once: the time control, every limit a
bot runs under with its default, and the sandbox levels.

League files (``[time]`` and ``[limits]``, :mod:`arena.league.config`), the store's record
of a league's settings, manifests (``resources``) and the command line (``--sandbox``) all
read and write them through this module: :class:`Limits` is the value; the tables
:data:`TIME_KEYS` and :data:`LIMIT_KEYS` say which league-file key is which field.

A league passes its own :class:`Limits`; a bot's manifest may ask for less (or, within the
league's caps, more) memory through ``resources.memory_mb``, see :meth:`Limits.for_bot`.

Notes on what the operating system really enforces:

* ``memory_mb`` bounds the memory a bot's processes really use, together: a control
  group's memory limit where the arena has cgroups, else the arena's memory watch over
  the bot's processes (arena/runner/cgroups.py; reason ``memory`` either way).  Address
  space reserved and never touched does not count: RLIMIT_AS is only a backstop of 16
  times ``memory_mb`` (at least 32 GiB), since a JVM reserves 3.5 GiB for a 1 GiB heap.
  Java, Go and Node are told their heap sizes from it (``runtime_environment`` in
  arena/runner/sandbox.py).
* ``max_processes`` bounds the processes (threads included) of one bot: a cgroup's
  ``pids.max`` where the arena has cgroups, else RLIMIT_NPROC inside the bot's own user
  namespace, where the kernel counts only that bot's processes (docs/security.md; the
  start of a run says which).  Besides, the arena kills the bot's whole process group
  when it is done with it (and, under bubblewrap, its private PID namespace dies with it).
* ``cpu_seconds`` is RLIMIT_CPU over the life of a process, which is reused across games:
  it is a backstop against a runaway, the per-decision limit is what keeps games moving.
* ``cores`` is how many cores a bot may keep busy at once: a cgroup CPU quota of
  ``cores`` CPU-seconds per second over its whole process tree where the machine has
  cgroup CPU accounting, else a CPU affinity mask of ``ceil(cores)`` CPUs (the bot may not
  change it).  Without it a bot with four busy threads starves the bots at the next
  tables of their decision time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from arena.errors import ArenaError

# How bot processes are contained (arena/runner/sandbox.py): "auto" (the strongest level
# this machine has), "bwrap" (bubblewrap namespaces) or "none" (a plain process).
PROCESS_SANDBOX_LEVELS = ("auto", "bwrap", "none")
# No process at all: bots whose manifest names an in-process entry point are played
# inside the arena's own (worker) processes, without a pipe, for research runs of
# millions of games.  Nothing contains them: only for your own trusted code
# (arena/runner/trusted.py, docs/security.md).
TRUSTED = "trusted"
# every level a league file, the command line and Limits accept
SANDBOX_LEVELS = (*PROCESS_SANDBOX_LEVELS, TRUSTED)
# cores a bot may keep busy at once unless the league says otherwise (Limits.cores)
DEFAULT_CORES = 1.0


@dataclass(frozen=True)
class Limits:
    # --- time (seconds) ---
    handshake_seconds: float = 10.0  # hello -> ready, for a freshly started process
    move_seconds: float = 1.0  # per decision
    # Optional per-game overage bank: time a seat may spend beyond move_seconds, summed
    # over the whole game.  None = no bank, every decision must fit in move_seconds.
    bank_seconds: float | None = None
    # Optional whole-game clock per seat (chess-style): the total thinking time a seat may
    # use in one game.  None = no clock.  A decision may take at most
    # min(move_seconds + bank left, clock left); see docs/protocol.md.
    game_seconds: float | None = None
    ping_seconds: float = 2.0  # ping -> pong between games; also bounds a blocked write
    quit_grace_seconds: float = 0.5  # after "quit", before the process group is killed
    # How long the arena waits for a quick bot's reply in the kernel, outside the event
    # loop, before sleeping in the event loop (0: never).  The event loop costs tens of
    # microseconds per decision, most of a quick one; see runner/process.py.
    quick_reply_wait_seconds: float = 100e-6

    # --- input from the bot ---
    max_line_bytes: int = 1 << 20  # one JSON line on stdout; longer = "oversize"
    max_comment_chars: int = 200  # a reply's comment is cut to this length in the record
    stderr_log_bytes: int = 1 << 20  # per process start: its first and last halves kept
    stderr_tail_bytes: int = 4096  # the end of stderr kept for the game record
    # all the stderr logs in a league's log folder: the oldest go beyond this
    logs_total_bytes: int = 256 << 20

    # --- operating-system limits (see the module docstring) ---
    memory_mb: int = 2048  # what its processes use together (see the module docstring)
    cpu_seconds: int = 3600  # RLIMIT_CPU, per process lifetime
    max_processes: int = 64  # per bot: cgroup pids.max, else RLIMIT_NPROC in its user namespace
    max_file_mb: int = 64  # RLIMIT_FSIZE: the largest file the bot may write
    max_open_files: int = 64  # RLIMIT_NOFILE
    # cores a bot may keep busy at once: a cgroup CPU quota, else CPU affinity (see above)
    cores: float = DEFAULT_CORES

    # "auto" (the strongest level this machine has), "bwrap", "none" (trusted bots only)
    # or "trusted" (no process: in-process entry points only); see SANDBOX_LEVELS above
    sandbox: str = "auto"
    # when the arena runs as root, bots run as uids/gids from this one on (1000 of them,
    # one per bot process at a time); see arena/runner/identity.py
    bot_uid: int = 61000

    def __post_init__(self) -> None:
        if self.sandbox not in SANDBOX_LEVELS:
            raise ArenaError(
                f"unknown sandbox level {self.sandbox!r}; choose one of: "
                + ", ".join(SANDBOX_LEVELS)
            )
        positive = {
            "handshake_seconds": self.handshake_seconds,
            "move_seconds": self.move_seconds,
            "ping_seconds": self.ping_seconds,
            "max_line_bytes": self.max_line_bytes,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "max_processes": self.max_processes,
            "max_file_mb": self.max_file_mb,
            "max_open_files": self.max_open_files,
            "cores": self.cores,
            "bot_uid": self.bot_uid,
        }
        for name, value in positive.items():
            if isinstance(value, bool) or not value > 0:
                raise ArenaError(f"limit {name} must be a positive number, not {value!r}")
        if self.bank_seconds is not None and not self.bank_seconds >= 0:
            raise ArenaError(f"limit bank_seconds must be >= 0, not {self.bank_seconds!r}")
        clock = self.game_seconds
        if clock is not None and (isinstance(clock, bool)
                                  or not isinstance(clock, int | float) or not clock > 0):
            raise ArenaError(f"limit game_seconds must be a positive number or None (no "
                             f"game clock), not {self.game_seconds!r}")
        for name in ("quit_grace_seconds", "quick_reply_wait_seconds", "max_comment_chars",
                     "stderr_log_bytes", "stderr_tail_bytes", "logs_total_bytes"):
            if not getattr(self, name) >= 0:
                raise ArenaError(f"limit {name} must be >= 0, not {getattr(self, name)!r}")

    def for_bot(self, resources: Mapping[str, float], cap_memory_mb: int | None = None
                ) -> Limits:
        """These limits with a bot's own requests applied (``memory_mb`` and ``cores``),
        never above ``cap_memory_mb`` (default: these limits' own memory) nor these
        limits' own cores."""
        limits = self
        cores = resources.get("cores")
        if cores is not None:
            if isinstance(cores, bool) or not isinstance(cores, int | float) or cores <= 0:
                raise ArenaError(f"resources.cores must be a positive number, not {cores!r}")
            limits = replace(limits, cores=min(float(cores), self.cores))
        requested = resources.get("memory_mb")
        if requested is None:
            return limits
        cap = self.memory_mb if cap_memory_mb is None else cap_memory_mb
        if isinstance(requested, bool) or not isinstance(requested, int | float) \
                or requested <= 0:
            raise ArenaError(f"resources.memory_mb must be a positive number, not {requested!r}")
        return replace(limits, memory_mb=min(int(requested), cap))

    def protocol_json(self) -> dict[str, float | int | None]:
        """The limits a bot is told about in the hello message."""
        return {
            "move_ms": round(self.move_seconds * 1000),
            "bank_ms": None if self.bank_seconds is None else round(self.bank_seconds * 1000),
            "game_ms": self.game_ms,
            "handshake_ms": round(self.handshake_seconds * 1000),
            "max_line_bytes": self.max_line_bytes,
            "memory_mb": self.memory_mb,
        }

    @property
    def game_ms(self) -> int | None:
        """The whole-game clock in milliseconds as bots are told it (None: no clock)."""
        return None if self.game_seconds is None else round(self.game_seconds * 1000)


# ------------------------------------------------------------------ the league file's names
# league-file key -> Limits field, for [time] and for [limits]
TIME_KEYS: dict[str, str] = {
    "per_decision": "move_seconds",
    "per_game": "game_seconds",
    "overage": "bank_seconds",  # 0 in the file: no bank (None)
    "handshake": "handshake_seconds",
}
LIMIT_KEYS: dict[str, str] = {
    "memory_mb": "memory_mb",
    "cpu_seconds": "cpu_seconds",
    "max_processes": "max_processes",
    "max_file_mb": "max_file_mb",
    "max_open_files": "max_open_files",
    "cores": "cores",  # left out of a stored league's settings while it is the default
    "max_message_kb": "max_line_bytes",  # kilobytes in the file, bytes here
    "sandbox": "sandbox",
}


def from_league_file(time: dict[str, object], limits: dict[str, object]) -> Limits:
    """The Limits of a league file's (already checked) ``[time]`` and ``[limits]`` keys;
    keys left out keep their defaults."""
    fields: dict[str, object] = {}
    for key, value in time.items():
        fields[TIME_KEYS[key]] = (value or None) if key == "overage" else value
    for key, value in limits.items():
        fields[LIMIT_KEYS[key]] = value * 1024 if key == "max_message_kb" else value  # type: ignore[operator]
    return Limits(**fields)  # type: ignore[arg-type]


def league_file_time(limits: Limits) -> dict[str, object]:
    """``limits`` as a league file's ``[time]`` table (every key)."""
    table: dict[str, object] = {key: getattr(limits, name) for key, name in TIME_KEYS.items()}
    table["overage"] = limits.bank_seconds or 0.0
    return table


def league_file_limits(limits: Limits) -> dict[str, object]:
    """``limits`` as a league file's ``[limits]`` table (every key)."""
    table: dict[str, object] = {key: getattr(limits, name) for key, name in LIMIT_KEYS.items()}
    table["max_message_kb"] = limits.max_line_bytes // 1024
    if limits.cores == DEFAULT_CORES:  # leagues stored before it existed resume unchanged
        del table["cores"]
    return table


def usable_cores() -> int:
    """The CPUs this process may run on: its affinity mask (``taskset``, a container's
    cpuset), not every CPU of the machine.  A league's concurrency and workers default to
    it, and ``arena bench league`` computes its bound from it."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity masks here (macOS)
        return os.cpu_count() or 1


# Seeds: whole numbers from 0 to 2**63 - 1, alike in league files and on every command line.
MAX_SEED = 2**63 - 1


def seed_option(text: str) -> int:
    """The ``type`` of every ``--seed`` option: a seed as league files take it."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, not {text[:40]!r}"
                                         ) from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"a seed is a whole number from 0 to {MAX_SEED}, not {text[:40]}")
    return value


# ------------------------------------------------------------------ reading bot folders
# What the arena reads of a bot folder (arena/plugins/manifest.py, scan_bot_folder): only
# regular files, folders and symbolic links, within these caps.  Every command that reads
# bot folders applies them (arena bots, submit, run, validate, a cluster's packing), so an
# operator raises them once, for all of them, in the environment: a bot cannot raise its
# own caps, and a bot that `arena submit` accepted is not refused by `arena run`.
#
# * 20 MiB per file: far above a bot's code (the bundled bots are a few KiB) and room for
#   a trained network's weights (5 million float32 parameters), while a 50 MB data file
#   or a 2 GiB sparse file (its apparent size counts) is questioned.
# * 100 MiB per folder: every command hashes every bot folder it finds, about 0.2 s per
#   100 MiB, and `arena submit` copies it, a cluster ships it to every worker.
# * 10,000 files, folders and links: a vendored virtualenv or node_modules fits; a folder
#   of a million empty files does not make every `arena bots` crawl.
@dataclass(frozen=True)
class FolderLimits:
    file_mb: int = 20  # the largest file, by apparent size (a sparse file counts in full)
    folder_mb: int = 100  # all the files together
    files: int = 10_000  # files, folders and symbolic links, counted together

    @property
    def file_bytes(self) -> int:
        return self.file_mb << 20

    @property
    def folder_bytes(self) -> int:
        return self.folder_mb << 20


# environment variable -> FolderLimits field
FOLDER_LIMIT_VARIABLES: dict[str, str] = {
    "ARENA_BOT_FILE_MB": "file_mb",
    "ARENA_BOT_FOLDER_MB": "folder_mb",
    "ARENA_BOT_FILES": "files",
}


def folder_limits(environ: Mapping[str, str] | None = None) -> FolderLimits:
    """The caps on reading a bot folder: the defaults, or the environment's
    ``ARENA_BOT_FILE_MB``, ``ARENA_BOT_FOLDER_MB`` and ``ARENA_BOT_FILES``."""
    return FolderLimits(**_whole_numbers(FOLDER_LIMIT_VARIABLES, environ))


def _whole_numbers(variables: Mapping[str, str], environ: Mapping[str, str] | None
                   ) -> dict[str, int]:
    """field -> value for each of ``variables`` (environment variable -> field) that the
    environment sets: a whole number above 0, else an ArenaError naming the variable."""
    environ = os.environ if environ is None else environ
    fields: dict[str, int] = {}
    for variable, name in variables.items():
        text = environ.get(variable, "").strip()
        if not text:
            continue
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise ArenaError(f"environment variable {variable}: a whole number above 0, "
                             f"not {text[:40]!r}")
        fields[name] = value
    return fields


# ------------------------------------------------------------------ building a bot
# A manifest's ``build`` command runs once per content of the bot's sources, in the
# sandbox level its bot would get, under these limits (arena/runner/build.py).  Like the
# folder caps they are the operator's, set in the environment for every command at once
# (validate, submit, run and a server share one rule; the built copy is cached by the
# sources' hash, so a build is never judged twice under different limits).
#
# * 120 s of wall-clock time: javac, go build or rustc -O of a bot take seconds; a build
#   that downloads nothing (there is no network) and takes minutes is stuck.
# * 2048 MiB of memory, as a bot gets: compilers are managed runtimes too (javac is a
#   JVM; go and rustc reserve address space), bounded the way bots are (Limits.memory_mb).
# * 256 processes and threads: a JVM or rustc starts dozens of threads, each counted.
# * 1024 MiB of disk while it runs (its folder and, at level none, its scratch folder):
#   room for intermediate files; what it leaves in its folder must then fit the folder
#   caps above, as every bot folder must.
@dataclass(frozen=True)
class BuildLimits:
    seconds: int = 120  # wall clock, from start to the end of its last process
    memory_mb: int = 2048  # as Limits.memory_mb, for the build's processes
    max_processes: int = 256  # processes and threads at once (as Limits.max_processes)
    disk_mb: int = 1024  # what it writes into its folder (and scratch) while it runs
    max_file_mb: int = 256  # RLIMIT_FSIZE: the largest file it may write
    max_open_files: int = 1024  # RLIMIT_NOFILE: compilers open many files
    log_kb: int = 256  # the build log kept: its first and last halves
    cores: float = 1.0  # as Limits.cores

    def process_limits(self, sandbox: str, bot_uid: int) -> Limits:
        """The bot launch limits a build runs under (arena/runner/sandbox.py): the
        same path as a bot's, with the build's own bounds."""
        return Limits(memory_mb=self.memory_mb, max_processes=self.max_processes,
                      cpu_seconds=max(1, int(self.seconds * max(self.cores, 1.0))) + 5,
                      max_file_mb=self.max_file_mb, max_open_files=self.max_open_files,
                      cores=self.cores, sandbox=sandbox, bot_uid=bot_uid)


# environment variable -> BuildLimits field
BUILD_LIMIT_VARIABLES: dict[str, str] = {
    "ARENA_BUILD_SECONDS": "seconds",
    "ARENA_BUILD_MEMORY_MB": "memory_mb",
    "ARENA_BUILD_PROCESSES": "max_processes",
    "ARENA_BUILD_DISK_MB": "disk_mb",
}


def build_limits(environ: Mapping[str, str] | None = None) -> BuildLimits:
    """The limits of a bot's build: the defaults, or the environment's
    ``ARENA_BUILD_SECONDS``, ``ARENA_BUILD_MEMORY_MB``, ``ARENA_BUILD_PROCESSES`` and
    ``ARENA_BUILD_DISK_MB``."""
    return BuildLimits(**_whole_numbers(BUILD_LIMIT_VARIABLES, environ))
