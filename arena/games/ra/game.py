"""``RaGame``: new games, restoring, replaying and telling records, in either engine
(``engines.py``: the compiled core where it is built, else the pure-Python one)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import Game, GameError, GameOptionError, ReplayError
from arena.games.ra import editions, engines, jsonio
from arena.games.ra.editions import DEFAULT_EDITION
from arena.games.ra.state import RaState, RaStateViews
from arena.games.ra.tiles import (
    CENTER_SUN,
    NUM_ACTIONS,
    NUM_TILE_TYPES,
    RA_TRACK_LENGTH,
    START_SCORE,
    SUN_GROUPS,
    TILE_BY_NAME,
    TILE_COUNTS,
    TILE_NAMES,
    TURN,
)
from arena.games.views import Encoder

# The full bag, one entry per tile; copied for every new game.
FULL_BAG: tuple[int, ...] = tuple(t for t, count in enumerate(TILE_COUNTS) for _ in range(count))


class RaGame(Game):
    name = "ra"
    title = "Ra"
    min_players = 2
    max_players = 5
    replayed_parts = ("setup", "events", "final")
    replays_from_draws = True  # start_from_record: its secret deals' records keep no seed
    board_package = "arena.games.ra"  # its replay.js and replay.css: the replay page

    def __init__(self, engine: str | None = None) -> None:
        """``engine``: "compiled", "python" or "auto"; None (the bundled game): what
        ``ARENA_RA_ENGINE`` says when each game starts (engines.py)."""
        if engine is not None:
            engines.resolve(engine)  # a bad choice fails here, not at the first game
        self.engine = engine

    def default_options(self) -> dict[str, Any]:
        return {"edition": DEFAULT_EDITION}

    def full_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        return editions.full_options(options)

    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> RaStateViews:
        return self._start(num_players, seed, editions.full_options(options))

    def replay_start(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None
    ) -> RaStateViews:
        """Records name their edition; one whose options name none was played before
        editions existed and replays under the rules of then."""
        if isinstance(options, Mapping) and "edition" not in options:
            editions.full_options(options)  # still refuses an unknown option
            return self._start(num_players, seed, {})
        return self.new_game(num_players, seed, options)

    def start_from_record(self, record: Mapping[str, Any]) -> RaStateViews:
        """A record of a secret deal (no seed): its game with the recorded suns and, in
        order, the recorded draws.  One with a seed starts from it (its hidden future, the
        bag's order after the last draw, included)."""
        setup, events = record.get("setup"), record.get("events")
        if type(record.get("seed")) is int or not isinstance(setup, Mapping) \
                or not isinstance(events, list):
            return super().start_from_record(record)  # type: ignore[return-value]
        try:
            num_players, options = record["num_players"], record.get("options")
            suns = [[int(sun) for sun in group] for group in setup["suns"]]
            draws = [TILE_BY_NAME[event["tile"]] for event in events
                     if isinstance(event, Mapping) and event.get("type") == "draw"]
            if isinstance(options, Mapping) and "edition" not in options:
                editions.full_options(options)  # the rules of before editions
                rules: dict[str, Any] = {}
            else:
                rules = editions.full_options(options)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ReplayError(f"not a Ra record: missing or bad {error}") from None
        except GameOptionError as error:
            raise ReplayError(f"record cannot be set up: {error}") from None
        if type(num_players) is not int or not 2 <= num_players <= 5 \
                or len(suns) != num_players:
            raise ReplayError(f"record has {num_players!r} players and suns for {len(suns)}")
        for tile, count in enumerate(TILE_COUNTS):
            if draws.count(tile) > count:
                raise ReplayError(f"record draws more {TILE_NAMES[tile]} tiles than the "
                                  f"bag holds ({count})")
        seed = record.get("seed")
        state = blank_state(num_players, suns, seed if type(seed) is int else None,
                            RecordedDrawsOnly(), list(FULL_BAG), rules)
        state.stacked = draws[::-1]  # the next draw is the last
        return self._in_my_engine(state)

    def _start(self, num_players: int, seed: int, options: dict[str, Any]) -> RaStateViews:
        if type(num_players) is not int or not 2 <= num_players <= 5:
            raise GameOptionError(f"Ra is for 2-5 players, not {num_players!r}")
        if type(seed) is not int:
            raise GameOptionError(f"the seed must be an integer, not {seed!r}")
        rng = random.Random(seed)
        groups = list(SUN_GROUPS[num_players])
        rng.shuffle(groups)  # the books: players receive the sun groups at random
        suns = [sorted(g) for g in groups]
        if engines.resolve(self.engine) == engines.COMPILED:
            return engines.compiled_class().blank(num_players, suns, seed, rng,
                                                  list(FULL_BAG), options)
        return blank_state(num_players, suns, seed, rng, list(FULL_BAG), options)

    def state_from_json(self, data: Mapping[str, Any]) -> RaStateViews:
        try:
            return self._in_my_engine(jsonio.state_from_json(data))
        except ValueError as error:  # a field out of range: the core checks them all
            raise GameError(f"saved Ra state is damaged: {error}") from None

    def _in_my_engine(self, state: RaState) -> RaStateViews:
        """A fresh pure ``state`` in this game's engine, drawing from its own generator
        (a record's RecordedDrawsOnly too)."""
        if engines.resolve(self.engine) == engines.COMPILED:
            return engines.compiled_class().from_pure(state, state.rng)
        return state

    def narrate(self, record: Mapping[str, Any]) -> list[str]:
        from arena.games.ra.narrate import narrate

        return narrate(record)

    # -- views (arena/games/ra/views.py; the replay page's drawing: board_package) -------
    def board_text(self, observation: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        from arena.games.ra.views import board_text

        return board_text(observation, names)

    def observation_encoder(self, first: Mapping[str, Any]) -> Encoder:
        from arena.games.ra.views import observation_encoder

        return observation_encoder(first)

    def num_distinct_actions(self) -> int:
        """The action numbers of docs/ra-json.md run from 0 to NUM_ACTIONS - 1."""
        return NUM_ACTIONS


class RecordedDrawsOnly(random.Random):
    """The generator of a game started from its record: every draw is a recorded one,
    so asking for another means the record is not what its actions need."""

    def random(self) -> float:
        raise ReplayError("the record's actions draw more tiles than it recorded")


def blank_state(
    num_players: int,
    suns: list[list[int]],
    seed: int | None,
    rng: random.Random,
    bag: list[int],
    options: dict[str, Any],
) -> RaState:
    """A state of the pure engine at the start of epoch 1 with the given suns and bag (no
    tiles held), under ``options`` (full options, or {} for the rules from before
    editions); ``engines.as_engine`` converts it."""
    state = RaState.__new__(RaState)
    state.num_players = num_players
    state.seed = seed
    state.options = options
    state.rules = editions.rules_of(options)
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
    state.god_disasters = []
    state.history = []
    state.events = []
    state.initial_suns = [s[:] for s in suns]
    state.cur = max(range(num_players), key=lambda seat: max(suns[seat], default=0))
    state.first_player = state.cur
    state._legal = None
    state._obs_bag = None
    state._obs_bag_of = None
    state._obs_bag_len = 0
    state._obs_players = None
    return state
