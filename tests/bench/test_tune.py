"""``arena bench tune`` on a tiny budget, and ``tune-greedy``'s smoke run: the full one
(20,000 games) is run by hand (docs/tuning.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from arena.bench import tune as bench


def test_spsa_ends_closer_to_the_optimum_than_random_search_on_the_same_games(
        tmp_path: Path) -> None:
    result = bench.run_synthetic([400], repetitions=3, players=3, seed=2)
    spsa, random_search = result["rows"]
    assert (spsa["method"], random_search["method"]) == ("SPSA", "random search")
    assert spsa["games"] == random_search["games"] == 400

    def mean(row: dict[str, str]) -> float:
        return float(row["distance"].split(" ± ")[0])

    start = bench.distance([p.default for p in bench.SYNTHETIC])
    assert mean(spsa) < mean(random_search)
    assert mean(spsa) < 0.6 * start  # and it did move towards the optimum


def test_the_synthetic_strength_is_the_known_function() -> None:
    assert bench.strength(bench.OPTIMUM) == 0.0 and bench.distance(bench.OPTIMUM) == 0.0
    away = list(bench.OPTIMUM)
    away[0] += 1.0  # a tenth of alpha's range, curvature 1
    assert bench.strength(away) == pytest.approx(-bench.ELO_SCALE * 0.01)
    assert bench.distance(away) == pytest.approx(0.1)
    # the two games of a pair share their deal's luck: the same Elo, the same places
    assert bench.simulated_placements([0, 0, 0], 7, "x") == \
        bench.simulated_placements([0, 0, 0], 7, "x")


def test_the_greedy_measurement_runs_short(tmp_path: Path) -> None:
    result = bench.run_greedy(games=24, verify_games=9, seed=3, results=tmp_path / "g")
    measures = [row["measure"] for row in result["rows"]]
    assert measures == ["tuned over bad", "defaults over bad"]
    for row in result["rows"]:
        assert row["95% low"] <= row["Elo"] <= row["95% high"]
    assert result["notes"][0].startswith("24 tuning games and 9 verification games at 3 ")
    assert "bad start: denial 1.8" in result["notes"][1]
    # the tuned weights are shown, every parameter of greedy's, beside its defaults
    tuned, defaults = result["notes"][2], result["notes"][3]
    assert tuned.startswith("tuned: denial ") and "sun_tempo" in tuned
    assert defaults.startswith("defaults: denial ") and "sun_tempo" in defaults
    # dealt from a key made of the seed: another store, the same games, the same figures
    again = bench.run_greedy(games=24, verify_games=9, seed=3, results=tmp_path / "h")
    assert again["rows"] == result["rows"]


def test_the_bench_command_takes_the_tune_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[tuple[object, ...]] = []
    monkeypatch.setattr(bench, "run_synthetic", lambda *a: called.append(a) or {"rows": []})
    monkeypatch.setattr(bench, "run_greedy", lambda *a: called.append(a) or {"rows": []})
    bench.run_benchmark(argparse.Namespace(target="tune", games=None, players=None,
                                           repetitions=None, seed=1))
    bench.run_benchmark(argparse.Namespace(target="tune-greedy", games=None, players=None,
                                           repetitions=None, seed=1))
    assert called == [(bench.SYNTHETIC_BUDGETS, 5, 3, 1),
                      (bench.GREEDY_GAMES, bench.GREEDY_VERIFY_GAMES, 1, None)]
