"""Built copies of bots, cached by the content hash of their sources.

A bot whose manifest names a ``build`` runs in a built copy of its folder, never in the
folder itself: :func:`ensure_built` copies the sources into a private folder, runs the
build there in the sandbox (:func:`arena.runner.build.run_build`), copies what the build
left into a folder of the arena's own (owned by the arena's user, no write bits: no bot
can change it) and renames it into the cache only when all went well.  The cache key is
the content hash of the sources (``bot.toml`` included), so a second ``ensure_built`` of
the same sources builds nothing, and a change of one byte builds again.  Every command
that plays a bot shares one cache (``arena validate``, ``submit``, ``run``, ``build``:
:func:`default_cache`); a server keeps its own in its folder.

An entry, ``CACHE/<sources' hash>/``:

``bot/``        the built copy, where the bot runs
``build.json``  what was built, how and when, and the content hash of ``bot/``
``build.log``   the build's output (its first and last halves, within ``log_kb``)

An entry is checked against its recorded hash whenever it is used; a damaged one is
removed and built again.  Two processes that build the same sources at once build them
once (an ``flock`` per hash; the second waits and finds the entry).  A build that fails
leaves no entry: its log is kept apart (``CACHE/failed/<hash>.log``) and its last lines
are in the :class:`BuildFailed` raised.  What a killed arena left half made (staging
folders named after its pid) is removed by the next build, once that arena is provably
dead (:func:`arena.runner.identity.arena_is_dead`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from arena import __version__
from arena.errors import ArenaError
from arena.plugins.install import copy_bot_folder
from arena.plugins.manifest import FolderRefused, content_hash, program_problems
from arena.runner import identity
from arena.runner.botspec import BotSpec
from arena.runner.build import BuildRun, describe_argv, remove_tree, run_build
from arena.runner.sandbox import choose_level
from arena.settings import BuildLimits, build_limits, folder_limits
from arena.terminal import visible

BUILT_FOLDER = "bot"
RECORD_NAME = "build.json"
LOG_NAME = "build.log"
FAILED_FOLDER = "failed"  # the logs of failed builds, one per sources' hash
KEPT_FAILED_LOGS = 50
STAGING_PREFIX = ".staging-"
LOCKS_FOLDER = ".locks"
TAIL_LINES = 20  # of a failed build's log, shown with its reason
NOTICE_SECONDS = 10.0  # a build still running is told this often, as a line


class BuildFailed(ArenaError):
    """A bot's build failed: one line saying why; ``log_tail`` its last output and
    ``log_path`` the whole log kept (None: none was kept)."""

    def __init__(self, spec: BotSpec, reason: str, log_tail: str = "",
                 log_path: Path | None = None) -> None:
        self.spec = spec
        self.reason = reason
        self.log_tail = log_tail
        self.log_path = log_path
        super().__init__(f"{spec.name}: the build `{describe_argv(spec.build)}` failed: "
                         f"{reason}")

    def tail_lines(self, count: int = TAIL_LINES) -> list[str]:
        """The last ``count`` lines of the build's output, control characters shown."""
        return [visible(line) for line in self.log_tail.rstrip("\n").splitlines()[-count:]]


@dataclass(frozen=True)
class BuildRecord:
    """``build.json`` of a cache entry."""

    name: str
    version: str
    source_hash: str
    built_hash: str
    build: tuple[str, ...]
    sandbox: str  # the level it was built at
    seconds: float
    built_at: str
    arena_version: str

    def to_json(self) -> dict[str, object]:
        return {**vars(self), "build": list(self.build)}


class BuildReporter:
    """Hears of builds (every method optional): a terminal's lines, a league's notices."""

    def building(self, spec: BotSpec, level: str, limits: BuildLimits) -> None:
        """A build starts (none starts for sources already built)."""

    def waiting(self, spec: BotSpec) -> None:
        """Another process is building the same sources: this one waits for it."""

    def progress(self, spec: BotSpec, seconds: float, output: bytes) -> None:
        """About ten times a second during a build, and with each piece of output."""

    def built(self, spec: BotSpec, record: BuildRecord, log_path: Path) -> None:
        """The build succeeded (not called for a build found in the cache)."""

    def failed(self, failure: BuildFailed) -> None:
        """The build failed (then :class:`BuildFailed` is raised)."""


