"""The MCTS Ra strategy: its time budget, legal answers, determinism with a fixed
iteration count, an obvious choice, and whole games through the referee."""

from __future__ import annotations

import dataclasses
import math
import random
import time
import tomllib
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.ra import GAME, RaGame, RaState
from arena.games.ra.scenario import build_state
from arena.games.ra.tiles import BID_BASE, PASS
from arena.runner.players import random_player
from arena.runner.referee import play_game
from arena.settings import Limits
from arena.strategies.greedy import greedy_action
from arena.strategies.mcts import (
    DEFAULT,
    MIN_SHARE,
    MIN_THINK,
    STEPS,
    MctsSettings,
    MctsStrategy,
    _starved_deadline,
    epochs_left,
    rewards,
    search,
    think_seconds,
)
from arena.strategies.players import greedy_player, mcts_player


def request(state: RaState) -> tuple[dict[str, object], list[dict[str, object]]]:
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    return state.observation(state.current_player()), legal


def played(players: int, seed: int, moves: int) -> RaState:
    """A position reached by ``moves`` greedy decisions (fewer if the game ends)."""
    state = GAME.new_game(players, seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(greedy_action(state))
    return state


def test_think_time_leaves_a_safety_margin_of_the_arena_time() -> None:
    assert think_seconds(500) == pytest.approx(0.22)
    assert think_seconds(1000) == pytest.approx(0.52)
    assert think_seconds(1000, limit=0.1) == pytest.approx(0.1)
    assert think_seconds(10) == MIN_THINK  # too little time: think the minimum
    for move_ms in (150, 200, 500, 1000, 5000):
        assert think_seconds(move_ms) < 0.6 * move_ms / 1000


def test_short_time_controls_keep_a_proportional_allowance() -> None:
    # 1.3: at 0.1 s the allowance is 20 ms (not 80), so 40 ms are left to search ...
    assert think_seconds(100) == pytest.approx(0.04)
    assert think_seconds(200) == pytest.approx(0.08)
    # ... where 1.2 thought the minimum and so answered greedy's choice
    assert think_seconds(100, settings=STEPS["1.2"]) == MIN_THINK
    # from 0.4 s up the fixed 80 ms is the smaller allowance: nothing changes
    for move_ms in (400, 500, 2000):
        assert think_seconds(move_ms) == think_seconds(move_ms, settings=STEPS["1.2"])


def test_a_starved_process_shortens_its_search() -> None:
    # 40% of a core over the first 0.1 s of a 1 s budget: think 0.4 s in all.
    assert _starved_deadline(100.0, 1.0, 0.1, 0.04) == pytest.approx(100.4)
    assert _starved_deadline(100.0, 1.0, 0.1, 0.01) == pytest.approx(100.0 + MIN_SHARE)
    assert _starved_deadline(100.0, 1.0, 0.1, 0.09) == math.inf  # a fair share: no change


def test_answers_within_the_arena_time_per_decision() -> None:
    strategy = MctsStrategy()
    strategy.new_game({"type": "new_game", "seed": 3, "time": {"move_ms": 200, "bank_ms": None}})
    state = build_state(3, track=["gold", "pharaoh", "nile", "flood", "art"], current=0)
    observation, legal = request(state)
    started = time.perf_counter()
    index = strategy.choose(observation, legal)
    elapsed = time.perf_counter() - started
    assert 0 <= index < len(legal)
    assert strategy.last_iterations > 0
    assert elapsed < 0.2  # it plans for 0.04 s of the 0.2 s


def test_a_single_legal_action_is_answered_without_searching() -> None:
    strategy = MctsStrategy(seconds=5.0)
    state = build_state(3, track=["nile"] * 8, current=0)  # full track: only invoke Ra
    observation, legal = request(state)
    assert len(legal) == 1
    started = time.perf_counter()
    assert strategy.choose(observation, legal) == 0
    assert time.perf_counter() - started < 1.0


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6), moves=st.integers(0, 150))
def test_always_returns_a_legal_index(players: int, seed: int, moves: int) -> None:
    state = played(players, seed, moves)
    if state.is_terminal():
        return
    observation, legal = request(state)
    index = MctsStrategy(iterations=15, seed=seed).choose(observation, legal)
    assert 0 <= index < len(legal)


