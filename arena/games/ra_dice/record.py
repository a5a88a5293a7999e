"""Everything JSON about a state: observations, the saved state and the game record.

The engine logs events as compact lists on the hot path; :func:`events_json` turns them
into the self-explaining dicts of the record (its ``events``, documented in
``docs/rules-ra-dice.md``):

- ``roll``: a roll (``roll`` 1 is the first of the turn) and the five dice after it
- ``move``: a decision, with its actor, action number and description
- ``sun``: what the Sun dice did (``ra`` advance, 3 ``points`` or a ``disaster`` choice)
- ``disaster_hit``: a track marker or flood marker a victim lost without a choice
- ``marker_lost``: a Civilization/Monument marker taken without a choice
- ``ankh_pairs``: the points for unused Ankh pairs at the end of a turn
- ``epoch_scored``: the points of each category per seat and the scores after
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from arena.games.base import GameError
from arena.games.ra_dice import actions as A
from arena.games.ra_dice.board import (
    COLOURS,
    FACES,
    NUM_COLUMNS,
    NUM_DICE,
    REROLLS,
    resolve_board,
)
from arena.games.ra_dice.dice import DiceRoller
from arena.games.ra_dice.state import EMPTY, PHASES, ROLL, VICTIM, RaDiceState

GAME_NAME = "ra_dice"
STATE_VERSION = 1


def dice_json(faces: list[int], used: int = 0) -> list[dict[str, Any]]:
    return [
        {"colour": COLOURS[i], "face": FACES[faces[i]], "used": bool(used >> i & 1)}
        for i in range(NUM_DICE)
    ]


def observation(state: RaDiceState, seat: int) -> dict[str, Any]:
    """All public information (everything but the future dice), from ``seat``'s view."""
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise GameError(f"no seat {seat!r} in a {state.num_players}-player game")
    board = state.board
    victim = None
    if state.phase == VICTIM:
        who, disaster, left = state.victims[0]
        victim = {"seat": who, "what": A.DISASTERS[disaster - A.DISASTER_BASE],
                  "markers_to_lose": left}
    return {
        "game": GAME_NAME,
        "seat": seat,
        "num_players": state.num_players,
        "edition": board.edition,
        "phase": PHASES[state.phase],
        "current_player": state.current_player(),
        "turn_player": state.player,
        "epoch": state.epoch,
        "dice": dice_json(state.faces, state.used),
        "rerolls_left": REROLLS + 1 - state.rolls if state.phase == ROLL else 0,
        "monuments_placed_this_turn": state.placed_monuments,
        "disaster_victim": victim,
        "ra": {"position": state.ra, "start": board.ra_start, "last_space": board.ra_end},
        "scores": list(state.scores),
        "pharaoh": list(state.pharaoh),
        "nile": list(state.nile),
        "floods": list(state.floods),
        "civilization": {
            COLOURS[c]: [s for s in range(state.num_players) if state.civilization[c] >> s & 1]
            for c in range(NUM_DICE)
        },
        "civilization_capacity": board.civilization_capacity,
        # monuments[column][row]: the seat owning that space, or null
        "monuments": [
            [_owner(state.monuments[5 * column + board.colour_at[column][row]])
             for row in range(NUM_DICE)]
            for column in range(NUM_COLUMNS)
        ],
        "board": copy.deepcopy(board.options),
    }


def _owner(seat: int) -> int | None:
    return None if seat == EMPTY else seat


def state_to_json(state: RaDiceState) -> dict[str, Any]:
    return {
        "game": GAME_NAME,
        "version": STATE_VERSION,
        "num_players": state.num_players,
        "seed": state.seed,
        "options": state.board.game_options,
        "dice_counter": state.dice.counter,
        "scores": list(state.scores),
        "pharaoh": list(state.pharaoh),
        "nile": list(state.nile),
        "floods": list(state.floods),
        "civilization": list(state.civilization),
        "monuments": list(state.monuments),
        "ra": state.ra,
        "epoch": state.epoch,
        "player": state.player,
        "phase": PHASES[state.phase],
        "faces": list(state.faces),
        "rolls": state.rolls,
        "used": state.used,
        "placed_monuments": state.placed_monuments,
        "victims": [list(victim) for victim in state.victims],
        "events": [list(event) for event in state.events],
    }


