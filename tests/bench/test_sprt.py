"""``arena bench sprt`` on a small scale: its rows and its baseline."""

from __future__ import annotations

import argparse

import pytest

from arena.bench import sprt


def test_the_sprt_benchmark_compares_with_the_fixed_length_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sprt, "TRUE_ELO", (0.0, 100.0))
    monkeypatch.setattr(sprt, "TESTS", 60)
    result = sprt.run_benchmark(argparse.Namespace(seed=3))
    at_h0, clear = result["rows"]
    assert "baseline" in result["title"]
    assert float(at_h0["P(accept H1)"].rstrip("%")) < 20.0
    assert clear["P(accept H1)"] == "100.0%"
    # a clear difference needs a small fraction of the fixed-length test's games
    assert clear["mean games"] < 0.2 * clear["fixed-length games"]
    assert float(clear["SPRT / fixed"]) < 0.2
