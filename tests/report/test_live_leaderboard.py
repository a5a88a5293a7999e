"""The leaderboard kept up game by game (the server's ladder) is the leaderboard of all
the games: RatingState against rate, LiveLeaderboard against build_leaderboard."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from arena.bench.synthetic import simulate_league, spread_ratings
from arena.rating import RatingState, bootstrap_weights, game_keys, rate
from arena.records import GameResult
from arena.report.leaderboard import LiveLeaderboard, build_leaderboard, leaderboard_json


def ladder_games() -> list[GameResult]:
    """Games of 3 and 4 players; a few forfeits; four bots join only after a while."""
    early = simulate_league(spread_ratings(8), 300, (3, 4), seed=5, game="ra")
    late = simulate_league(spread_ratings(12), 300, (3, 4), seed=6, game="ra")
    games = early + [dataclasses.replace(r, game_id=f"late{r.game_id}") for r in late]
    return [dataclasses.replace(r, failures={0: "timeout"}) if k % 41 == 0 else r
            for k, r in enumerate(games)]


def test_ratings_kept_up_game_by_game_equal_the_ratings_of_all_the_games() -> None:
    games = ladder_games()
    state = RatingState.from_results(games[:50], bootstrap=30, seed=4)
    rest = games[50:]
    random.Random(1).shuffle(rest)  # another order than the full fit's
    for number, result in enumerate(rest):
        assert state.add(result)
        if number % 60 == 0:
            state.ratings()  # the fits start from these next time
    assert not state.add(rest[0])  # a game already in is not counted twice
    kept, full = state.ratings(), rate(games, bootstrap=30, seed=4)
    assert kept.bots == full.bots and kept.num_games == full.num_games == len(games)
    assert np.array_equal(kept.wins, full.wins)  # sums of halves: exact in any order
    for mine, theirs in ((kept.elo, full.elo), (kept.low, full.low), (kept.high, full.high)):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6)
    np.testing.assert_allclose(kept.superiority, full.superiority, rtol=0, atol=1e-8)
    assert (full.high - full.low).min() > 1  # the intervals are there to compare


def test_the_live_board_equals_the_board_of_all_the_games() -> None:
    games = ladder_games()
    live = LiveLeaderboard(games[:200], bootstrap=20)
    for result in reversed(games[200:]):
        live.add(result)
    kept = leaderboard_json(live.board())
    full = leaderboard_json(build_leaderboard(games, bootstrap=20))
    assert kept == full  # rounded as the API shows them: the same numbers
    assert any(row["failures"] for row in full["bots"])


def test_the_bootstrap_counts_depend_on_the_game_not_its_place() -> None:
    games = simulate_league(spread_ratings(6), 400, (2, 3), seed=2)
    shuffled = games[:]
    random.Random(3).shuffle(shuffled)
    one, other = rate(games, bootstrap=25, seed=9), rate(shuffled, bootstrap=25, seed=9)
    assert np.array_equal(one.low, other.low) and np.array_equal(one.high, other.high)
    counts = bootstrap_weights(game_keys(games), np.arange(200), seed=9)
    assert counts.mean() == pytest.approx(1.0, abs=0.01)  # Poisson(1): mean 1, variance 1
    assert counts.var() == pytest.approx(1.0, abs=0.02)
    # another seed, other counts; the first replicates do not depend on how many there are
    assert not np.array_equal(counts, bootstrap_weights(game_keys(games), np.arange(200), 8))
    assert np.array_equal(counts[:, :25],
                          bootstrap_weights(game_keys(games), np.arange(25), seed=9))
