"""Hostile bots, one per attack: each must be contained, and the game must record the
right reason.  Each bot says "contained: ..." on stderr and exits when its attack fails,
or "ESCAPED: ..." in a reply comment when it succeeds.

Levels: everything runs under ``bwrap``; the level ``none`` promises containment only
when the arena runs as root (the bot then gets a uid of its own, docs/security.md), so
it is tested here only then.  Under CI=true a missing bubblewrap fails, never skips.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.runner import cgroups, identity, sandbox
from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.settings import Limits

from ..helpers import FAST, bundled_spec
from ..toygame import NIM

BOTS = Path(__file__).parent / "bots"
ROOT = os.geteuid() == 0
BWRAP = pytest.param("bwrap", marks=pytest.mark.skipif(
    shutil.which("bwrap") is None and os.environ.get("CI") != "true",
    reason="bubblewrap is not installed (under CI=true this fails instead)"))
# the levels that promise containment to this user: none does as root (a uid of its
# own) or with Landlock ABI 6 (signals scoped to the bot; docs/security.md)
NONE_CONTAINS = ROOT or sandbox.landlock_abi() >= 6
LEVELS = [BWRAP, "none"] if NONE_CONTAINS else [BWRAP]
# ... and where nothing may be left behind: at none only as root (a setsid double fork
# escapes the process group; the sweep finds it by its uid)
LEVELS_SWEPT = [BWRAP, "none"] if ROOT else [BWRAP]
# generous clocks: on a loaded machine a slow start must not pass for the attack's reason
HOSTILE_LIMITS = dataclasses.replace(FAST, handshake_seconds=20.0, move_seconds=10.0,
                                     ping_seconds=5.0, memory_mb=256, max_processes=32,
                                     max_comment_chars=1000)
# CI runs as root on a machine with writable cgroups: there these must run; a user
# without a delegated cgroup subtree has no per-bot accounting (docs/security.md)
needs_accounting = pytest.mark.skipif(
    not cgroups.detect().enforced and not (ROOT and os.environ.get("CI") == "true"),
    reason=f"no per-bot accounting here ({cgroups.detect().why})")


def hostile_spec(tmp_path: Path, script: str, target: str | None = None) -> BotSpec:
    folder = tmp_path / "bot"
    folder.mkdir()
    for name in ("_hostile.py", f"{script}.py"):
        shutil.copy(BOTS / name, folder / name)
    if target is not None:
        (folder / "target.txt").write_text(target)
    # the script's full path is in the command line of every process of the bot (they
    # are found by it: no_process_runs)
    return BotSpec(name=script, version="1", command=("{python}", str(folder / f"{script}.py")),
                   folder=folder, games={"nim": (2,)}, source="test")


def play(spec: BotSpec, level: str, **changes: Any) -> dict[str, Any]:
    """One game of the hostile bot against a well-behaved bot process; the record, in
    which the hostile bot failed."""
    record = play_record(spec, level, **changes)
    assert record["failures"], "the hostile bot did not fail"
    return record


def play_record(spec: BotSpec, level: str, **changes: Any) -> dict[str, Any]:
    """One game of the hostile bot against a well-behaved bot process; the record,
    whether or not the hostile bot failed (the other bot never does)."""
    limits = dataclasses.replace(HOSTILE_LIMITS, sandbox=level, **changes)
    other = bundled_spec("first", ("{python}", "bot.py"))

    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits) as pool, pool.seated([spec, other]) as players:
            outcome = await play_game(NIM, players, seed=1, limits=limits)
        return outcome.playthrough_json()

    record = trio.run(main)
    assert "ESCAPED" not in str(record["comments"]), record["comments"]
    # the other bot never noticed a thing
    assert [failure["seat"] for failure in record["failures"]] in ([], [0]), record
    assert record["incidents"] == []
    return record


def failure_of(record: dict[str, Any]) -> dict[str, Any]:
    failure: dict[str, Any] = record["failures"][0]
    return failure


def none_left_soon(marker: str, patience: float = 5.0) -> bool:
    """No process of the bot runs, after at most ``patience`` seconds: the processes of a
    PID namespace die when its first one does, but not in the same instant."""
    deadline = time.monotonic() + patience
    while not no_process_runs(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return no_process_runs(marker)


def no_process_runs(marker: str) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    return False
            except OSError:
                continue
    return True


@pytest.mark.parametrize("level", LEVELS)
def test_remounting_its_read_only_folder_is_forbidden(tmp_path: Path, level: str) -> None:
    spec = hostile_spec(tmp_path, "remount")
    failure = failure_of(play(spec, level))
    assert failure["reason"] == "forbidden", failure
    assert "killed by SIGSYS" in failure["detail"]
    assert not (tmp_path / "bot" / "written-by-hostile-bot").exists()


@pytest.mark.parametrize("level", LEVELS)
def test_a_user_namespace_of_its_own_is_forbidden(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "userns"), level))
    assert failure["reason"] == "forbidden", failure


@pytest.mark.parametrize("level", LEVELS)
def test_ptrace_of_the_arena_is_forbidden(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "ptrace_arena"), level))
    assert failure["reason"] == "forbidden", failure


@pytest.mark.parametrize("level", LEVELS)
def test_kernel_settings_are_read_only(tmp_path: Path, level: str) -> None:
    before = Path("/proc/sys/kernel/core_pattern").read_text()
    failure = failure_of(play(hostile_spec(tmp_path, "core_pattern"), level))
    assert failure["reason"] == "crash" and "exited with code 1" in failure["detail"]
    assert re.search(r"core_pattern: [^;]+ \((13|30)\)", failure["stderr_tail"]), failure
    assert Path("/proc/sys/kernel/core_pattern").read_text() == before


@pytest.mark.parametrize("level", LEVELS)
def test_signals_reach_no_process_but_its_own(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "signal_arena"), level))
    # the arena (this process) is alive, the other bot played on (checked in play())
    assert failure["reason"] == "crash" and "exited with code 1" in failure["detail"], failure
    signalled = re.search(r"contained: signalled \[([\d, ]*)\]", failure["stderr_tail"])
    assert signalled is not None
    assert os.getpid() not in [int(pid) for pid in signalled[1].split(",") if pid.strip()]


@pytest.mark.parametrize("level", LEVELS)
def test_the_store_cannot_be_read(tmp_path: Path, level: str) -> None:
    from arena.league.store import create_store

    store = create_store(tmp_path / "results")  # open in this process: /proc/PID/fd
    try:
        spec = hostile_spec(tmp_path, "read_store", target=str(store.path))
        failure = failure_of(play(spec, level))
    finally:
        store.close()
    assert failure["reason"] == "crash" and "contained: tried" in failure["stderr_tail"]
    with sqlite3.connect(tmp_path / "results" / "league.db") as check:  # still whole
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@needs_accounting
@pytest.mark.parametrize("level", LEVELS)
def test_a_fork_bomb_fails_with_reason_processes(tmp_path: Path, level: str) -> None:
    spec = hostile_spec(tmp_path, "fork_count")
    failure = failure_of(play(spec, level, max_processes=16))
    assert failure["reason"] == "processes", failure
    assert "more than 16 processes" in failure["detail"]
    assert no_process_runs(str(tmp_path))


@pytest.mark.parametrize("level", LEVELS)  # a control group, else the memory watch
def test_memory_is_counted_over_all_its_processes(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "memory_children"), level))
    assert failure["reason"] == "memory", failure
    assert "memory limit of 256 MiB" in failure["detail"]
    assert no_process_runs(str(tmp_path))


@pytest.mark.skipif(
    cgroups.detect().kind == "cgroup1" and len(cgroups.detect().parents) < 3
    and not (ROOT and os.environ.get("CI") == "true"),
    reason="no cgroup v1 cpuacct hierarchy: CPU time is per process only")
@needs_accounting
@pytest.mark.parametrize("level", LEVELS)
def test_cpu_time_is_counted_over_all_its_processes(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "cpu_children"), level,
                              cpu_seconds=1, move_seconds=20.0))
    assert failure["reason"] == "cpu", failure
    assert "more than 1 CPU seconds" in failure["detail"]


@pytest.mark.parametrize("level", [BWRAP])  # at none the scratch folder is on disk
def test_files_in_its_private_tmp_count_as_memory(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "tmpfs_fill"), level))
    assert failure["reason"] == "memory", failure


@pytest.mark.parametrize("level", LEVELS_SWEPT)
def test_files_left_in_shared_temporary_folders_are_removed(tmp_path: Path, level: str
                                                             ) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "litter"), level))
    assert failure["reason"] == "crash"
    littered = re.search(r"littered \[(.*)\]", failure["stderr_tail"])
    assert littered is not None
    paths = re.findall(r"'([^']+)'", littered[1])
    if level == "none" and sandbox.landlock_abi() < 1:
        assert paths  # it could write there: the files must be gone now
    elif level == "none":
        assert paths == []  # Landlock kept it out of the shared folders
    assert not [path for path in paths if os.path.exists(path)]


@pytest.mark.parametrize("level", LEVELS_SWEPT)
def test_a_setsid_double_fork_leaves_nothing_behind(tmp_path: Path, level: str) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "double_fork"), level))
    assert failure["reason"] == "crash" and "contained: the parent leaves" in \
        failure["stderr_tail"]
    assert no_process_runs(str(tmp_path))


@pytest.mark.parametrize("level", [BWRAP, *(["none"] if sandbox.landlock_abi() >= 4 else [])])
def test_the_hosts_loopback_is_out_of_reach(tmp_path: Path, level: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        spec = hostile_spec(tmp_path, "loopback", target=str(server.getsockname()[1]))
        failure = failure_of(play(spec, level))
    assert failure["reason"] == "crash" and "contained: connect" in failure["stderr_tail"]


@pytest.mark.parametrize("level", LEVELS)
def test_exiting_while_a_child_holds_the_output_is_a_crash(tmp_path: Path, level: str
                                                           ) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "output_held"), level))
    assert failure["reason"] == "crash" and "exited with code 7" in failure["detail"], failure
    assert no_process_runs(str(tmp_path))


@pytest.mark.parametrize("level", LEVELS)
def test_a_flood_of_stderr_is_capped_and_its_end_kept(tmp_path: Path, level: str) -> None:
    logs = tmp_path / "logs"
    spec = hostile_spec(tmp_path, "log_flood")
    limits = dataclasses.replace(HOSTILE_LIMITS, sandbox=level, stderr_log_bytes=64 << 10)
    other = bundled_spec("first", ("{python}", "bot.py"))

    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits, logs) as pool, \
                pool.seated([spec, other]) as players:
            outcome = await play_game(NIM, players, seed=1, limits=limits)
        return outcome.playthrough_json()

    failure = failure_of(trio.run(main))
    assert failure["reason"] == "crash"
    assert "the last words of the flood" in failure["stderr_tail"]
    (log,) = logs.glob("log_flood-*")
    assert log.stat().st_size <= (64 << 10) + 200
    assert log.read_text().rstrip().endswith("the last words of the flood")


def test_limits_reject_a_root_bot_uid() -> None:
    with pytest.raises(Exception, match="bot_uid"):
        Limits(bot_uid=0)


# ------------------------------------------------------------------ a lenient protocol

def test_a_float_id_is_malformed(tmp_path: Path) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "float_id"), "auto"))
    assert failure["reason"] == "malformed" and "1, not 1.0" in failure["detail"], failure


def test_a_reply_before_its_request_is_a_protocol_failure(tmp_path: Path) -> None:
    failure = failure_of(play(hostile_spec(tmp_path, "early_reply"), "auto"))
    assert failure["reason"] == "protocol" and "before its request" in failure["detail"]


def test_a_pong_with_id_true_is_malformed(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path, "true_pong")
    limits = dataclasses.replace(HOSTILE_LIMITS, sandbox="auto")

    async def main() -> list[dict[str, Any]]:
        records = []
        async with open_bot_pool(limits) as pool:
            for seed in (1, 2):  # the ping comes before the second game
                async with pool.seated([spec, bundled_spec("first", ("{python}", "bot.py"))]
                                       ) as players:
                    outcome = await play_game(NIM, players, seed=seed, limits=limits)
                records.append(outcome.playthrough_json())
        return records

    first, second = trio.run(main)
    assert first["failures"] == [] and first["incidents"] == []
    (incident,) = second["incidents"]
    assert (incident["reason"], incident["phase"]) == ("malformed", "between games")
    assert "1, not 1.0 or true" in incident["detail"]


# ------------------------------------------------------------------ kill -9 of the arena

def _scratch_folders() -> set[Path]:
    root = Path(tempfile.gettempdir()) / f"ra-arena-scratch-{os.geteuid()}"
    return set(root.iterdir()) if root.is_dir() else set()


def _bot_groups() -> set[Path]:
    accounting = cgroups.detect()
    quota = [accounting.quota_parent] if accounting.quota_parent is not None else []
    return {group for parent in {*accounting.parents, *quota} for group in parent.iterdir()
            if group.name.startswith(cgroups.GROUP_PREFIX)}


def _owned_by(pid: int, paths: set[Path]) -> set[Path]:
    """Of these scratch folders and bot groups, the arena ``pid``'s (other arenas may run
    on this machine meanwhile: other tests, other checkouts)."""
    return {path for path in paths
            if path.name.removeprefix(cgroups.GROUP_PREFIX).split("-")[0] == str(pid)}


def _ready(arena: subprocess.Popen[bytes]) -> int:
    """Wait for arena_to_kill's "ready PID"; its pid as it names its things."""
    assert arena.stdout is not None
    line = arena.stdout.readline()
    assert line.startswith(b"ready "), line
    return int(line.split()[1])


