"""Full states consistent with a public observation, for search bots (e.g. MCTS).

Ra hides only the order of the bag, so a determinisation copies every public fact from
the observation and draws the bag's future from a fresh RNG seeded by the caller.  The
result plays like any state but has no history: its record starts at the observation.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import GameError
from arena.games.ra.editions import DEFAULT_EDITION, full_options
from arena.games.ra.game import blank_state
from arena.games.ra.jsonio import DISASTER_AFTER_NAMES, tile_type
from arena.games.ra.state import RaState
from arena.games.ra.tiles import (
    AUCTION_KIND_NAMES,
    NUM_TILE_TYPES,
    PHASE_NAMES,
    RA,
    TILE_COUNTS,
    TILE_NAMES,
)


def determinize(observation: Mapping[str, Any], seat: int, seed: int) -> RaState:
    """A state whose ``observation(seat)`` equals ``observation``, with the bag's hidden
    order drawn from ``seed``."""
    try:
        return _determinize(observation, seat, seed)
    except (KeyError, TypeError, ValueError, IndexError, StopIteration) as error:
        raise GameError(f"not a Ra observation: {error!r}") from None


def _determinize(obs: Mapping[str, Any], seat: int, seed: int) -> RaState:
    if obs.get("game") != "ra":
        raise GameError('not a Ra observation (no "game": "ra")')
    if obs["seat"] != seat:
        raise GameError(f"the observation is for seat {obs['seat']}, not {seat}")
    n = int(obs["num_players"])
    players = obs["players"]
    bag = [t for t in range(NUM_TILE_TYPES) for _ in range(int(obs["bag"][TILE_NAMES[t]]))]
    # an observation of a game from before editions says null: the rules of then
    edition = obs.get("edition", DEFAULT_EDITION)
    options = {} if edition is None else full_options({"edition": edition})
    suns = [list(p["suns"]) for p in players]
    state = blank_state(n, suns, None, random.Random(seed), bag, options)
    state.down = [list(p["used_suns"]) for p in players]
    state.initial_suns = [sorted(u + d) for u, d in zip(state.up, state.down, strict=True)]
    state.scores = [int(p["score"]) for p in players]
    for p, player in enumerate(players):
        for name, count in player["tiles"].items():
            state.hold[p][tile_type(name)] = int(count)
    state.epoch = int(obs["epoch"])
    state.phase = PHASE_NAMES.index(obs["phase"])
    state.cur = int(obs["current_player"])
    state.first_player = state.cur
    state.ra_player = -1 if obs["ra_player"] is None else int(obs["ra_player"])
    state.ra_count = int(obs["ra_track"])
    state.track = [tile_type(name) for name in obs["auction_track"]]
    state.center = int(obs["center_sun"])
    auction = obs["auction"]
    if auction is not None:
        state.kind = AUCTION_KIND_NAMES.index(auction["kind"])
        state.high = int(auction["high_bid"])
        state.high_bidder = -1 if auction["high_bidder"] is None else int(auction["high_bidder"])
        state.bids = [
            (b["seat"], b["sun"] if b["sun"] is not None else (0 if b["could_bid"] else -1))
            for b in auction["bids"]
        ]
        state.queue = [s for s, _ in state.bids] + list(auction["to_bid"])
        state.queue_index = len(state.bids)
    disaster = obs["disaster"]
    if disaster is not None:
        state.dis_seat = int(disaster["seat"])
        state.dis_current = tile_type(disaster["disaster"])
        state.dis_left = int(disaster["to_lose"])
        state.dis_pending = [tile_type(name) for name in reversed(disaster["then"])]
        after = disaster["after"]
        state.dis_after = next(k for k, name in DISASTER_AFTER_NAMES.items() if name == after)
    state.god_disasters = [tile_type(name) for name in obs.get("disasters_waiting", [])]
    # Whatever is neither in the bag nor in play has left the game.
    box = list(TILE_COUNTS)
    for tile in state.bag + state.track + state.dis_pending + state.god_disasters:
        box[tile] -= 1
    box[RA] -= state.ra_count
    for hold in state.hold:
        for tile in range(NUM_TILE_TYPES):
            box[tile] -= hold[tile]
    if min(box) < 0:
        raise GameError("the observation holds more tiles than the game has")
    state.box = box
    return state
