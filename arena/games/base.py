"""The contract every game engine fulfils (modelled on OpenSpiel's Python games).

An engine is pure and synchronous: no I/O, no clocks, no global random state.  All
randomness comes from the seed given to :meth:`Game.new_game`, so the same seed and the
same actions always give the same game.  Everything an engine returns is plain JSON data
(dicts, lists, str, int, float, bool, None).

Actions are small integers chosen by the engine; a decision is always a choice from the
short list :meth:`GameState.legal_actions` returns.  Bots see each action through
:meth:`GameState.action_to_json` and answer with an *index* into that list, so a bot never
needs to know the integer encoding.

The base classes own the template every engine would otherwise repeat: caching the legal
list of a decision, refusing an illegal action before anything changes, and replaying a
record (checking each actor and that the engine rebuilds what the record says).  An engine
supplies its rules: :meth:`GameState._compute_legal_actions` and
:meth:`GameState._apply_legal_action`, and the record parts its replay must reproduce
(:attr:`Game.replayed_parts`).

A game is also shown and encoded through its own methods, so that ``arena play``, the
replay page and the PettingZoo environments know no game: :meth:`Game.board_text`,
:meth:`Game.board_script` and :meth:`Game.board_style`, :meth:`Game.observation_encoder`
and :meth:`Game.num_distinct_actions`.  The defaults (arena/games/views.py) work for any
game from the JSON it gives a seat; an engine overrides them with its own board.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.views import Encoder, asset, flat_encoder, json_board

JSON = Any  # a value that json.dumps accepts without a custom encoder

TERMINAL = -1  # current_player() of a finished game


class GameState(abc.ABC):
    """One position of one game, including the hidden parts (e.g. the order of the bag)."""

    num_players: int
    # The legal actions of the decision now, computed once per decision (None: not yet).
    # An engine may also set it itself when it already knows the list.
    _legal: list[int] | None = None

    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat (0-based) that must decide now, or TERMINAL when the game is over."""

    def legal_actions(self) -> list[int]:
        """The actions the current player may take, in a stable, documented order.

        Never empty while the game is not over.  A copy: changing it changes nothing."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        return legal[:]

    def apply_action(self, action: int) -> None:
        """Play ``action`` (one of ``legal_actions()``) for the current player.

        Raises ``IllegalActionError`` for anything else; the state is then unchanged."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        # `in` first: the common case; the type check keeps True from passing as 1
        if action not in legal or type(action) is not int:
            raise IllegalActionError(self._illegal_message(action, legal))
        self._legal = None
        self._apply_legal_action(action)

    def _compute_legal_actions(self) -> list[int]:
        """The rules: the legal actions of the decision now (a fresh list; [] when over).

        Engines that use the template override this and :meth:`_apply_legal_action`."""
        raise NotImplementedError(f"{type(self).__name__} does not compute legal actions")

    def _apply_legal_action(self, action: int) -> None:
        """The rules: play ``action``, already checked to be legal."""
        raise NotImplementedError(f"{type(self).__name__} does not apply actions")

    def _illegal_message(self, action: object, legal: Sequence[int]) -> str:
        """Why ``action`` was refused (engines may say more)."""
        if self.is_terminal():
            return "the game is over: no action is legal"
        return (f"action {action!r} is not legal for seat {self.current_player()}; "
                f"legal actions: {list(legal)}")

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

    def outcome_json(self, action: int) -> dict[str, JSON] | None:
        """Called just after ``action`` was applied: what it revealed to every player
        (a tile drawn from the bag, dice rolled), sent beside the action in the
        protocol's ``action`` notices; None (the default) when it revealed nothing."""
        return None

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
    # The parts of a record (besides each action's own keys) that replaying its actions
    # must reproduce exactly; see :meth:`replay`.
    replayed_parts: tuple[str, ...] = ()
    # True when :meth:`start_from_record` starts a game from what its record says chance
    # brought (no seed needed): the records of its secret deals then keep no deal seed.
    # A game without (a plugin's, say) keeps the deal seed in its record, which its
    # replays need (docs/security.md).
    replays_from_draws: bool = False
    # The package whose replay.js and replay.css draw the game on the replay page (see
    # :meth:`board_script`); this one holds the generic drawing.
    board_package: str = "arena.games"

    @abc.abstractmethod
    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, JSON] | None = None
    ) -> GameState:
        """A fresh game.  Raises ``GameOptionError`` for a bad player count or option."""

    @abc.abstractmethod
    def state_from_json(self, data: Mapping[str, JSON]) -> GameState:
        """Restore a state written by ``GameState.to_json``."""

    def replay(self, record: Mapping[str, JSON]) -> GameState:
        """Rebuild the state a record describes by replaying its actions from its start
        (:meth:`start_from_record`: the recorded draws, or the seed).

        Each action must be taken by the seat the record names, and every key a recorded
        action carries (e.g. its JSON) and every part in :attr:`replayed_parts` present in
        the record must equal what the engine writes.  Raises ``ReplayError`` saying which
        action or part differs."""
        try:
            if record.get("game", self.name) != self.name:
                raise ReplayError(f"a {record.get('game')!r} record is not a {self.name} game")
            steps = list(record["actions"])
        except (KeyError, TypeError, AttributeError) as error:
            raise ReplayError(f"not a {self.name} record: missing or bad {error}") from None
        state = self.start_from_record(record)
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
        check_reproduced(record, state.record(), self.replayed_parts)
        return state

    def start_from_record(self, record: Mapping[str, JSON]) -> GameState:
        """The state the engine's ``record`` starts from, its hidden future included.

        A league's deals are secret (:mod:`arena.deals`), so an engine whose records hold
        what chance brought (Ra's draws, the dice game's rolls) overrides this to start a
        game that brings exactly those, in order, and sets :attr:`replays_from_draws`: its
        records then keep no seed.  The default deals from the record's ``seed``
        (:meth:`replay_start`).  Raises ``ReplayError``."""
        try:
            num_players, options = record["num_players"], record.get("options")
        except (KeyError, TypeError, AttributeError) as error:
            raise ReplayError(f"not a {self.name} record: missing or bad {error}") from None
        if "seed" not in record:
            raise ReplayError(
                f"this {self.name} record keeps no seed (its deal was secret) and the "
                f"{self.name} engine cannot start a game from the draws it recorded")
        try:
            return self.replay_start(num_players, record["seed"], options)
        except GameOptionError as error:
            raise ReplayError(f"record cannot be set up: {error}") from None

    def replay_start(
        self, num_players: int, seed: int, options: Mapping[str, JSON] | None
    ) -> GameState:
        """The state a record with these fields starts from.  Engines override it to read
        records written before an option existed (see their docs)."""
        return self.new_game(num_players, seed, options)

    def default_options(self) -> dict[str, JSON]:
        """The options a game gets when none are given (documented per game)."""
        return {}

    def full_options(self, options: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """``options`` with every default filled in, as games record them (the referee
        sends these to bots and stores them).  Raises ``GameOptionError`` for bad ones.

        The default merges the given keys over :meth:`default_options`."""
        return {**self.default_options(), **dict(options or {})}

    def narrate(self, record: Mapping[str, JSON]) -> list[str]:
        """The game told as a person would tell it, one line per event (for replays).

        Engines override this with their own story; the default lists the actions."""
        return [f"seat {step['seat']}: {step['action']}" for step in record.get("actions", [])]

    # -- views: how people see the game and learning agents read it --------------------
    # Only the JSON a seat is given is drawn or encoded, so nothing shown is hidden.

    def board_text(self, observation: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
        """A seat's ``observation`` drawn as lines of text for a person at a terminal
        (``arena play``, an environment's ``render``); ``names[seat]`` names each seat.

        The default: the observation's JSON."""
        return json_board(observation)

    def board_script(self) -> str:
        """The JavaScript that draws a position on the replay page (``arena replay
        --html``).  It sets ``window.arenaBoard`` to a function that the page calls once
        with its kit (``data``, ``views``, ``names``, ``el``, ``words``, ``who``,
        ``seatClass``) and that returns ``draw(view, frame)`` -> a DOM node; it may not
        load anything (docs/viewer.md).

        The default reads replay.js of :attr:`board_package`: a game ships its drawing as
        a file in its package and names the package; the generic one (arena/games/)
        draws the observation's JSON as a table."""
        return asset(self.board_package, "replay.js")

    def board_style(self) -> str:
        """The CSS of the classes :meth:`board_script` draws with, added after the page's
        own (which any board may use: ``track``, ``slot``, ``seats``, ``seat``, ...).

        The default reads replay.css of :attr:`board_package`."""
        return asset(self.board_package, "replay.css")

    def observation_encoder(self, first: Mapping[str, JSON]) -> Encoder:
        """A function from a seat's observation to a fixed-length list of numbers, for
        games like ``first`` (seat 0's view of a new game with the same players and
        options), used by the PettingZoo environments (docs/envs.md).  It raises
        ``ValueError`` for anything it does not know rather than encode it as nothing.

        The default: every number, flag and null of the observation, in ``first``'s order
        (text left out); observations must keep ``first``'s shape."""
        return flat_encoder(first, self.name)

    def num_distinct_actions(self) -> int | None:
        """How many action numbers the engine uses: every action is in
        ``range(num_distinct_actions())`` (an environment's action space).

        None (the default): the game does not say, and gets no environment."""
        return None

    def describe(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": self.default_options(),
        }


def check_reproduced(
    record: Mapping[str, JSON], rebuilt: Mapping[str, JSON], parts: Sequence[str]
) -> None:
    """Every key of every recorded action, and every part in ``parts`` the record holds,
    must be what the engine wrote when replaying it (``rebuilt``).  A stored record may
    keep less (e.g. just each action's seat and number), never something different."""
    mine = rebuilt["actions"]
    for number, step in enumerate(record["actions"]):
        for key in step:
            if key not in mine[number] or step[key] != mine[number][key]:
                raise ReplayError(
                    f"record actions[{number}].{key} is {step[key]!r}, "
                    f"the engine gives {mine[number].get(key)!r}"
                )
    for part in parts:
        if part not in record:
            continue
        given, ours = record[part], rebuilt[part]
        if given == ours:
            continue
        if isinstance(given, list) and isinstance(ours, list):
            for index, (a, b) in enumerate(zip(given, ours, strict=False)):
                if a != b:
                    raise ReplayError(f"record {part}[{index}] is {a!r}, the engine gives {b!r}")
            raise ReplayError(f"record has {len(given)} {part}, the engine gives {len(ours)}")
        raise ReplayError(f"record {part} is {given!r}, the engine gives {ours!r}")


class GameError(Exception):
    """Base of the errors an engine raises for bad input."""


class IllegalActionError(GameError):
    """An action that is not in ``legal_actions()``."""


class GameOptionError(GameError):
    """A bad player count or game option."""


class ReplayError(GameError):
    """A record that the engine cannot reproduce."""
