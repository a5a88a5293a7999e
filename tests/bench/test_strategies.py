"""``arena bench ra-bots`` reports both strategies (no speed is asserted here)."""

from __future__ import annotations

import argparse

import pytest

from arena.bench.strategies import run_benchmark
from arena.errors import ArenaError


def test_the_speed_benchmark_reports_both_strategies() -> None:
    result = run_benchmark(argparse.Namespace(seconds=0.2, players=[3], seed=1, json=False))
    greedy_row, mcts_row = result["rows"]
    assert greedy_row["bot"] == "greedy" and greedy_row["decisions"] > 20
    assert greedy_row["max ms"] >= greedy_row["mean ms"] > 0
    assert mcts_row["bot"] == "mcts" and mcts_row["iterations/s"] > 0
    with pytest.raises(ArenaError, match="2-5 players"):
        run_benchmark(argparse.Namespace(seconds=0.2, players=[6], seed=1, json=False))
