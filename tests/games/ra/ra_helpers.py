"""Helpers for the Ra engine tests: play actions by their JSON, look at a seat."""

from __future__ import annotations

import random
from typing import Any

from arena.games.ra import RaState
from arena.games.ra.jsonio import tile_type


def act(state: RaState, **wanted: Any) -> None:
    """Play the legal action whose JSON matches ``wanted`` (e.g. ``type="bid", sun=9``)."""
    for action in state.legal_actions():
        description = state.action_to_json(action)
        if all(description.get(key) == value for key, value in wanted.items()):
            state.apply_action(action)
            return
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    raise AssertionError(f"no legal action matches {wanted}; legal: {legal}")


def legal_json(state: RaState) -> list[dict[str, Any]]:
    return [state.action_to_json(a) for a in state.legal_actions()]


def held(state: RaState, seat: int, name: str) -> int:
    return state.hold[seat][tile_type(name)]


def boxed(state: RaState, name: str) -> int:
    return state.box[tile_type(name)]


def play_randomly(state: RaState, seed: int, max_steps: int = 10_000) -> int:
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


def all_suns(state: RaState) -> list[int]:
    return sorted([state.center, *(s for seat in state.up + state.down for s in seat)])