def test_a_fixed_iteration_count_makes_it_deterministic() -> None:
    for seed in (1, 2, 3):
        state = played(4, seed, 25)
        observation, legal = request(state)
        first = MctsStrategy(iterations=60, seed=seed).choose(observation, legal)
        again = MctsStrategy(iterations=60, seed=seed).choose(observation, legal)
        assert first == again


def test_bids_last_for_a_rich_lot_nobody_else_wanted() -> None:
    # Seat 0 draws Ra on a rich track; seats 1 and 2 pass; seat 0 bids last.
    state = build_state(3, track=["gold", "gold", "gold", "pharaoh", "god"], current=0,
                        draws=["ra"])
    state.apply_action(0)  # draw: the Ra tile starts an auction
    while state.cur != 0:
        state.apply_action(PASS)
    action, tree = search(state, random.Random(5), iterations=300)
    assert BID_BASE < action < PASS
    assert 0 < tree.visits <= 300  # it may stop once the answer cannot change


def test_stops_early_only_when_the_answer_cannot_change() -> None:
    state = played(3, 9, 12)
    tree_search = STEPS["1.1"]  # the tree's early stop (the paired root plays whole rounds)
    full_action, full_tree = search(state, random.Random(2), iterations=400,
                                    settings=tree_search)
    legal = state.legal_actions()
    visits = sorted((full_tree.children[a].visits for a in legal if a in full_tree.children),
                    reverse=True)
    if full_tree.visits < 400:  # stopped early: the leader could not have been caught
        runner_up = visits[1] if len(visits) > 1 else 0
        assert visits[0] - runner_up > 400 - full_tree.visits
    again, _ = search(state, random.Random(2), iterations=400, settings=tree_search)
    assert again == full_action


def test_search_needs_a_budget() -> None:
    with pytest.raises(ValueError):
        search(build_state(3), random.Random(0))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_whole_games_in_process_through_the_referee(players: int) -> None:
    seats = [mcts_player(iterations=4), greedy_player(), random_player(), greedy_player("g2"),
             random_player("r2")][:players]
    outcome = trio.run(play_game, GAME, seats, 100 + players, None,
                       Limits(move_seconds=30.0))
    assert outcome.forfeits == {}
    assert sorted(outcome.placements) == list(range(1, players + 1))
    assert outcome.engine["final"] is not None


def test_a_time_limited_game_in_process_has_no_timeout() -> None:
    # The arena allows 0.15 s per decision; mcts plans for 0.01 s of it (60% - 80 ms).
    seats = [mcts_player(), greedy_player()]
    outcome = trio.run(play_game, GAME, seats, 7, None, Limits(move_seconds=0.15))
    assert outcome.forfeits == {}
    timing = outcome.timings["seats"][0]
    assert timing["decisions"] > 20 and timing["max_seconds"] < 0.15


def test_a_game_clock_is_shared_over_the_decisions_left() -> None:
    # 30 s for about 90 decisions: 60% of a third of a second, minus the reserve.
    assert think_seconds(1000, game_ms_left=30000, epochs_left=3.0) == pytest.approx(0.12)
    # a clock longer than the game needs changes nothing
    assert think_seconds(1000, game_ms_left=10**7, epochs_left=3.0) == pytest.approx(0.52)
    # nearly out of time: answer at once
    assert think_seconds(1000, game_ms_left=100, epochs_left=0.5) == 0.0
    observation = build_state(4, epoch=2, ra_track=3).observation(0)
    assert epochs_left(observation) == pytest.approx(2 - 3 / 9)


def test_a_request_with_the_clock_nearly_out_is_answered_greedily_at_once() -> None:
    strategy = MctsStrategy()
    strategy.new_game({"type": "new_game", "seed": 1,
                       "time": {"move_ms": 1000, "bank_ms": None, "game_ms": 60000}})
    state = build_state(3, track=["gold", "pharaoh", "nile", "flood", "art"], current=0)
    observation, legal = request(state)
    strategy.on_request({"type": "request", "id": 9,
                         "time": {"move_ms": 1000, "bank_ms": None, "game_ms_left": 120}})
    index = strategy.choose(observation, legal)
    assert strategy.last_iterations == 0
    assert state.legal_actions()[index] == greedy_action(state)
    assert strategy.game_ms_left is None  # the next request brings its own


