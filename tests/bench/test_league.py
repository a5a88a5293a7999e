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
    assert row["players"] == 2 and row["games"] >= 12 and row["games"] % 12 == 0
    assert row["decisions/game"] > 10 and row["round trip µs"] > 0
    assert row["games/s"] > 0 and row["bound games/s"] > 0
    assert row["% of bound"] == pytest.approx(100 * row["games/s"] / row["bound games/s"])
    assert 0 < row["CPU use %"] <= 100 * 1.05


def test_bench_league_measures_the_same_league_in_trusted_mode() -> None:
    result = run_benchmark(argparse.Namespace(players=[2], seconds=0.5, seed=1, json=False))
    (row,) = result["rows"]
    assert row["trusted games/s"] > 0
    assert row["x process"] == pytest.approx(row["trusted games/s"] / row["games/s"])
    assert any("sandbox \"trusted\"" in note for note in result["notes"])


def test_bench_league_player_counts() -> None:
    with pytest.raises(ArenaError, match="plays 2-4 players"):
        run_benchmark(argparse.Namespace(players=[5], seconds=0.1, seed=1, json=False))
