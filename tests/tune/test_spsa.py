"""SPSA's arithmetic against steps worked out by hand (fishtest's formulas, docs/tuning.md)."""

from __future__ import annotations

import math

import pytest

from arena.runner.botspec import Parameter
from arena.tune.spsa import (
    Gains,
    Spsa,
    pair_result,
    played_values,
    share_ahead,
    signs,
)

# N = 100 pairs: A = int(0.1 * 100) = 10, alpha 0.602, gamma 0.101
GAINS = Gains(100)
P = Parameter("p", default=1.0, minimum=0.0, maximum=2.0, c_end=0.5, r_end=0.002)
Q = Parameter("q", default=5.0, minimum=0.0, maximum=10.0, c_end=1.0, r_end=0.01)


def test_the_gain_sequences_are_fishtests() -> None:
    assert GAINS.stability == 10
    # c_1 = c_end * N**gamma = 0.5 * 100**0.101 = 0.5 * 1.59221 = 0.79610
    assert GAINS.c(P, 1) == pytest.approx(0.7961043635, abs=1e-9)
    # c_2 = c_1 / 2**0.101
    assert GAINS.c(P, 2) == pytest.approx(0.7961043635 / 2 ** 0.101, abs=1e-9)
    # a = r_end * c_end**2 * (A + N)**alpha = 0.0005 * 110**0.602; a_1 = a / 11**0.602
    assert GAINS.a(P, 1) == pytest.approx(0.0005 * 110 ** 0.602 / 11 ** 0.602, abs=1e-12)
    assert GAINS.a(P, 1) == pytest.approx(0.0019997237, abs=1e-9)
    # at the last iteration they are the declared ends: c_N = c_end, a_N = r_end c_end^2,
    # and fishtest's R_N = a_N / c_N^2 = r_end
    assert GAINS.c(P, 100) == pytest.approx(0.5)
    assert GAINS.a(P, 100) == pytest.approx(0.0005)
    assert GAINS.r(P, 100) == pytest.approx(0.002)
    assert Gains(7).stability == 0  # int(0.7)


def test_one_iteration_by_hand() -> None:
    spsa = Spsa((P, Q), (1.0, 9.5), GAINS, seed=3)
    delta = signs(3, 1, (P, Q))
    plus, minus = spsa.perturbed(1)
    c_p, c_q = 0.7961043635255851, 1.5922087270511702
    assert plus[0] == pytest.approx(1.0 + c_p * delta[0])
    assert minus[0] == pytest.approx(1.0 - c_p * delta[0])
    # q sits 0.5 below its max: the side that would pass it is clipped to 10
    assert sorted([plus[1], minus[1]]) == pytest.approx([9.5 - c_q, 10.0])
    # theta+ won its game, theta- lost its own (2 players): result 2
    spsa.record(1, pair_result(1.0, 0.0))
    assert spsa.advance() == 1
    # theta <- theta + (a_1 / c_1) * result * delta
    step_p = 0.0019997237488054874 / 0.7961043635255851 * 2.0
    assert spsa.theta[0] == pytest.approx(1.0 + step_p * delta[0], abs=1e-12)
    step_q = GAINS.a(Q, 1) / GAINS.c(Q, 1) * 2.0
    assert spsa.theta[1] == pytest.approx(min(10.0, 9.5 + step_q * delta[1]), abs=1e-12)


def test_updates_are_clipped_to_the_bounds() -> None:
    edge = Parameter("e", default=0.0, minimum=0.0, maximum=1.0, c_end=0.1, r_end=50.0)
    spsa = Spsa((edge,), (0.0,), GAINS, seed=1)
    for k in range(1, 30):
        spsa.record(k, pair_result(1.0, 0.0) * signs(1, k, (edge,))[0] * -1)  # always down
    spsa.advance()
    assert all(0.0 <= values[0] <= 1.0 for values in spsa.trajectory)
    assert spsa.theta == (0.0,)
    plus, minus = spsa.perturbed(30)
    assert min(plus[0], minus[0]) == 0.0  # the perturbation is clipped too


def test_results_in_any_order_give_one_trajectory_and_pairs_in_flight_wait() -> None:
    results = {k: pair_result((k * 7 % 5) / 4, (k * 3 % 5) / 4) for k in range(1, 41)}
    forward = Spsa((P, Q), (1.0, 5.0), Gains(40), seed=9, in_flight=3)
    for k in sorted(results):
        forward.record(k, results[k])
        forward.advance()
    backward = Spsa((P, Q), (1.0, 5.0), Gains(40), seed=9, in_flight=3)
    for k in sorted(results, reverse=True):
        backward.record(k, results[k])
        assert backward.advance() == (40 if k == 1 else 0)
    assert forward.trajectory == backward.trajectory and forward.done
    # iteration k perturbs the values after iteration k - 3: 1..3 the start, 4 after 1
    fresh = Spsa((P, Q), (1.0, 5.0), Gains(40), seed=9, in_flight=3)
    assert fresh.can_start(3) and not fresh.can_start(4)
    assert fresh.base(3) == (1.0, 5.0)
    fresh.record(1, results[1])
    fresh.advance()
    assert fresh.can_start(4) and fresh.base(4) == forward.trajectory[1]
    with pytest.raises(ValueError, match="waits for iteration 2"):
        fresh.base(5)
    # and the update of iteration 4 applies to the latest values, not to its base
    assert forward.trajectory[4] == forward.updated(forward.trajectory[3], 4, results[4])


def test_signs_are_seeded_per_iteration_and_parameter() -> None:
    first = [signs(5, k, (P, Q)) for k in range(1, 401)]
    assert first == [signs(5, k, (P, Q)) for k in range(1, 401)]
    assert first != [signs(6, k, (P, Q)) for k in range(1, 401)]
    # a parameter's signs do not depend on the others declared beside it
    assert [s[0] for s in first] == [signs(5, k, (P,))[0] for k in range(1, 401)]
    for column in (0, 1):
        ups = sum(1 for s in first if s[column] == 1)
        assert 160 < ups < 240  # about half each way
        assert {s[column] for s in first} == {-1, 1}


def test_integer_parameters_are_rounded_at_random_around_their_value() -> None:
    whole = Parameter("n", default=3.0, minimum=1.0, maximum=9.0, c_end=0.5, r_end=0.002,
                      integer=True)
    rounded = [played_values((4.3, 1.25), (whole, P), 1, k, "+") for k in range(1, 2001)]
    assert {r[0] for r in rounded} == {4.0, 5.0}
    assert math.fsum(r[0] for r in rounded) / 2000 == pytest.approx(4.3, abs=0.04)
    assert all(r[1] == 1.25 for r in rounded)  # a real parameter as it is
    assert rounded == [played_values((4.3, 1.25), (whole, P), 1, k, "+")
                       for k in range(1, 2001)]
    assert played_values((9.0,), (whole,), 1, 1, "-") == (9.0,)  # never past max


def test_shares_and_pair_results() -> None:
    assert share_ahead((1, 2, 3), 0) == 1.0
    assert share_ahead((2, 1, 3), 0) == 0.5
    assert share_ahead((3, 1, 2), 0) == 0.0
    assert share_ahead((1, 1, 3), 0) == 0.75  # a tie is half
    # fishtest's wins minus losses of theta+: a 2-player pair runs from -2 to 2
    assert pair_result(1.0, 0.0) == 2.0
    assert pair_result(0.5, 0.5) == 0.0
    assert pair_result(0.0, 1.0) == -2.0
