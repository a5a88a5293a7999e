"""Build steps that misbehave (fork, fill the disk, reach the network, write outside
their copy, run for ever, leave a process behind): each is contained at every sandbox
level, fails the build with a one-line reason and the end of its log, and leaves nothing
behind: no process, no cache entry, no staging folder.

Levels as in test_hostile.py: everything under ``bwrap``; ``none`` where it contains a
build (as root: a uid of its own; else Landlock keeps its writes to its folders, and a
user namespace of its own its processes and its network).  CI runs this file as root and
again as user nobody (.ci/run).  Under CI=true a missing bubblewrap fails, never skips.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import threading
from pathlib import Path

import pytest

from arena.plugins.builds import BuildFailed, ensure_built, find_built
from arena.plugins.discovery import game_registry
from arena.plugins.manifest import load_manifest
from arena.runner import cgroups, sandbox
from arena.runner.botspec import BotSpec
from arena.settings import BuildLimits

from .test_hostile import BWRAP, ROOT, none_left_soon

ATTACK = Path(__file__).parent / "builds" / "attack.py"
# level none contains a build as root (its own uid) or with Landlock (its writes) and a
# user namespace (its processes, its network)
LEVELS = [BWRAP, "none"] if ROOT or sandbox.landlock_abi() >= 1 else [BWRAP]
# tight limits: the attacks meet them in seconds
LIMITS = BuildLimits(seconds=20, max_processes=32, disk_mb=64, max_file_mb=16)


def attack_bot(tmp_path: Path, kind: str, target: str | None = None) -> tuple[BotSpec, str]:
    """A bot folder whose build is attack.py KIND MARKER; (its spec, the marker)."""
    marker = f"ra-build-attack-{secrets.token_hex(6)}"
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(ATTACK, folder / "attack.py")
    if target is not None:
        (folder / "target.txt").write_text(target)
    (folder / "bot.toml").write_text(
        f'name = "attacker"\nversion = "1"\n'
        f'build = ["{{python}}", "attack.py", "{kind}", "{marker}"]\n'
        'command = ["./bot"]\n\n[games]\nra = [2]\n')
    folder.chmod(0o755)
    return load_manifest(folder, game_registry().games), marker


def failed_build(spec: BotSpec, level: str, cache: Path,
                 limits: BuildLimits = LIMITS) -> BuildFailed:
    """The build's failure, after checking that it left nothing behind."""
    with pytest.raises(BuildFailed) as raised:
        ensure_built(spec, cache=cache, sandbox=level, limits=limits)
    failure = raised.value
    assert "\n" not in str(failure) and "\n" not in failure.reason, failure
    assert "ESCAPED" not in failure.log_tail, failure.log_tail
    assert_nothing_left(spec, cache)
    return failure


def assert_nothing_left(spec: BotSpec, cache: Path) -> None:
    assert find_built(spec, cache) is None
    assert spec.content_hash is not None
    assert not (cache / spec.content_hash).exists()  # no partial cache entry
    assert [p.name for p in cache.iterdir() if p.name.startswith(".staging")] == []


def source_files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("level", LEVELS)
def test_a_fork_bomb_is_bounded_and_killed(tmp_path: Path, level: str) -> None:
    spec, marker = attack_bot(tmp_path, "fork")
    failure = failed_build(spec, level, tmp_path / "cache")
    if cgroups.detect().enforced:
        assert failure.reason == "tried to run more than 32 processes at once", failure
    else:  # RLIMIT_NPROC in its own uid or user namespace refused the fork
        assert failure.reason == "exited with code 1", failure
        assert "contained: fork refused" in failure.log_tail
    assert none_left_soon(marker)


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_is_stopped_at_its_memory_limit(tmp_path: Path, level: str) -> None:
    # by its control group, or where there is none (as nobody) by the arena's memory
    # watch: RLIMIT_AS is only a backstop far above it (issue 40)
    spec, marker = attack_bot(tmp_path, "memory")
    limits = BuildLimits(seconds=20, max_processes=32, disk_mb=64, max_file_mb=16,
                         memory_mb=256)
    failure = failed_build(spec, level, tmp_path / "cache", limits)
    assert failure.reason.startswith("went over its memory limit of 256 MiB"), failure
    assert "allocating 8 GiB" in failure.log_tail
    assert none_left_soon(marker)


