"""The cached observation (``jsonio.observation``) against the plain one it replaced
(``observation_reference.py``): equal, and byte-identical when encoded, along random
games through clones, JSON round trips, replays, determinisations and scenarios; and a
caller changing a returned observation changes neither the state nor the next one."""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from observation_reference import observation_reference as _observation_reference

from arena.games.ra import RaGame, RaState, determinize
from arena.games.ra.editions import EDITIONS
from arena.games.ra.scenario import build_state
from arena.games.ra.tiles import TILE_BY_NAME

# the caches are the pure engine's (the compiled core's observations are compared with
# the pure engine's in test_engines_agree.py)
GAME = RaGame("python")


@pytest.fixture(scope="module", autouse=True)
def ra_engine() -> str:
    """This module tests the pure engine only: it runs once (see conftest.py)."""
    return "python"


players = st.integers(min_value=2, max_value=5)
seeds = st.integers(min_value=0, max_value=2**32)
editions = st.sampled_from([*EDITIONS, None])  # None: a record from before editions


def check(state: RaState, seat: int) -> dict[str, Any]:
    expected = _observation_reference(state, seat)
    got = state.observation(seat)
    assert got == expected
    assert orjson.dumps(got) == orjson.dumps(expected)  # key order too
    assert json.dumps(got) == json.dumps(expected)
    return got


def vandalise(observation: dict[str, Any]) -> None:
    """Change everything a caller could reach in an observation."""
    for player in observation["players"]:
        player["suns"].append(99)
        player["used_suns"].append(98)
        player["tiles"]["gold"] = 77
        player["tiles"].pop("god", None)
        player["score"] = -1
    observation["players"].append({"seat": 9})
    observation["bag"]["ra"] = 1000
    observation["bag"].pop("pharaoh")
    observation["auction_track"].append("gold")
    observation["disasters_waiting"].append("drought")
    if observation["auction"] is not None:
        observation["auction"]["to_bid"].append(7)
        observation["auction"]["bids"].append({"seat": 0})
    if observation["disaster"] is not None:
        observation["disaster"]["then"].append("funeral")
    observation.clear()


def new_state(num_players: int, seed: int, edition: str | None) -> RaState:
    if edition is None:
        state = GAME.replay_start(num_players, seed, {})
    else:
        state = GAME.new_game(num_players, seed, {"edition": edition})
    assert isinstance(state, RaState)
    return state


def spawn(state: RaState, rng: random.Random, replayable: bool) -> tuple[RaState, bool]:
    """Another state of the same position, made one of the ways states are made, and
    whether its record replays (its draws came from its seed): a replay only of those."""
    how = rng.randrange(5 if replayable else 4)
    if how == 0:
        return state.clone(), replayable
    if how == 1:
        return state.clone(random.Random(rng.random())), False
    if how == 2:
        other = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    elif how == 4:
        other = GAME.replay(state.record())
    else:
        seat = rng.randrange(state.num_players)
        observation = json.loads(json.dumps(state.observation(seat)))
        other = determinize(observation, seat, seed=rng.randrange(2**32))
        replayable = False
    assert isinstance(other, RaState)
    return other, replayable


@settings(max_examples=40, deadline=None)
@given(players, seeds, editions)
def test_cached_observation_equals_the_reference_along_random_games(
    num_players: int, seed: int, edition: str | None
) -> None:
    rng = random.Random(seed)
    live = [new_state(num_players, seed, edition)]
    replayable = [True]  # its draws came from the seed, so its record replays
    steps = 0
    while live and steps < 3000:
        steps += 1
        index = rng.randrange(len(live))
        state = live[index]
        if state.is_terminal():
            for seat in range(num_players):
                check(state, seat)
            live.pop(index)
            replayable.pop(index)
            continue
        # every seat's view, the mover's mostly (the referee asks for that one)
        for seat in [state.current_player(), rng.randrange(num_players)]:
            got = check(state, seat)
            if rng.random() < 0.3:
                vandalise(got)
                check(state, seat)
        if len(live) < 3 and rng.random() < 0.03:
            other, other_replayable = spawn(state, rng, replayable[index])
            live.append(other)
            replayable.append(other_replayable)
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])


@settings(max_examples=30, deadline=None)
@given(players, seeds, editions)
def test_a_changed_observation_leaves_the_next_one_intact(
    num_players: int, seed: int, edition: str | None
) -> None:
    state = new_state(num_players, seed, edition)
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_player()
        first = state.observation(seat)
        vandalise(first)
        assert state.observation(seat) == _observation_reference(state, seat)
        # a clone shares nothing mutable with its original either: playing on (drawing,
        # unobserved) and changing its observations leave the original's intact
        copy = state.clone(random.Random(seed) if rng.random() < 0.5 else None)
        for _ in range(3):
            if not copy.is_terminal():
                legal = copy.legal_actions()
                copy.apply_action(legal[rng.randrange(len(legal))])
        check(state, seat)
        if not copy.is_terminal():
            vandalise(copy.observation(copy.current_player()))
            check(copy, copy.current_player())
        check(state, seat)
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])


def test_scenario_draws_and_state_changed_by_hand_are_seen() -> None:
    # the stacked-tiles path of draws, and a state built (and then changed) by hand: the
    # pure engine's, whose fields are its own (the compiled core's are copies)
    state = build_state(
        3, tiles=[{"god": 2, "gold": 1}, {}, {"pharaoh": 2}], track=["nile", "flood"],
        draws=["ra", "funeral", "drought", "gold", "gold"], engine="python",
    )
    check(state, 0)
    rng = random.Random(5)
    for _ in range(12):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        for seat in range(3):
            check(state, seat)
    # by hand, outside the engine: the bag shortened or replaced, holdings, used suns
    state.bag.remove(state.bag[0])
    check(state, 1)
    state.bag = state.bag[:-3]
    check(state, 1)
    state.hold[2][TILE_BY_NAME["gold"]] += 4
    state.down[1] = [*state.down[1], 30]
    state.scores[0] = 3
    check(state, 2)
    state.hold = [h[:] for h in state.hold]
    state.hold[0][TILE_BY_NAME["nile"]] += 1
    check(state, 0)


def test_a_state_reused_for_fewer_players_is_rebuilt() -> None:
    # the cache belongs to a position; a from_json state starts without one
    state = new_state(4, 3, "2023")
    check(state, 0)
    other = GAME.state_from_json(new_state(2, 3, "classic").to_json())
    assert isinstance(other, RaState)
    other._obs_players = state._obs_players  # not a real case; must still be right
    check(other, 1)