@pytest.mark.parametrize("level", LEVELS_SWEPT)
def test_what_an_arena_killed_with_9_left_is_swept_at_the_next_start(
        tmp_path: Path, level: str) -> None:
    spec = hostile_spec(tmp_path, "lingering")
    assert spec.folder is not None
    scratch_before, groups_before = _scratch_folders(), _bot_groups()
    arena = subprocess.Popen(
        [sys.executable, "-m", "tests.runner.hostile.arena_to_kill", str(spec.folder), level],
        stdout=subprocess.PIPE, cwd=Path(__file__).parents[3])
    try:
        pid = _ready(arena)
        time.sleep(0.2)  # the grandchild is on its own by now
    finally:
        arena.kill()
        arena.wait()
    if level == "none":
        # the bot died with the arena, its setsid grandchild did not: left over until...
        assert not no_process_runs(str(tmp_path))
        assert _owned_by(pid, _scratch_folders() - scratch_before)
    sandbox.sweep_now(HOSTILE_LIMITS.bot_uid)  # ... the next start of an arena
    deadline = time.monotonic() + 5
    while not no_process_runs(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)  # (under bwrap the sandbox dies with its parent, at once)
    assert no_process_runs(str(tmp_path))
    assert not _owned_by(pid, _scratch_folders() - scratch_before)
    assert not _owned_by(pid, _bot_groups() - groups_before)


