"""`arena bench league` runs and reports its figures (no speed is asserted here)."""

from __future__ import annotations

import argparse

import pytest

from arena.bench.league import run_benchmark
from arena.errors import ArenaError


def test_bench_league_reports_rate_bound_and_cpu() -> None:
    args = argparse.Namespace(players=[2], seconds=0.5, seed=1, json=False)
    result = run_benchmark(args)
    assert result["benchmark"] == "league" and result["notes"]
    (row,) = result["rows"]
    # five bots: ten 2-player tables, each seating order once per round
    assert row["players"] == 2 and row["games"] >= 20 and row["games"] % 20 == 0
    assert row["decisions/game"] > 10 and row["round trip µs"] > 0
    assert row["games/s"] > 0 and row["bound games/s"] > 0 and row["games/s, whole run"] > 0
    assert row["% of bound"] == pytest.approx(100 * row["games/s"] / row["bound games/s"])
    assert 0 < row["CPU use %"] <= 100 * 1.05
    # the bound is the measured work per game (arena and bots) spread over every core
    arena_ms, bots_ms = (float(part) for part in row["work ms/game (arena+bots)"].split("+"))
    assert arena_ms > 0 and bots_ms > 0
    cores = int(result["title"].split(", ")[1].split()[0])
    assert row["bound games/s"] == pytest.approx(cores * 1000 / (arena_ms + bots_ms), rel=0.02)
    assert any("bound = cores / work per game" in note for note in result["notes"])
    assert row["work drift %"] > -100  # measured after the league as well as before
    assert any("just before the league and just after it" in note for note in result["notes"])


def test_bench_league_measures_the_same_league_in_trusted_mode() -> None:
    result = run_benchmark(argparse.Namespace(players=[2], seconds=0.5, seed=1, json=False))
    (row,) = result["rows"]
    assert row["trusted games/s"] > 0
    assert row["x process"] == pytest.approx(row["trusted games/s"] / row["games/s"])
    assert any("sandbox \"trusted\"" in note for note in result["notes"])


def test_bench_league_player_counts() -> None:
    with pytest.raises(ArenaError, match="plays 2-5 players"):
        run_benchmark(argparse.Namespace(players=[6], seconds=0.1, seed=1, json=False))


def test_the_league_cpu_count_sees_a_grandchild_nobody_waits_for() -> None:
    # A sandboxed bot is a grandchild that bubblewrap reaps: rusage never sees its CPU.
    # This one is orphaned on purpose (double fork) and burns about 0.3 s of CPU.
    import os
    import subprocess
    import sys
    import time

    from arena.bench.league import _cpu_seconds, _LeagueCpu

    counter = _LeagueCpu()
    try:
        if not os.path.exists("/sys/fs/cgroup/cpuacct/cpuacct.usage"):
            # cgroup v2 only (or none): the count is rusage's, and says so
            assert counter.group is None and counter.how.startswith("rusage")
            return
        if counter.group is None:
            if os.environ.get("CI"):
                pytest.fail(f"cgroup v1 cpuacct is here but not writable in CI: {counter.how}")
            pytest.skip(counter.how)
        rusage_before = _cpu_seconds()
        burn = ("import time\nend = time.process_time() + 0.3\n"
                "while time.process_time() < end: pass\n"
                "open(__import__('sys').argv[1], 'w').close()")
        done = f"/tmp/arena-test-burn-{os.getpid()}"
        subprocess.run(["sh", "-c", f'"{sys.executable}" -c "$0" {done} &', burn], check=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(done) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.unlink(done)
        assert counter.seconds() >= 0.29
        assert _cpu_seconds() - rusage_before < 0.2  # what the old count saw
        # bots this process starts itself (a league of one worker plays in process)
        # get their groups inside the counted one
        from arena.runner.cgroups import detect
        from arena.runner.sandbox import choose_level

        assert counter.group in detect().parents
        assert counter.group in choose_level("auto").accounting.parents
    finally:
        counter.close()
    assert counter.group is None
    from arena.runner.cgroups import detect

    assert not any("-bench" in str(parent) for parent in detect().parents)