def default_cache() -> Path:
    """The command line's cache: ``$XDG_CACHE_HOME/ra-arena/builds`` (default
    ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "ra-arena" / "builds"


def entry_of(spec: BotSpec, cache: Path) -> Path:
    if spec.content_hash is None:
        raise ArenaError(f"{spec.name}: a bot with a build step needs a folder (its "
                         "sources' hash names its build)")
    return cache / spec.content_hash


def find_built(spec: BotSpec, cache: Path) -> BotSpec | None:
    """The spec of ``spec``'s built copy in ``cache`` if its sources were built and the
    copy is whole; None otherwise."""
    if not spec.needs_build:
        return spec
    entry = entry_of(spec, cache)
    try:
        record = json.loads((entry / RECORD_NAME).read_text())
        built_hash = record["built_hash"]
        if record["source_hash"] != spec.content_hash or not isinstance(built_hash, str):
            return None
        if content_hash(entry / BUILT_FOLDER) != built_hash:
            return None
    except (OSError, ValueError, KeyError, TypeError, FolderRefused):
        return None
    return replace(spec, folder=(entry / BUILT_FOLDER).resolve(), built_hash=built_hash)


def is_built(spec: BotSpec, cache: Path | None = None) -> bool:
    """Whether ``spec`` has a current build in ``cache`` (a quick look: the record's
    presence, not the files' hash)."""
    if not spec.needs_build or spec.content_hash is None:
        return True
    return (entry_of(spec, cache or default_cache()) / RECORD_NAME).is_file()


def build_log_path(spec: BotSpec, cache: Path | None = None) -> Path | None:
    """The log of the sources' last build: the entry's, else the failed build's."""
    cache = cache or default_cache()
    for path in (entry_of(spec, cache) / LOG_NAME,
                 cache / FAILED_FOLDER / f"{spec.content_hash}.log"):
        if path.is_file():
            return path
    return None


def ensure_built(spec: BotSpec, *, cache: Path | None = None, sandbox: str = "auto",
                 bot_uid: int = 61000, limits: BuildLimits | None = None,
                 reporter: BuildReporter | None = None, rebuild: bool = False) -> BotSpec:
    """The spec of ``spec``'s built copy (``spec`` itself when it has no build step),
    built now at sandbox level ``sandbox`` if ``cache`` holds none (``rebuild``: built
    again in any case).  :class:`BuildFailed` if the build fails; an ArenaError if the
    sandbox cannot be had."""
    if not spec.needs_build:
        return spec
    if spec.folder is None:
        raise ArenaError(f"{spec.name}: a bot with a build step needs a folder")
    cache = cache or default_cache()
    limits = limits or build_limits()
    reporter = reporter or BuildReporter()
    entry = entry_of(spec, cache)
    if not rebuild and (found := find_built(spec, cache)) is not None:
        return found
    level = choose_level(sandbox).level  # (an ArenaError before anything is made)
    _private_folder(cache)
    identity.hold_arena_lease()  # before anything named after this process
    _sweep_staging(cache)
    with _locked(cache, entry.name, lambda: reporter.waiting(spec)):
        if not rebuild and (found := find_built(spec, cache)) is not None:
            return found  # built by another process meanwhile
        staging = cache / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        staging.mkdir(mode=0o711)
        try:
            return _build(spec, staging, entry, cache, level, bot_uid, limits, reporter)
        finally:
            remove_tree(staging)


def _build(spec: BotSpec, staging: Path, entry: Path, cache: Path, level: str,
           bot_uid: int, limits: BuildLimits, reporter: BuildReporter) -> BotSpec:
    assert spec.folder is not None
    work = staging / "work"
    made = staging / "entry"
    try:
        copy_bot_folder(spec.folder, work, links=True)
        if content_hash(work) != spec.content_hash:
            raise FolderRefused("the bot's folder changed while it was copied; try again")
    except FolderRefused as refused:
        raise ArenaError(f"{spec.name}: bot folder refused: {refused}") from None
    work.chmod(0o755)  # (a bot uid builds in it when the arena runs as root)
    made.mkdir(mode=0o755)
    log_path = made / LOG_NAME
    reporter.building(spec, level, limits)
    run = run_build(spec, work, limits, level, bot_uid, log_path,
                    lambda seconds, output: reporter.progress(spec, seconds, output))
    failure = _failure(spec, run, work)
    if failure is None:
        try:
            copy_bot_folder(work, made / BUILT_FOLDER, links=True, limits=folder_limits())
            built_hash = content_hash(made / BUILT_FOLDER)
        except FolderRefused as refused:
            failure = f"what it built cannot be kept as a bot folder: {refused}"
        except OSError as error:
            failure = f"what it built cannot be copied: {error}"
    if failure is not None:
        kept = _keep_failed_log(log_path, cache, spec)
        problem = BuildFailed(spec, failure, run.log_tail, kept)
        reporter.failed(problem)
        raise problem
    record = BuildRecord(spec.name, spec.version, str(spec.content_hash), built_hash,
                         spec.build, level, round(run.seconds, 3),
                         datetime.now(UTC).isoformat(timespec="seconds"), __version__)
    (made / RECORD_NAME).write_text(json.dumps(record.to_json(), indent=2) + "\n")
    _read_only(made)
    if os.path.lexists(entry):  # a damaged entry (its hash no longer matched), or rebuild
        remove_tree(entry)
    os.rename(made, entry)  # (still writable itself: a folder's ".." changes)
    entry.chmod(0o555)
    with contextlib.suppress(OSError):
        (cache / FAILED_FOLDER / f"{spec.content_hash}.log").unlink()
    reporter.built(spec, record, entry / LOG_NAME)
    built = find_built(spec, cache)
    if built is None:
        raise ArenaError(f"{spec.name}: its built copy in {entry} changed as it was stored")
    return built


def _failure(spec: BotSpec, run: BuildRun, work: Path) -> str | None:
    """Why the build counts as failed, or None: it failed, or what it made cannot run
    the bot's command."""
    if not run.ok:
        return run.reason
    problems = program_problems("command", spec.command, work)
    if problems:
        return f"it ended well but the bot cannot start: {problems[0]}"
    return None


def _keep_failed_log(log_path: Path, cache: Path, spec: BotSpec) -> Path | None:
    """The failed build's log, kept apart (no cache entry), the newest
    :data:`KEPT_FAILED_LOGS` of them."""
    folder = cache / FAILED_FOLDER
    kept = folder / f"{spec.content_hash}.log"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        os.replace(log_path, kept)
        logs = sorted(folder.iterdir(), key=lambda path: path.stat().st_mtime)
        for old in logs[:-KEPT_FAILED_LOGS]:
            old.unlink()
    except OSError:
        return None
    return kept


def _read_only(folder: Path) -> None:
    """No write bit left anywhere under ``folder`` (folders last: they are walked;
    ``folder`` itself is left writable, to be renamed)."""
    for root, folders, files in os.walk(folder, topdown=False):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)
        for name in folders:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o555)


