"""``RaState.clone``: an independent copy that plays on exactly as the original would,
and ``clone(rng)``, the search's copy that draws from a generator of its own."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.ra import GAME, RaState
from arena.games.ra.editions import EDITIONS

players = st.integers(min_value=2, max_value=5)
seeds = st.integers(min_value=0, max_value=2**32)


def play_to(num_players: int, seed: int, edition: str, where: float) -> RaState:
    state = GAME.new_game(num_players, seed, {"edition": edition})
    rng = random.Random(seed)
    for _ in range(int(where * 200)):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def play_out(state: RaState, seed: int) -> str:
    moves = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[moves.randrange(len(legal))])
    return json.dumps([state.to_json(), state.record()], sort_keys=True)


@settings(max_examples=40, deadline=None)
@given(players, seeds, st.floats(min_value=0, max_value=1), st.sampled_from(EDITIONS))
def test_a_clone_continues_exactly_as_the_original(
    num_players: int, seed: int, where: float, edition: str
) -> None:
    state = play_to(num_players, seed, edition, where)
    before = json.dumps(state.to_json(), sort_keys=True)
    copy = state.clone()
    assert copy.rng is not state.rng
    assert play_out(copy, seed + 1) == play_out(state.clone(), seed + 1)
    assert json.dumps(state.to_json(), sort_keys=True) == before  # untouched


@settings(max_examples=40, deadline=None)
@given(players, seeds, st.floats(min_value=0, max_value=1), st.sampled_from(EDITIONS))
def test_clone_with_a_generator_is_a_clone_given_that_generator(
    num_players: int, seed: int, where: float, edition: str
) -> None:
    state = play_to(num_players, seed, edition, where)
    before = json.dumps(state.to_json(), sort_keys=True)
    mine = random.Random(seed + 5)
    fast = state.clone(mine)
    assert fast.rng is mine
    slow = state.clone()
    slow.rng = random.Random(seed + 5)
    assert play_out(fast, seed + 2) == play_out(slow, seed + 2)
    assert json.dumps(state.to_json(), sort_keys=True) == before  # untouched
