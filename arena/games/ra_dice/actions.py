"""The integer encoding of every decision, and which dice each application uses.

Ranges never overlap, so an action number means the same thing in every phase:

=============  ===========================================================
0              stop rolling
1..31          reroll these dice (bit i = die i; only dice not showing a Sun)
32..36         disaster: none, pharaoh, nile, civilization, monument
40             done applying dice (unused Ankh pairs score 2 each)
41 + a         Pharaoh: every unused Pharaoh die plus ``a`` Ankhs
46 + a         Nile advance: every unused Nile die plus ``a`` Ankhs
51 + a         flood: ``3 - a`` Nile dice plus ``a`` Ankhs (a = 0..2)
64 + mask      Civilization: one marker on each colour in ``mask``
100 + 8*s + p  Monument: a marker on space ``s = 5*column + colour``; partner
               ``p`` = 0 for the turn's first marker (no partner), 1 = an Ankh,
               2 + d = the Monument die of colour ``d``
500 + c        a disaster victim gives up its Civilization marker on colour ``c``
510 + s        a disaster victim gives up its Monument marker on space ``s``
=============  ===========================================================

The dice an application uses are fixed by the action (Ankhs are interchangeable: the
lowest-numbered free ones are taken), so :func:`dice_used` is the single source of truth
for both the engine and the descriptions bots see.
"""

from __future__ import annotations

from typing import Any

from arena.games.ra_dice.board import (
    ANKH,
    CIVILIZATION,
    COLOURS,
    NILE,
    NUM_DICE,
    PHARAOH,
    Board,
)

STOP = 0
REROLL_LAST = 31
DISASTER_BASE = 32
DISASTERS: tuple[str, ...] = ("none", "pharaoh", "nile", "civilization", "monument")
DISASTER_NONE, DISASTER_PHARAOH, DISASTER_NILE, DISASTER_CIVILIZATION, DISASTER_MONUMENT = (
    range(DISASTER_BASE, DISASTER_BASE + 5)
)
DONE = 40
PHARAOH_BASE = 41
NILE_BASE = 46
FLOOD_BASE = 51
CIVILIZATION_BASE = 64
MONUMENT_BASE = 100
MONUMENT_LAST = MONUMENT_BASE + 8 * 40 - 1
PARTNER_NONE, PARTNER_ANKH = 0, 1
LOSE_CIVILIZATION_BASE = 500
LOSE_MONUMENT_BASE = 510

# SUBMASKS[m]: every non-empty subset of m, ascending.
SUBMASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(1, 32) if s & m == s) for m in range(32)
)
POPCOUNT: tuple[int, ...] = tuple(bin(m).count("1") for m in range(32))
BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(NUM_DICE) if m >> i & 1) for m in range(32)
)


def free_dice(faces: list[int], used: int, face: int) -> list[int]:
    """Indices of the unused dice showing ``face``, ascending."""
    return [i for i in range(NUM_DICE) if faces[i] == face and not used >> i & 1]


def _first(dice: list[int], count: int) -> int:
    mask = 0
    for i in dice[:count]:
        mask |= 1 << i
    return mask


def dice_used(action: int, faces: list[int], used: int) -> int:
    """The mask of dice an application action uses (0 for anything else)."""
    if PHARAOH_BASE <= action < NILE_BASE:
        return _first(free_dice(faces, used, PHARAOH), 5) | _first(
            free_dice(faces, used, ANKH), action - PHARAOH_BASE
        )
    if NILE_BASE <= action < FLOOD_BASE:
        return _first(free_dice(faces, used, NILE), 5) | _first(
            free_dice(faces, used, ANKH), action - NILE_BASE
        )
    if FLOOD_BASE <= action < FLOOD_BASE + 3:
        ankhs = action - FLOOD_BASE
        return _first(free_dice(faces, used, NILE), 3 - ankhs) | _first(
            free_dice(faces, used, ANKH), ankhs
        )
    if CIVILIZATION_BASE < action < CIVILIZATION_BASE + 32:
        colours = action - CIVILIZATION_BASE
        spare = [i for i in free_dice(faces, used, CIVILIZATION) if not colours >> i & 1]
        # spare real Civilization dice go first: an Ankh has other uses
        spare += free_dice(faces, used, ANKH)
        return colours | _first(spare, 2)
    if MONUMENT_BASE <= action <= MONUMENT_LAST:
        space, partner = divmod(action - MONUMENT_BASE, 8)
        mask = 1 << space % 5
        if partner == PARTNER_ANKH:
            mask |= _first(free_dice(faces, used, ANKH), 1)
        elif partner >= 2:
            mask |= 1 << (partner - 2)
        return mask
    return 0


def colour_names(mask: int) -> list[str]:
    return [COLOURS[i] for i in BITS[mask]]


def describe(action: int, faces: list[int], used: int, board: Board) -> dict[str, Any]:
    """The self-explaining JSON of ``action`` given the dice (see the module table)."""
    if action == STOP:
        return {"type": "stop"}
    if 0 < action <= REROLL_LAST:
        return {"type": "reroll", "dice": colour_names(action)}
    if DISASTER_BASE <= action < DISASTER_BASE + 5:
        return {"type": "disaster", "what": DISASTERS[action - DISASTER_BASE]}
    if action == DONE:
        ankhs = len(free_dice(faces, used, ANKH))
        return {"type": "done", "ankh_pair_points": ankhs // 2 * 2}
    dice = dice_used(action, faces, used)
    used_json = {"dice": colour_names(dice)}
    if PHARAOH_BASE <= action < NILE_BASE:
        return {"type": "apply", "what": "pharaoh", "spaces": POPCOUNT[dice], **used_json}
    if NILE_BASE <= action < FLOOD_BASE:
        return {"type": "apply", "what": "nile", "spaces": POPCOUNT[dice], **used_json}
    if FLOOD_BASE <= action < FLOOD_BASE + 3:
        return {"type": "apply", "what": "flood", **used_json}
    if CIVILIZATION_BASE < action < CIVILIZATION_BASE + 32:
        colours = colour_names(action - CIVILIZATION_BASE)
        return {"type": "apply", "what": "civilization", "colours": colours, **used_json}
    if MONUMENT_BASE <= action <= MONUMENT_LAST:
        space = (action - MONUMENT_BASE) // 8
        return {"type": "apply", "what": "monument", **space_json(space, board), **used_json}
    if LOSE_CIVILIZATION_BASE <= action < LOSE_CIVILIZATION_BASE + 5:
        colour = COLOURS[action - LOSE_CIVILIZATION_BASE]
        return {"type": "lose", "what": "civilization", "colour": colour}
    if LOSE_MONUMENT_BASE <= action < LOSE_MONUMENT_BASE + 40:
        space = action - LOSE_MONUMENT_BASE
        return {"type": "lose", "what": "monument", **space_json(space, board)}
    raise ValueError(f"no such action {action}")


def space_json(space: int, board: Board) -> dict[str, Any]:
    """A Monument space as JSON: 0-based column and row, and its colour."""
    column, colour = divmod(space, 5)
    return {"column": column, "row": board.row_of[column][colour], "colour": COLOURS[colour]}

