"""What a bot can see and do at each sandbox level; limits and launch plans."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.errors import ArenaError
from arena.runner import sandbox
from arena.runner.players import first_player
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.settings import Limits

from .helpers import FAST, SANDBOXES, ZOO, zoo_spec
from .toygame import NIM

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed")


def snoop(level: str) -> dict[str, Any]:
    limits = dataclasses.replace(FAST, sandbox=level, max_comment_chars=10_000)

    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits) as pool, pool.seated([zoo_spec("snoop")]) as (bot,):
            outcome = await play_game(NIM, [bot, first_player()], 1, limits=limits)
        assert outcome.failures == ()
        facts: dict[str, Any] = json.loads(outcome.comments[0]["comment"])
        return facts

    return trio.run(main)


def test_without_sandbox_the_bot_gets_a_scrubbed_environment_and_its_own_home() -> None:
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="arena-host-marker-", dir="/tmp") as marker:
        facts = snoop("none")
    # the same probes see the host's network interfaces here, so the bwrap test can fail;
    # the host's /tmp only where the kernel has no Landlock (which keeps a bot at level
    # none to the folders it needs)
    if sandbox.landlock_abi() >= 1:
        assert facts["tmp_list"] is None
    else:
        assert Path(marker.name).name in facts["tmp_list"]
    assert facts["network"]
    assert facts["cwd"] == str(ZOO.resolve())
    assert facts["home"] != facts["cwd"] and facts["writes_home"]
    assert facts["env"] == sorted(["HOME", "LANG", "LC_ALL", "PATH", "PYTHONDONTWRITEBYTECODE",
                                   "PYTHONHASHSEED", "PYTHONPATH", "TMPDIR",
                                   *sandbox.runtime_environment(FAST)])
    assert facts["sees_parent"]  # no sandbox: the file system is the user's


@needs_bwrap
def test_bwrap_shows_only_the_bots_folder_read_only_and_no_network() -> None:
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="arena-host-marker-", dir="/tmp") as marker:
        facts = snoop("bwrap")
    assert facts["cwd"] == str(ZOO.resolve())
    assert not facts["sees_parent"]
    assert not facts["sees_root_home"]
    assert not facts["writes_own_folder"]
    assert facts["writes_home"]  # the scratch directory
    # a private /tmp: the host's files there are invisible (it may hold the scratch dir
    # and the first folder of the bot's path when the checkout lives under /tmp)
    assert Path(marker.name).name not in facts["tmp_list"]
    assert not facts["network"]


@pytest.fixture
def fresh_probes() -> Iterator[None]:
    """Forget what the sandbox found out about this machine (it probes once)."""
    sandbox.forget_probes()
    yield
    sandbox.forget_probes()


def test_missing_bwrap_is_a_clear_error_and_auto_says_why_it_falls_back(
        monkeypatch: pytest.MonkeyPatch, fresh_probes: None) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, path=None: None)

    async def main() -> None:
        async with open_bot_pool(Limits(sandbox="bwrap")):
            pass

    with pytest.raises(ArenaError, match="apt-get install bubblewrap"):
        trio.run(main)
    choice = sandbox.choose_level("auto")
    assert choice.level == "none"
    assert "auto: the bwrap sandbox needs bubblewrap, which is not installed" in \
        choice.announcement()
    assert "for trusted bots only" in choice.announcement()


@needs_bwrap
def test_auto_chooses_bwrap_where_it_works() -> None:
    choice = sandbox.choose_level("auto")
    assert choice.level == "bwrap"
    assert choice.announcement().startswith("sandbox: bwrap (auto: the strongest level here)")


def test_the_python_placeholder_and_the_arena_package_are_provided() -> None:
    plan = sandbox.plan_launch(zoo_spec("snoop"), Limits(sandbox="none"), Path("/tmp/scratch"))
    assert plan.argv[0] == sandbox.sys.executable and plan.argv[1] == "snoop.py"
    assert (Path(plan.env["PYTHONPATH"]) / "arena" / "sdk.py").exists()


@needs_bwrap
def test_bwrap_plan_binds_the_folder_read_only_and_drops_root() -> None:
    launch = sandbox.prepare_launch(zoo_spec("snoop"), Limits(sandbox="bwrap"))
    try:
        argv = launch.plan.argv
        folder = str(ZOO.resolve())
        assert argv[0].endswith("bwrap") and "--unshare-net" in argv and "--bind" not in argv
        assert ["--ro-bind", folder, folder] == \
            argv[argv.index(folder) - 1:argv.index(folder) + 2]
        assert argv[argv.index("--tmpfs") + 1] == "/tmp" == launch.plan.env["HOME"]
        assert "--seccomp" in argv and launch.plan.pass_fds
        command = argv[argv.index("--") + 1:]
        if os.geteuid() == 0:
            assert command[0].endswith("setpriv") and launch.identity is not None
            assert command[1:5] == ["--reuid", str(launch.identity.uid),
                                    "--regid", str(launch.identity.gid)]
            command = command[command.index("--no-new-privs") + 1:]
        elif launch.group is None:  # RLIMIT_NPROC inside its user namespace (issue 30)
            nproc = Limits().max_processes + 1  # bubblewrap's init counts there too
            assert command[:3] == [sandbox.prlimit_path(), f"--nproc={nproc}:{nproc}", "--"]
            command = command[3:]
        assert command == [sandbox.sys.executable, "snoop.py"]
    finally:
        launch.release()
    assert launch.plan.pass_fds == ()


@pytest.mark.parametrize(("changes", "message"), [
    ({"sandbox": "docker"}, "unknown sandbox level 'docker'"),
    ({"move_seconds": 0}, "move_seconds must be a positive number"),
    ({"memory_mb": -5}, "memory_mb must be a positive number"),
    ({"max_line_bytes": True}, "max_line_bytes must be a positive number"),
    ({"bank_seconds": -1.0}, "bank_seconds must be >= 0"),
    ({"stderr_log_bytes": -1}, "stderr_log_bytes must be >= 0"),
])
def test_bad_limits_are_user_errors(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        Limits(**changes)


def test_a_bots_memory_request_is_capped_by_the_league() -> None:
    limits = Limits(memory_mb=1024)
    assert limits.for_bot({}).memory_mb == 1024
    assert limits.for_bot({"memory_mb": 256}).memory_mb == 256
    assert limits.for_bot({"memory_mb": 4096}).memory_mb == 1024
    assert limits.for_bot({"memory_mb": 4096}, cap_memory_mb=8192).memory_mb == 4096
    with pytest.raises(ArenaError, match="resources.memory_mb"):
        limits.for_bot({"memory_mb": "lots"})  # type: ignore[dict-item]


def test_errors_in_a_pool_block_come_out_unwrapped() -> None:
    async def main() -> None:
        async with open_bot_pool(FAST):
            raise ArenaError("the league file is wrong")

    with pytest.raises(ArenaError, match="the league file is wrong"):
        trio.run(main)


def test_a_bot_with_an_empty_command_is_a_user_error() -> None:
    empty = dataclasses.replace(zoo_spec("snoop"), command=())

    async def main() -> None:
        async with open_bot_pool(FAST) as pool, pool.seated([empty]) as (bot,):
            await play_game(NIM, [bot, first_player()], 1, limits=FAST)

    with pytest.raises(ArenaError, match="empty command"):
        trio.run(main)


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_bot_that_cannot_be_started_crashes_with_the_reason(tmp_path: Path, level: str
                                                             ) -> None:
    missing = dataclasses.replace(zoo_spec("snoop"), command=("./no-such-program",),
                                  folder=tmp_path)
    limits = dataclasses.replace(FAST, sandbox=level)

    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits) as pool, pool.seated([missing]) as (bot,):
            outcome = await play_game(NIM, [bot, first_player()], 1, limits=limits)
        return outcome.playthrough_json()

    (failure,) = trio.run(main)["failures"]
    assert failure["reason"] == "crash"
    if level == "none":
        assert "could not start './no-such-program'" in failure["detail"]
    else:  # bubblewrap starts, then cannot run the program
        assert "exited with code 1" in failure["detail"]
        assert "./no-such-program" in failure["stderr_tail"]


def test_the_cores_limit_is_a_league_key_and_a_manifest_request() -> None:
    from arena.settings import from_league_file, league_file_limits

    limits = from_league_file({}, {"cores": 2.0})
    assert limits.cores == 2.0 and league_file_limits(limits)["cores"] == 2.0
    assert limits.for_bot({"cores": 0.5}).cores == 0.5  # a bot may ask for less ...
    assert limits.for_bot({"cores": 8}).cores == 2.0  # ... never for more
    # a league stored before the key existed has the default: its settings are unchanged
    assert "cores" not in league_file_limits(Limits())
    with pytest.raises(ArenaError, match="cores"):
        Limits(cores=0)


def test_without_a_cgroup_cpu_quota_bots_are_pinned_to_the_least_used_cpus(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(sandbox, "_cpu_users", sandbox.Counter({0: 2, 1: 1, 2: 0, 3: 1}))
    assert sandbox._pick_cpus(1) == (2,)
    assert sandbox._pick_cpus(1.5) in ((1, 2), (2, 3))
    assert sandbox._pick_cpus(4) == ()  # all of them: no mask
