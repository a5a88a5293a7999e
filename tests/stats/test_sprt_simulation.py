"""The sequential tests' error rates, measured on thousands of simulated tests.

Each scenario runs a few thousand independent tests in lock step (numpy) with synthetic
bots whose true strength sits exactly on H0 or on H1, where the error rates are largest,
and counts the wrong decisions.

**Tolerance.** A measured rate over n tests whose true rate is r has standard deviation
sqrt(r (1 - r) / n).  A test below asserts ``measured <= nominal + 3.29 sd``: if the true
error rate were exactly the nominal one, a seed would fail it with probability 0.05%
(one-sided normal tail), so a failure means the error rate really exceeds the design.
The seeds are fixed, so every run gives the same numbers.

The tests are designed with margins wider than a league would use (so each simulated
test needs tens to hundreds of units, not thousands): the Wald/GSPRT approximations are
at their worst there, not at their best.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from arena.bench.synthetic import FieldModel, PairModel, equal_field
from arena.stats.sprt import (
    ACCEPT_H0,
    ACCEPT_H1,
    RUNNING,
    Design,
    SequentialTests,
    against_field,
    head_to_head,
)

Z = 3.29  # one-sided 0.05% normal quantile: see the module docstring
Draw = Callable[[np.random.Generator, int, int], np.ndarray]  # (rng, step, count) -> units


def simulate(design: Design, draw: Draw, count: int, seed: int) -> SequentialTests:
    rng = np.random.default_rng(seed)
    tests = SequentialTests(design, count)
    step = 0
    while (tests.outcome == RUNNING).any():
        tests.add(draw(rng, step, count))
        step += 1
        assert step < 20_000, "a simulated test never decided"
    return tests


def allowed(nominal: float, count: int) -> float:
    return nominal + Z * math.sqrt(nominal * (1 - nominal) / count)


def rate(tests: SequentialTests, outcome: int) -> float:
    return float(np.mean(tests.outcome == outcome))


def pairs(model: PairModel) -> Draw:
    return lambda rng, _step, count: model.draw_units(rng, count)


def fixed_sample_size(design: Design, variance: float) -> float:
    """Units a one-off (non-sequential) z-test with the same alpha and beta would need."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    spread = z(1 - design.alpha) + z(1 - design.beta)
    return (spread * math.sqrt(variance) / (design.score1 - design.score0)) ** 2


def pair_variance(model: PairModel, rng: np.random.Generator) -> float:
    return float(np.var(model.draw_units(rng, 400_000) / 4))


# --------------------------------------------------------------------------- head to head


@pytest.fixture(scope="module")
def self_play() -> SequentialTests:
    """A bot against itself (true difference 0 = elo0): 4,000 SPRTs."""
    return simulate(head_to_head(0, 40, 0.05, 0.05), pairs(PairModel(0.0)), 4000, seed=1)


def test_sprt_of_a_bot_against_itself_accepts_h0_at_the_designed_rate(
    self_play: SequentialTests,
) -> None:
    n = len(self_play.outcome)
    false_positives = rate(self_play, ACCEPT_H1)
    # at most alpha (plus sampling tolerance) ...
    assert false_positives <= allowed(0.05, n)
    # ... and about alpha, not far below: the test is not needlessly cautious
    assert false_positives >= 0.05 - Z * math.sqrt(0.05 * 0.95 / n)
    assert rate(self_play, ACCEPT_H0) == pytest.approx(1 - false_positives)


def test_sprt_at_h1_accepts_h0_at_most_beta() -> None:
    tests = simulate(head_to_head(0, 40, 0.05, 0.05), pairs(PairModel(40.0)), 2000, seed=2)
    assert rate(tests, ACCEPT_H0) <= allowed(0.05, 2000)


@pytest.mark.parametrize("truth", ["h0", "h1"])
def test_sprt_with_unequal_error_rates_keeps_both(truth: str) -> None:
    design = head_to_head(-20, 25, 0.10, 0.02)
    if truth == "h0":
        tests = simulate(design, pairs(PairModel(-20.0, ties=0.3)), 2000, seed=3)
        assert rate(tests, ACCEPT_H1) <= allowed(0.10, 2000)
    else:
        tests = simulate(design, pairs(PairModel(25.0, ties=0.3)), 2000, seed=4)
        assert rate(tests, ACCEPT_H0) <= allowed(0.02, 2000)


def test_sprt_needs_fewer_pairs_than_a_fixed_sample_test(self_play: SequentialTests) -> None:
    """Wald's point: on average far fewer units than a fixed-length test of the same power."""
    design = self_play.design
    fixed = fixed_sample_size(design, pair_variance(PairModel(0.0), np.random.default_rng(5)))
    assert self_play.units.mean() < 0.7 * fixed


def test_a_clear_difference_is_found_fast() -> None:
    model = PairModel(150.0, luck=0.1)
    tests = simulate(head_to_head(0, 10, 0.05, 0.05), pairs(model), 500, seed=6)
    assert rate(tests, ACCEPT_H1) == 1.0
    assert np.median(tests.units) < 150


# --------------------------------------------------------------------------- gauntlet


def field_draw(model: FieldModel, design: Design) -> Draw:
    return lambda rng, step, count: model.draw_units(rng, step, count, design)


GAUNTLETS = {
    # four equal bots in the field, 4-player tables
    "equal field, 4 players": equal_field(4, (4,)),
    # a mixed field at 3 and 4 players: tables differ in difficulty, cycled as scheduled
    "mixed field, 3-4 players": FieldModel(0.0, (-300.0, -100.0, 0.0, 200.0), (3, 4)),
    # every count from 3 to 5, half the games decided by the deal alone
    "equal field, 3-5 players": equal_field(4, (3, 4, 5), decisive=0.5),
}


@pytest.mark.parametrize("name", list(GAUNTLETS))
@pytest.mark.parametrize("truth", ["h0", "h1"])
def test_gauntlet_test_keeps_its_error_rates(name: str, truth: str) -> None:
    base = GAUNTLETS[name]
    design = against_field(base.players, 0.50, 0.56, 0.05, 0.05)
    model = base.with_share(design.score0 if truth == "h0" else design.score1)
    assert model.true_share() == pytest.approx(
        design.score0 if truth == "h0" else design.score1, abs=1e-9
    )
    seed = 10 + list(GAUNTLETS).index(name) * 2 + (truth == "h1")
    tests = simulate(design, field_draw(model, design), 2000, seed=seed)
    if truth == "h0":
        assert rate(tests, ACCEPT_H1) <= allowed(0.05, 2000)
    else:
        assert rate(tests, ACCEPT_H0) <= allowed(0.05, 2000)


def test_the_synthetic_field_sits_where_it_claims() -> None:
    """The model's exact mean share is what its simulated units average (the error-rate
    tests above lean on it)."""
    model = GAUNTLETS["mixed field, 3-4 players"].with_share(0.56)
    design = against_field(model.players, 0.5, 0.6, 0.05, 0.05)
    rng = np.random.default_rng(7)
    cycle = len(model.tables())
    values = np.asarray(design.values)
    drawn = [values[model.draw_units(rng, step, 3000, design)].mean() for step in range(cycle)]
    # 3,000 units per table of the cycle: the standard error is below 0.002
    assert np.mean(drawn) == pytest.approx(0.56, abs=0.006)
