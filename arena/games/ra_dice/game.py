"""Ra: The Dice Game as an arena :class:`Game`: new games, saved states, replays, stories."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import Game, GameOptionError, ReplayError
from arena.games.ra_dice.board import (
    COLOURS,
    FACES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Board,
    resolve_board,
)
from arena.games.ra_dice.dice import RecordedDice
from arena.games.ra_dice.record import GAME_NAME, state_from_json
from arena.games.ra_dice.state import RaDiceState
from arena.games.views import Encoder


class RaDiceGame(Game):
    name = GAME_NAME
    title = "Ra: The Dice Game"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    replayed_parts = ("events", "epochs", "final_scores", "placements")
    replays_from_draws = True  # start_from_record: its secret deals' records keep no seed
    board_package = "arena.games.ra_dice"  # its replay.js and replay.css: the replay page

    def __init__(self) -> None:
        self._default_boards: dict[int, Board] = {}

    def default_options(self) -> dict[str, Any]:
        return resolve_board(None, MIN_PLAYERS).game_options

    def full_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        return resolve_board(options, MIN_PLAYERS).game_options

    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> RaDiceState:
        board: Board | None = None
        if options:
            board = resolve_board(options, num_players)
        elif type(num_players) is int:  # the common case, kept cheap for leagues and search
            board = self._default_boards.get(num_players)
        if board is None:
            board = self._default_boards[num_players] = resolve_board(None, num_players)
        return self._start(board, num_players, seed)

    def replay_start(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None
    ) -> RaDiceState:
        """Records name their edition; one whose options name none was played before
        editions existed and replays under the rules of then."""
        if isinstance(options, Mapping) and "edition" not in options:
            board = resolve_board(options, num_players, before_editions=True)
            return self._start(board, num_players, seed)
        return self.new_game(num_players, seed, options)

    def start_from_record(self, record: Mapping[str, Any]) -> RaDiceState:
        """A record of a secret deal (no seed): its game rolling, in order, the dice its
        events recorded.  One with a seed starts from it (its future rolls included)."""
        events = record.get("events")
        if type(record.get("seed")) is int or not isinstance(events, list):
            return super().start_from_record(record)  # type: ignore[return-value]
        face_of = {name: index for index, name in enumerate(FACES)}
        try:
            num_players, options = record["num_players"], record.get("options")
            rolls = [[face_of[event["dice"][colour]] for colour in COLOURS]
                     for event in events
                     if isinstance(event, Mapping) and event.get("type") == "roll"]
            if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
                raise GameOptionError(f"Ra: The Dice Game is for {MIN_PLAYERS}-{MAX_PLAYERS} "
                                      f"players, not {num_players!r}")
            if isinstance(options, Mapping) and "edition" not in options:
                board = resolve_board(options, num_players, before_editions=True)
            else:
                board = resolve_board(options, num_players)
        except (KeyError, TypeError, AttributeError) as error:
            raise ReplayError(f"not a {self.title} record: missing or bad {error}") from None
        except GameOptionError as error:
            raise ReplayError(f"record cannot be set up: {error}") from None
        seed = record.get("seed")
        state = RaDiceState(board, num_players, seed if type(seed) is int else 0)
        state.seed = seed if type(seed) is int else None  # type: ignore[assignment]
        state.dice = RecordedDice(rolls)  # type: ignore[assignment]
        state._start_turn()
        return state

    def _start(self, board: Board, num_players: int, seed: int) -> RaDiceState:
        if type(seed) is not int:
            raise GameOptionError(f"the seed must be a whole number, not {seed!r}")
        state = RaDiceState(board, num_players, seed)
        state._start_turn()
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> RaDiceState:
        return state_from_json(data)

    def narrate(self, record: Mapping[str, Any]) -> list[str]:
        from arena.games.ra_dice.narrate import narrate

        return narrate(record)

    # -- views (arena/games/ra_dice/views.py; the replay page's drawing: board_package) --
    def board_text(self, observation: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        from arena.games.ra_dice.views import board_text

        return board_text(observation, names)

    def observation_encoder(self, first: Mapping[str, Any]) -> Encoder:
        from arena.games.ra_dice.views import observation_encoder

        return observation_encoder(first)

    def num_distinct_actions(self) -> int:
        """The last range of arena/games/ra_dice/actions.py: giving up a Monument marker,
        one action per space."""
        from arena.games.ra_dice.actions import LOSE_MONUMENT_BASE, MONUMENT_BASE, MONUMENT_LAST

        return int(LOSE_MONUMENT_BASE + (MONUMENT_LAST - MONUMENT_BASE + 1) // 8)