def test_too_little_time_per_decision_is_answered_greedily_at_once() -> None:
    strategy = MctsStrategy()  # 60 ms per decision leaves it far less than a search needs
    strategy.new_game({"type": "new_game", "seed": 1,
                       "time": {"move_ms": 60, "bank_ms": None, "game_ms": None}})
    state = build_state(3, track=["gold", "pharaoh", "nile", "flood", "art"], current=0)
    observation, legal = request(state)
    index = strategy.choose(observation, legal)
    assert strategy.last_iterations == 0
    assert state.legal_actions()[index] == greedy_action(state)
    strategy.new_game({"type": "new_game", "seed": 1,
                       "time": {"move_ms": 100, "bank_ms": None, "game_ms": None}})
    strategy.choose(observation, legal)
    assert strategy.last_iterations > 0  # 0.1 s per decision: it searches (1.3)


def test_in_process_it_counts_its_own_time_against_the_game_clock() -> None:
    strategy = MctsStrategy()
    strategy.new_game({"type": "new_game", "seed": 1,
                       "time": {"move_ms": 1000, "bank_ms": None, "game_ms": 2000}})
    strategy.clock_used = 1.95  # 50 ms left by its own count
    state = build_state(3, track=["gold", "pharaoh"], current=0)
    observation, legal = request(state)
    strategy.choose(observation, legal)
    assert strategy.last_iterations == 0


def test_a_whole_game_under_a_game_clock_in_process_has_no_timeout() -> None:
    seats = [mcts_player(), greedy_player()]
    outcome = trio.run(play_game, GAME, seats, 8, None,
                       Limits(move_seconds=1.0, game_seconds=6.0))
    assert outcome.forfeits == {}
    assert outcome.timings["seats"][0]["seconds"] < 6.0


def test_the_pairwise_reward_counts_every_rival(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seats 0 and 1 tie at the top, far ahead of seat 2: against its best rival seat 0 is
    # only level, but it is ahead in one of its two pairings, as the leaderboard counts.
    monkeypatch.setattr("arena.strategies.mcts.seat_values", lambda _state: [30.0, 30.0, 0.0])
    state = RaGame("python").new_game(3, 1)  # the Python valuation, replaced above
    best_rival = rewards(state, MctsSettings(reward="best_rival"))
    pairwise = rewards(state, MctsSettings(reward="pairwise"))
    assert best_rival[0] == pytest.approx(0.5)
    assert pairwise[0] == pytest.approx(0.5 + 0.25 * math.tanh(3.0))
    assert pairwise[2] == pytest.approx(0.5 - 0.5 * math.tanh(3.0))
    assert sum(pairwise) == pytest.approx(1.5)  # pairwise margins cancel out


def test_every_step_is_kept_and_the_bundled_bot_is_the_last() -> None:
    assert list(STEPS)[0] == "1.0" and list(STEPS.values())[-1] == DEFAULT
    manifest = Path(__file__).parents[2] / "arena" / "bots" / "mcts" / "bot.toml"
    assert tomllib.loads(manifest.read_text())["version"] == MctsStrategy.version


def test_a_fixed_iteration_count_ignores_the_arenas_time() -> None:
    # Otherwise a starved process would cut some searches short and the games would
    # depend on the machine's load.
    strategy = MctsStrategy(iterations=50)
    strategy.new_game({"seed": 1, "time": {"move_ms": 100, "game_ms": 5000}})
    assert strategy.budget(GAME.new_game(3, 1).observation(0)) is None
    assert MctsStrategy(iterations=50, seconds=0.2).budget(
        GAME.new_game(3, 1).observation(0)) == pytest.approx(0.2)


def test_the_paired_root_plays_every_action_from_the_same_draws() -> None:
    paired = dataclasses.replace(DEFAULT, paired_root=True)
    state = played(3, 2, 25)
    legal = state.legal_actions()
    assert len(legal) > 1
    action, tree = search(state, random.Random(4), iterations=10 * len(legal) + 1,
                          settings=paired)
    again, _ = search(state, random.Random(4), iterations=10 * len(legal) + 1,
                      settings=paired)
    assert action == again and action in legal
    assert {a: child.visits for a, child in tree.children.items()} == dict.fromkeys(legal, 10)
    assert action == max(legal, key=lambda a: tree.children[a].totals[state.cur])
