"""The sequential test's pieces: lattice, unit scores, likelihood ratio, stopping."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.errors import ArenaError
from arena.stats.sprt import (
    ACCEPT_H0,
    ACCEPT_H1,
    RUNNING,
    Design,
    SequentialTests,
    against_field,
    finish_ahead_share,
    head_to_head,
    log_likelihood_ratio,
    logistic_score,
    place_as_share,
    score_elo,
    score_lattice,
)

PENTANOMIAL = score_lattice([2])


def test_the_two_player_lattice_is_the_pentanomial() -> None:
    assert PENTANOMIAL.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    three = score_lattice([3])
    assert len(three) == 13 and three[1] == pytest.approx(1 / 12)
    mixed = score_lattice([3, 4])
    assert len(mixed) == len(set(np.round(mixed, 12)))  # no value twice
    assert set(np.round(three, 12)) <= set(np.round(mixed, 12))


def test_finish_ahead_share_and_places_agree() -> None:
    assert finish_ahead_share((1, 2, 3, 4), 0) == 1.0
    assert finish_ahead_share((1, 2, 3, 4), 3) == 0.0
    assert finish_ahead_share((1, 1, 3), 0) == pytest.approx(0.75)  # shared first place
    assert finish_ahead_share((2, 1), 0) == 0.0
    # with fractional places for ties, share = (k - place) / (k - 1) in every game
    assert place_as_share(1.5, 3) == pytest.approx(finish_ahead_share((1, 1, 3), 0))
    assert place_as_share(2.5, 4) == 0.5


def test_elo_and_score_are_inverse() -> None:
    for elo in (-400.0, -10.0, 0.0, 35.0, 700.0):
        assert score_elo(logistic_score(elo)) == pytest.approx(elo)
    assert logistic_score(0) == 0.5
    assert logistic_score(400) == pytest.approx(10 / 11)


@pytest.mark.parametrize(
    ("elo0", "elo1", "pairs", "fishtest"),
    [
        # fishtest's LLRcalc.LLR_logistic on the same pentanomial counts (reference values
        # from its own implementation, server/fishtest/stats/LLRcalc.py)
        (-3, 1, [10789, 19328, 33806, 19402, 10543], 2.1310678117940807),
        (0, 10, [3, 20, 41, 27, 9], 1.0000447966619705),
        (0, 10, [0, 5, 10, 7, 0], 0.14465778601385232),  # empty cells regularised
    ],
)
def test_llr_matches_fishtest(elo0: float, elo1: float, pairs: list[int], fishtest: float) -> None:
    llr, _, _ = log_likelihood_ratio(
        np.array(pairs), PENTANOMIAL, logistic_score(elo0), logistic_score(elo1)
    )
    assert llr[0] == pytest.approx(fishtest, rel=1e-9)


def test_llr_is_the_ratio_of_the_two_constrained_maximum_likelihoods() -> None:
    """Against a general-purpose optimiser: maximise the likelihood over all distributions
    on the lattice with the given mean, for each hypothesis."""
    from scipy.optimize import minimize

    counts = np.array([4.0, 9.0, 20.0, 11.0, 6.0])
    s0, s1 = 0.48, 0.56

    def best_log_likelihood(mean: float) -> float:
        found = minimize(
            lambda p: -float(counts @ np.log(p)),
            np.full(5, 0.2),
            method="SLSQP",
            bounds=[(1e-9, 1.0)] * 5,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1.0},
                {"type": "eq", "fun": lambda p: p @ PENTANOMIAL - mean},
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert found.success
        return -float(found.fun)

    llr, _, _ = log_likelihood_ratio(counts, PENTANOMIAL, s0, s1)
    assert llr[0] == pytest.approx(best_log_likelihood(s1) - best_log_likelihood(s0), abs=1e-6)


def test_llr_sign_follows_the_data() -> None:
    design = head_to_head(0, 20, 0.05, 0.05)
    hypotheses = design.score0, design.score1
    low, _, _ = log_likelihood_ratio([10, 20, 30, 10, 5], PENTANOMIAL, *hypotheses)
    high, _, _ = log_likelihood_ratio([5, 10, 30, 20, 10], PENTANOMIAL, *hypotheses)
    assert low[0] < 0 < high[0]
    # the same counts in many rows give the same answer in each row
    many, _, _ = log_likelihood_ratio(
        np.tile([5, 10, 30, 20, 10], (4, 1)), PENTANOMIAL, *hypotheses
    )
    assert np.allclose(many, high[0], rtol=1e-12)


def test_wald_bounds() -> None:
    design = head_to_head(0, 10, 0.05, 0.05)
    assert design.lower == pytest.approx(-2.944438979)
    assert design.upper == pytest.approx(2.944438979)
    lopsided = head_to_head(0, 10, 0.01, 0.2)
    assert lopsided.lower == pytest.approx(math.log(0.2 / 0.99))
    assert lopsided.upper == pytest.approx(math.log(0.8 / 0.01))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: head_to_head(10, 0, 0.05, 0.05), "elo0 must be below elo1"),
        (lambda: head_to_head(0, 10, 0.0, 0.05), "alpha must be between"),
        (lambda: head_to_head(0, 10, 0.05, 0.6), "beta must be between"),
        (lambda: against_field([3], 0.5, 1.0, 0.05, 0.05), "strictly between"),
        (lambda: against_field([], 0.5, 0.6, 0.05, 0.05), "at least one player count"),
    ],
)
def test_bad_designs_are_refused(build, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        build()


def test_categories_refuse_a_score_off_the_lattice() -> None:
    design = head_to_head(0, 10, 0.05, 0.05)
    assert design.categories([0.0, 0.25, 1.0]).tolist() == [0, 1, 4]
    with pytest.raises(ArenaError, match="not a possible value"):
        design.categories([0.3])


def test_a_test_decides_and_then_ignores_more_units() -> None:
    tests = SequentialTests(head_to_head(0, 30, 0.05, 0.05), count=2)
    for _ in range(200):
        tests.add([4, 0])  # test 0 only sees won pairs, test 1 only lost ones
    assert tests.outcome.tolist() == [ACCEPT_H1, ACCEPT_H0]
    decided_at = tests.units.copy()
    assert (decided_at < 200).all()
    tests.add([0, 4])
    assert (tests.units == decided_at).all()  # nothing changes after a decision
    assert tests.llr[0] > tests.design.upper - 1 and tests.llr[1] < tests.design.lower + 1


def test_balanced_results_keep_the_test_running_and_near_zero() -> None:
    tests = SequentialTests(head_to_head(-10, 10, 0.05, 0.05))
    for _ in range(5):
        for category in (0, 1, 2, 3, 4):
            tests.add([category])
    assert tests.outcome[0] == RUNNING
    assert abs(tests.llr[0]) < 0.05  # mean exactly 0.5, midway between the hypotheses
    assert tests.mean_score() == pytest.approx(0.5)


def test_overshoot_correction_moves_the_bounds_inwards() -> None:
    """With big LLR jumps the test stops before the nominal bound (fishtest's correction)."""
    design = head_to_head(0, 200, 0.05, 0.05)  # a wide margin: each pair moves the LLR a lot
    tests = SequentialTests(design)
    seen = []
    while tests.outcome[0] == RUNNING:
        tests.add([4])
        seen.append(float(tests.llr[0]))
    assert tests.outcome[0] == ACCEPT_H1
    assert seen[-2] < design.upper  # it was below the bound one pair earlier
    jumps = np.diff([0.0, *seen])
    expected_overshoot = (jumps**2).sum() / jumps.sum() / 2
    assert seen[-1] > design.upper - expected_overshoot


def test_design_holds_its_numbers() -> None:
    design = Design((0.0, 0.5, 1.0), 0.4, 0.6, 0.1, 0.2)
    assert design.score0 == 0.4 and design.beta == 0.2
