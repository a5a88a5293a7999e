"""Property tests over random playouts: every game ends, stays in bounds, keeps its markers
in order and replays exactly."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.ra_dice import GAME
from arena.games.ra_dice.board import NUM_COLUMNS
from arena.games.ra_dice.state import OVER, RaDiceState

games = given(
    players=st.integers(min_value=2, max_value=4),
    seed=st.integers(min_value=-(2**63), max_value=2**64),
    choices=st.integers(min_value=0, max_value=2**32),
)
quick = settings(max_examples=30, deadline=None)


def check_bounds(state: RaDiceState) -> None:
    top, n = state.board.track_top, state.num_players
    assert all(0 <= p <= top for p in state.pharaoh)
    assert all(0 <= p <= top for p in state.nile)
    assert all(f >= 0 for f in state.floods)
    assert 1 <= state.epoch <= 3
    assert state.board.ra_start <= state.ra <= state.board.ra_end + 1
    for colour_mask in state.civilization:
        assert colour_mask < 1 << n
        assert bin(colour_mask).count("1") <= state.board.civilization_capacity
    for seat in range(n):
        assert state.civilization_markers[seat] == sum(
            mask >> seat & 1 for mask in state.civilization)
        assert state.monument_markers[seat] == state.monuments.count(seat)
        columns = {space // 5 for space, owner in enumerate(state.monuments) if owner == seat}
        assert state.monument_columns[seat] == sum(1 << c for c in columns)
    assert all(-1 <= owner < n for owner in state.monuments)
    assert len(state.monuments) == 5 * NUM_COLUMNS


def markers_from_events(events: list[dict[str, Any]]) -> tuple[Counter[int], Counter[int]]:
    """Civilization and Monument markers per seat, counted from the record alone."""
    civilization: Counter[int] = Counter()
    monuments: Counter[int] = Counter()
    for event in events:
        kind = event["type"]
        if kind == "move":
            move, seat = event["move"], event["seat"]
            if move["type"] == "apply" and move["what"] == "civilization":
                civilization[seat] += len(move["colours"])
            elif move["type"] == "apply" and move["what"] == "monument":
                monuments[seat] += 1
            elif move["type"] == "lose":
                (civilization if move["what"] == "civilization" else monuments)[seat] -= 1
        elif kind == "marker_lost":
            (civilization if event["what"] == "civilization" else monuments)[event["seat"]] -= 1
        elif kind == "epoch_scored":
            civilization.clear()
    return civilization, monuments


def check_markers(state: RaDiceState) -> None:
    civilization, monuments = markers_from_events(state.record()["events"])
    for seat in range(state.num_players):
        assert civilization[seat] == state.civilization_markers[seat]
        assert monuments[seat] == state.monuments.count(seat)


def play_out(state: RaDiceState, rng: random.Random, checkpoints: int = 4) -> int:
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        seat = state.current_player()
        assert 0 <= seat < state.num_players
        action = legal[rng.randrange(len(legal))]
        json.dumps(state.action_to_json(action))
        state.apply_action(action)
        check_bounds(state)
        steps += 1
        if steps % 97 == 0 and checkpoints:
            check_markers(state)
            checkpoints -= 1
        assert steps < 5000, "the game does not end"
    return steps


@quick
@games
def test_random_games_end_in_bounds_with_markers_conserved(
    players: int, seed: int, choices: int
) -> None:
    state = GAME.new_game(players, seed)
    play_out(state, random.Random(choices))
    assert state.phase == OVER and state.legal_actions() == []
    check_markers(state)
    record = state.record()
    assert [e["epoch"] for e in record["epochs"]] == [1, 2, 3]
    places, scores = state.placements(), state.scores
    assert state.returns() == [float(s) for s in record["final_scores"]]
    for a in range(players):
        # a place is one more than the number of better scores; equal scores share it
        assert places[a] == 1 + sum(other > scores[a] for other in scores)


@quick
@games
def test_random_games_replay_exactly(players: int, seed: int, choices: int) -> None:
    state = GAME.new_game(players, seed)
    play_out(state, random.Random(choices), checkpoints=0)
    record = json.loads(json.dumps(state.record()))
    replayed = GAME.replay(record)
    assert replayed.to_json() == state.to_json()
    assert replayed.record() == record


@quick
@games
def test_saved_and_cloned_states_continue_identically(
    players: int, seed: int, choices: int
) -> None:
    rng = random.Random(choices)
    state = GAME.new_game(players, seed)
    for _ in range(rng.randrange(400)):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    restored = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    twin = state.clone()
    finals = []
    for copy in (state, restored, twin):
        play_out(copy, random.Random(choices), checkpoints=0)
        finals.append(copy.record())
    assert finals[0] == finals[1] == finals[2]
