"""``arena match A B [C ...]``: a match on one line, as a new user would type it.

End to end with the bundled bots (real processes): a line per game, the score with its
interval and the Elo difference, the games stored where report, replay and leaderboard
find them, and the same command resuming.  The sequential test stopping a match, and the
one-line errors for bad input."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.backends import FunctionBackend
from arena.league.match import MatchTerminal, match_config, match_name, match_score
from arena.league.run import run_league
from arena.league.store import open_store
from arena.records import GameResult
from tests.league.fakes import FakePlay, bots, strength

ROOT = Path(__file__).resolve().parents[2]


def arena(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "arena", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_match_of_the_bundled_bots_stored_reported_and_resumed(tmp_path: Path) -> None:
    done = arena(tmp_path, "match", "random", "first", "--games", "4", "--seconds", "0.5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    games = [line for line in lines if line.startswith("game ")]
    assert [line.split()[1] for line in games] == ["1/4", "2/4", "3/4", "4/4"]
    assert re.search(r"\| random \d - \d - \d first \[\d\.\d{3}\]$", games[-1])
    score = next(line for line in lines if line.startswith("Score of random vs first: "))
    assert re.search(r"\[\d\.\d{3}\]  4 games, 2 deals; 95% interval \d\.\d{3} - \d\.\d{3}",
                     score)
    assert any(line.startswith("Elo difference: ") for line in lines)
    assert "random vs first: ra, 2 players, 4 games (2 deals" in done.stderr
    folder = tmp_path / "results" / "match-ra-first-vs-random-0.5s"
    store = open_store(folder)
    try:
        stored = store.results()
    finally:
        store.close()
    assert len(stored) == 4 and all(set(r.bots) == {"random", "first"} for r in stored)
    # where the other commands look
    board = arena(tmp_path, "leaderboard", str(folder))
    assert board.returncode == 0 and "random" in board.stdout and "first" in board.stdout
    told = arena(tmp_path, "replay", stored[0].game_id[:10])
    assert told.returncode == 0 and stored[0].game_id in told.stdout
    report = arena(tmp_path, "report", str(folder), "-o", "r.html", "--no-replays")
    assert report.returncode == 0 and (tmp_path / "r.html").is_file()
    # the same command: nothing to play, the same score
    again = arena(tmp_path, "match", "random", "first", "--games", "4", "--seconds", "0.5")
    assert again.returncode == 0 and "game " not in again.stdout
    assert score in again.stdout and "resuming: 4 games stored already" in again.stderr
    # named the other way round, more games: the same match, two more games
    more = arena(tmp_path, "match", "first", "random", "--games", "6", "--seconds", "0.5")
    assert more.returncode == 0, more.stderr
    assert [line.split()[1] for line in more.stdout.splitlines()
            if line.startswith("game ")] == ["5/6", "6/6"]
    assert "Score of first vs random:" in more.stdout


def config_of(*argv: str) -> argparse.Namespace:
    from arena.league.match import match_arguments

    parser = argparse.ArgumentParser()
    match_arguments(parser)
    return parser.parse_args(argv)


def test_the_sprt_ends_the_match_as_soon_as_it_decides(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config, _names = match_config(config_of("random", "first", "--sprt", "0", "10",
                                            "--concurrency", "2"))
    assert config.stop is not None and config.rounds == 10_000  # at most 20000 games
    # played by fake bots of fixed strength (tests/league/fakes.py): "ace" far stronger
    assert strength("ace") - strength("weak") == 10
    config = replace(config, roster=("weak", "ace"))
    out, err = io.StringIO(), io.StringIO()
    terminal = MatchTerminal(["weak", "ace"], out=out, err=err)
    code = run_league(config, backend=FunctionBackend(FakePlay()), bots=bots(["weak", "ace"]),
                      terminal=terminal)
    assert code == 0
    text = out.getvalue()
    assert "Sequential test: H0 accepted (weak is at most +0 Elo against ace)" in text
    played = len([line for line in text.splitlines() if line.startswith("game ")])
    assert 2 <= played < 1000 and played % 2 == 0  # whole pairs, far fewer than the cap
    assert "at most 20000 games, stopping when the SPRT decides" in err.getvalue()
    # run again: decided already, nothing more is played
    out2 = io.StringIO()
    run_league(config, backend=FunctionBackend(FakePlay()), bots=bots(["weak", "ace"]),
               terminal=MatchTerminal(["weak", "ace"], out=out2, err=io.StringIO()))
    assert "game " not in out2.getvalue() and "H0 accepted" in out2.getvalue()


@pytest.mark.parametrize(("argv", "message"), [
    (["rnd", "first"], "unknown bot 'rnd' (did you mean 'random'?); known bots:"),
    (["random"], "a match needs at least two bots"),
    (["random", "first", "--players", "3"], "too few bots for --players 3"),
    (["random", "first", "--players", "two"], "--players wants a whole number, not 'two'"),
    (["random", "first", "--games", "5"], "--games 5: must be a multiple of 2"),
    (["random", "first", "--games", "-4"], "--games must be between 1 and"),
    (["random", "first", "--games", "1e3"], "--games wants a whole number, not '1e3'"),
    (["random", "first", "--seconds", "nan"], "--seconds wants a finite number"),
    (["random", "first", "--seconds", "0"], "--seconds must be more than 0"),
    (["random", "first", "--concurrency", "0"], "--concurrency must be between 1"),
    (["random", "first", "--sprt", "10"], "--sprt wants two Elo values"),
    (["random", "first", "--sprt", "10", "0"], "ELO0 must be below ELO1"),
    (["random", "first", "--sprt", "elo0=0", "alpha=0.1"], "--sprt needs both elo0 and elo1"),
    (["random", "first", "--sprt", "elo0=0", "elo1=5", "beta=0.7"],
     "--sprt beta must be between 0 and 0.5"),
    (["random", "first", "greedy", "--sprt", "0", "10"], "--sprt tests one bot against another"),
    (["random", "random"], "bot 'random' is named twice"),
    (["random", "first", "--game", "chess"], "unknown game 'chess'"),
    (["random", "dice-greedy"], "bot 'dice-greedy' cannot play ra with 2 players"),
    (["random", "first", "--players", "9"], "--players must be between 2 and 8"),
])
def test_bad_input_is_one_line(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["match", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arena: error: ") and message in err, err
    assert not (tmp_path / "results").exists()  # nothing made


def test_the_folder_names_the_match() -> None:
    assert match_name("ra", 2, ["random", "first"], None, None) == "match-ra-first-vs-random"
    assert match_name("ra", 3, ["c", "a", "b"], 0.5, 7) == "match-ra-3p-a-vs-b-vs-c-0.5s-seed7"
    long = match_name("ra", 2, ["x" * 40, "y" * 40], None, None)
    assert len(long) <= 64 and long != match_name("ra", 2, ["x" * 40, "y" * 41], None, None)


def test_the_score_interval_counts_deals_not_games() -> None:
    def game(number: int, first_wins: bool) -> GameResult:
        places = (1, 2) if first_wins else (2, 1)
        return GameResult(f"g{number}", "ra", ("a", "b"), (1.0, 0.0), places)

    # every deal split 1-1 (the luck of the deal decided each game): the score is exactly
    # one half, deal by deal, so the interval is empty
    results = [game(i, i % 2 == 0) for i in range(20)]
    deals = {f"g{i}": i // 2 for i in range(20)}
    score = match_score(results, "a", "b", deals)
    assert (score.wins, score.losses, score.draws, score.deals) == (10, 10, 0, 10)
    assert score.score == 0.5 and score.low == score.high == 0.5
    # counted as independent games the same results would give a wide interval
    alone = match_score(results, "a", "b", {})
    assert alone.high - alone.low > 0.4


def test_three_bots_at_three_players_end_with_the_leaderboard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three bots at three players: one table, the leaderboard at the end."""
    monkeypatch.chdir(tmp_path)
    config, names = match_config(config_of("random", "first", "greedy", "--players", "3",
                                           "--games", "6"))
    assert config.rounds == 2 and config.players == (3,)
    out = io.StringIO()
    assert run_league(config, backend=FunctionBackend(FakePlay()), bots=bots(names),
                      terminal=MatchTerminal(names, out=out, err=io.StringIO())) == 0
    text = out.getvalue()
    assert len([line for line in text.splitlines() if line.startswith("game ")]) == 6
    assert "6 games of ra" in text and "Elo" in text
