"""Property tests over random legal playouts for 2-5 players, in both editions."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from ra_helpers import all_suns

from arena.games.ra import GAME, RaState, determinize
from arena.games.ra.editions import EDITIONS
from arena.games.ra.tiles import SUN_GROUPS, TILE_COUNTS

players = st.integers(min_value=2, max_value=5)
seeds = st.integers(min_value=0, max_value=2**32)
editions = st.sampled_from(EDITIONS)

# A game has a few hundred decisions at most; far more means a loop.
MAX_DECISIONS = 2000


def check_invariants(state: RaState, suns: list[int]) -> None:
    assert state.tiles_accounted() == list(TILE_COUNTS)  # 180 tiles, each type
    assert all_suns(state) == suns  # suns are only ever exchanged
    assert min(state.scores) >= 0
    assert all(count >= 0 for hold in state.hold for count in hold)
    if not state.is_terminal():
        assert state.legal_actions()
        assert state.up[state.current_player()]  or state.phase == 3


def check_placements(state: RaState) -> None:
    """One winner: the highest score, and among equal highest scores the highest sun;
    every other seat is placed by its score alone (equal scores share a place)."""
    places, scores = state.placements(), state.scores
    highest = [max(state.up[s] + state.down[s]) for s in range(state.num_players)]
    assert places.count(1) == 1
    winner = places.index(1)
    assert all(scores[winner] > scores[s] or (scores[winner] == scores[s]
               and highest[winner] > highest[s]) for s in range(state.num_players) if s != winner)
    for seat, place in enumerate(places):
        if seat != winner:
            assert place == 1 + sum(score > scores[seat] for score in scores) + (
                scores[winner] == scores[seat])


@settings(max_examples=100, deadline=None)
@given(players, seeds, editions)
def test_random_playouts_keep_the_invariants_and_end(
    num_players: int, seed: int, edition: str
) -> None:
    state = GAME.new_game(num_players, seed, {"edition": edition})
    suns = sorted([1, *(s for group in SUN_GROUPS[num_players] for s in group)])
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        check_invariants(state, suns)
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal)
        state.apply_action(legal[rng.randrange(len(legal))])
        decisions += 1
        assert decisions < MAX_DECISIONS
    check_invariants(state, suns)
    assert state.epoch == 3
    check_placements(state)
    assert state.current_player() == -1 and state.legal_actions() == []


@settings(max_examples=60, deadline=None)
@given(players, seeds, editions)
def test_replaying_the_record_gives_the_identical_state(
    num_players: int, seed: int, edition: str
) -> None:
    state = GAME.new_game(num_players, seed, {"edition": edition})
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    record = json.loads(json.dumps(state.record()))  # the record is plain JSON
    replayed = GAME.replay(record)
    assert replayed.to_json() == state.to_json()
    assert replayed.record() == record
    assert len(record["epochs"]) == 3
    assert record["final"]["scores"] == state.scores


@settings(max_examples=60, deadline=None)
@given(players, seeds, st.floats(min_value=0, max_value=1), editions)
def test_to_json_round_trip_continues_identically(
    num_players: int, seed: int, where: float, edition: str
) -> None:
    state = GAME.new_game(num_players, seed, {"edition": edition})
    rng = random.Random(seed)
    stop = int(where * 150)
    for _ in range(stop):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    restored = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert restored.to_json() == state.to_json()
    copy = state.clone()
    for other in (restored, copy):
        moves = random.Random(seed + 1)
        original = state.clone()
        while not original.is_terminal():
            legal = original.legal_actions()
            assert other.legal_actions() == legal
            choice = legal[moves.randrange(len(legal))]
            original.apply_action(choice)
            other.apply_action(choice)
        assert other.to_json() == original.to_json()


@settings(max_examples=60, deadline=None)
@given(players, seeds, st.floats(min_value=0, max_value=1), st.integers(0, 4), editions)
def test_determinize_reproduces_the_observation(
    num_players: int, seed: int, where: float, viewer: int, edition: str
) -> None:
    seat = viewer % num_players
    state = GAME.new_game(num_players, seed, {"edition": edition})
    rng = random.Random(seed)
    for _ in range(int(where * 150)):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    observation = json.loads(json.dumps(state.observation(seat)))
    sample = determinize(observation, seat, seed=seed + 7)
    assert sample.observation(seat) == observation
    assert sample.legal_actions() == state.legal_actions()
    assert sample.tiles_accounted() == list(TILE_COUNTS)
    # and it plays on to the end like any state
    moves = random.Random(seed)
    while not sample.is_terminal():
        legal = sample.legal_actions()
        sample.apply_action(legal[moves.randrange(len(legal))])
    assert sample.tiles_accounted() == list(TILE_COUNTS)


@settings(max_examples=20, deadline=None)
@given(players, seeds)
def test_observation_hides_the_bag_order(num_players: int, seed: int) -> None:
    state = GAME.new_game(num_players, seed)
    other = GAME.new_game(num_players, seed)
    other.bag.reverse()  # same contents, different hidden order
    other.rng.seed(seed + 1)
    for seat in range(num_players):
        assert state.observation(seat) == other.observation(seat)
