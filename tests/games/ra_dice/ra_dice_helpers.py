"""Test helpers for Ra: The Dice Game: scripted dice, board set-up and readable moves.

Dice are written as letters, one per die rolled, in die order red, yellow, green, blue,
purple: S sun, P pharaoh, N nile, C civilization, M monument, A ankh.  A reroll lists only
the dice rerolled, e.g. after rerolling red and blue, "NN" makes both show a Nile.  Once
the script is used up every die shows a Pharaoh, so later turns need no script.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from arena.games.ra_dice.board import COLOURS, resolve_board
from arena.games.ra_dice.state import RaDiceState

LETTERS = "SPNCMA"


class ScriptedDice:
    """Stands in for the engine's DiceRoller: each roll shows the next scripted faces."""

    def __init__(self, rolls: Iterable[str]) -> None:
        self.rolls = list(rolls)
        self.counter = 0

    def roll(self, faces: list[int], dice: tuple[int, ...]) -> None:
        script = self.rolls.pop(0) if self.rolls else "P" * len(dice)
        assert len(script) == len(dice), f"roll {script!r} scripted for {len(dice)} dice"
        self.counter += 1
        for die, letter in zip(dice, script, strict=True):
            faces[die] = LETTERS.index(letter)

    def clone(self) -> ScriptedDice:
        twin = ScriptedDice(self.rolls)
        twin.counter = self.counter
        return twin

    def more(self, *rolls: str) -> None:
        self.rolls.extend(rolls)


def make_state(
    num_players: int,
    *rolls: str,
    setup: Callable[[RaDiceState], None] | None = None,
    options: Mapping[str, Any] | None = None,
    before_editions: bool = False,
) -> RaDiceState:
    """A new game whose dice show ``rolls``; ``setup`` arranges the board before the
    first roll; ``before_editions``: the rules of records from before editions."""
    board = resolve_board(options, num_players, before_editions=before_editions)
    state = RaDiceState(board, num_players, seed=0)
    state.dice = ScriptedDice(rolls)  # type: ignore[assignment]
    if setup is not None:
        setup(state)
    state._start_turn()
    return state


def script(state: RaDiceState, *rolls: str) -> None:
    """Queue more dice rolls."""
    state.dice.more(*rolls)  # type: ignore[attr-defined]


def put_monument(state: RaDiceState, seat: int, column: int, colour: str) -> None:
    space = 5 * column + COLOURS.index(colour)
    assert state.monuments[space] == -1
    state.monuments[space] = seat
    state.monument_markers[seat] += 1
    state.monument_columns[seat] |= 1 << column


def put_civilization(state: RaDiceState, seat: int, colour: str) -> None:
    state.civilization[COLOURS.index(colour)] |= 1 << seat
    state.civilization_markers[seat] += 1


def moves(state: RaDiceState) -> list[dict[str, Any]]:
    """The JSON of every legal action, in order."""
    return [state.action_to_json(action) for action in state.legal_actions()]


def matching(state: RaDiceState, **fields: Any) -> list[int]:
    return [
        action
        for action in state.legal_actions()
        if all(state.action_to_json(action).get(k) == v for k, v in fields.items())
    ]


def play(state: RaDiceState, **fields: Any) -> None:
    """Play the one legal action whose JSON has ``fields``; fail if none or several."""
    found = matching(state, **fields)
    assert len(found) == 1, f"{len(found)} legal actions match {fields}: {moves(state)}"
    state.apply_action(found[0])


def stop(state: RaDiceState) -> None:
    play(state, type="stop")


def done(state: RaDiceState) -> None:
    play(state, type="done")