def state_from_json(data: Mapping[str, Any]) -> RaDiceState:
    try:
        if data["game"] != GAME_NAME or data["version"] != STATE_VERSION:
            raise GameError(f"not a version-{STATE_VERSION} {GAME_NAME} state")
        num_players = data["num_players"]
        options = data["options"]
        board = resolve_board(options, num_players, before_editions="edition" not in options)
        state = RaDiceState(board, num_players, data["seed"])
        state.dice = DiceRoller(data["seed"], int(data["dice_counter"]))
        for name in ("scores", "pharaoh", "nile", "floods", "civilization", "monuments",
                     "faces"):
            setattr(state, name, [int(value) for value in data[name]])
        for name in ("ra", "epoch", "player", "rolls", "used", "placed_monuments"):
            setattr(state, name, int(data[name]))
        state.phase = PHASES.index(data["phase"])
        state.victims = [[int(value) for value in victim] for victim in data["victims"]]
        state.events = [list(event) for event in data["events"]]
    except (KeyError, TypeError, ValueError) as error:
        raise GameError(f"not a valid {GAME_NAME} state: {error!r}") from None
    # derived counts, rebuilt rather than trusted
    seats = range(num_players)
    state.civilization_markers = [
        sum(1 for mask in state.civilization if mask >> seat & 1) for seat in seats
    ]
    state.monument_markers = [state.monuments.count(seat) for seat in seats]
    state.monument_columns = [
        sum(1 << column for column in range(NUM_COLUMNS)
            if seat in state.monuments[5 * column : 5 * column + 5])
        for seat in seats
    ]
    return state


def events_json(state: RaDiceState) -> list[dict[str, Any]]:
    """The engine's event log as self-explaining dicts (see the module docstring)."""
    board = state.board
    faces = [0] * NUM_DICE
    out: list[dict[str, Any]] = []
    for event in state.events:
        kind = event[0]
        if kind == "roll":
            _, seat, dice, number, *faces = event
            out.append({"type": "roll", "seat": seat, "roll": number,
                        "rerolled": A.colour_names(dice),
                        "dice": {COLOURS[i]: FACES[faces[i]] for i in range(NUM_DICE)}})
        elif kind == "act":
            _, seat, action, used = event
            out.append({"type": "move", "seat": seat, "action": action,
                        "move": A.describe(action, faces, used, board)})
        elif kind == "sun":
            _, seat, suns, ra, score = event
            effect = "ra" if suns <= 2 else "points" if suns == 3 else "disaster"
            out.append({"type": "sun", "seat": seat, "suns": suns, "effect": effect,
                        "ra": ra, "score": score})
        elif kind == "hit":
            _, seat, what, now = event
            out.append({"type": "disaster_hit", "seat": seat, "what": what, "now": now})
        elif kind == "lost":
            _, seat, action = event
            out.append({"type": "marker_lost", "seat": seat,
                        **{k: v for k, v in A.describe(action, faces, 0, board).items()
                           if k != "type"}})
        elif kind == "ankhs":
            _, seat, points, score = event
            out.append({"type": "ankh_pairs", "seat": seat, "points": points, "score": score})
        elif kind == "epoch":
            _, epoch, ender, pharaoh, nile, civilization, monuments, scores = event
            points = {"pharaoh": pharaoh, "nile": nile, "civilization": civilization}
            if monuments is not None:
                points["monuments"] = monuments
            out.append({"type": "epoch_scored", "epoch": epoch, "ended_by": ender,
                        "points": points, "scores": scores})
    return out


def build_record(state: RaDiceState) -> dict[str, Any]:
    events = events_json(state)
    over = state.is_terminal()
    return {
        "game": GAME_NAME,
        "seed": state.seed,
        "num_players": state.num_players,
        "options": state.board.game_options,
        "actions": [{"seat": e["seat"], "action": e["action"], "move": e["move"]}
                    for e in events if e["type"] == "move"],
        "events": events,
        "epochs": [e for e in events if e["type"] == "epoch_scored"],
        "final_scores": list(state.scores) if over else None,
        "placements": state.placements() if over else None,
    }
