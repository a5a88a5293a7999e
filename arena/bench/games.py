"""``arena bench GAME``: random playouts through a game engine's public API, in-process,
on one core (the engine's own speed, no referee or protocol).  Any registered game.

Beside each player count's figures, the same run measures the *API floor*: the very same
loop (``is_terminal``, ``legal_actions``, a seeded random choice, ``apply_action``) over
an engine whose rules cost nothing (:class:`_NullState`: the same number of decisions
per game, legal lists of the game's mean length, nothing computed).  A playout's time
per decision is that floor plus the rules; no engine, however fast its rules, gets below
the floor through this loop, so the floor bounds what any speed-up of the rules can give
(``max speed-up`` column).  The floor's games are interleaved with the real ones, game by
game, so the machine's load hits both alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from arena.errors import ArenaError
from arena.games.base import Game, GameState
from arena.games.selfplay import random_playout

JSON = Any


class _NullState(GameState):
    """A game whose rules cost nothing: ``decisions`` decisions among ``width`` actions
    (the same list every time: nothing is computed), then over."""

    __slots__ = ("left", "width_list", "_legal")

    def __init__(self, decisions: int, width: int) -> None:
        self.num_players = 1
        self.left = decisions
        self.width_list = list(range(width))
        self._legal = None

    def current_player(self) -> int:
        return 0

    def is_terminal(self) -> bool:
        return self.left == 0

    def _compute_legal_actions(self) -> list[int]:
        return self.width_list

    def _apply_legal_action(self, action: int) -> None:
        self.left -= 1

    def returns(self) -> list[float]:
        return [0.0]

    def placements(self) -> list[int]:
        return [1]

    def observation(self, seat: int) -> dict[str, JSON]:
        return {}

    def action_to_json(self, action: int) -> dict[str, JSON]:
        return {"action": action}

    def to_json(self) -> dict[str, JSON]:
        return {"left": self.left}

    def record(self) -> dict[str, JSON]:
        return {}

    def clone(self) -> _NullState:
        return _NullState(self.left, len(self.width_list))


class _NullGame(Game):
    """Hands out :class:`_NullState` games of the given length (the next real game's)."""

    name = title = "null"
    min_players, max_players = 1, 5

    def __init__(self, width: int) -> None:
        self.width = width
        self.decisions = 1

    def new_game(self, num_players: int, seed: int,
                 options: Mapping[str, JSON] | None = None) -> GameState:
        return _NullState(self.decisions, self.width)

    def state_from_json(self, data: Mapping[str, JSON]) -> GameState:
        return _NullState(int(data["left"]), self.width)


def _mean_legal_width(game: Game, num_players: int, seed: int) -> int:
    """The mean length of the legal lists over one random game (untimed)."""
    state = game.new_game(num_players, seed)
    total = decisions = 0
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        total += len(legal)
        decisions += 1
        state.apply_action(rng.choice(legal))
    return max(1, round(total / max(decisions, 1)))


def bench_game(
    game: Game, player_counts: list[int] | None, seconds: float, seed: int
) -> dict[str, Any]:
    counts = player_counts or list(range(game.min_players, game.max_players + 1))
    for num_players in counts:
        if not game.min_players <= num_players <= game.max_players:
            raise ArenaError(
                f"{game.name} is for {game.min_players}-{game.max_players} players, "
                f"not {num_players}"
            )
    rows = []
    clock, cpu_clock = time.perf_counter, time.process_time
    for num_players in counts:
        null = _NullGame(_mean_legal_width(game, num_players, seed))
        games = decisions = 0
        elapsed = cpu_elapsed = floor_elapsed = 0.0
        deadline = clock() + seconds
        while clock() < deadline or games == 0:
            # wall time and CPU time: wall time swings with the machine's load
            start, cpu_start = clock(), cpu_clock()
            made = random_playout(game, num_players, seed + games)[1]
            middle = clock()
            elapsed += middle - start
            cpu_elapsed += cpu_clock() - cpu_start
            null.decisions = made  # the floor: the same loop, as many decisions
            random_playout(null, 1, seed + games)
            floor_elapsed += clock() - middle
            decisions += made
            games += 1
        per_decision = elapsed / decisions if decisions else None
        floor = floor_elapsed / decisions if decisions else None
        rows.append(
            {
                "players": num_players,
                "games": games,
                "games/s": games / elapsed,
                "games/s (CPU time)": games / cpu_elapsed,
                "decisions/game": decisions / games,
                "µs/decision": 1e6 * per_decision if per_decision else None,
                "API floor µs": 1e6 * floor if floor is not None else None,
                "rules µs": 1e6 * (per_decision - floor) if per_decision and floor else None,
                "max speed-up": per_decision / floor if per_decision and floor else None,
            }
        )
    return {
        "title": f"{game.title}: random playouts, in-process, one core",
        "benchmark": game.name,
        "rows": rows,
        "notes": [
            "µs/decision: a whole random playout (new game included) per decision, "
            "through the public API: is_terminal, legal_actions, a seeded random choice, "
            "apply_action",
            "API floor µs: the same loop over an engine whose rules cost nothing (as many "
            "decisions, legal lists of the game's mean length), interleaved game by game "
            "with the real playouts in this run: the baseline",
            "rules µs: µs/decision minus the floor; max speed-up: µs/decision over the "
            "floor, the most that any faster rules could give through this loop",
        ],
    }
