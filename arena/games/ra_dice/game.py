"""Ra: The Dice Game as an arena :class:`Game`: new games, saved states, replays, stories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import Game, GameError, GameOptionError, ReplayError
from arena.games.ra_dice.board import MAX_PLAYERS, MIN_PLAYERS, Board, resolve_board
from arena.games.ra_dice.record import GAME_NAME, state_from_json
from arena.games.ra_dice.state import RaDiceState


class RaDiceGame(Game):
    name = GAME_NAME
    title = "Ra: The Dice Game"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def __init__(self) -> None:
        self._default_boards: dict[int, Board] = {}

    def default_options(self) -> dict[str, Any]:
        return {"board": resolve_board(None, MIN_PLAYERS).options}

    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> RaDiceState:
        if type(seed) is not int:
            raise GameOptionError(f"the seed must be a whole number, not {seed!r}")
        board: Board | None = None
        if options:
            board = resolve_board(options, num_players)
        elif type(num_players) is int:  # the common case, kept cheap for leagues and search
            board = self._default_boards.get(num_players)
        if board is None:
            board = self._default_boards[num_players] = resolve_board(None, num_players)
        state = RaDiceState(board, num_players, seed)
        state._start_turn()
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> RaDiceState:
        return state_from_json(data)

    def replay(self, record: Mapping[str, Any]) -> RaDiceState:
        """Replay ``record``'s actions from its seed; every recorded event must match."""
        try:
            if record.get("game", GAME_NAME) != GAME_NAME:
                raise ReplayError(f"a {record.get('game')!r} record is not a {GAME_NAME} game")
            state = self.new_game(record["num_players"], record["seed"], record.get("options"))
            steps = record["actions"]
        except (KeyError, TypeError, AttributeError) as error:
            raise ReplayError(f"not a {GAME_NAME} record: missing or bad {error}") from None
        except GameOptionError as error:
            raise ReplayError(f"record cannot be set up: {error}") from None
        for number, step in enumerate(steps):
            try:
                seat, action = step["seat"], step["action"]
            except (KeyError, TypeError):
                raise ReplayError(f"action {number} is not {{seat, action}}: {step!r}") from None
            if state.is_terminal():
                raise ReplayError(f"action {number}: the game is already over")
            if seat != state.current_player():
                raise ReplayError(
                    f"action {number}: recorded for seat {seat!r} but seat "
                    f"{state.current_player()} is to move"
                )
            try:
                state.apply_action(action)
            except GameError as error:
                raise ReplayError(f"action {number}: {error}") from None
        _check_same(record, state.record())
        return state

    def narrate(self, record: Mapping[str, Any]) -> list[str]:
        from arena.games.ra_dice.narrate import narrate

        return narrate(record)


def _check_same(record: Mapping[str, Any], rebuilt: dict[str, Any]) -> None:
    """Every part of ``record`` the engine also writes must be what it writes now."""
    for number, step in enumerate(record["actions"]):
        ours = rebuilt["actions"][number]
        for key in step:  # a stored record may keep just the seat and the action
            if key not in ours or step[key] != ours[key]:
                raise ReplayError(
                    f"record actions[{number}].{key} is {step[key]!r}, "
                    f"the engine gives {ours.get(key)!r}"
                )
    for key in ("events", "epochs", "final_scores", "placements"):
        if key not in record:
            continue
        given, ours = record[key], rebuilt[key]
        if given == ours:
            continue
        if isinstance(given, list) and isinstance(ours, list):
            for index, (a, b) in enumerate(zip(given, ours, strict=False)):
                if a != b:
                    raise ReplayError(f"record {key}[{index}] is {a!r}, the engine gives {b!r}")
            raise ReplayError(f"record has {len(given)} {key}, the engine gives {len(ours)}")
        raise ReplayError(f"record {key} is {given!r}, the engine gives {ours!r}")


