"""``RaGame``: new games, restoring, replaying and telling records."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import Game, GameOptionError, GameState, IllegalActionError, ReplayError
from arena.games.ra import jsonio
from arena.games.ra.state import RaState
from arena.games.ra.tiles import (
    CENTER_SUN,
    NUM_TILE_TYPES,
    RA_TRACK_LENGTH,
    START_SCORE,
    SUN_GROUPS,
    TILE_COUNTS,
    TURN,
)

# The full bag, one entry per tile; copied for every new game.
FULL_BAG: tuple[int, ...] = tuple(t for t, count in enumerate(TILE_COUNTS) for _ in range(count))


class RaGame(Game):
    name = "ra"
    title = "Ra"
    min_players = 2
    max_players = 5

    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> RaState:
        if type(num_players) is not int or not 2 <= num_players <= 5:
            raise GameOptionError(f"Ra is for 2-5 players, not {num_players!r}")
        if type(seed) is not int:
            raise GameOptionError(f"the seed must be an integer, not {seed!r}")
        if options:
            raise GameOptionError(f"Ra has no options; got {options!r}")
        rng = random.Random(seed)
        groups = list(SUN_GROUPS[num_players])
        rng.shuffle(groups)  # the books: players receive the sun groups at random
        return blank_state(num_players, [sorted(g) for g in groups], seed, rng, list(FULL_BAG))

    def state_from_json(self, data: Mapping[str, Any]) -> RaState:
        return jsonio.state_from_json(data)

    def replay(self, record: Mapping[str, Any]) -> RaState:
        try:
            num_players, seed = record["num_players"], record["seed"]
            steps = list(record["actions"])
        except (KeyError, TypeError) as error:
            raise ReplayError(f"not a Ra record: missing {error}") from None
        try:
            state = self.new_game(num_players, seed, record.get("options"))
        except GameOptionError as error:
            raise ReplayError(f"record cannot start: {error}") from None
        for number, step in enumerate(steps):
            try:
                seat, action = step["seat"], step["action"]
            except (KeyError, TypeError):
                raise ReplayError(f"action {number} is malformed: {step!r}") from None
            if seat != state.current_player():
                raise ReplayError(
                    f"action {number}: the record says seat {seat} acts, "
                    f"the engine expects seat {state.current_player()}"
                )
            if "json" in step and step["json"] != _json_of(state, action):
                raise ReplayError(
                    f"action {number}: the record describes {step['json']}, "
                    f"the engine {_json_of(state, action)}"
                )
            try:
                state.apply_action(action)
            except IllegalActionError as error:
                raise ReplayError(f"action {number}: {error}") from None
        rebuilt = state.record()
        for key in ("setup", "events", "final"):
            if key in record and record[key] != rebuilt[key]:
                raise ReplayError(f"replaying the actions does not reproduce the record's {key}")
        return state

    def narrate(self, record: Mapping[str, Any]) -> list[str]:
        from arena.games.ra.narrate import narrate

        return narrate(record)


def _json_of(state: GameState, action: Any) -> Any:
    try:
        return state.action_to_json(action)
    except IllegalActionError:
        return None


def blank_state(
    num_players: int,
    suns: list[list[int]],
    seed: int | None,
    rng: random.Random,
    bag: list[int],
) -> RaState:
    """A state at the start of epoch 1 with the given suns and bag (no tiles held)."""
    state = RaState.__new__(RaState)
    state.num_players = num_players
    state.seed = seed
    state.options = {}
    state.epoch = 1
    state.phase = TURN
    state.up = suns
    state.down = [[] for _ in range(num_players)]
    state.hold = [[0] * NUM_TILE_TYPES for _ in range(num_players)]
    state.scores = [START_SCORE] * num_players
    state.center = CENTER_SUN
    state.ra_count = 0
    state.ra_limit = RA_TRACK_LENGTH[num_players]
    state.track = []
    state.box = [0] * NUM_TILE_TYPES
    state.bag = bag
    state.stacked = []
    state.rng = rng
    state.ra_player = -1
    state.kind = 0
    state.high = 0
    state.high_bidder = -1
    state.queue = []
    state.queue_index = 0
    state.bids = []
    state.dis_seat = -1
    state.dis_pending = []
    state.dis_current = -1
    state.dis_left = 0
    state.dis_after = 0
    state.history = []
    state.events = []
    state.initial_suns = [s[:] for s in suns]
    state.cur = max(range(num_players), key=lambda seat: max(suns[seat], default=0))
    state.first_player = state.cur
    state._legal = None
    return state
