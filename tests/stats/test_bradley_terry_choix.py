"""Our Bradley–Terry fit against an independent library, choix, on the same games.

Our fit adds ``prior_draws`` virtual draws per bot against a fixed opponent of strength 0.
That is exactly a Bradley–Terry model with one more item, the *prior*, that wins and
loses ``prior_draws / 2`` against every bot: choix fits that model with its free gauge,
and shifting its answer so the prior sits at 0 must give our strengths.  The comparisons
handed to choix are built here from the games, not by ``arena.rating.build_pairs``.
"""

from __future__ import annotations

import itertools

import choix
import numpy as np
import pytest

from arena.bench.synthetic import simulate_league, spread_ratings
from arena.rating import DEFAULT_CENTRE, ELO_PER_NATURAL, build_pairs, fit_bradley_terry, rate
from arena.records import GameResult


def comparison_matrix(results: list[GameResult], bots: list[str]) -> np.ndarray:
    """wins[i, j]: points bot i took from bot j over every pair of seats (ties: half)."""
    index = {bot: i for i, bot in enumerate(bots)}
    wins = np.zeros((len(bots), len(bots)))
    for result in results:
        for a, b in itertools.combinations(range(len(result.bots)), 2):
            i, j = index[result.bots[a]], index[result.bots[b]]
            if i == j:
                continue
            pa, pb = result.placements[a], result.placements[b]
            wins[i, j] += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            wins[j, i] += 1.0 if pb < pa else 0.5 if pa == pb else 0.0
    return wins


def choix_with_prior(wins: np.ndarray, prior_draws: float) -> np.ndarray:
    n = len(wins)
    augmented = np.zeros((n + 1, n + 1))
    augmented[:n, :n] = wins
    augmented[:n, n] = augmented[n, :n] = prior_draws / 2
    params = choix.ilsr_pairwise_dense(augmented, max_iter=10_000, tol=1e-13)
    return params[:n] - params[n]  # the gauge where the prior is 0, as in our fit


def with_ties(results: list[GameResult], every: int) -> list[GameResult]:
    """Every ``every``-th game ends with its first two places shared (1, 1, 3, ...)."""
    tied = []
    for g, r in enumerate(results):
        places = list(r.placements)
        if g % every == 0:
            places[places.index(2)] = 1
        tied.append(GameResult(r.game_id, r.game, r.bots, r.scores, tuple(places),
                               sequence=r.sequence))
    return tied


@pytest.mark.parametrize("prior_draws", [1.0, 0.05])
@pytest.mark.parametrize(
    ("players", "ties"), [((2,), 0), ((3, 4, 5), 0), ((2, 4), 3)]
)
def test_fit_equals_choix_on_the_same_comparisons(
    players: tuple[int, ...], ties: int, prior_draws: float
) -> None:
    results = simulate_league(spread_ratings(7, spread=500), 1500, players, seed=11)
    if ties:
        results = with_ties(results, ties)
    bots = sorted({b for r in results for b in r.bots})
    wins = comparison_matrix(results, bots)
    # the same data reaches our fit through build_pairs
    assert np.allclose(build_pairs(results).matrix(), wins)
    ours = fit_bradley_terry(wins, prior_draws)
    theirs = choix_with_prior(wins, prior_draws)
    assert np.max(np.abs(ours - theirs)) < 1e-6
    # and the leaderboard's Elo is that fit, centred on 1500
    elo = rate(results, bootstrap=0, prior_draws=prior_draws).elo
    expected = (theirs - theirs.mean()) * ELO_PER_NATURAL + DEFAULT_CENTRE
    assert np.max(np.abs(elo - expected)) < 1e-3


def test_fit_approaches_choix_maximum_likelihood_as_the_prior_vanishes() -> None:
    """With a vanishing prior our fit is the plain MLE, as choix's Newton optimiser finds
    it from the list of single comparisons (2-player games, no ties)."""
    results = simulate_league(spread_ratings(5, spread=300), 800, (2,), seed=12)
    bots = sorted({b for r in results for b in r.bots})
    index = {bot: i for i, bot in enumerate(bots)}
    data = [
        (index[r.bots[r.placements.index(1)]], index[r.bots[r.placements.index(2)]])
        for r in results
    ]
    theirs = choix.opt_pairwise(len(bots), data, alpha=0.0, tol=1e-10)
    ours = fit_bradley_terry(comparison_matrix(results, bots), prior_draws=1e-6)
    assert np.max(np.abs((ours - ours.mean()) - (theirs - theirs.mean()))) < 1e-4
