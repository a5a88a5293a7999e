"""The fixed facts of Ra: The Dice Game, its edition and the ``board`` options the
rulebook leaves open.

Every choice here is explained in ``docs/rules-ra-dice.md``.  Options arrive as
``{"edition": "2009", "board": {...}}``; anything left out takes its default (the 2009
rulebook, :data:`DEFAULT_BOARD`).  A record whose options name no edition was played
before editions existed, under the engine's rules of then (scores floored at 0, ties
broken by seat): ``resolve_board(..., before_editions=True)`` replays it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.games.base import GameOptionError

# The five dice; die i has colour COLOURS[i], so a set of dice is also a set of colours.
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple")
NUM_DICE = 5
ALL_DICE = (1 << NUM_DICE) - 1

FACES: tuple[str, ...] = ("sun", "pharaoh", "nile", "civilization", "monument", "ankh")
SUN, PHARAOH, NILE, CIVILIZATION, MONUMENT, ANKH = range(6)

MIN_PLAYERS, MAX_PLAYERS = 2, 4
EPOCHS = 3
START_SCORE = 10  # seat 0 starts on 10, seat 1 on 11, ...
REROLLS = 2
NUM_COLUMNS = 8  # monument columns; the column scoring table stops at 8

# Scoring tables from the crib sheet.
PHARAOH_BEST, PHARAOH_WORST = 5, -2
PHARAOH_BEST_BACK, PHARAOH_WORST_UP = 2, 1
CIVILIZATION_POINTS = (-5, 0, 0, 5, 10, 15)  # by number of markers, 0..5
MONUMENT_COLUMN_POINTS = (0, 1, 2, 3, 4, 5, 6, 10, 15)  # by distinct columns, 0..8
MONUMENT_BONUS = (0, 0, 0, 5, 10, 15)  # per column, by own markers in it, 0..5
THREE_SUNS_POINTS = 3
ANKH_PAIR_POINTS = 2
DISASTER_TRACK_LOSS = 2

# The rulebook the rules follow (000_7d410431a88d4e17.txt: © 2009 Rio Grande Games).
EDITIONS = ("2009",)
DEFAULT_EDITION = "2009"

DEFAULT_BOARD: dict[str, Any] = {
    # 8 columns, top to bottom; each holds every colour once, in a different order.
    "monument_columns": [
        ["red", "yellow", "green", "blue", "purple"],
        ["yellow", "green", "blue", "purple", "red"],
        ["green", "blue", "purple", "red", "yellow"],
        ["blue", "purple", "red", "yellow", "green"],
        ["purple", "red", "yellow", "green", "blue"],
        ["yellow", "red", "purple", "blue", "green"],
        ["blue", "green", "yellow", "red", "purple"],
        ["red", "purple", "blue", "green", "yellow"],
    ],
    # Markers one Civilization space holds; null means one fewer than there are players.
    "civilization_capacity": None,
    # Pharaoh and Nile tracks run from space 0 to this space.
    "track_top": 12,
    # Ra starts on start[players] and the epoch ends when it reaches last_space.
    # Measured so that an epoch lasts about five turns per player (see measure.py).
    "sun_track": {"last_space": 16, "start": {"2": 8, "3": 4, "4": 0}},
}


@dataclass(frozen=True)
class Board:
    """The resolved board for one player count (hot-path friendly ints and tuples)."""

    options: dict[str, Any]  # the full, validated ``board`` options (JSON)
    edition: str | None  # None: a record from before editions
    row_of: tuple[tuple[int, ...], ...]  # row_of[column][colour] -> row, for display
    colour_at: tuple[tuple[int, ...], ...]  # colour_at[column][row] -> colour
    civilization_capacity: int
    track_top: int
    ra_start: int
    ra_end: int

    @property
    def game_options(self) -> dict[str, Any]:
        """The game's full options as records and observations carry them."""
        board = copy.deepcopy(self.options)
        return {"board": board} if self.edition is None else \
            {"edition": self.edition, "board": board}

    @property
    def score_floor(self) -> bool:
        """Records from before editions floored scores at 0; the book has no floor."""
        return self.edition is None

    @property
    def ties_shared(self) -> bool:
        """Equal scores share a place (the book: "The player with the most points wins").
        Records from before editions ranked the earlier seat ahead."""
        return self.edition is not None


