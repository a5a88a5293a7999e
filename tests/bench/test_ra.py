"""``arena bench ra``: both Ra engines in one run, against the pure engine and the API
floor measured beside them (no speed is asserted here: that is the benchmark's job)."""

from __future__ import annotations

import argparse

import pytest

from arena.bench.ra import run_benchmark
from arena.games.ra import engines


def arguments(**changes: object) -> argparse.Namespace:
    values = {"seconds": 0.1, "players": [2, 5], "seed": 3, "json": False, **changes}
    return argparse.Namespace(**values)


def test_both_engines_and_the_floor_in_one_run(compiled_ra: type) -> None:
    result = run_benchmark(arguments())
    assert result["benchmark"] == "ra" and result["engine"] == "the compiled Ra core"
    for players, row in zip([2, 5], result["rows"], strict=True):
        assert row["players"] == players and row["games"] >= 1
        for name in ("python", "compiled API", "compiled C", "API floor"):
            assert row[f"{name} games/s"] > 0
        for ratio in ("C ÷ python", "C ÷ python (CPU)", "API ÷ python", "C ÷ floor"):
            assert row[ratio] > 0
    assert any("Goal: C ÷ python >= 10" in note for note in result["notes"])


def test_without_the_core_the_pure_engine_and_the_floor(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(engines, "compiled_available", lambda: False)
    result = run_benchmark(arguments(players=[3]))
    (row,) = result["rows"]
    assert row["python games/s"] > 0 and row["API floor games/s"] > 0
    assert "compiled C games/s" not in row and "C ÷ python" not in row
    assert any(note.startswith("no compiled core to measure") for note in result["notes"])
