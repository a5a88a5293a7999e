"""Ra states, actions and records as JSON (see docs/ra-json.md).  Off the hot path."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.games.base import GameError, GameOptionError
from arena.games.ra.editions import full_options, rules_of
from arena.games.ra.tiles import (
    AUCTION,
    AUCTION_KIND_NAMES,
    BID_BASE,
    CATEGORIES,
    DISASTER,
    DISCARD_BASE,
    DRAW,
    END_TURN,
    GOD_BASE,
    GOD_FOLLOW_UP,
    INVOKE_RA,
    NUM_TILE_TYPES,
    OVER,
    PASS,
    PHASE_NAMES,
    RA,
    RA_INVOKED,
    TILE_BY_NAME,
    TILE_COUNTS,
    TILE_NAMES,
    TURN,
)

if TYPE_CHECKING:
    from arena.games.ra.state import RaState, RaStateViews

FORMAT = 1  # version of the to_json layout (later keys are optional, so still 1)

# What follows the disasters being resolved (``state.dis_after``: TURN, GOD_FOLLOW_UP or
# AUCTION): the turn passes (the disasters of the turn's god takes, classic edition), the
# god follow-up, or the turn after the auction.
DISASTER_AFTER_NAMES = {TURN: "turn_end", GOD_FOLLOW_UP: "god", AUCTION: "auction"}


def action_json(action: int, extra: int = -1) -> dict[str, Any]:
    """The JSON of an action; ``extra`` is the tile a god takes or the disaster a
    discard answers."""
    if action == DRAW:
        return {"type": "draw"}
    if action == INVOKE_RA:
        return {"type": "invoke_ra"}
    if GOD_BASE <= action < BID_BASE:
        return {"type": "god", "slot": action - GOD_BASE, "tile": TILE_NAMES[extra]}
    if action == PASS:
        return {"type": "pass"}
    if action == END_TURN:
        return {"type": "end_turn"}
    if BID_BASE < action < PASS:
        return {"type": "bid", "sun": action - BID_BASE}
    if DISCARD_BASE <= action < DISCARD_BASE + NUM_TILE_TYPES:
        return {
            "type": "discard",
            "tile": TILE_NAMES[action - DISCARD_BASE],
            "disaster": TILE_NAMES[extra],
        }
    raise GameError(f"{action!r} is not a Ra action")


def tile_counts(counts: list[int], keep_zeros: bool = False) -> dict[str, int]:
    # zip rather than indexing by enumerate: a third faster, and built every decision
    if keep_zeros:
        return dict(zip(TILE_NAMES, counts, strict=True))
    return {name: count for name, count in zip(TILE_NAMES, counts, strict=True) if count}


def bag_counts(state: RaStateViews) -> list[int]:
    counts = [0] * NUM_TILE_TYPES
    for tile in state.bag:
        counts[tile] += 1
    return counts


def observation(state: RaStateViews, seat: int) -> dict[str, Any]:
    """All public information, for ``seat``: never the bag's order.

    Built for every decision, so the slow parts are cached in the state across
    decisions: the bag's counts by name (kept up by each draw) and each player's tiles
    and used suns (rebuilt when that player's holding or used suns differ from the
    snapshot they were built from).  The caches are private: every call returns fresh
    dicts and lists, which the caller may change at will without touching the state or
    the next observation.  Equal to the plain reference in
    ``tests/games/ra/observation_reference.py``."""
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise GameError(f"seat must be 0..{state.num_players - 1}, not {seat!r}")
    phase = state.phase
    auction = None
    if phase == AUCTION:
        high = state.high
        high_bidder = state.high_bidder
        auction = {
            "kind": AUCTION_KIND_NAMES[state.kind],
            "high_bid": high,
            "high_bidder": high_bidder if high_bidder >= 0 else None,
            "bids": [_bid_json(s, sun) for s, sun in state.bids],
            "to_bid": state.queue[state.queue_index :],
            # the Ra player who invoked Ra must bid if everybody else passed
            "ra_must_bid": state.kind == RA_INVOKED and high == 0,
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
    bag_names, bag_size = state._observed_bag()
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
        "players": _players_json(state),
        "auction": auction,
        "disaster": disaster,
        "disasters_waiting": [TILE_NAMES[d] for d in state.god_disasters],
        "bag": bag_names.copy(),
        "bag_size": bag_size,
    }


def observed_bag(state: RaState) -> tuple[dict[str, int], int]:
    """The bag's counts by tile name (cached: the caller copies them) and its size, for
    the observation of a pure state: counted once per bag, then kept up by each draw."""
    bag = state.bag
    bag_names = state._obs_bag
    if bag_names is None or state._obs_bag_of is not bag or state._obs_bag_len != len(bag):
        # a new state or bag (or one changed outside _draw): count once; draws keep it up
        bag_names = state._obs_bag = tile_counts(bag_counts(state), keep_zeros=True)
        state._obs_bag_of = bag
        state._obs_bag_len = len(bag)
    return bag_names, len(bag)


def _players_json(state: RaStateViews) -> list[dict[str, Any]]:
    """The players' part of the observation, fresh, from ``state._obs_players``: per
    seat (holding, its tiles by name, used suns, sorted), replaced when the holding or the
    used suns are no longer equal.  A cache entry is never changed once built, nor handed
    out (only copies), so clones may share the tuple."""
    cache = state._obs_players
    if cache is None or len(cache) != state.num_players:
        cache = (None,) * state.num_players
    fresh = None
    players = []
    up, scores = state.up, state.scores
    for seat, (hold, down) in enumerate(zip(state.hold, state.down, strict=True)):
        entry = cache[seat]
        if entry is None or entry[0] != hold or entry[2] != down:
            entry = (hold[:], tile_counts(hold), down[:], sorted(down))
            if fresh is None:
                fresh = list(cache)
            fresh[seat] = entry
        players.append(
            {
                "seat": seat,
                "suns": up[seat][:],
                "used_suns": entry[3][:],
                "score": scores[seat],
                "tiles": entry[1].copy(),
            }
        )
    if fresh is not None:
        state._obs_players = tuple(fresh)
    return players


def _bid_json(seat: int, sun: int) -> dict[str, Any]:
    if sun > 0:
        return {"seat": seat, "sun": sun}
    return {"seat": seat, "sun": None, "could_bid": sun == 0}


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively (events are tuples in play, lists in JSON)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def state_to_json(state: RaStateViews) -> dict[str, Any]:
    version, internal, gauss = state.rng.getstate()
    return {
        "game": "ra",
        "format": FORMAT,
        "num_players": state.num_players,
        "seed": state.seed,
        "options": dict(state.options),
        "epoch": state.epoch,
        "phase": PHASE_NAMES[state.phase],
        "current_player": state.cur,
        "suns": [s[:] for s in state.up],
        "used_suns": [s[:] for s in state.down],
        "holdings": [h[:] for h in state.hold],
        "scores": state.scores[:],
        "center_sun": state.center,
        "ra_track": state.ra_count,
        "ra_track_length": state.ra_limit,
        "auction_track": state.track[:],
        "box": state.box[:],
        "bag": state.bag[:],
        "stacked": state.stacked[:],
        "rng": [version, list(internal), gauss],
        "ra_player": state.ra_player,
        "auction": {
            "kind": state.kind,
            "high": state.high,
            "high_bidder": state.high_bidder,
            "queue": state.queue[:],
            "queue_index": state.queue_index,
            "bids": _plain(state.bids),
        },
        "disaster": {
            "seat": state.dis_seat,
            "pending": state.dis_pending[:],
            "current": state.dis_current,
            "left": state.dis_left,
            "after": state.dis_after,
        },
        "disasters_waiting": state.god_disasters[:],
        "initial_suns": [s[:] for s in state.initial_suns],
        "first_player": state.first_player,
        "history": _plain(state.history),
        "events": _plain(state.events),
        "tile_types": list(TILE_NAMES),  # the meaning of the tile ints above
    }


def state_from_json(data: Mapping[str, Any]) -> RaState:
    from arena.games.ra.state import RaState

    if not isinstance(data, Mapping) or data.get("game") != "ra":
        raise GameError("not a saved Ra state (no \"game\": \"ra\")")
    if data.get("format") != FORMAT:
        raise GameError(f"saved Ra state has format {data.get('format')!r}; expected {FORMAT}")
    try:
        state = RaState.__new__(RaState)
        state.num_players = int(data["num_players"])
        state.seed = data["seed"]
        options = dict(data["options"])
        # saved before editions existed: {} keeps the rules of then
        state.options = full_options(options) if options else {}
        state.rules = rules_of(state.options)
        state.epoch = int(data["epoch"])
        state.phase = PHASE_NAMES.index(data["phase"])
        state.cur = int(data["current_player"])
        state.up = [[int(s) for s in suns] for suns in data["suns"]]
        state.down = [[int(s) for s in suns] for suns in data["used_suns"]]
        state.hold = [[int(c) for c in h] for h in data["holdings"]]
        state.scores = [int(s) for s in data["scores"]]
        state.center = int(data["center_sun"])
        state.ra_count = int(data["ra_track"])
        state.ra_limit = int(data["ra_track_length"])
        state.track = [int(t) for t in data["auction_track"]]
        state.box = [int(c) for c in data["box"]]
        state.bag = [int(t) for t in data["bag"]]
        state.stacked = [int(t) for t in data["stacked"]]
        version, internal, gauss = data["rng"]
        state.rng = random.Random()
        state.rng.setstate((version, tuple(internal), gauss))
        state.ra_player = int(data["ra_player"])
        auction = data["auction"]
        state.kind = int(auction["kind"])
        state.high = int(auction["high"])
        state.high_bidder = int(auction["high_bidder"])
        state.queue = [int(s) for s in auction["queue"]]
        state.queue_index = int(auction["queue_index"])
        state.bids = [(int(s), int(sun)) for s, sun in auction["bids"]]
        disaster = data["disaster"]
        state.dis_seat = int(disaster["seat"])
        state.dis_pending = [int(d) for d in disaster["pending"]]
        state.dis_current = int(disaster["current"])
        state.dis_left = int(disaster["left"])
        state.dis_after = int(disaster["after"])
        state.god_disasters = [int(d) for d in data.get("disasters_waiting", [])]
        state.initial_suns = [[int(s) for s in suns] for suns in data["initial_suns"]]
        state.first_player = int(data["first_player"])
        state.history = [(int(s), int(a), int(x)) for s, a, x in data["history"]]
        state.events = [tuple(event) for event in data["events"]]
        state._legal = None
        state._obs_bag = None
        state._obs_bag_of = None
        state._obs_bag_len = 0
        state._obs_players = None
    except (KeyError, TypeError, ValueError, IndexError, GameOptionError) as error:
        raise GameError(f"saved Ra state is damaged: {error!r}") from None
    if len(state.hold) != state.num_players or any(len(h) != NUM_TILE_TYPES for h in state.hold):
        raise GameError("saved Ra state is damaged: holdings do not match the players")
    tiles = state.bag + state.stacked + state.track + state.dis_pending + state.god_disasters
    # a negative tile would pass the count below as a tile from the end of the list
    accounted = state.tiles_accounted() if all(0 <= t < NUM_TILE_TYPES for t in tiles) else []
    if accounted != list(TILE_COUNTS):
        raise GameError("saved Ra state is damaged: its tiles do not add up to the game's 180")
    return state


# -- the record ----------------------------------------------------------------------------


def record(state: RaStateViews) -> dict[str, Any]:
    actions = [
        {"seat": seat, "action": action, "json": action_json(action, extra)}
        for seat, action, extra in state.history
    ]
    events, epochs = expand_events(state)
    final = None
    if state.phase == OVER:
        final = {
            "scores": state.scores[:],
            "placements": state.placements(),
            "highest_suns": [max(state.up[p] + state.down[p]) for p in range(state.num_players)],
        }
    return {
        "game": "ra",
        "seed": state.seed,
        "options": dict(state.options),
        "num_players": state.num_players,
        "setup": {
            "suns": [s[:] for s in state.initial_suns],
            "center_sun": 1,
            "first_player": state.first_player,
            "start_score": 10,
            "ra_track_length": state.ra_limit,
        },
        "actions": actions,
        "events": events,
        "epochs": epochs,
        "final": final,
    }


def expand_events(state: RaStateViews) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The compact event log as rich JSON, plus one summary per finished epoch."""
    events: list[dict[str, Any]] = []
    epochs: list[dict[str, Any]] = []
    # the epoch the log starts in (1 except for hand-built scenario states)
    ended = sum(1 for event in state.events if event[0] == "epoch")
    epoch = state.epoch - ended + (1 if state.phase == OVER else 0)
    disaster: dict[str, Any] | None = None
    for event in state.events:
        tag = event[0]
        if tag == "draw":
            seat, tile = event[1], event[2]
            entry: dict[str, Any] = {
                "type": "draw", "epoch": epoch, "seat": seat, "tile": TILE_NAMES[tile]
            }
            if tile == RA:
                entry["ra_track"] = event[3]
            events.append(entry)
        elif tag == "god":
            _, seat, slot, tile = event
            events.append(
                {"type": "god", "epoch": epoch, "seat": seat, "slot": slot,
                 "tile": TILE_NAMES[tile]}
            )
        elif tag == "auction":
            _, ra_player, kind, bids, winner, sun, won_sun, lot, discarded = event
            events.append(
                {
                    "type": "auction",
                    "epoch": epoch,
                    "ra_player": ra_player,
                    "kind": AUCTION_KIND_NAMES[kind],
                    "bids": [_bid_json(s, b) for s, b in bids],
                    "winner": winner if winner >= 0 else None,
                    "sun_paid": sun if winner >= 0 else None,
                    "sun_won": won_sun if winner >= 0 else None,
                    "lot": [TILE_NAMES[t] for t in lot],
                    "lot_discarded": discarded,
                }
            )
        elif tag == "disaster":
            _, seat, kind_of = event
            disaster = {
                "type": "disaster",
                "epoch": epoch,
                "seat": seat,
                "disaster": TILE_NAMES[kind_of],
                "lost": {},
            }
            events.append(disaster)
        elif tag == "loss":
            _, seat, _kind, tile, count = event
            assert disaster is not None
            lost = disaster["lost"]
            lost[TILE_NAMES[tile]] = lost.get(TILE_NAMES[tile], 0) + count
        elif tag == "epoch":
            _, number, reason, points, scores, discarded = event
            summary = {
                "type": "epoch_end",
                "epoch": number,
                "reason": reason,
                "points": [dict(zip(CATEGORIES, row, strict=True)) for row in points],
                "net": [sum(row) for row in points],
                "scores": list(scores),
                "track_discarded": [TILE_NAMES[t] for t in discarded],
            }
            events.append(summary)
            epochs.append(summary)
            epoch = number + 1
    return events, epochs


def tile_type(name: str) -> int:
    try:
        return TILE_BY_NAME[name]
    except KeyError:
        raise GameError(f"unknown Ra tile {name!r}; known: {', '.join(TILE_NAMES)}") from None

