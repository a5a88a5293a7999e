"""The payoff tensor, α-Rank and Nash averaging: known values, invariances, simulation."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from arena.bench.synthetic import simulate_league, spread_ratings
from arena.rating import rate
from arena.records import GameResult
from arena.stats.metagame import (
    alpha_rank,
    fixation_probability,
    fractional_places,
    meta_ranking,
    nash_average,
    pairwise_game,
    payoff_tensor,
    payoffs_csv,
    payoffs_json,
)

# rock beats scissors beats paper beats rock, as shares of points
RPS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])


def game(gid: str, bots: tuple[str, ...], scores: tuple[float, ...],
         placements: tuple[int, ...]) -> GameResult:
    return GameResult(gid, "synthetic", bots, scores, placements)


# --------------------------------------------------------------------------- tensor


def test_payoff_tensor_per_composition_whatever_the_seating() -> None:
    results = [
        game("1", ("a", "b", "c"), (30, 20, 10), (1, 2, 3)),
        game("2", ("c", "a", "b"), (25, 25, 5), (1, 1, 3)),  # a and c share first
        game("3", ("b", "a"), (9, 3), (1, 2)),
    ]
    entries = {(e.table, e.bot): e for e in payoff_tensor(results)}
    a3 = entries[("a", "b", "c"), "a"]
    assert (a3.games, a3.mean_score) == (2, 27.5)
    assert a3.mean_place == pytest.approx((1 + 1.5) / 2)
    assert a3.mean_ahead == pytest.approx((1.0 + 0.75) / 2)
    assert entries[("a", "b"), "a"].mean_place == 2.0
    assert [e.table for e in payoff_tensor(results)][0] == ("a", "b")  # 2 players first
    data = payoffs_json(payoff_tensor(results))
    three = next(t for t in data["tables"] if t["players"] == 3)
    assert three["payoffs"]["c"]["mean_place"] == pytest.approx((3 + 1.5) / 2)
    rows = list(csv.DictReader(io.StringIO(payoffs_csv(payoff_tensor(results)))))
    assert len(rows) == 5 and rows[0]["table"] == "a+b" and rows[0]["players"] == "2"


def test_fractional_places_share_the_tied_places() -> None:
    assert fractional_places([1, 1, 3, 4]) == [1.5, 1.5, 3, 4]
    assert fractional_places([2, 1, 2]) == [2.5, 1, 2.5]
    # forfeits share the last place number; they count the positions they take
    assert fractional_places([4, 1, 4, 2]) == [3.5, 1, 3.5, 2]
    assert fractional_places([2, 2]) == [1.5, 1.5]


def test_pairwise_game_is_the_leaderboard_win_rate() -> None:
    results = simulate_league(spread_ratings(5), 400, (2, 3, 4), seed=3)
    pairwise = pairwise_game(results)
    rates = rate(results, bootstrap=0).win_rate()
    off = ~np.eye(5, dtype=bool)
    assert np.allclose(pairwise.payoff[off], rates[off])
    assert np.allclose(pairwise.payoff + pairwise.payoff.T, 1.0)
    assert pairwise.complete


# --------------------------------------------------------------------------- α-Rank


def test_fixation_probability_matches_a_simulated_pairwise_comparison_process() -> None:
    """A mutant ahead by Δ in a population of m, imitation by the Fermi rule: the number
    of mutants moves up with chance 1 / (1 + e^{-αΔ}) per effective step."""
    m, alpha, advantage, runs = 10, 2.0, 0.2, 20_000
    rng = np.random.default_rng(21)
    mutants = np.ones(runs, dtype=np.int64)
    up = 1.0 / (1.0 + math.exp(-alpha * advantage))
    while ((mutants > 0) & (mutants < m)).any():
        moving = (mutants > 0) & (mutants < m)
        mutants[moving] += np.where(rng.random(int(moving.sum())) < up, 1, -1)
    measured = float(np.mean(mutants == m))
    expected = fixation_probability(advantage, alpha, m)
    sd = math.sqrt(expected * (1 - expected) / runs)
    assert abs(measured - expected) < 3.29 * sd
    assert expected == pytest.approx(-math.expm1(-0.4) / -math.expm1(-4.0))


def test_fixation_probability_limits() -> None:
    assert fixation_probability(0.0, 50.0, 20) == pytest.approx(1 / 20)
    assert fixation_probability(1e-12, 50.0, 20) == pytest.approx(1 / 20, rel=1e-6)
    assert fixation_probability(1.0, 1e4, 50) == pytest.approx(1.0)
    assert fixation_probability(-1.0, 1e4, 50) == 0.0  # underflows quietly, no overflow


def test_alpha_rank_of_two_bots_is_the_ratio_of_fixation_probabilities() -> None:
    payoff = np.array([[0.5, 0.56], [0.44, 0.5]])
    pi = alpha_rank(payoff, alpha=10.0, population=20)
    forward = fixation_probability(0.12, 10.0, 20)  # 0 invading 1
    backward = fixation_probability(-0.12, 10.0, 20)
    assert pi[0] / pi[1] == pytest.approx(forward / backward)
    assert pi.sum() == pytest.approx(1.0)


def test_alpha_rank_shares_a_cycle_and_crowns_a_dominant_bot() -> None:
    assert alpha_rank(RPS) == pytest.approx(np.full(3, 1 / 3))
    # a fourth bot that beats all three takes all the mass
    dominant = np.full((4, 4), 0.5)
    dominant[:3, :3] = RPS
    dominant[3, :3], dominant[:3, 3] = 0.7, 0.3
    pi = alpha_rank(dominant)
    assert pi[3] > 0.999 and pi.sum() == pytest.approx(1.0)


# --------------------------------------------------------------------------- Nash


def test_nash_average_of_rock_paper_scissors() -> None:
    nash = nash_average(RPS)
    assert nash.equilibrium == pytest.approx(np.full(3, 1 / 3), abs=1e-6)
    assert nash.rating == pytest.approx(np.zeros(3), abs=1e-6)


def test_nash_average_is_not_fooled_by_clones() -> None:
    """Balduzzi et al.'s point: a copy of scissors splits scissors' share; nobody's rating
    moves, and the maximum-entropy equilibrium gives the two copies equal shares."""
    cloned = np.full((4, 4), 0.5)
    cloned[:3, :3] = RPS
    cloned[3, :3], cloned[:3, 3] = RPS[2], RPS[:, 2]
    nash = nash_average(cloned)
    assert nash.equilibrium == pytest.approx([1 / 3, 1 / 3, 1 / 6, 1 / 6], abs=1e-5)
    assert nash.rating == pytest.approx(np.zeros(4), abs=1e-6)


def test_nash_average_of_a_transitive_league() -> None:
    results = simulate_league(spread_ratings(4, spread=400), 600, (2, 3), seed=5)
    pairwise = pairwise_game(results)
    nash = nash_average(pairwise.payoff)
    best = int(np.argmax(nash.equilibrium))
    assert pairwise.bots[best] == "bot003" and nash.equilibrium[best] == pytest.approx(1.0)
    margins = pairwise.payoff - pairwise.payoff.T
    assert nash.rating == pytest.approx(margins[:, best], abs=1e-9)
    assert nash.rating[best] == pytest.approx(0.0) and (np.delete(nash.rating, best) < 0).all()


def test_a_dominated_bot_rates_its_margin_against_the_equilibrium() -> None:
    weak = np.full((4, 4), 0.5)
    weak[:3, :3] = RPS
    weak[3, :3], weak[:3, 3] = (0.2, 0.3, 0.4), (0.8, 0.7, 0.6)
    nash = nash_average(weak)
    assert nash.equilibrium[3] == pytest.approx(0.0, abs=1e-6)
    assert nash.rating[3] == pytest.approx(np.mean([-0.6, -0.4, -0.2]), abs=1e-6)


def test_meta_ranking_of_a_league_says_whether_every_pair_met() -> None:
    results = simulate_league(spread_ratings(3), 200, (2,), seed=6)
    ranking = meta_ranking(results)
    assert ranking.complete and ranking.alpha_rank.sum() == pytest.approx(1.0)
    apart = [game("x", ("a", "b"), (1, 0), (1, 2)), game("y", ("c", "d"), (1, 0), (1, 2))]
    assert not meta_ranking(apart).complete


def test_stationary_distribution_agrees_with_an_eigenvector() -> None:
    from arena.stats.metagame import stationary_distribution

    rng = np.random.default_rng(8)
    chain = rng.random((6, 6))
    chain /= chain.sum(axis=1, keepdims=True)
    values, vectors = np.linalg.eig(chain.T)
    left = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    assert stationary_distribution(chain) == pytest.approx(left / left.sum(), rel=1e-9)
