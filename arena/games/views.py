"""What every game's views share: the generic defaults :class:`arena.games.base.Game`
gives a game that supplies no views of its own, and the helpers games use for theirs.

A game is shown and encoded through its own methods (``Game.board_text``,
``Game.board_script``, ``Game.board_style``, ``Game.observation_encoder``,
``Game.num_distinct_actions``); ``arena play``, the replay page and the PettingZoo
environments call them and know no game.  Everything here reads only the JSON a game
gives a seat (what a bot sees), so nothing drawn or encoded can leak hidden information.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import resources
from typing import Any

JSON = Any
# a seat's observation -> its features, always as many and in the same order
Encoder = Callable[[Mapping[str, JSON]], Sequence[float]]


def words(name: object) -> str:
    """An engine's name as words: "step_pyramid" -> "step pyramid"."""
    return str(name).replace("_", " ")


def asset(package: str, name: str) -> str:
    """A text file shipped inside ``package`` (a game's replay script or style)."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def playing(seat: int) -> int | None:
    """The seat to move, None once the game is over (``current_player`` says -1)."""
    return None if seat < 0 else seat


def json_board(observation: Mapping[str, JSON]) -> list[str]:
    """The generic terminal board: the observation's JSON, one value a line."""
    return json.dumps(observation, indent=1).splitlines()


class Layout:
    """Appends named features to a vector, so that every encoding has one fixed order.

    Anything it does not know (a tile, face or phase a newer engine added) is an error,
    not a silent zero."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def number(self, value: float | int | bool | None) -> None:
        self.values.append(-1.0 if value is None else float(value))

    def one_hot(self, value: object, choices: Sequence[object], what: str) -> None:
        if value is not None and value not in choices:
            raise ValueError(f"unknown {what} {value!r} (known: {', '.join(map(str, choices))})")
        self.values.extend(1.0 if value == choice else 0.0 for choice in choices)

    def seat_phase_and_turn(self, v: Mapping[str, JSON], seats: int,
                            phases: Sequence[str]) -> None:
        """What most views start with, one-hot: the viewing seat, the phase, and the seat to
        move (none once the game is over)."""
        self.one_hot(v["seat"], range(seats), "seat")
        self.one_hot(v["phase"], phases, "phase")
        self.one_hot(playing(v["current_player"]), range(seats), "seat")

    def counts(self, counts: Mapping[str, int], names: Sequence[str], what: str) -> None:
        unknown = set(counts) - set(names)
        if unknown:
            raise ValueError(f"unknown {what} {sorted(unknown)}")
        self.values.extend(float(counts.get(name, 0)) for name in names)

    def vector(self) -> list[float]:
        return self.values


def _leaves(value: JSON, path: str) -> Iterator[tuple[str, JSON]]:
    """Every number, flag, null and text of ``value`` with its path, in JSON order."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def _shape(observation: Mapping[str, JSON]) -> list[str]:
    """Each leaf's path, marked when it is text (text carries no feature)."""
    return [f"{path} (text)" if isinstance(value, str) else path
            for path, value in _leaves(observation, "")]


def flat_encoder(first: Mapping[str, JSON], game: str = "this game") -> Encoder:
    """The generic encoding: every number, flag and null (as -1) of the observation, in
    the order of ``first`` (a seat's view of a new game).  Text is left out: what a name
    means only the game knows.  An observation of another shape than ``first`` (a value
    more or less, or text where a number was) is an error, not a silent zero: such a
    game supplies its own encoder."""
    shape = _shape(first)

    def encode(observation: Mapping[str, JSON]) -> list[float]:
        now = _shape(observation)
        if now != shape:
            changed = next((f"{a!r} where the first had {b!r}" for a, b
                            in zip(now, shape, strict=False) if a != b),
                           f"{len(now)} values, the first had {len(shape)}")
            raise ValueError(
                f"the generic encoding needs observations of one shape, and {game}'s "
                f"changed ({changed}): the game must supply observation_encoder")
        return [-1.0 if value is None else float(value)
                for _, value in _leaves(observation, "") if not isinstance(value, str)]

    return encode


def deal_words(record: Mapping[str, JSON]) -> str:
    """How a record's game was dealt, for its story: "seed N", or a secret deal's words
    (its record keeps the draws, not the seed: arena/deals.py)."""
    seed = record.get("seed")
    return f"seed {seed}" if seed is not None else "a secret deal"
