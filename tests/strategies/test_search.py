"""The search driver the search bots share, on made-up games: the clock, the tree's
early stop, the paired rounds and their pruning, the rewards."""

from __future__ import annotations

import math
import random

import pytest

from arena.strategies.search import (
    SearchClock,
    TimeShare,
    best_rival_rewards,
    decided,
    paired_search,
    pairwise_rewards,
    run_iterations,
    think_seconds,
)


class Tally:
    def __init__(self, seats: int) -> None:
        self.visits = 0
        self.totals = [0.0] * seats


def test_a_clock_needs_a_budget_and_an_iteration_count_alone_has_no_guard() -> None:
    with pytest.raises(ValueError, match="budget"):
        SearchClock.start(None, None)
    fixed = SearchClock.start(None, 10)
    assert (fixed.deadline, fixed.limit, fixed.seconds) == (math.inf, 10, None)
    timed = SearchClock.start(0.5, None)
    assert timed.limit == math.inf and timed.deadline == pytest.approx(timed.started + 0.5)
    assert timed.without_starvation_guard().seconds is None
    assert timed.without_starvation_guard().deadline == timed.deadline


def test_any_settings_with_the_time_knobs_share_the_time_alike() -> None:
    thrifty = TimeShare(time_share=0.5, time_reserve=0.01)
    assert think_seconds(1000, None, None, 3.0, thrifty) == pytest.approx(0.49)
    assert think_seconds(1000, 0.2, None, 3.0, thrifty) == pytest.approx(0.2)
    # a whole-game clock of 9 s over about 90 decisions: 0.5 * 0.1 s each, less the allowance
    assert think_seconds(1000, None, 9000, 3.0, thrifty) == pytest.approx(0.04)


def test_the_tree_stops_once_the_leader_cannot_be_caught() -> None:
    visits = {1: 0, 2: 0}

    def iterate() -> None:  # every iteration visits action 1
        visits[1] += 1

    run_iterations(iterate, visits.__getitem__, [1, 2], SearchClock.start(None, 100))
    # checked every 16 iterations: after 64, 64 ahead with 36 left
    assert visits == {1: 64, 2: 0}
    assert decided([5], 1, 1.0, 1.0, 100)  # a single action is decided at once
    assert not decided([10, 5], 15, 1.0, math.inf, 20)


def test_paired_rounds_give_every_action_the_same_seeds() -> None:
    seeds: dict[int, list[int]] = {7: [], 8: [], 9: []}

    def playout(action: int, seed: int) -> list[float]:
        seeds[action].append(seed)
        return [1.0 if action == 8 else 0.5, 0.0]

    tallies = {action: Tally(2) for action in seeds}
    best, done = paired_search([7, 8, 9], playout, random.Random(1),
                               SearchClock.start(None, 31), 0, tallies)
    assert (best, done) == (8, 30)  # ten whole rounds of three: the 31st playout waits
    assert seeds[7] == seeds[8] == seeds[9] and len(set(seeds[7])) == 10
    assert [tallies[a].visits for a in (7, 8, 9)] == [10, 10, 10]
    assert tallies[8].totals == [10.0, 0.0]


def test_pruning_and_caution_about_the_favourite() -> None:
    def playout(action: int, seed: int) -> list[float]:
        noise = random.Random(seed + action).random() * 0.1  # each action its own luck
        return [{7: 0.5, 8: 0.0, 9: 0.52}[action] + noise]

    tallies = {action: Tally(1) for action in (7, 8, 9)}
    best, done = paired_search([7, 8, 9], playout, random.Random(2),
                               SearchClock.start(None, 60), 0, tallies, prune_every=2,
                               prune_z=5.0, deviate_z=1000.0)
    assert tallies[8].visits == 2  # clearly worse: dropped after the first check
    assert tallies[7].visits == tallies[9].visits == (done - 2) // 2
    assert tallies[9].totals[0] > tallies[7].totals[0]
    assert best == 7  # 9 did better, but not by a thousand standard errors


def test_the_rewards_squash_the_margins() -> None:
    assert pairwise_rewards([10.0, 10.0], 10.0) == [0.5, 0.5]
    pairwise = pairwise_rewards([20.0, 10.0, 0.0], 10.0)
    assert pairwise[1] == pytest.approx(0.5) and pairwise[0] > 0.5 > pairwise[2]
    rival = best_rival_rewards([20.0, 10.0, 0.0], 10.0)
    assert rival[0] == pytest.approx(0.5 + 0.5 * math.tanh(1.0))
    assert rival[2] == pytest.approx(0.5 + 0.5 * math.tanh(-2.0))