def test_the_logs_of_a_league_are_bounded_in_total(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    spec = hostile_spec(tmp_path, "log_flood")
    # each start floods 4 MiB; 16 KiB kept per start, 40 KiB in all
    limits = dataclasses.replace(HOSTILE_LIMITS, sandbox="auto", stderr_log_bytes=16 << 10,
                                 logs_total_bytes=40 << 10)
    other = bundled_spec("first", ("{python}", "bot.py"))

    async def main() -> None:
        async with open_bot_pool(limits, logs) as pool:
            for seed in range(6):  # a fresh process each game: the last one crashed
                async with pool.seated([spec, other]) as players:
                    await play_game(NIM, players, seed=seed, limits=limits)

    trio.run(main)
    sizes = [log.stat().st_size for log in logs.glob("*.stderr.log")]
    floods = list(logs.glob("log_flood-*"))
    assert sum(sizes) <= (40 << 10) + 6 * 200  # the caps, plus each log's "dropped" line
    assert 1 <= len(floods) < 6  # the oldest were deleted, the newest kept


# ------------------------------------------------------------------ issue 30

IN_CI = os.environ.get("CI") == "true"


def first_comment(record: dict[str, Any]) -> str:
    comments = [entry["comment"] for entry in record["comments"] if entry["seat"] == 0]
    assert comments, record["comments"]
    return str(comments[0])


@pytest.mark.parametrize("level", LEVELS)
def test_a_bots_processes_are_bounded_with_or_without_root(tmp_path: Path, level: str
                                                          ) -> None:
    # issue 30.1: as a user without cgroups a bot forked 306 processes (the user's
    # RLIMIT_NPROC was 96,365); now the start-of-run line names a per-bot bound and the
    # bot gets at most max_processes, whoever runs the arena
    choice = sandbox.choose_level(level)
    if not choice.processes_bounded and not IN_CI:  # no user namespaces, no prlimit
        pytest.skip(f"no per-bot process bound here: {choice.process_bound}")
    assert choice.processes_bounded, choice.announcement()
    assert "processes per bot" in choice.announcement() or choice.accounting.enforced
    record = play_record(hostile_spec(tmp_path, "fork_count"), level, max_processes=16)
    if record["failures"]:  # a control group named the limit it hit
        assert failure_of(record)["reason"] == "processes", record["failures"]
    else:
        forked = int(first_comment(record).split()[1])
        assert 0 < forked < 16, forked  # the bot's first process counts too
    assert none_left_soon(str(tmp_path))


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_keeps_at_most_its_cores_busy(tmp_path: Path, level: str) -> None:
    # issue 30.2: four busy processes of one bot took the cores of the bot at the next
    # table; now its whole tree gets `cores` (1) by a cgroup CPU quota or CPU affinity
    choice = sandbox.choose_level(level)
    assert "cores per bot by" in choice.announcement()
    record = play_record(hostile_spec(tmp_path, "busy_cores"), level)
    assert record["failures"] == [], record["failures"]
    facts = json.loads(first_comment(record))
    if choice.accounting.cpu_quota is None:  # pinned to one CPU
        assert facts["affinity"] == 1, facts
    if choice.syscall_filter is None:  # ... and it may not widen its mask
        assert str(facts["widened"]).startswith("refused"), facts
    # CPU time over wall time: at most one core's worth (a loaded machine gives less)
    assert facts["cpu"] <= 1.25 * facts["wall"], facts


@pytest.mark.parametrize("level", LEVELS)
def test_the_machines_unix_sockets_are_out_of_reach(tmp_path: Path, level: str) -> None:
    # issue 30.3: at level none a bot connected to the user's D-Bus, ssh-agent, X11
    folder = Path(tempfile.mkdtemp(prefix="ra-arena-test-socket-", dir="/tmp"))
    try:
        folder.chmod(0o777)  # within reach of any uid: only the sandbox stands between
        path = folder / "agent.sock"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
            path.chmod(0o777)
            server.listen()
            server.setblocking(False)
            failure = failure_of(play(hostile_spec(tmp_path, "unix_socket", str(path)),
                                      level))
            with pytest.raises(BlockingIOError):
                server.accept()  # nobody came
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert failure["reason"] == "crash", failure
    assert "contained: unix socket" in failure["stderr_tail"], failure


def _sysv_keys() -> set[int]:
    keys = set()
    for kind in ("shm", "msg", "sem"):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
                keys.add(int(line.split()[0]))
    return keys


@pytest.mark.parametrize("level", LEVELS)
def test_system_v_ipc_objects_do_not_outlive_the_bot(tmp_path: Path, level: str) -> None:
    # issue 30.3: four 128 MiB segments a bot made stayed resident after the league
    base = 0x5A000000 + (os.getpid() % 4096) * 32
    failure = failure_of(play(hostile_spec(tmp_path, "sysv_ipc", str(base)), level))
    assert failure["reason"] == "crash", failure
    assert "contained: left them behind" in failure["stderr_tail"], failure
    assert not {base + n for n in (0, 1, 2, 3, 10, 20)} & _sysv_keys()


def _unshare_pid_namespace() -> list[str]:
    """A command prefix that runs the rest in a new PID namespace, as this user."""
    unshare = shutil.which("unshare")
    if unshare is None:
        if IN_CI:
            pytest.fail("unshare (util-linux) is missing")
        pytest.skip("unshare (util-linux) is missing")
    user = [] if ROOT else ["--user", "--map-current-user"]
    return [unshare, *user, "--pid", "--fork", "--kill-child", "--mount-proc"]


@pytest.mark.parametrize("level", LEVELS_SWEPT)
def test_the_sweep_spares_a_running_arena_it_cannot_see(tmp_path: Path, level: str) -> None:
    # issue 30.7: the start-of-run sweep removed what a running arena owned; an arena
    # in another PID namespace has a pid this one cannot see (or someone else's)
    spec = hostile_spec(tmp_path, "lingering")
    assert spec.folder is not None
    scratch_before, groups_before = _scratch_folders(), _bot_groups()
    arena = subprocess.Popen(
        [*_unshare_pid_namespace(), sys.executable, "-m", "tests.runner.hostile.arena_to_kill",
         str(spec.folder), level], stdout=subprocess.PIPE, cwd=Path(__file__).parents[3])
    try:
        pid = _ready(arena)
        # the arena in the namespace, as this one sees it: unshare's child
        (inner,) = Path(f"/proc/{arena.pid}/task/{arena.pid}/children").read_text().split()
        theirs = (_owned_by(pid, _scratch_folders() - scratch_before),
                  _owned_by(pid, _bot_groups() - groups_before))
        if level == "none":
            assert theirs[0], "the other arena made no scratch folder"
        if cgroups.detect().enforced:
            assert theirs[1], "the other arena made no control group"
        sandbox.sweep_now(HOSTILE_LIMITS.bot_uid)  # this arena starts
        assert all(path.exists() for path in (*theirs[0], *theirs[1]))
        assert not no_process_runs(str(tmp_path))  # its bot plays on
    finally:
        arena.kill()  # unshare; the arena in the namespace gets SIGKILL from the kernel
        arena.wait()
    deadline = time.monotonic() + 5  # ... a moment later: gone, or a zombie (files closed)
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{inner}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                break
        except OSError:
            break
        time.sleep(0.02)
    sandbox.sweep_now(HOSTILE_LIMITS.bot_uid)  # dead now: its lease is free
    assert none_left_soon(str(tmp_path))
    assert not any(path.exists() for path in (*theirs[0], *theirs[1]))
    leases = Path(tempfile.gettempdir()) / f"{identity.ARENA_LEASE_DIR_NAME}-{os.geteuid()}"
    assert not (leases / str(pid)).exists()  # its lease went with it


@pytest.mark.parametrize("level", LEVELS)
def test_closing_its_input_is_the_same_crash_at_every_level(tmp_path: Path, level: str
                                                            ) -> None:
    # issue 30.8: under bwrap (whose own processes keep a copy of the pipe) this was a
    # timeout, at none a crash
    failure = failure_of(play(hostile_spec(tmp_path, "close_stdin"), level,
                              move_seconds=3.0))
    assert failure["reason"] == "crash", failure
    assert "closed its input" in failure["detail"], failure
    assert none_left_soon(str(tmp_path))