def _private_folder(cache: Path) -> None:
    """The cache folder, made if need be, writable by this user only."""
    try:
        cache.mkdir(mode=0o755, parents=True, exist_ok=True)
        info = cache.lstat()
    except OSError as error:
        raise ArenaError(f"the build cache {cache} cannot be made: {error}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() \
            or info.st_mode & 0o022:
        raise ArenaError(f"the build cache {cache} must be a folder of uid {os.geteuid()} "
                         "that only it may write; remove it")


@contextlib.contextmanager
def _locked(cache: Path, key: str, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the build lock of ``key`` (an exclusive flock on a file named after it; the
    file is removed by its holder, so a waiter checks it locked the file still named)."""
    folder = cache / LOCKS_FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / key
    told = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not told:
                waiting()
                told = True
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)


def _sweep_staging(cache: Path) -> None:
    """Remove the staging folders of arenas that are provably dead."""
    with contextlib.suppress(OSError):
        for entry in cache.iterdir():
            if entry.name.startswith(STAGING_PREFIX):
                owner = entry.name[len(STAGING_PREFIX):].split("-")[0]
                if owner != str(os.getpid()) and identity.arena_is_dead(owner):
                    remove_tree(entry)


class NoticeReporter(BuildReporter):
    """Builds told as whole lines to ``notice`` (a league's notices, a server's log): a
    line at the start, one every :data:`NOTICE_SECONDS` while it runs, a line at the end,
    and for a failure the end of its log."""

    def __init__(self, notice: Callable[[str], None]) -> None:
        self.notice = notice
        self.told = 0.0

    def building(self, spec: BotSpec, level: str, limits: BuildLimits) -> None:
        self.told = 0.0
        self.notice(f"building {spec.name} {spec.version}: {describe_argv(spec.build)} "
                    f"(sandbox {level}, at most {limits.seconds} s)")

    def waiting(self, spec: BotSpec) -> None:
        self.notice(f"waiting for another process that is building {spec.name}")

    def progress(self, spec: BotSpec, seconds: float, output: bytes) -> None:
        if seconds - self.told >= NOTICE_SECONDS:
            self.told = seconds
            self.notice(f"building {spec.name}: {seconds:.0f} s so far")

    def built(self, spec: BotSpec, record: BuildRecord, log_path: Path) -> None:
        self.notice(f"built {spec.name} in {record.seconds:.1f} s (log: {log_path})")

    def failed(self, failure: BuildFailed) -> None:
        lines = failure.tail_lines()
        if lines:
            self.notice(f"the end of {failure.spec.name}'s build log:")
            for line in lines:
                self.notice(f"  | {line}")
        if failure.log_path is not None:
            self.notice(f"its whole log: {failure.log_path}")


class TerminalReporter(NoticeReporter):
    """Builds as a person sees them on ``stream`` (stderr): a :class:`NoticeReporter`'s
    lines, and on a terminal a live line with the build's time and last output
    (``show_log``: its whole output as it comes, and no tail at the end)."""

    def __init__(self, stream: TextIO | None = None, *, show_log: bool = False) -> None:
        super().__init__(self._say)
        self.stream = stream or sys.stderr
        self.show_log = show_log
        self.live = self.stream.isatty() and not show_log
        self.last_draw = 0.0
        self.last_line = ""
        self.shown = False  # a live line is on the screen

    def _say(self, line: str) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.shown = False
        print(line, file=self.stream, flush=True)

    def progress(self, spec: BotSpec, seconds: float, output: bytes) -> None:
        text = output.decode("utf-8", errors="replace")
        if self.show_log:
            if text:
                self.stream.write(text)
                self.stream.flush()
            return
        if not self.live:
            super().progress(spec, seconds, output)
            return
        lines = [line for line in text.splitlines() if line.strip()]
        self.last_line = lines[-1] if lines else self.last_line
        if time.monotonic() - self.last_draw < 0.2:
            return
        self.last_draw = time.monotonic()
        width = shutil.get_terminal_size().columns - 1
        line = f"building {spec.name}: {seconds:.0f} s" + (
            f" | {visible(self.last_line)}" if self.last_line else "")
        self.stream.write("\r\x1b[2K" + line[:width])
        self.stream.flush()
        self.shown = True

    def failed(self, failure: BuildFailed) -> None:
        if not self.show_log:  # (the command then says why, in one line)
            super().failed(failure)
            return
        self._say(f"the build of {failure.spec.name} failed: {failure.reason}")
        if failure.log_path is not None:  # its output is on the screen already
            self._say(f"its whole log: {failure.log_path}")
