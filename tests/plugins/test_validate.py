"""arena validate: the bundled bots pass; each bad bot of the runner's zoo fails with the
right reason (the zoo lives in tests/runner/zoo/)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins import discover
from arena.plugins.conformance import (
    ConformanceReport,
    latency_summary,
    percentile,
    run_check,
)
from arena.plugins.manifest import load_manifest
from arena.settings import Limits

ZOO = Path(__file__).resolve().parents[1] / "runner" / "zoo"
# short limits keep the zoo fast; the handshake allows for a slow interpreter start
FAST = Limits(handshake_seconds=3.0, move_seconds=0.3, ping_seconds=0.5, quit_grace_seconds=0.2)


def zoo_bot(tmp_path: Path, script: str) -> Path:
    """A bot folder around one zoo script, claiming two-player Ra."""
    folder = tmp_path / script
    folder.mkdir()
    shutil.copy(ZOO / "_zoo.py", folder / "_zoo.py")
    shutil.copy(ZOO / f"{script}.py", folder / "bot.py")
    (folder / "bot.toml").write_text(
        f'name = "{script.replace("_", "-")}"\nversion = "1"\n'
        'command = ["{python}", "bot.py"]\n[games]\nra = [2]\n'
    )
    return folder


def zoo_limits(script: str) -> Limits:
    """The limits a zoo bot is checked under: a bot that must miss the handshake misses a
    short one as surely as a long one; a memory bomb reaches a small limit well within
    its time (touching 2 GiB takes a while on a busy machine)."""
    if script == "slow_start":
        return replace(FAST, handshake_seconds=1.0)
    if script == "alloc_8gb":
        return replace(FAST, memory_mb=256, move_seconds=5.0)
    return FAST


def check_zoo(tmp_path: Path, script: str, games: int = 2) -> ConformanceReport:
    registry = discover([], include_bundled=False)
    spec = load_manifest(zoo_bot(tmp_path, script), registry.games)
    return run_check(spec, registry.games, [], games_per_setting=games,
                     limits=zoo_limits(script), max_violations=1)


# script -> (check that fails, reason)
ZOO_FAILURES = {
    "crash_at_start": ("handshake", "crash"),
    "wrong_protocol": ("handshake", "protocol"),
    "slow_start": ("handshake", "timeout"),
    "no_pong": ("ping", "stall"),
    "crash_midgame": ("ra 2p game 1", "crash"),
    "never_answers": ("ra 2p game 1", "timeout"),
    "late_answer": ("ra 2p game 1", "timeout"),
    "garbage": ("ra 2p game 1", "malformed"),
    "huge_line": ("ra 2p game 1", "oversize"),
    "illegal": ("ra 2p game 1", "illegal"),
    "wrong_id": ("ra 2p game 1", "protocol"),
    "close_stdout": ("ra 2p game 1", "crash"),
    "alloc_8gb": ("ra 2p game 1", "memory"),
    "fork_sleeper": ("ra 2p game 1", "crash"),
    "exit_after_game": ("ra 2p game 2", "crash"),  # noticed before the next game
}


@pytest.mark.skipif(not ZOO.is_dir(), reason="the runner's zoo is not there")
@pytest.mark.parametrize("script", sorted(ZOO_FAILURES))
def test_zoo_bot_fails_with_the_right_reason(tmp_path: Path, script: str) -> None:
    report = check_zoo(tmp_path, script)
    assert not report.passed
    (violation,) = report.violations
    assert (violation.check, violation.reason) == ZOO_FAILURES[script], violation
    assert violation.detail


def test_validate_command_fails_a_bad_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = zoo_bot(tmp_path, "illegal")
    assert main(["validate", str(folder), "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "ra 2p game 1 (seed " in out and ": illegal: index " in out
    assert out.splitlines()[-1].startswith("FAILED: illegal 1: 2 violation(s) in 2 games")


def test_validate_command_reports_the_stderr_of_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = zoo_bot(tmp_path, "crash_at_start")
    assert main(["validate", str(folder), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is False and report["settings"] == []
    (violation,) = report["violations"]
    assert violation["check"] == "handshake" and violation["reason"] == "crash"
    assert "cannot even start" in violation["stderr_tail"]


@pytest.mark.parametrize("name", ["random", "first"])
def test_bundled_bots_pass(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", name, "--games", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["violations"] == []
    assert report["handshake_ms"] > 0 and report["ping_ms"] > 0
    spec = discover().bot(name)
    claimed = sorted((g, n) for g, counts in spec.games.items() for n in counts)
    assert sorted((s["game"], s["num_players"]) for s in report["settings"]) == claimed
    for setting in report["settings"]:
        assert setting["games"] == 2 and setting["decisions"] > 0
        latency = setting["latency_ms"]
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]


@pytest.mark.skipif(shutil.which("node", path="/usr/local/bin:/usr/bin:/bin") is None,
                    reason="Node.js is not installed")
def test_bundled_javascript_bot_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "random-js", "--games", "1", "--game", "ra"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("PASSED: random-js")


def test_validate_checks_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "random", "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    assert main(["validate", "random", "--game", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["validate", "no-such-bot"]) == 2
    assert "unknown bot 'no-such-bot'; known bots: " in capsys.readouterr().err


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([7.0], 0.99) == 7.0
    assert latency_summary([0.002, 0.001, 0.010]) == {
        "p50": 2.0, "p90": 10.0, "p99": 10.0, "max": 10.0
    }
    assert latency_summary([]) is None


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_bundled_bot_passes_in_the_bwrap_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "first", "--games", "1", "--game", "ra", "--sandbox", "bwrap"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("PASSED: first")


def test_the_counts_agree_with_each_other(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43: a progress line said 4 violations and the summary 3; a setting said "0
    decisions" beside a violation "at decision 2".  Now the summary counts every
    violation found, as the progress line does, and says how many it lists; decisions
    count every request the bot was sent, and a violation says which of its own it was."""
    folder = zoo_bot(tmp_path, "illegal")  # an illegal index at every decision
    assert main(["validate", str(folder), "--games", "4", "--max-violations", "1",
                 "--concurrency", "2", "--sandbox", "none"]) == 1
    captured = capsys.readouterr()
    progress = captured.err.strip().splitlines()[-1]
    found = int(progress.rsplit("violations ", 1)[1])
    summary = captured.out.strip().splitlines()[-1]
    assert summary.startswith(f"FAILED: illegal 1: {found} violation(s) in ")
    assert found >= 2 and "(the first 1 listed above; --max-violations N lists more)" in summary
    (listed,) = [line for line in captured.out.splitlines() if ": illegal: " in line]
    assert " of the game (its 1st): illegal" in listed
    assert main(["validate", str(folder), "--games", "2", "--json", "--sandbox", "none"]) == 1
    report = json.loads(capsys.readouterr().out)
    (setting,) = report["settings"]
    assert report["violations_found"] == setting["violations"] == len(report["violations"]) == 2
    assert setting["decisions"] == 2  # asked once per game, failing at once
    assert setting["latency_ms"] is not None
    assert [v["own_decision"] for v in report["violations"]] == [1, 1]
