"""The command line explains itself: examples in every --help, options that override the
league file, the next useful command, forfeits told in replays, files with the user's
umask."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from arena.cli import COMMANDS, EXAMPLES, main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.commands import tell
from arena.league.config import load_league, with_overrides
from arena.league.run import run_league
from arena.league.store import open_store
from tests.league.fakes import FakePlay, bots


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_help_ends_with_examples(command: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    examples = out.rsplit("examples:\n", 1)[1].splitlines()
    assert examples and all(line.strip().startswith("arena ") for line in examples)
    assert len(EXAMPLES[command]) == len(examples)


def test_run_options_override_the_file_and_are_checked_like_it(league_file) -> None:
    config = load_league(league_file("rounds = 2", "seed = 5"))
    changed = with_overrides(config, rounds=4, seed=9, results_dir="elsewhere",
                             sandbox="bwrap")
    assert (changed.rounds, changed.seed, changed.limits.sandbox) == (4, 9, "bwrap")
    assert changed.results_dir == Path("elsewhere")  # relative to where the user is
    assert changed.limits.move_seconds == config.limits.move_seconds
    for option, value, message in (("rounds", 0, "--rounds: must be between 1"),
                                   ("seed", -7, "--seed: must be between 0"),
                                   ("results_dir", "x" * 300, "--results-dir: has a part")):
        with pytest.raises(ArenaError, match=message):
            with_overrides(config, **{option: value})


def test_after_a_run_the_next_command_is_shown(league_file) -> None:
    path = league_file('roster = ["a", "b", "c"]')
    err = io.StringIO()
    assert run_league(load_league(path), backend=FunctionBackend(FakePlay()),
                      bots=bots(["a", "b", "c"]), out=io.StringIO(), err=err) == 0
    assert f"next: arena report {load_league(path).results_dir} -o report.html" \
        in err.getvalue()


def test_a_replay_of_a_forfeit_says_who_failed_why_and_what_it_wrote(league_file) -> None:
    path = league_file('roster = ["a", "b", "crashy"]')
    run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
               bots=bots(["a", "b", "crashy"]), out=io.StringIO())
    store = open_store(load_league(path).results_dir)
    record = next(r for r in store.games() if r.failures)
    text = "\n".join(tell(record))
    failure = record.failures[0]
    assert f"crashy (seat {failure['seat']}) failed at decision 1: crash" in text


def test_the_report_gets_the_users_umask(played_dir: Path, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert main(["report", str(played_dir), "-o", str(tmp_path / "r.html")]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.html").stat().st_mode) == 0o644


@pytest.fixture
def played_dir(league_file) -> Path:
    path = league_file('roster = ["a", "b", "c"]')
    run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
               bots=bots(["a", "b", "c"]), out=io.StringIO())
    return load_league(path).results_dir


def test_a_closed_pipe_ends_quietly() -> None:
    """`arena bots --names | head -1`: the reader leaving early is no error."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "arena", "completion", "bash"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the child starts writing: every write meets EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and err == ""


def test_an_os_error_names_the_file_then_the_reason(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    too_long = str(tmp_path / ("y" * 300))
    assert main(["validate", too_long]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.endswith(f"...({len(too_long)} characters): File name too long\n")
