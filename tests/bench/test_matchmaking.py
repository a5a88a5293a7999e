"""``arena bench matchmaking`` on a small scale: the criterion, the methods and the JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.bench import matchmaking
from arena.bench.matchmaking import (
    Ladder,
    apart,
    chooser,
    halite_tables,
    new_bot_settled,
    random_tables,
    run,
    settled,
    true_ratings,
)
from arena.bench.synthetic import play_tables
from arena.cli import main
from arena.league.matchmaking import design_effect, estimate
from arena.rating import ELO_PER_NATURAL


def test_true_ratings_are_gapped_and_shuffled() -> None:
    truth = true_ratings(30, np.random.default_rng(1)) * ELO_PER_NATURAL
    gaps = np.diff(np.sort(truth))
    assert gaps.min() >= 20.0 and gaps.max() <= 40.0
    assert not np.array_equal(np.argsort(truth), np.arange(30))  # not in index order


def test_play_tables_follows_the_model() -> None:
    # two bots 100 Elo apart: the stronger takes 64% of the pairs
    strength = np.array([100.0, 0.0]) / ELO_PER_NATURAL
    tables = np.tile([0, 1], (20_000, 1))
    wins = play_tables(strength, tables, np.random.default_rng(2))
    assert wins[0, 1] + wins[1, 0] == 40_000  # two rotations per table
    assert wins[0, 1] / 40_000 == pytest.approx(0.64, abs=0.01)


def test_settled_needs_the_true_order_and_every_neighbouring_pair_apart() -> None:
    truth = np.array([0.0, 200.0, 400.0]) / ELO_PER_NATURAL
    ladder = Ladder.empty(truth, 2)
    assert not settled(ladder)  # no games: everything overlaps
    wins = np.zeros((3, 3))
    wins[1, 0] = wins[2, 1] = wins[2, 0] = 3000.0  # lopsided: apart, in the right order
    wins[0, 1] = wins[1, 2] = wins[0, 2] = 600.0
    ladder.wins, ladder.fit = wins, estimate(wins, design_effect(2))
    assert settled(ladder) and apart(ladder).all()
    ladder.truth = truth[[1, 0, 2]]  # the same results, the truth says 0 beats 1
    assert not settled(ladder)


def test_methods_pick_valid_tables() -> None:
    truth = true_ratings(12, np.random.default_rng(3))
    ladder = Ladder.empty(truth, 3)
    rng = np.random.default_rng(4)
    for choose in (random_tables, halite_tables, chooser("ours"), chooser("oracle")):
        tables = choose(ladder, 10, rng)
        assert tables.shape[1] == 3 and len(tables) >= 10
        assert all(len(set(row)) == 3 for row in tables.tolist())


def test_ours_settles_a_small_ladder_sooner_than_random() -> None:
    truth = np.arange(8) * 60.0 / ELO_PER_NATURAL
    counts = {}
    for method in ("random", "ours"):
        ladder = Ladder.empty(truth, 3)
        counts[method] = run(ladder, chooser(method), settled, 200_000,
                             np.random.default_rng(5))
        assert counts[method] is not None and settled(ladder)
    assert counts["ours"] < counts["random"]


def test_a_run_that_cannot_settle_says_so() -> None:
    truth = np.array([0.0, 1.0, 2.0]) / ELO_PER_NATURAL  # 1 Elo apart: not within 300 games
    assert run(Ladder.empty(truth, 2), random_tables, settled, 300,
               np.random.default_rng(6)) is None


def test_the_new_bot_criterion() -> None:
    truth = np.array([0.0, 100.0, 50.0]) / ELO_PER_NATURAL  # bot 2 is new, in between
    ladder = Ladder.empty(truth, 2)
    assert not new_bot_settled(ladder, 2)
    wins = np.array([[0, 3000, 3000], [5000, 0, 5000], [5000, 3000, 0]], dtype=float)
    ladder.wins, ladder.fit = wins, estimate(wins, design_effect(2))
    assert new_bot_settled(ladder, 2)


def test_the_benchmark_compares_every_method_on_the_same_seeds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(matchmaking, "SCENARIOS", (("scratch-8", 8), ("new-bot", 8)))
    assert main(["bench", "matchmaking", "--repetitions", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["repetitions"] == 1 and result["players"] == 3
    assert [row["scenario"] for row in result["rows"]] == ["scratch-8", "new-bot"]
    for scenario in result["scenarios"].values():
        assert set(scenario["games"]) == {"random", "halite", "oracle", "ours"}
        for summary in scenario["games"].values():
            assert summary["mean games"] > 0 and summary["mean games"] % 3 == 0
        assert scenario["ours / oracle"] > 0 and scenario["ours / better baseline"] > 0
    assert 0.8 < result["check"]["width ours / rate() (mean)"] < 1.2
    assert "target (issue 32 item 3)" in result["notes"][0]


def test_repetitions_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "matchmaking", "--repetitions", "0"]) == 2
    assert "--repetitions must be at least 1" in capsys.readouterr().err
