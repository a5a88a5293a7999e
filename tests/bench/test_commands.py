"""``arena bench TARGET`` from the command line: every target reachable, bad input a
one-line error (exit 2)."""

from __future__ import annotations

import contextlib
import json

import pytest

from arena.bench import rating
from arena.cli import main


def test_a_game_target_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ra", "--seconds", "0.05", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ra: random playouts") and "decisions/game" in out


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ra_dice", "--seconds", "0.05", "--players", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["benchmark"] == "ra_dice" and result["rows"][0]["players"] == 3


def test_a_named_benchmark_runs_through_its_module(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(rating, "SIZES", ((500, (3,)),))  # the real sizes take seconds
    assert main(["bench", "rating", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (row,) = result["rows"]
    assert row["bots"] == 100 and row["games"] == 500 and row["pairwise results"] == 1500
    assert row["fit (ms)"] > 0 and row["RMS error (Elo)"] > 0


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "chess"], "unknown benchmark 'chess'; choose one of: ra, ra_dice, protocol"),
    (["bench", "ra", "--seconds", "0"], "--seconds must be positive, not 0"),
    (["bench", "ra", "--players", "9"], "ra is for 2-5 players, not 9"),
    (["bench", "league", "--cores", "0"], "--cores must be at least 1, not 0"),
    (["bench", "league", "--cluster", "--cores", "4097"], "--cores 4097: this process may use"),
])
def test_bad_input_is_a_one_line_error(argv: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_store_benchmark_compares_against_version_one_in_the_same_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.bench import store

    monkeypatch.setattr(store, "GAMES_PER_COUNT", 12)  # the real count takes seconds
    assert main(["bench", "store", "--players", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (row,) = result["rows"]
    assert row["players"] == 4 and row["games"] == 12
    # compressed records take less room than the JSON text of the same games
    assert row["zlib (KB/game on disk)"] < row["v1 text (KB/game on disk)"]
    assert any("baseline" in note for note in result["notes"])


def test_the_cluster_league_benchmark_compares_with_the_local_backend(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "league", "--cluster", "--players", "2", "--games", "20",
                 "--repetitions", "2", "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    trivial, thinking = result["rows"]
    # --games 20: two rounds at least (20 games a round with 2 players of 5 bots)
    assert trivial["players"] == 2 and trivial["games"] == 40
    for key in ("local games/s", "cluster 1w games/s", "cluster 2w games/s",
                "cluster 2w / local %"):
        assert trivial[key] > 0
    assert len(trivial["each pair %"].split()) == 2  # --repetitions 2
    assert len(thinking["each pair %"].split()) == 1
    assert thinking["bots"] == "think 0.05 s" and thinking["games"] == 20
    assert thinking["cluster 2w games/s"] > 0 and "cluster 1w games/s" not in thinking
    assert any("baseline: the local backend" in note for note in result["notes"])
    # every league's rate on stderr as it ends: 1 worker, then local and 2 workers in turn
    err = captured.err.splitlines()
    trivial_lines = [line for line in err if "2 players, 40 games, " in line]
    assert [line.split(", ")[2].split(":")[0] for line in trivial_lines] == [
        "cluster 1w", "local", "cluster 2w (1 of 2)", "local", "cluster 2w (2 of 2)", "local"]
    assert all(line.endswith(" games/s") for line in trivial_lines)


class _FakeDask:
    """No Dask processes: the benchmarks' leagues are replaced too."""

    workers: list[int] = []  # every with_workers(n), in order

    def __enter__(self) -> _FakeDask:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def with_workers(self, n: int) -> str:
        self.workers.append(n)
        return "tcp://127.0.0.1:1"

    def lost_ends_the_run(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # (no process to lose)


def test_pinned_cpus_holds_every_thread_and_child_then_restores_the_mask() -> None:
    import os
    import subprocess
    import sys
    import threading

    from arena.bench.league import pinned_cpus
    from arena.errors import ArenaError

    mask = os.sched_getaffinity(0)
    started, stop = threading.Event(), threading.Event()

    def wait() -> None:
        started.set()
        stop.wait()

    thread = threading.Thread(target=wait)
    thread.start()  # before the pinning: its mask must change too
    started.wait()
    try:
        with pinned_cpus(1) as cores:
            assert cores == 1
            assert os.sched_getaffinity(0) == {min(mask)}
            assert thread.native_id is not None
            assert os.sched_getaffinity(thread.native_id) == {min(mask)}
            child = subprocess.run(
                [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                capture_output=True, text=True, check=True)
            assert child.stdout.strip() == str([min(mask)])
        assert os.sched_getaffinity(0) == mask
        assert os.sched_getaffinity(thread.native_id) == mask
    finally:
        stop.set()
        thread.join()
    with pytest.raises(ArenaError, match=f"--cores {len(mask) + 1}: this process may use "
                                         f"{len(mask)} CPU"), pinned_cpus(len(mask) + 1):
        pass
    assert os.sched_getaffinity(0) == mask


def test_the_cluster_benchmark_puts_one_worker_per_core() -> None:
    """--cores 1: the local backend and a one-worker cluster on one CPU (on a machine with
    more, the default of two cores keeps issue 34's two workers on two cores)."""
    import argparse
    import os

    from arena.bench import league

    concurrency: set[int] = set()

    def timed(bots: object, k: int, rounds: int, seed: int, concurrency_: int,
              cluster: object) -> tuple[float, float]:
        assert len(os.sched_getaffinity(0)) == 1
        concurrency.add(concurrency_)
        return 10.0, 9.0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(league, "_timed_league", timed)
        patch.setattr(league, "_DaskProcesses", _FakeDask)
        patch.setattr(_FakeDask, "workers", [])
        result = league.run_cluster_benchmark(argparse.Namespace(
            players=[2], seconds=5.0, games=40, seed=1, repetitions=1, cores=1))
        assert _FakeDask.workers == [1, 1]  # trivial bots, then thinking ones
    trivial, thinking = result["rows"]
    assert trivial["cluster 1w / local %"] == 100.0 and "cluster 2w games/s" not in trivial
    assert thinking["cluster 1w / local %"] == 100.0
    assert concurrency == {2, 8}  # 2 x cores trivial, 8 x cores thinking
    assert f"1 core (CPU {min(os.sched_getaffinity(0))})" in result["title"]


def test_the_cluster_benchmark_is_sized_by_games_not_by_a_probe() -> None:
    """Issue 34: a one-round probe that undershot (start-up in its time) made a 60-game
    measurement; now the games come from --games or --seconds alone."""
    import argparse

    from arena.bench import league

    calls: list[tuple[int, int, int]] = []

    def timed(bots: object, k: int, rounds: int, seed: int, concurrency: int,
              cluster: object) -> tuple[float, float]:
        calls.append((k, rounds, concurrency))
        return 10.0, 9.0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(league, "_timed_league", timed)
        patch.setattr(league, "_DaskProcesses", _FakeDask)
        result = league.run_cluster_benchmark(argparse.Namespace(
            players=[2, 3, 4], seconds=5.0, games=None, seed=1))
    games = {(row["players"], row["bots"]): row["games"] for row in result["rows"]}
    assert games == {(2, "trivial"): 1000, (3, "trivial"): 1020, (4, "trivial"): 1000,
                     (2, "think 0.05 s"): 100}
    assert {rounds for k, rounds, _ in calls if k == 3} == {1, 34}  # warm-up, measured
    assert all(row["cluster 2w / local %"] == 100.0 for row in result["rows"])


def test_the_cluster_benchmark_compares_each_cluster_league_with_its_neighbours() -> None:
    """A machine whose speed drifts along the run: local leagues at 100, 80, 60 and 40
    games/s around cluster leagues at 90, 70 and 50 (each at 100% of the local leagues
    beside it).  Compared with the first and last local leagues' mean (70) they would
    read 129%, 100% and 71%; the row must give 100%."""
    import argparse

    from arena.bench import league

    local = iter([100.0, 80.0, 60.0, 40.0] * 2)
    remote = iter([45.0, 90.0, 70.0, 50.0] * 2)  # (the 1-worker league first)
    order: list[str] = []

    def timed(bots: object, k: int, rounds: int, seed: int, concurrency: int,
              cluster: object) -> tuple[float, float]:
        if rounds == 1:  # a warm-up
            return 1.0, 1.0
        order.append("L" if cluster is None else "C")
        rate = next(local if cluster is None else remote)
        return rate, rate / 2

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(league, "_timed_league", timed)
        patch.setattr(league, "_DaskProcesses", _FakeDask)
        result = league.run_cluster_benchmark(argparse.Namespace(
            players=[3], seconds=5.0, games=600, seed=1, repetitions=3))
    trivial = result["rows"][0]
    assert "".join(order[:8]) == "CLCLCLCL"  # 1 worker, then local and 2 workers in turn
    assert trivial["each pair %"] == "100.0 100.0 100.0"
    assert trivial["cluster 2w / local %"] == pytest.approx(100.0)
    assert trivial["local games/s"] == 70.0  # the median local league
    assert trivial["local spread %"] == pytest.approx(100 * 60 / 70)
    assert trivial["cluster 1w games/s"] == 45.0


def test_the_sandbox_benchmark_compares_each_level_with_none_in_the_same_run(
    capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.runner.sandbox import choose_level

    if choose_level("auto").level == "none":  # only none here: nothing to compare with
        assert main(["bench", "sandbox", "--seconds", "0.5"]) == 2
        assert "nothing to compare" in capsys.readouterr().err
        return
    assert main(["bench", "sandbox", "--seconds", "0.5", "--players", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    none, sandboxed = result["rows"]
    assert none["level"] == "none" and sandboxed["level"] == "bwrap"
    assert none["starts"] == sandboxed["starts"] > 0  # interleaved, one of each per round
    assert sandboxed["start ms (median)"] > 0 and sandboxed["decision µs (median)"] > 0
    assert none["start + ms vs none"] == 0 and "goal: at most +20 ms" in result["notes"][0]


def test_the_planning_benchmark_plans_500_bots(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from arena.bench import plan

    monkeypatch.setattr(plan, "CASES", (("sample", (3,), 3000),))  # the real ones take s
    assert main(["bench", "plan", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["bots"] == 500 and 0 < row["games"] <= 3000 and row["plan (s)"] > 0


def _dask_workers_of(root: int) -> list[int]:
    """The pids of the `dask worker` processes below ``root`` (from /proc)."""
    from pathlib import Path

    from arena.processes import descendants

    found = []
    for pid, _ in descendants(root):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"distributed.cli.dask_worker" in command:
            found.append(pid)
    return found


def test_a_lost_dask_worker_ends_the_cluster_benchmark_in_one_line() -> None:
    """Issue 43 item 8: a worker killed mid-benchmark ends it within seconds with one
    line naming it, never a silent wait, and leaves no process behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from arena.processes import alive, descendants

    bench = subprocess.Popen(
        [sys.executable, "-m", "arena", "bench", "league", "--cluster", "--players", "2",
         "--games", "400", "--repetitions", "5", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (workers := _dask_workers_of(bench.pid)):
            assert bench.poll() is None and time.monotonic() < deadline, bench.stderr
            time.sleep(0.2)
        time.sleep(3)  # in the middle of its first league
        everything = descendants(bench.pid)
        os.kill(workers[0], signal.SIGKILL)
        killed = time.monotonic()
        out, err = bench.communicate(timeout=90)
        took = time.monotonic() - killed
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
    text = err.decode()
    assert bench.returncode == 2 and took < 30, (bench.returncode, took, text[-2000:])
    errors = [line for line in text.splitlines() if line.startswith("arena: error")]
    assert errors == [
        f"arena: error: bench league --cluster: the benchmark's Dask worker w0 (pid "
        f"{workers[0]}) ended during the run (killed by SIGKILL); stopped, since its "
        "figures would be wrong"], text[-2000:]
    assert "Traceback" not in text and out == b""
    time.sleep(1)
    assert alive(everything) == set()
