"""``arena bench freshness``, tiny: every stored game is timed to its published board,
beside the same-run baseline and the web loop's lateness (no figure is asserted)."""

from __future__ import annotations

import json

import pytest

from arena.bench import freshness
from arena.cli import main


def test_a_tiny_run_times_every_game_against_the_baseline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(freshness, "MEASURED_GAMES", 6)
    monkeypatch.setattr(freshness, "IDLE_SECONDS", 0.3)
    monkeypatch.setattr(freshness, "BOTS", 8)
    assert main(["bench", "freshness", "--games", "300", "--players", "3", "4",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games_in_store"] == 300 and result["games_measured"] == 6
    assert result["baseline_full_recompute_seconds"] > 0
    latency = result["latency_seconds"]
    assert 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert result["web_loop_lateness_seconds"]["busy"]["max"] >= 0
    assert any("baseline (same run)" in note for note in result["notes"])
