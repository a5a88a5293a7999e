"""arena validate with games in parallel (issue 31): every violation the zoo plants is still
caught when games run at once, the report is the same whatever finished first, the
default time control is short and still catches a bot that ignores it, progress is
shown, and Ctrl-C keeps what was checked (exit 130)."""

from __future__ import annotations

import io
import json
import os
import signal
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.plugins import discover
from arena.plugins.conformance import (
    ConformanceReport,
    ProgressLine,
    SettingResult,
    check_bot,
    chunks_of,
    run_check,
)
from arena.plugins.manifest import load_manifest
from tests.plugins.test_validate import FAST, ZOO, ZOO_FAILURES, zoo_bot, zoo_limits


def check_zoo_in_parallel(tmp_path: Path, script: str) -> ConformanceReport:
    registry = discover([], include_bundled=False)
    spec = load_manifest(zoo_bot(tmp_path, script), registry.games)
    return run_check(spec, registry.games, [], games_per_setting=6,
                     limits=zoo_limits(script), max_violations=1, concurrency=3)


@pytest.mark.skipif(not ZOO.is_dir(), reason="the runner's zoo is not there")
@pytest.mark.parametrize("script", sorted(ZOO_FAILURES))
def test_every_zoo_violation_is_caught_with_games_in_parallel(tmp_path: Path,
                                                               script: str) -> None:
    """Six games, three at once: the first violation in the order of the check is the
    one the sequential check finds (exit_after_game too: games go in pairs on one
    process, so its leaving is seen at the next game's ping)."""
    report = check_zoo_in_parallel(tmp_path, script)
    assert not report.passed
    (violation,) = report.violations
    assert (violation.check, violation.reason) == ZOO_FAILURES[script], violation
    assert violation.detail


def test_games_go_in_pairs_on_one_process_the_odd_one_with_the_last_pair() -> None:
    settings = [SettingResult("ra", 2), SettingResult("ra", 5)]
    assert [(c.setting.num_players, c.indices) for c in chunks_of(settings, 5)] == [
        (2, (0, 1)), (2, (2, 3, 4)), (5, (0, 1)), (5, (2, 3, 4))]
    assert [c.indices for c in chunks_of(settings[:1], 1)] == [(0,)]
    assert [c.indices for c in chunks_of(settings[:1], 4)] == [(0, 1), (2, 3)]
    # by default one game per seat
    assert [(c.setting.num_players, c.indices) for c in chunks_of(settings, None)] == [
        (2, (0, 1)), (5, (0, 1)), (5, (2, 3, 4))]


def test_the_kept_violations_are_the_first_in_the_order_of_the_check(tmp_path: Path) -> None:
    registry = discover([], include_bundled=False)
    spec = load_manifest(zoo_bot(tmp_path, "illegal"), registry.games)
    report = run_check(spec, registry.games, [], games_per_setting=8, limits=FAST,
                       max_violations=2, concurrency=4)
    checks = [v.check for v in report.violations]
    assert len(checks) == 2 and checks[0] == "ra 2p game 1"
    assert checks == sorted(checks, key=lambda c: int(c.rsplit(" ", 1)[1]))
    assert report.stopped_early and report.games_done < report.total_games == 8
    # every violation found is counted, as the progress line counts them, though the
    # report lists only the first two
    assert report.settings[0].violations == report.violations_found >= 2


def test_by_default_the_bot_takes_every_seat_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "first", "--game", "ra", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and not report["interrupted"]
    assert [(s["num_players"], s["games"]) for s in report["settings"]] == [
        (2, 2), (3, 3), (4, 4), (5, 5)]


def test_the_default_time_control_is_short_and_still_catches_a_late_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """late_answer takes 1 s a decision: 0.1 s and a 2 s bank are spent by its third
    decision; without the bank its first is already late."""
    folder = zoo_bot(tmp_path, "late_answer")
    assert main(["validate", str(folder), "--games", "1"]) == 1
    captured = capsys.readouterr()
    assert "limits: 0.1 s per decision (+ 2 s overage per game)" in captured.out
    assert ": timeout: " in captured.out
    assert captured.out.splitlines()[-1].startswith("FAILED: late-answer 1: 1 violation(s)")
    decision = {}  # (a bank of 3 s: its first decision is in time whatever the load)
    for overage in ("3", "0"):
        assert main(["validate", str(folder), "--games", "1", "--overage", overage,
                     "--json"]) == 1
        (violation,) = json.loads(capsys.readouterr().out)["violations"]
        assert violation["reason"] == "timeout"
        decision[overage] = violation["decision"]
    assert decision["3"] > decision["0"]


def test_the_new_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for option, value, message in (("--move-seconds", "0", "--move-seconds must be more"),
                                   ("--overage", "-1", "--overage must be 0 or more"),
                                   ("--concurrency", "0", "--concurrency must be at least 1")):
        assert main(["validate", "first", option, value]) == 2
        assert message in capsys.readouterr().err


def test_progress_goes_to_stderr_and_ends_with_the_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["validate", "first", "--game", "ra_dice", "--games", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1].startswith("[####################] 6/6 games")
    assert "games |" not in captured.out  # stdout holds the report alone


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_is_rewritten_and_report_lines_go_above_it() -> None:
    screen = Terminal()
    line = ProgressLine(screen, clock=lambda: 0.0)
    report = ConformanceReport("bot", "1", total_games=4)
    report.games_done = 1
    line.game_done(report)
    assert screen.getvalue().startswith("\r\x1b[2K[#####---------------] 1/4 games | ")
    assert screen.getvalue().endswith(" | violations 0")
    out = io.StringIO()
    line.say("ra 2p: 1 games", out)
    assert out.getvalue() == "ra 2p: 1 games\n"
    assert screen.getvalue().count("\r\x1b[2K") == 3  # cleared, then drawn again
    line.finish()
    assert screen.getvalue().endswith("\n")


def test_ctrl_c_keeps_what_was_checked(tmp_path: Path) -> None:
    registry = discover()
    spec = registry.bot("first")

    def interrupt_after_the_first_game(report: ConformanceReport) -> None:
        if report.games_done == 1:
            os.kill(os.getpid(), signal.SIGINT)

    async def check() -> ConformanceReport:
        return await check_bot(spec, registry.games,
                               [registry.bots["random"], registry.bots["first"]],
                               games_per_setting=6, concurrency=1,
                               game_done=interrupt_after_the_first_game, handle_signals=True)

    report = trio.run(check)
    assert report.interrupted and not report.passed
    assert 1 <= report.games_done < report.total_games
    assert report.handshake_seconds is not None and report.ping_seconds is not None
    assert report.settings and report.settings[0].games_played >= 1
    assert report.to_json()["interrupted"] is True


def test_ctrl_c_on_the_command_line_says_what_was_checked_and_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = ProgressLine.game_done

    def interrupt(self: ProgressLine, report: ConformanceReport) -> None:
        original(self, report)
        if report.games_done == 1:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(ProgressLine, "game_done", interrupt)
    assert main(["validate", "first", "--game", "ra", "--concurrency", "1"]) == 130
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("INTERRUPTED: first 1.0.0: checked the handshake, the ping "
                              "and ")
    assert out[-1].endswith("of 14 games: no violation so far")
    assert out[-2].endswith("(cut short)")
