"""``arena bench protocol`` runs and reports every row (no speed assertions here)."""

from __future__ import annotations

import argparse

import pytest

from arena.errors import ArenaError
from arena.runner.bench import run_benchmark


def test_the_protocol_benchmark_reports_all_rows() -> None:
    args = argparse.Namespace(seconds=0.2, players=[2], seed=1, json=True)
    result = run_benchmark(args)
    assert [row["path"].split(",")[0] for row in result["rows"]] == [
        "raw pipe echo (2 Python processes)", "raw pipe echo", "JSON echo (same JSON work",
        "arena pipe layer", "full stack",
        "full stack", "referee + in-process player"]
    counts = {row["decisions"] for row in result["rows"]}
    assert len(counts) == 1 and counts.pop() > 0  # the same decisions for every row
    for row in result["rows"]:
        assert 0 < row["median µs"] <= row["p99 µs"]
    assert result["trivial_stack_vs_raw_echo"] > 0 and "target" in result["notes"][0]


@pytest.mark.parametrize(("players", "seconds", "message"), [
    ([9], 1.0, "not 9"), ([2], 0.0, "--seconds must be positive")])
def test_bad_arguments_are_user_errors(players: list[int], seconds: float, message: str
                                       ) -> None:
    args = argparse.Namespace(seconds=seconds, players=players, seed=1, json=False)
    with pytest.raises(ArenaError, match=message):
        run_benchmark(args)
