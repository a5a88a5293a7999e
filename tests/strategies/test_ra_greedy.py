"""The greedy Ra strategy: obviously right choices in built positions, and the
observation path a bot uses gives the same choice as the engine path."""

from __future__ import annotations

import random

from arena.games.ra import GAME, RaState
from arena.games.ra.scenario import build_state
from arena.games.ra.tiles import (
    AUCTION,
    BID_BASE,
    DISASTER,
    DRAW,
    INVOKE_RA,
    PASS,
    TILE_BY_NAME,
)
from arena.strategies.greedy import GreedyStrategy, greedy_action
from arena.strategies.valuation import seat_values

THREE_SUNS = [[2, 5, 8, 13], [3, 6, 9, 12], [4, 7, 10, 11]]


def described(state: RaState, action: int) -> dict[str, object]:
    return state.action_to_json(action)


def invoked(state: RaState) -> RaState:
    state.apply_action(INVOKE_RA)
    assert state.phase == AUCTION
    return state


def test_bids_for_a_lot_of_gold_pharaohs_and_a_god() -> None:
    state = invoked(build_state(3, track=["gold", "gold", "pharaoh", "pharaoh", "god"],
                                current=0))
    assert state.cur == 1
    action = greedy_action(state)
    assert BID_BASE < action < PASS, described(state, action)


def test_passes_on_a_lot_of_disasters_that_would_strike_its_holdings() -> None:
    state = invoked(build_state(3, track=["funeral", "earthquake"], current=0,
                                tiles=[{}, {"pharaoh": 2, "pyramid": 2}, {}]))
    assert state.cur == 1
    assert greedy_action(state) == PASS


def test_forced_to_bid_on_a_worthless_lot_it_gives_its_lowest_sun() -> None:
    # The Ra player invoked Ra on an empty track and everybody else passed: he must bid.
    state = invoked(build_state(3, suns=THREE_SUNS, current=0))
    while state.cur != 0:
        state.apply_action(PASS)
    legal = state.legal_actions()
    assert PASS not in legal
    assert greedy_action(state) == BID_BASE + 2


def test_invokes_ra_on_a_rich_track_and_draws_on_a_poor_one() -> None:
    rich = build_state(3, track=["gold", "gold", "pharaoh", "pharaoh", "god"], current=0)
    assert greedy_action(rich) == INVOKE_RA
    poor = build_state(3, track=["nile"], current=0)
    assert greedy_action(poor) == DRAW


def test_uses_a_god_on_the_civilization_that_completes_a_set_of_three() -> None:
    state = build_state(3, current=0, track=["nile", "art"],
                        tiles=[{"god": 1, "astronomy": 1, "writing": 1}, {}, {}])
    assert described(state, greedy_action(state)) == {"type": "god", "slot": 1, "tile": "art"}


def test_keeps_its_god_when_the_track_has_nothing_worth_it() -> None:
    state = build_state(3, current=0, track=["nile"], tiles=[{"god": 1}, {}, {}])
    assert greedy_action(state) in (DRAW, INVOKE_RA)


def disaster_position(disaster: str, holding: dict[str, int]) -> RaState:
    """Seat 0 wins a lot holding ``disaster`` (it bids, the others pass)."""
    state = invoked(build_state(3, suns=THREE_SUNS, current=0, track=[disaster],
                                tiles=[holding, {}, {}]))
    while state.phase == AUCTION:
        legal = state.legal_actions()
        state.apply_action(legal[0] if state.cur == 0 else PASS)
    assert state.phase == DISASTER and state.cur == 0
    return state


def test_an_earthquake_takes_the_lone_monuments_not_the_set() -> None:
    state = disaster_position("earthquake", {"pyramid": 3, "temple": 1, "sphinx": 1})
    first = greedy_action(state)
    assert first != 29 + TILE_BY_NAME["pyramid"], described(state, first)
    state.apply_action(first)
    if state.phase == DISASTER:  # a second choice: again not the pyramid set
        assert greedy_action(state) != 29 + TILE_BY_NAME["pyramid"]
    assert state.hold[0][TILE_BY_NAME["pyramid"]] == 3


def test_unrest_takes_duplicates_before_breaking_the_set() -> None:
    state = disaster_position("unrest", {"astronomy": 2, "writing": 2, "art": 1})
    while state.phase == DISASTER:
        state.apply_action(greedy_action(state))
    kinds = [TILE_BY_NAME[name] for name in ("astronomy", "writing", "art")]
    assert [state.hold[0][t] for t in kinds] == [1, 1, 1]


def test_the_valuation_of_a_finished_game_is_its_score() -> None:
    state = GAME.new_game(3, 11)
    rng = random.Random(11)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert seat_values(state) == state.returns()


def test_observation_path_matches_the_engine_path_through_whole_games() -> None:
    strategy = GreedyStrategy()
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4)):
        state = GAME.new_game(players, seed)
        decisions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            observation = state.observation(state.current_player())
            index = strategy.choose(observation, [state.action_to_json(a) for a in legal])
            assert legal[index] == greedy_action(state)
            state.apply_action(legal[index])
            decisions += 1
        assert decisions > 20


def test_greedy_beats_random_players_by_a_wide_margin() -> None:
    wins = 0
    for seed in range(12):
        state = GAME.new_game(3, seed)
        rng = random.Random(seed)
        hero = seed % 3
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.current_player() == hero:
                state.apply_action(greedy_action(state))
            else:
                state.apply_action(legal[rng.randrange(len(legal))])
        wins += state.placements()[hero] == 1
    assert wins >= 11