def _fail(message: str) -> GameOptionError:
    return GameOptionError(f"Ra: The Dice Game option {message}")


def _int_in(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(f"board.{name} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _columns(value: Any) -> list[list[str]]:
    if not isinstance(value, list) or len(value) != NUM_COLUMNS:
        raise _fail(f"board.monument_columns must be a list of {NUM_COLUMNS} columns")
    for index, column in enumerate(value):
        if not isinstance(column, list) or sorted(map(str, column)) != sorted(COLOURS):
            raise _fail(
                f"board.monument_columns[{index}] must list each of {', '.join(COLOURS)} "
                f"exactly once, not {column!r}"
            )
    if len({tuple(column) for column in value}) != NUM_COLUMNS:
        raise _fail("board.monument_columns must give every column a different order")
    return [list(column) for column in value]


def _sun_track(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or set(value) != {"last_space", "start"}:
        raise _fail('board.sun_track must be {"last_space": N, "start": {"2": N, "3": N, "4": N}}')
    last = _int_in(value["last_space"], "sun_track.last_space", 1, 100)
    start = value["start"]
    wanted = {str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    if not isinstance(start, Mapping) or set(start) != wanted:
        raise _fail('board.sun_track.start must map "2", "3" and "4" to a start space')
    starts = {
        key: _int_in(start[key], f"sun_track.start.{key}", 0, last - 1) for key in sorted(wanted)
    }
    return {"last_space": last, "start": starts}


def resolve_board(
    options: Mapping[str, Any] | None, num_players: int, *, before_editions: bool = False
) -> Board:
    """Validate ``options`` (``None`` or ``{"edition": ..., "board": {...}}``) for
    ``num_players``.  ``before_editions``: options of a record from before editions."""
    if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise GameOptionError(
            f"Ra: The Dice Game is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {num_players!r}"
        )
    options = options or {}
    if not isinstance(options, Mapping):
        raise _fail(f"must be a table of 'edition' and 'board', not {options!r}")
    unknown = set(options) - {"board", "edition"}
    if unknown:
        raise _fail(f"keys must be 'edition' and 'board', not {sorted(map(str, unknown))}")
    edition: str | None = None
    if not before_editions:
        edition = options.get("edition", DEFAULT_EDITION)
        if edition not in EDITIONS:
            raise _fail(f"edition must be {' or '.join(map(repr, EDITIONS))}, not {edition!r}")
    given = options.get("board")
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise _fail("'board' must be an object")
    unknown = set(given) - set(DEFAULT_BOARD)
    if unknown:
        raise _fail(f"board has unknown keys {sorted(map(str, unknown))}; "
                    f"known: {', '.join(DEFAULT_BOARD)}")
    merged = copy.deepcopy(DEFAULT_BOARD)
    merged.update(copy.deepcopy(dict(given)))
    columns = _columns(merged["monument_columns"])
    capacity = merged["civilization_capacity"]
    if capacity is not None:
        _int_in(capacity, "civilization_capacity", 1, MAX_PLAYERS)
    top = _int_in(merged["track_top"], "track_top", 1, 100)
    sun = _sun_track(merged["sun_track"])
    board = {
        "monument_columns": columns,
        "civilization_capacity": capacity,
        "track_top": top,
        "sun_track": sun,
    }
    colour_at = tuple(tuple(COLOURS.index(name) for name in column) for column in columns)
    row_of = tuple(
        tuple(column.index(colour) for colour in range(NUM_DICE)) for column in colour_at
    )
    return Board(
        options=board,
        edition=edition,
        row_of=row_of,
        colour_at=colour_at,
        civilization_capacity=num_players - 1 if capacity is None else capacity,
        track_top=top,
        ra_start=sun["start"][str(num_players)],
        ra_end=sun["last_space"],
    )
