"""A cheap default policy for MCTS rollouts: plausible Ra play at a few µs per decision
(and a few ns in the compiled Ra core, which has the same policy in C, drawing the same
random numbers: ``Core.roll_out`` and ``paired_playout`` in ``_core.pyx``).

Far weaker than greedy, but much better than uniform random (which bids its highest suns
on empty lots and never lets a lot grow), and random enough that rollouts explore.
"""

from __future__ import annotations

import random

from arena.games.ra.state import RaStateViews
from arena.games.ra.tiles import (
    AUCTION,
    BID_BASE,
    DRAW,
    END_TURN,
    GOD_BASE,
    GOD_FOLLOW_UP,
    INVOKE_RA,
    PASS,
    TURN,
)

# A rough worth of each tile type in a lot (ra, god, gold, pharaoh, nile, flood,
# 5 civilizations, 8 monuments, 4 disasters).
QUICK_VALUE = (
    0.0, 2.0, 3.0, 2.0, 1.0, 2.0,
    2.0, 2.0, 2.0, 2.0, 2.0,
    1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5,
    -3.0, -3.0, -3.0, -3.0,
)  # fmt: skip


def lot_value(state: RaStateViews) -> float:
    value = state.center * 0.15
    for tile in state.track:
        value += QUICK_VALUE[tile]
    return value


def rollout_action(state: RaStateViews, rng: random.Random) -> int:
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    phase = state.phase
    if phase == AUCTION:
        must_bid = legal[-1] != PASS
        if must_bid or lot_value(state) >= 3.0 + 5.0 * rng.random():
            bids = legal if must_bid else legal[:-1]
            # usually the cheapest sun; sometimes a higher one to make sure of a big lot
            return bids[0] if rng.random() < 0.7 else bids[rng.randrange(len(bids))]
        return PASS
    if phase == TURN:
        if legal[-1] >= GOD_BASE and rng.random() < 0.3:
            take = _best_take(state, legal)
            if take >= 0:
                return take
        if DRAW not in legal or lot_value(state) >= 4.0 + 6.0 * rng.random():
            return INVOKE_RA
        return DRAW
    if phase == GOD_FOLLOW_UP:
        take = _best_take(state, legal)
        return take if take >= 0 else END_TURN
    return legal[rng.randrange(len(legal))]  # a disaster's choice


def _best_take(state: RaStateViews, legal: list[int]) -> int:
    """The god take of the most valuable tile, if one is worth a god (else -1)."""
    best, best_value = -1, 2.5
    track = state.track
    for action in legal:
        if GOD_BASE <= action < BID_BASE:
            value = QUICK_VALUE[track[action - GOD_BASE]]
            if value > best_value:
                best, best_value = action, value
    return best
