"""The engine base owns the apply/replay template (issue 12, item 7): a tiny game that
supplies only its rules gets legal-list caching, refusal of illegal actions and a checked
replay from arena/games/base.py."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from arena.games.base import Game, GameState, IllegalActionError, ReplayError


class RaceState(GameState):
    """Players take turns adding 1 or 2 to a shared total; whoever reaches 5 wins."""

    def __init__(self, num_players: int, seed: int) -> None:
        self.num_players, self.seed = num_players, seed
        self.total, self.turn = 0, 0
        self.moves: list[int] = []
        self.computed = 0  # how often the rules computed a legal list

    # -- the rules: all a game supplies ------------------------------------------------
    def _compute_legal_actions(self) -> list[int]:
        self.computed += 1
        return [] if self.total >= 5 else [1, 2]

    def _apply_legal_action(self, action: int) -> None:
        self.moves.append(action)
        self.total += action
        if self.total < 5:
            self.turn = (self.turn + 1) % self.num_players

    # -- the rest of the interface -------------------------------------------------------
    def current_player(self) -> int:
        return -1 if self.is_terminal() else self.turn

    def is_terminal(self) -> bool:
        return self.total >= 5

    def returns(self) -> list[float]:
        return [1.0 if s == self.turn else 0.0 for s in range(self.num_players)]

    def placements(self) -> list[int]:
        return [1 if s == self.turn else 2 for s in range(self.num_players)]

    def observation(self, seat: int) -> dict[str, Any]:
        return {"total": self.total}

    def action_to_json(self, action: int) -> dict[str, Any]:
        return {"add": action}

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total}

    def record(self) -> dict[str, Any]:
        seats, seat = [], 0
        for _ in self.moves:
            seats.append(seat)
            seat = (seat + 1) % self.num_players
        return {
            "game": "race", "num_players": self.num_players, "seed": self.seed,
            "options": {},
            "actions": [{"seat": s, "action": a, "json": {"add": a}}
                        for s, a in zip(seats, self.moves, strict=True)],
            "total": self.total,
        }

    def clone(self) -> RaceState:
        return copy.deepcopy(self)


class RaceGame(Game):
    name, title, min_players, max_players = "race", "Race to 5", 2, 3
    replayed_parts = ("total",)

    def new_game(self, num_players: int, seed: int,
                 options: Mapping[str, Any] | None = None) -> RaceState:
        return RaceState(num_players, seed)

    def state_from_json(self, data: Mapping[str, Any]) -> GameState:
        raise NotImplementedError


GAME = RaceGame()


def played(*moves: int) -> RaceState:
    state = GAME.new_game(2, 0)
    for move in moves:
        state.apply_action(move)
    return state


def test_the_legal_list_is_computed_once_per_decision_and_handed_out_as_a_copy() -> None:
    state = GAME.new_game(2, 0)
    state.legal_actions().append(7)
    assert state.legal_actions() == [1, 2]
    assert state.computed == 1
    state.apply_action(2)
    assert state.legal_actions() == [1, 2] and state.computed == 2


@pytest.mark.parametrize("action", [3, True, 1.0, "1", None])
def test_an_illegal_action_is_refused_and_changes_nothing(action: Any) -> None:
    state = played(1)
    with pytest.raises(IllegalActionError, match="not legal for seat 1"):
        state.apply_action(action)
    assert state.total == 1 and state.moves == [1] and state.current_player() == 1


def test_no_action_once_the_game_is_over() -> None:
    state = played(2, 2, 1)
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply_action(1)


def test_replay_rebuilds_the_record() -> None:
    record = played(2, 1, 2).record()
    assert GAME.replay(record).record() == record


def test_replay_accepts_a_record_that_keeps_less() -> None:
    record = played(2, 1, 2).record()
    for step in record["actions"]:
        del step["json"]
    del record["total"]
    assert GAME.replay(record).total == 5


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda r: r["actions"][1].update(seat=0), "action 1: recorded for seat 0"),
        (lambda r: r["actions"][0].update(action=3), "action 0: action 3 is not legal"),
        (lambda r: r["actions"][2].update(json={"add": 1}), r"actions\[2\]\.json"),
        (lambda r: r.update(total=6), "record total is 6, the engine gives 5"),
        (lambda r: r["actions"].append({"seat": 1, "action": 1}), "action 3: .*over"),
        (lambda r: r.update(game="ra"), "not a race game"),
        (lambda r: r.pop("seed"), "keeps no seed .its deal was secret. and the race engine"),
        (lambda r: r["actions"].insert(0, 5), "action 0 is not"),
    ],
)
def test_replay_says_which_action_or_part_differs(damage: Any, message: str) -> None:
    record = played(2, 1, 2).record()
    damage(record)
    with pytest.raises(ReplayError, match=message):
        GAME.replay(record)
