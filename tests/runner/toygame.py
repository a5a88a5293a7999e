"""A tiny game for testing the referee without the real engines: take-away nim.

A pile of ``pile`` stones plus 0-3 hidden extra stones drawn from the seed (so the seed
matters and the state has a hidden part).  Players in turn take 1-3 stones; whoever
takes the last stone wins (score 1), the others share second place.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import (
    TERMINAL,
    Game,
    GameOptionError,
    GameState,
    IllegalActionError,
    ReplayError,
)


class NimState(GameState):
    def __init__(self, num_players: int, seed: int, pile: int) -> None:
        self.num_players = num_players
        self.seed = seed
        self.start_pile = pile
        self.hidden_extra = random.Random(seed).randrange(4)
        self.pile = pile + self.hidden_extra
        self.turn = 0
        self.actions: list[dict[str, int]] = []
        self.winner: int | None = None

    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.turn % self.num_players

    def legal_actions(self) -> list[int]:
        return [] if self.winner is not None else list(range(1, min(3, self.pile) + 1))

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(f"cannot take {action}")
        seat = self.current_player()
        self.actions.append({"seat": seat, "action": action})
        self.pile -= action
        if self.pile == 0:
            self.winner = seat
        self.turn += 1

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        return [1.0 if s == self.winner else 0.0 for s in range(self.num_players)]

    def placements(self) -> list[int]:
        return [1 if s == self.winner else 2 for s in range(self.num_players)]

    def observation(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "visible_pile": self.pile - self.hidden_extra,
                "turn": self.turn}

    def action_to_json(self, action: int) -> dict[str, Any]:
        return {"type": "take", "stones": action}

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record()}

    def record(self) -> dict[str, Any]:
        return {"game": "nim", "seed": self.seed, "num_players": self.num_players,
                "options": {"pile": self.start_pile}, "actions": list(self.actions)}

    def clone(self) -> NimState:
        return NIM.replay(self.record())  # type: ignore[return-value]


class NimGame(Game):
    name = "nim"
    title = "Nim"
    min_players = 2
    max_players = 4

    def default_options(self) -> dict[str, Any]:
        return {"pile": 10}

    def num_distinct_actions(self) -> int:
        """Actions are the stones taken, 1-3 (0 is never legal): what a PettingZoo
        environment needs besides the views every game gets (arena/games/views.py)."""
        return 4

    def new_game(self, num_players: int, seed: int,
                 options: Mapping[str, Any] | None = None) -> NimState:
        pile = dict(options or self.default_options()).get("pile", 10)
        if not self.min_players <= num_players <= self.max_players:
            raise GameOptionError(f"nim is for 2-4 players, not {num_players}")
        if not isinstance(pile, int) or pile < 1:
            raise GameOptionError(f"pile must be a positive integer, not {pile!r}")
        return NimState(num_players, seed, pile)

    def state_from_json(self, data: Mapping[str, Any]) -> NimState:
        return self.replay(data["record"])

    def replay(self, record: Mapping[str, Any]) -> NimState:
        state = self.new_game(record["num_players"], record["seed"], record["options"])
        for step in record["actions"]:
            if state.current_player() != step["seat"]:
                raise ReplayError("seat mismatch")
            state.apply_action(step["action"])
        return state


NIM = NimGame()
