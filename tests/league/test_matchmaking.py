"""Matchmaking for information (issue 32 item 2): new bots first, a floor share for every
active bot, the unresolved neighbouring pair preferred, deterministic for a seed."""

from __future__ import annotations

import numpy as np
import pytest

from arena.bench.synthetic import play_tables, simulate_league
from arena.errors import ArenaError
from arena.league.matchmaking import (
    LadderState,
    choose_tables,
    design_effect,
    estimate,
    mean_design_effect,
    next_tables,
)
from arena.league.schedule import table_games
from arena.rating import ELO_PER_NATURAL, rate


def _ladder(num_bots: int = 10, games: int = 600, players: int = 3, seed: int = 1
            ) -> tuple[dict[str, float], LadderState]:
    truth = {f"bot{i:02d}": 1500.0 + 40.0 * (i - num_bots / 2) for i in range(num_bots)}
    return truth, LadderState.from_results(simulate_league(truth, games, (players,),
                                                           seed=seed))


def test_a_new_bot_gets_the_next_tables() -> None:
    truth, state = _ladder()
    active = [*truth, "rookie"]
    for seed in range(3):
        tables = next_tables(state, active, 3, count=4, new=["rookie"], seed=seed)
        assert all("rookie" in table and len(set(table)) == 3 for table in tables)


def test_a_new_bots_opponents_are_near_its_rating() -> None:
    # the rookie has played a little and sits near the middle: its tables draw bots near
    # it rather than the ends of the ladder
    truth = {f"bot{i:02d}": 1500.0 + 60.0 * (i - 10) for i in range(21)}
    league = simulate_league(truth, 3000, (3,), seed=2)
    rookie = simulate_league({"bot10": 1500.0, "bot09": 1440.0, "rookie": 1510.0,
                              "bot11": 1560.0}, 30, (3,), seed=3)
    state = LadderState.from_results(league + rookie)
    tables = next_tables(state, [*truth, "rookie"], 3, count=6, new=["rookie"], seed=1)
    for table in tables:
        for bot in table:
            if bot != "rookie":
                assert abs(truth[bot] - 1510.0) <= 400.0


def test_every_active_bot_gets_its_floor_share() -> None:
    # bots far apart settle at once: without the floor, the close pair would take every
    # table; with it, no active bot falls under a quarter of the average for long
    elo = np.array([0.0, 400.0, 800.0, 1200.0, 1210.0, 1600.0]) / ELO_PER_NATURAL
    n, players = len(elo), 2
    wins = np.zeros((n, n))
    games = np.zeros(n)
    rng = np.random.default_rng(5)
    fit = estimate(wins, design_effect(players))
    reasons = []
    for step in range(400):
        (choice,) = choose_tables(fit.natural, fit.covariance, games, players, rng=rng)
        reasons.append(choice.reason)
        table = np.array([choice.bots])
        wins += play_tables(elo, table, rng)
        games[list(choice.bots)] += players
        fit = estimate(wins, design_effect(players), start=fit.natural)
        if step >= 50:
            assert games.min() >= 0.2 * games.mean()
    assert "floor" in reasons and "information" in reasons
    # the close pair still gets the lion's share
    assert games[3] + games[4] > 2 * (games.sum() - games[3] - games[4]) / (n - 2)


def test_the_unresolved_neighbouring_pair_is_preferred() -> None:
    # five bots far apart with narrow intervals, except bots 2 and 3: 10 Elo apart
    mean = np.array([0.0, 300.0, 600.0, 610.0, 900.0]) / ELO_PER_NATURAL
    covariance = np.diag(np.full(5, (15.0 / ELO_PER_NATURAL) ** 2))
    games = np.full(5, 100.0)
    for seed in range(5):
        (choice,) = choose_tables(mean, covariance, games, 2, rng=np.random.default_rng(seed))
        assert sorted(choice.bots) == [2, 3] and choice.reason == "information"
    # three players: the pair and the bot nearest to both
    (choice,) = choose_tables(mean, covariance, games, 3)
    assert {2, 3} <= set(choice.bots)


