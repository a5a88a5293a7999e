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


def test_bench_league_measures_the_same_league_in_trusted_mode() -> None:
    result = run_benchmark(argparse.Namespace(players=[2], seconds=0.5, seed=1, json=False))
    (row,) = result["rows"]
    assert row["trusted games/s"] > 0
    assert row["x process"] == pytest.approx(row["trusted games/s"] / row["games/s"])
    assert any("sandbox \"trusted\"" in note for note in result["notes"])


def test_bench_league_player_counts() -> None:
    with pytest.raises(ArenaError, match="plays 2-5 players"):
        run_benchmark(argparse.Namespace(players=[6], seconds=0.1, seed=1, json=False))
