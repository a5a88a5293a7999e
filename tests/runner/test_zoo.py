"""The zoo of bad bots: each one fails in its own way, the game still completes, the
recorded reason is the right one and nothing of the bot survives."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.runner.connection import BotConnection
from arena.runner.players import random_player
from arena.runner.pool import open_bot_pool
from arena.runner.process import group_cpu_seconds
from arena.runner.referee import play_game
from arena.settings import Limits

from .helpers import (
    FAST,
    SANDBOXES,
    assert_no_survivors,
    live_group_members,
    the_failure,
    zoo_spec,
)
from .toygame import NIM


async def _play(script: str, limits: Limits, games: int = 1
                ) -> tuple[list[dict[str, Any]], BotConnection]:
    records = []
    async with open_bot_pool(limits) as pool:
        for seed in range(games):
            async with pool.seated([zoo_spec(script)]) as (bot,):
                outcome = await play_game(NIM, [bot, random_player()], seed=seed,
                                          limits=limits)
            records.append(outcome.playthrough_json())
            json.dumps(outcome.playthrough_json())  # plain JSON, always
            # whatever happened, the game was played to its end
            assert NIM.replay(outcome.engine).is_terminal()
    assert_no_survivors(bot.pids)
    return records, bot


def play(script: str, sandbox: str, games: int = 1, **limits: Any
         ) -> tuple[list[dict[str, Any]], BotConnection]:
    chosen = dataclasses.replace(FAST, sandbox=sandbox, **limits)
    return trio.run(_play, script, chosen, games)


# script -> (reason, phase, a phrase the detail contains)
FAILURES = {
    "crash_at_start": ("crash", "start", "exited with code 3"),
    "crash_midgame": ("crash", "decision", "exited with code 1"),
    "never_answers": ("timeout", "decision", "no reply to request"),
    "late_answer": ("timeout", "decision", "no reply to request"),
    "garbage": ("malformed", "decision", "not JSON"),
    "huge_line": ("oversize", "decision", "longer than"),
    "illegal": ("illegal", "decision", "legal choices"),
    "wrong_id": ("protocol", "decision", "reply id"),
    "close_stdout": ("crash", "decision", "closed its output; still running"),
    "alloc_8gb": ("memory", "decision", "went over its memory limit of 256 MiB"),
    "wrong_protocol": ("protocol", "start", "ra-arena/99"),
    "bad_wants": ("protocol", "start", "unknown key(s) 'observations'"),
}


# script -> its own limits: a memory bomb gets a small limit, reached in a fraction of
# the time per decision it gets (touching 2 GiB takes a while on a busy machine)
LIMITS = {"alloc_8gb": {"memory_mb": 256, "move_seconds": 5.0}}


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("script", sorted(FAILURES))
def test_bad_bot_forfeits_with_the_right_reason(script: str, sandbox: str) -> None:
    (record,), bot = play(script, sandbox, **LIMITS.get(script, {}))
    reason, phase, phrase = FAILURES[script]
    failure = the_failure(record)
    assert (failure["seat"], failure["reason"], failure["phase"]) == (0, reason, phase)
    assert phrase in failure["detail"]
    assert record["placements"][0] == 2 and record["placements"][1] == 1
    assert len(bot.pids) == 1


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_stderr_tail_goes_into_the_record(sandbox: str) -> None:
    (record,), _ = play("crash_midgame", sandbox)
    assert "boom in the middle of the game" in the_failure(record)["stderr_tail"]
    (record,), _ = play("alloc_8gb", sandbox, **LIMITS["alloc_8gb"])
    assert "allocating 8 GiB" in the_failure(record)["stderr_tail"]
    (record,), _ = play("garbage", sandbox)  # not a crash: the bot is killed at once
    assert "my last words before the garbage" in the_failure(record)["stderr_tail"]


def test_slow_handshake_is_a_timeout() -> None:
    (record,), _ = play("slow_start", "none", handshake_seconds=0.5)
    failure = the_failure(record)
    assert (failure["reason"], failure["phase"]) == ("timeout", "start")


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_forked_child_is_killed_with_its_parent(sandbox: str) -> None:
    (record,), bot = play("fork_sleeper", sandbox)
    failure = the_failure(record)
    assert failure["reason"] == "crash"
    assert_no_survivors(bot.pids)
    if sandbox == "none":  # under bwrap the child's pid is in another namespace
        found = re.search(r"forked child (\d+)", failure["stderr_tail"])
        assert found is not None
        child = int(found[1])
        assert not Path(f"/proc/{child}").exists() or \
            "Z" in Path(f"/proc/{child}/stat").read_text().split(")")[-1].split()[0]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_exit_between_games_is_an_incident_and_a_fresh_process_plays(sandbox: str) -> None:
    (first, second), bot = play("exit_after_game", sandbox, games=2)
    assert first["failures"] == [] and first["incidents"] == []
    assert second["failures"] == []
    (incident,) = second["incidents"]
    assert (incident["seat"], incident["reason"], incident["phase"]) == \
        (0, "crash", "between games")
    assert len(bot.pids) == 2


def test_no_pong_is_a_stall_between_games() -> None:
    (first, second), bot = play("no_pong", "none", games=2)
    assert first["incidents"] == []
    (incident,) = second["incidents"]
    assert incident["reason"] == "stall"
    assert second["failures"] == []
    assert len(bot.pids) == 2


def test_a_good_bot_is_reused_across_games() -> None:
    records, bot = play("illegal", "none", games=1)
    assert len(bot.pids) == 1
    records, bot = play("stderr_flood", "none", games=3)
    assert all(r["failures"] == [] and r["incidents"] == [] for r in records)
    assert len(bot.pids) == 1  # one process for three games


def test_stderr_flood_is_capped_in_the_log(tmp_path: Path) -> None:
    limits = dataclasses.replace(FAST, stderr_log_bytes=100_000, stderr_tail_bytes=500)

    async def main() -> None:
        async with open_bot_pool(limits, log_dir=tmp_path) as pool, \
                pool.seated([zoo_spec("stderr_flood")]) as (bot,):
            outcome = await play_game(NIM, [bot, random_player()], seed=3, limits=limits)
        assert outcome.failures == ()

    trio.run(main)
    (log,) = tmp_path.glob("stderr_flood-*.stderr.log")
    size = log.stat().st_size
    assert 100_000 <= size < 100_200  # the cap plus the "dropped here" note
    content = log.read_bytes()
    # its first and its last 50,000 bytes, with how much was left out between
    assert re.search(rb"\n\[arena: \d+ bytes of stderr dropped here\]\n", content)
    assert content.startswith(b"flooding stderr ") and content.endswith(b"stderr \n")


def _peak_rss_kib() -> int:
    status = Path("/proc/self/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert found is not None
    return int(found[1])


def test_a_100_mb_line_is_not_read_into_memory() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset the peak RSS
    except OSError:
        pytest.skip("cannot reset the peak RSS here")
    before = _peak_rss_kib()
    (record,), _ = play("huge_line", "none")
    assert the_failure(record)["reason"] == "oversize"
    growth_mib = (_peak_rss_kib() - before) / 1024
    assert growth_mib < 20, f"the arena's peak memory grew by {growth_mib:.0f} MiB"


def test_live_group_members_sees_a_live_group() -> None:
    """The survivor check itself must be able to fail."""

    async def main() -> None:
        async with open_bot_pool(FAST) as pool:
            async with pool.seated([zoo_spec("stderr_flood")]) as (bot,):
                await play_game(NIM, [bot, random_player()], seed=1, limits=FAST)
            assert bot.pid is not None
            assert live_group_members(bot.pid) == [bot.pid]

    trio.run(main)


def test_a_bot_sees_every_action_in_order_before_its_next_request() -> None:
    records, bot = play("follower", "none", games=2)
    for record in records:
        comments = record["comments"]
        assert comments
        for comment in comments:
            assert comment["comment"] == f"{comment['decision'] - 1} True"
    assert len(bot.pids) == 1


def test_notifications_flushed_early_still_arrive_in_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.runner import connection

    monkeypatch.setattr(connection, "MAX_PENDING_BYTES", 1)  # flush every notice at once
    (record,), _ = play("follower", "none")
    assert record["comments"] and all(
        c["comment"] == f"{c['decision'] - 1} True" for c in record["comments"])


def test_a_process_near_its_cpu_limit_is_replaced_between_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.runner import process

    used = iter([0.0, 1e9])  # before game 2: fine; before game 3: nearly spent
    monkeypatch.setattr(process, "bot_cpu_seconds", lambda pgid, group: next(used))
    monkeypatch.setattr(process, "_CORES", 10**12)  # so it could have: look each time
    records, bot = play("follower", "none", games=3)
    assert len(bot.pids) == 2
    assert all(r["failures"] == [] and r["incidents"] == [] for r in records)


def test_cpu_use_is_not_scanned_while_the_limit_is_out_of_reach(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.runner import process

    scans: list[int] = []
    monkeypatch.setattr(process, "bot_cpu_seconds",
                        lambda pgid, group: scans.append(pgid))
    records, bot = play("follower", "none", games=3)
    assert scans == [] and len(bot.pids) == 1  # seconds of games cannot use 1800 s of CPU
    assert all(r["failures"] == [] for r in records)


def test_group_cpu_seconds_sees_a_busy_process() -> None:
    burn = ("import time\nend = time.process_time() + 0.3\n"
            "while time.process_time() < end: pass\ntime.sleep(30)")
    busy = subprocess.Popen([sys.executable, "-c", burn], start_new_session=True)
    try:
        deadline = time.monotonic() + 5
        while group_cpu_seconds(busy.pid) < 0.25 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert 0.25 <= group_cpu_seconds(busy.pid) < 5
    finally:
        busy.kill()
        busy.wait()
    assert group_cpu_seconds(busy.pid) == 0.0


LEAN_COMMENT = "id,legal,time,type actions=0"  # the lean zoo bot: keys of each request


def test_a_lean_bot_gets_requests_without_observation_and_no_notices() -> None:
    records, bot = play("lean", "none", games=2)
    for record in records:
        assert record["failures"] == [] and record["incidents"] == []
        assert record["comments"]
        assert {c["comment"] for c in record["comments"]} == {LEAN_COMMENT}
    assert bot.wants.observation is False and bot.wants.notifications is False


class Transparent:
    """A wrapper that knows nothing of ``wants`` (like wrappers written before it)."""

    def __init__(self, inner: BotConnection) -> None:
        self.inner = inner
        self.name, self.version, self.kind = inner.name, inner.version, inner.kind

    def __getattr__(self, name: str) -> Any:
        if name == "wants":
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_a_lean_bot_behind_an_unaware_wrapper_still_gets_what_it_asked_for() -> None:
    async def main() -> dict[str, Any]:
        async with open_bot_pool(FAST) as pool, pool.seated([zoo_spec("lean")]) as (bot,):
            outcome = await play_game(NIM, [Transparent(bot), random_player()], seed=1,
                                      limits=FAST)
        return outcome.playthrough_json()

    record = trio.run(main)
    assert record["failures"] == [] and record["comments"]
    assert {c["comment"] for c in record["comments"]} == {LEAN_COMMENT}
