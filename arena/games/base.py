"""The contract every game engine fulfils (modelled on OpenSpiel's Python games).

An engine is pure and synchronous: no I/O, no clocks, no global random state.  All
randomness comes from the seed given to :meth:`Game.new_game`, so the same seed and the
same actions always give the same game.  Everything an engine returns is plain JSON data
(dicts, lists, str, int, float, bool, None).

Actions are small integers chosen by the engine; a decision is always a choice from the
short list :meth:`GameState.legal_actions` returns.  Bots see each action through
:meth:`GameState.action_to_json` and answer with an *index* into that list, so a bot never
needs to know the integer encoding.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any

JSON = Any  # a value that json.dumps accepts without a custom encoder

TERMINAL = -1  # current_player() of a finished game


class GameState(abc.ABC):
    """One position of one game, including the hidden parts (e.g. the order of the bag)."""

    num_players: int

    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat (0-based) that must decide now, or TERMINAL when the game is over."""

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The actions the current player may take, in a stable, documented order.

        Never empty while the game is not over."""

    @abc.abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` (one of ``legal_actions()``) for the current player.

        Raises ``IllegalActionError`` for anything else; the state is then unchanged."""

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """The final score of each seat (the game's own points). Only when terminal."""

    @abc.abstractmethod
    def placements(self) -> list[int]:
        """The place of each seat, 1 = winner, after the game's own tie-breaks.

        Seats still tied after every tie-break share a place (1 + number of seats
        strictly ahead).  Only when terminal."""

    @abc.abstractmethod
    def observation(self, seat: int) -> dict[str, JSON]:
        """Everything ``seat`` may know now, as JSON: never hidden information."""

    @abc.abstractmethod
    def action_to_json(self, action: int) -> dict[str, JSON]:
        """A self-explaining JSON description of ``action`` in this state,
        e.g. ``{"type": "bid", "sun": 9}``."""

    @abc.abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The complete state (hidden parts included) so that
        ``Game.state_from_json(state.to_json())`` continues identically."""

    @abc.abstractmethod
    def record(self) -> dict[str, JSON]:
        """The game record so far: seed, options, players and every action with its actor,
        plus the game's own events (tiles drawn, auctions, scores, ...).

        ``Game.replay(record)`` rebuilds the identical state."""

    @abc.abstractmethod
    def clone(self) -> GameState:
        """An independent copy (for search bots)."""


class Game(abc.ABC):
    """A game: a factory of states plus the facts a league needs about it."""

    name: str  # short identifier used in configs, manifests and the protocol ("ra")
    title: str  # human name ("Ra")
    min_players: int
    max_players: int

    @abc.abstractmethod
    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, JSON] | None = None
    ) -> GameState:
        """A fresh game.  Raises ``GameOptionError`` for a bad player count or option."""

    @abc.abstractmethod
    def state_from_json(self, data: Mapping[str, JSON]) -> GameState:
        """Restore a state written by ``GameState.to_json``."""

    @abc.abstractmethod
    def replay(self, record: Mapping[str, JSON]) -> GameState:
        """Rebuild the state a record describes by replaying its actions from its seed.

        Raises ``ReplayError`` if the record does not match what the engine does."""

    def default_options(self) -> dict[str, JSON]:
        """The options a game gets when none are given (documented per game)."""
        return {}

    def narrate(self, record: Mapping[str, JSON]) -> list[str]:
        """The game told as a person would tell it, one line per event (for replays).

        Engines override this with their own story; the default lists the actions."""
        return [f"seat {step['seat']}: {step['action']}" for step in record.get("actions", [])]

    def describe(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": self.default_options(),
        }


class GameError(Exception):
    """Base of the errors an engine raises for bad input."""


class IllegalActionError(GameError):
    """An action that is not in ``legal_actions()``."""


class GameOptionError(GameError):
    """A bad player count or game option."""


class ReplayError(GameError):
    """A record that the engine cannot reproduce."""
