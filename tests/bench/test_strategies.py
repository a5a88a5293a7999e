"""``arena bench ra-bots`` reports both strategies on each Ra engine, mcts with the search
it plays on each (no speed is asserted here)."""

from __future__ import annotations

import argparse

import pytest

from arena.bench.strategies import run_benchmark
from arena.errors import ArenaError
from arena.games.ra import engines


def test_the_speed_benchmark_reports_both_strategies_on_each_engine() -> None:
    result = run_benchmark(argparse.Namespace(seconds=0.4, players=[3], seed=1, json=False))
    kinds = ["compiled", "python"] if engines.compiled_available() else ["python"]
    rows = result["rows"]
    assert [(row["bot"], row["engine"]) for row in rows] == \
        [("greedy", kind) for kind in kinds] + \
        [(f"mcts@{step}", kind) for step in ("1.3", "1.5") for kind in kinds]
    for row in rows:
        if row["bot"] == "greedy":
            assert row["decisions"] > 20 and row["max ms"] >= row["mean ms"] > 0
        else:
            assert row["iterations/s"] > 0
    with pytest.raises(ArenaError, match="2-5 players"):
        run_benchmark(argparse.Namespace(seconds=0.2, players=[6], seed=1, json=False))
