"""The Ra observation built the plain way, from scratch, as it was before the caches in
``arena/games/ra/jsonio.py``: what ``state.observation(seat)`` must equal
(tests/games/ra/test_ra_observation_cache.py) and what it is timed against
(observation_timing.py).  Kept plain on purpose, outside the package."""

from __future__ import annotations

from typing import Any

from arena.games.base import GameError
from arena.games.ra.jsonio import DISASTER_AFTER_NAMES, _bid_json, bag_counts, tile_counts
from arena.games.ra.state import RaState
from arena.games.ra.tiles import (
    AUCTION,
    AUCTION_KIND_NAMES,
    DISASTER,
    PHASE_NAMES,
    RA_INVOKED,
    TILE_NAMES,
)


def observation_reference(state: RaState, seat: int) -> dict[str, Any]:
    """``observation`` built from scratch, without the caches (module docstring)."""
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise GameError(f"seat must be 0..{state.num_players - 1}, not {seat!r}")
    phase = state.phase
    auction = None
    if phase == AUCTION:
        auction = {
            "kind": AUCTION_KIND_NAMES[state.kind],
            "high_bid": state.high,
            "high_bidder": state.high_bidder if state.high_bidder >= 0 else None,
            "bids": [_bid_json(s, sun) for s, sun in state.bids],
            "to_bid": state.queue[state.queue_index :],
            # the Ra player who invoked Ra must bid if everybody else passed
            "ra_must_bid": state.kind == RA_INVOKED and state.high == 0,
        }
    disaster = None
    if phase == DISASTER:
        disaster = {
            "seat": state.dis_seat,
            "disaster": TILE_NAMES[state.dis_current],
            "to_lose": state.dis_left,
            "then": [TILE_NAMES[d] for d in reversed(state.dis_pending)],
            "after": DISASTER_AFTER_NAMES[state.dis_after],
        }
    bag = bag_counts(state)
    return {
        "game": "ra",
        "seat": seat,
        "num_players": state.num_players,
        "edition": state.rules.edition,
        "epoch": state.epoch,
        "phase": PHASE_NAMES[phase],
        "current_player": state.cur,
        "ra_player": state.ra_player if state.ra_player >= 0 else None,
        "ra_track": state.ra_count,
        "ra_track_length": state.ra_limit,
        "auction_track": [TILE_NAMES[t] for t in state.track],
        "center_sun": state.center,
        "players": [
            {
                "seat": p,
                "suns": state.up[p][:],
                "used_suns": sorted(state.down[p]),
                "score": state.scores[p],
                "tiles": tile_counts(state.hold[p]),
            }
            for p in range(state.num_players)
        ],
        "auction": auction,
        "disaster": disaster,
        "disasters_waiting": [TILE_NAMES[d] for d in state.god_disasters],
        "bag": tile_counts(bag, keep_zeros=True),
        "bag_size": len(state.bag),
    }