def test_a_batch_spreads_over_the_ladder() -> None:
    # the expected information of each chosen table is counted before the next choice
    mean = np.arange(12) * 40.0 / ELO_PER_NATURAL
    covariance = np.eye(12) * (60.0 / ELO_PER_NATURAL) ** 2
    choices = choose_tables(mean, covariance, np.zeros(12), 3, count=8, plays=5)
    seated = {bot for choice in choices for bot in choice.bots}
    assert len(seated) >= 10


def test_the_same_seed_gives_the_same_tables_and_inactive_bots_never_play() -> None:
    truth, state = _ladder(12)
    active = sorted(truth)[1:]  # bot00 is paused
    first = next_tables(state, active, 4, count=5, seed=7)
    assert first == next_tables(state, active, 4, count=5, seed=7)
    assert all("bot00" not in table and len(set(table)) == 4 for table in first)
    # each table is played in all its seat rotations with one seed
    games = table_games("ra", first[0], seed=11)
    assert len(games) == 4 and {g.seats for g in games} == {
        first[0][i:] + first[0][:i] for i in range(4)}
    assert len({g.seed for g in games}) == 1


def test_too_few_active_bots_is_an_error() -> None:
    _, state = _ladder(4)
    with pytest.raises(ArenaError, match="need 5 active bots"):
        next_tables(state, ["bot00", "bot01"], 5)


def test_the_intervals_agree_with_the_leaderboards() -> None:
    # curvature x (k+1)/3 against rate()'s bootstrap over whole games
    truth = {f"b{i:02d}": 1500.0 + 30.0 * (i - 7) for i in range(15)}
    results = simulate_league(truth, 2000, (3,), seed=4)
    board = rate(results, seed=4)
    state = LadderState.from_results(results)
    assert mean_design_effect(state.games_by_players) == pytest.approx(4 / 3)
    fitted = estimate(state.wins, mean_design_effect(state.games_by_players))
    assert np.allclose(fitted.elo(), board.elo, atol=1e-6)
    low, high = fitted.intervals()
    ratio = (high - low) / (board.high - board.low)
    assert 0.9 < ratio.mean() < 1.15
    assert ratio.min() > 0.8 and ratio.max() < 1.3



def test_a_bot_that_is_not_active_is_never_seated_whatever_the_estimate() -> None:
    # random estimates (means, covariances, games) with one bot paused: the greedy's first
    # candidates once included a paused bot whose need was -inf (few active bots), and
    # the ladder then seated a retired version it could not start
    for trial in range(300):
        rng = np.random.default_rng(trial)
        n = int(rng.integers(3, 6))
        root = rng.normal(size=(n, n))
        covariance = root @ root.T * 0.1 + np.eye(n) * 0.05
        paused = int(rng.integers(0, n))
        active = np.ones(n, dtype=bool)
        active[paused] = False
        for choice in choose_tables(rng.normal(size=n), covariance,
                                    rng.integers(5, 50, size=n).astype(float), 2, 3,
                                    active=active, rng=np.random.default_rng(trial)):
            assert paused not in choice.bots, (trial, choice)


def test_a_state_extended_game_by_game_equals_one_made_from_every_game() -> None:
    # the server's ladder folds in the games stored since its last batch of tables
    truth = {f"bot{i:02d}": 1500.0 + 50.0 * i for i in range(6)}
    league = simulate_league(truth, 300, (2, 3, 4), seed=7)
    late = simulate_league({"bot02": 1600.0, "late": 1550.0, "bot04": 1700.0}, 40, (3,),
                           seed=8)
    games = league + late
    whole = LadderState.from_results(games)
    state = LadderState.from_results(games[:1])
    for start in range(1, len(games), 37):
        state = state.extended(games[start:start + 37])
    assert state.extended([]) is state
    assert state.bots == whole.bots
    assert np.array_equal(state.wins, whole.wins)
    assert np.array_equal(state.games, whole.games)
    assert dict(state.games_by_players) == dict(whole.games_by_players)
    assert next_tables(state, list(whole.bots), 3, count=3, seed=4) == next_tables(
        whole, list(whole.bots), 3, count=3, seed=4)