@pytest.mark.parametrize("level", LEVELS)
def test_filling_the_disk_is_stopped_at_its_limit(tmp_path: Path, level: str) -> None:
    spec, marker = attack_bot(tmp_path, "disk")
    failure = failed_build(spec, level, tmp_path / "cache")
    assert failure.reason.startswith("wrote more than 64 MiB into its folder"), failure
    assert none_left_soon(marker)


@pytest.mark.parametrize("level", LEVELS)
def test_a_file_over_its_size_limit_is_stopped_by_the_kernel(tmp_path: Path, level: str
                                                              ) -> None:
    spec, marker = attack_bot(tmp_path, "big-file")
    failure = failed_build(spec, level, tmp_path / "cache")
    assert failure.reason == ("wrote a file larger than 16 MiB (the build's limit per "
                              "file); killed by SIGXFSZ"), failure


@pytest.mark.parametrize("level", LEVELS)
def test_no_network_not_even_the_machines_loopback(tmp_path: Path, level: str) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted: list[object] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept())
            except OSError:
                continue

    stop = threading.Event()
    watcher = threading.Thread(target=accept)
    watcher.start()
    try:
        spec, _marker = attack_bot(tmp_path, "network", target=str(port))
        failure = failed_build(spec, level, tmp_path / "cache")
    finally:
        stop.set()
        watcher.join()
        listener.close()
    assert failure.reason == "exited with code 1", failure
    assert failure.log_tail.count("contained:") == 2, failure.log_tail
    assert accepted == []


@pytest.mark.parametrize("level", LEVELS)
def test_it_writes_nowhere_but_its_own_copy(tmp_path: Path, level: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o777)
    outside.chmod(0o777)  # even where anyone may write
    cache = tmp_path / "cache"
    cache.mkdir()
    shared = Path("/tmp") / f"ra-build-escape-{secrets.token_hex(6)}"
    targets = [tmp_path / "bot" / "bot.toml",  # its own sources
               tmp_path / "bot" / "planted",
               cache / ("0" * 64),  # a cache entry of its own making
               outside / "planted", shared, Path.home() / f"ra-build-{shared.name}"]
    spec, marker = attack_bot(tmp_path, "write-outside",
                              target="\n".join(str(path) for path in targets))
    before = source_files(tmp_path / "bot")
    failure = failed_build(spec, level, cache)
    assert failure.reason == "exited with code 1", failure
    # each tried, and refused or written where only it sees (bubblewrap's /tmp is a
    # tmpfs of its own): what counts is the machine's files, looked at here
    assert all(str(path) in failure.log_tail for path in targets), failure.log_tail
    assert source_files(tmp_path / "bot") == before
    for path in targets[1:]:
        assert not path.exists(), path
    assert none_left_soon(marker)


@pytest.mark.parametrize("level", LEVELS)
def test_a_build_that_never_ends_is_killed_at_its_time_limit(tmp_path: Path, level: str
                                                            ) -> None:
    spec, marker = attack_bot(tmp_path, "forever")
    limits = BuildLimits(seconds=2, max_processes=32)
    failure = failed_build(spec, level, tmp_path / "cache", limits)
    assert failure.reason.startswith("took longer than 2 s (the build's time limit"), failure
    assert "thinking for ever" in failure.log_tail
    assert none_left_soon(marker)


@pytest.mark.parametrize("level", LEVELS)
def test_a_process_a_build_leaves_is_killed(tmp_path: Path, level: str) -> None:
    spec, marker = attack_bot(tmp_path, "daemon")
    built = ensure_built(spec, cache=tmp_path / "cache", sandbox=level, limits=LIMITS)
    assert built.folder is not None and (built.folder / "bot").is_file()
    assert none_left_soon(marker)  # the build is done: nothing of it runs
    assert os.access(built.folder / "bot", os.X_OK)
