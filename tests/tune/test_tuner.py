"""The tuner through the league engine: its games, its state rebuilt from the store,
resumed after an interruption (and a kill -9 of the real command) on the same trajectory."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bench.tune import SYNTHETIC, _simulate, synthetic_bot, synthetic_field
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.engine import League, LeagueListener, StoredGame
from arena.league.store import create_store, open_store
from arena.settings import Limits
from arena.tune.tuner import TuneOutcome, Tuner, TuneSetup, tune


def setup(folder: Path, **changes: Any) -> TuneSetup:
    made = TuneSetup(bot=synthetic_bot(), opponents=synthetic_field(3), game="synthetic",
                     players=3, games=60, start=tuple(p.default for p in SYNTHETIC),
                     results_dir=folder, verify_games=12, seed=4, in_flight=2,
                     limits=Limits(), concurrency=3)
    return dataclasses.replace(made, **changes)


class StopAfter(LeagueListener):
    """Ends the league after ``count`` stored games (as an interruption would)."""

    def __init__(self, count: int) -> None:
        self.count = count

    def game_stored(self, league: League, game: StoredGame) -> None:
        if league.played >= self.count:
            league.stop()


def run(tune_setup: TuneSetup, listeners: Sequence[LeagueListener] = ()) -> TuneOutcome:
    return trio.run(lambda: tune(tune_setup, backend=FunctionBackend(_simulate),
                                 listeners=listeners))


def test_a_tune_plays_pairs_then_the_verification_and_its_store_tells_it_all(
        tmp_path: Path) -> None:
    outcome = run(setup(tmp_path / "a"))
    assert outcome.complete and len(outcome.trajectory) == 31  # start + 30 pairs
    assert outcome.trajectory[-1] != outcome.trajectory[0]
    store = open_store(tmp_path / "a")
    try:
        results = store.results()
        records = list(store.games())
        tuner = Tuner.of_store(store)
    finally:
        store.close()
    assert len(results) == 60 + 12
    assert tuner is not None and tuner.spsa.trajectory == outcome.trajectory
    pairs = [r for r in results if "synthetic:plus" in r.bots or "synthetic:minus" in r.bots]
    verification = [r for r in results if "synthetic:tuned" in r.bots]
    assert len(pairs) == 60 and len(verification) == 12
    assert all("synthetic:start" in r.bots for r in verification)
    # a pair is one deal, one seating: its two games differ only by the tuned bot's role
    by_iteration: dict[int, list[Any]] = {}
    for record in records:
        if "synthetic:tuned" not in record.seats:
            by_iteration.setdefault(record.round, []).append(record)
    assert sorted(by_iteration) == list(range(1, 31))
    for games in by_iteration.values():
        (plus,) = [r for r in games if "synthetic:plus" in r.seats]
        (minus,) = [r for r in games if "synthetic:minus" in r.seats]
        assert plus.seed == minus.seed
        assert [name.replace(":plus", ":minus") for name in plus.seats] == list(minus.seats)
    # the tuned bot's seat goes round the table
    assert {r.seats.index("synthetic:plus") for r in records
            if "synthetic:plus" in r.seats} == {0, 1, 2}
    assert outcome.verification.ratings is not None
    assert outcome.verification.elo("synthetic:tuned") is not None
    # the same setup in a new store plays the same games and ends at the same values
    again = run(setup(tmp_path / "b"))
    assert again.trajectory == outcome.trajectory


def test_a_stopped_tune_resumes_on_the_same_trajectory(tmp_path: Path) -> None:
    whole = run(setup(tmp_path / "whole"))
    for cut in (1, 17, 59, 64):  # in the first pair, mid-way, before the verification, in it
        folder = tmp_path / f"cut-{cut}"
        first = run(setup(folder), [StopAfter(cut)])
        assert first.summary is not None and first.summary.stopped
        assert not first.complete
        resumed = run(setup(folder))
        assert resumed.complete
        assert resumed.trajectory == whole.trajectory, cut
        assert resumed.final == whole.final
        store = open_store(folder)
        try:
            assert store.count() == 72  # nothing played twice, nothing missing
        finally:
            store.close()


def test_a_tune_started_otherwise_is_refused_in_one_line(tmp_path: Path) -> None:
    run(setup(tmp_path / "t"), [StopAfter(5)])
    with pytest.raises(ArenaError) as caught:
        run(setup(tmp_path / "t", games=80, start=(6.0, 2.0, 50.0, 0.5)))
    message = str(caught.value)
    assert "games (--games) was 60, now 80" in message
    assert "start (--start) was" in message
    assert "another --results-dir" in message and "\n" not in message
    # the verification's length may change freely
    assert run(setup(tmp_path / "t", verify_games=6)).complete


def test_a_leagues_store_is_not_taken_for_a_tune(tmp_path: Path) -> None:
    store = create_store(tmp_path / "league")
    try:
        from arena.records import GameRecord, PlayerEntry

        store.add_game(GameRecord(
            game="synthetic", options={}, seed=1,
            players=(PlayerEntry(seat=0, name="a", version="1", kind="x"),
                     PlayerEntry(seat=1, name="b", version="1", kind="x")),
            scores=(1.0, 0.0), engine_placements=(1, 2), placements=(1, 2)
        ).in_league("g1", "t1", 0))
    finally:
        store.close()
    with pytest.raises(ArenaError, match="holds a league's games, not a tune"):
        run(setup(tmp_path / "league"))


# -------------------------------------------------------------------- kill -9, for real

ARENA = [sys.executable, "-m", "arena.cli"]


def _tune_command(folder: Path) -> list[str]:
    return [*ARENA, "tune", "greedy", "--against", "first", "random", "--players", "3",
            "--games", "60", "--verify-games", "6", "--sandbox", "trusted", "--seed", "5",
            "--concurrency", "2", "--in-flight", "1", "--results-dir", str(folder), "--quiet"]


def _stored(folder: Path) -> int:
    try:
        store = open_store(folder)
    except ArenaError:
        return 0
    try:
        return store.count()
    finally:
        store.close()


def test_kill_9_in_the_middle_then_the_same_command_gives_the_same_trajectory(
        tmp_path: Path) -> None:
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    subprocess.run(_tune_command(reference), check=True, capture_output=True, timeout=600,
                   cwd=tmp_path)
    # the same secret deal key in both stores: the same deals, so the same games
    reference_store = open_store(reference)
    try:
        key = reference_store.stored_deal_key()
    finally:
        reference_store.close()
    store = create_store(killed)
    try:
        store.deal_key(key)
    finally:
        store.close()
    process = subprocess.Popen(_tune_command(killed), cwd=tmp_path, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while _stored(killed) < 24 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the tune ended before it could be killed"
    os.killpg(process.pid, signal.SIGKILL)  # the command and its worker processes
    process.wait(timeout=30)
    cut = _stored(killed)
    assert 24 <= cut < 66
    finished = subprocess.run(_tune_command(killed), capture_output=True, timeout=600,
                              cwd=tmp_path, text=True)
    assert finished.returncode == 0, finished.stderr
    trajectories = []
    for folder in (reference, killed):
        store = open_store(folder)
        try:
            tuner = Tuner.of_store(store)
            assert tuner is not None and store.count() == 66
            trajectories.append(tuner.spsa.trajectory)
        finally:
            store.close()
    assert len(trajectories[0]) == 31 and trajectories[0] == trajectories[1]
    assert (reference / "tuned" / "bot.toml").read_text() == \
        (killed / "tuned" / "bot.toml").read_text()
