"""Build Ra positions by hand: chosen suns, holdings, tracks and the next tiles drawn.

Meant for tests and for bot authors who want to put an engine in a particular spot.  The
tiles placed are taken out of the bag, so a scenario state still accounts for all 180.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.games.base import GameOptionError
from arena.games.ra import engines
from arena.games.ra.editions import DEFAULT_EDITION, full_options
from arena.games.ra.game import FULL_BAG, blank_state
from arena.games.ra.jsonio import tile_type
from arena.games.ra.state import RaStateViews
from arena.games.ra.tiles import AUCTION_TRACK_LENGTH, RA, SUN_GROUPS


def build_state(
    num_players: int = 4,
    *,
    suns: Sequence[Sequence[int]] | None = None,
    used_suns: Sequence[Sequence[int]] | None = None,
    tiles: Sequence[Mapping[str, int]] | None = None,
    track: Sequence[str] = (),
    draws: Sequence[str] = (),
    scores: Sequence[int] | None = None,
    epoch: int = 1,
    ra_track: int = 0,
    center_sun: int = 1,
    current: int | None = None,
    seed: int = 0,
    edition: str | None = DEFAULT_EDITION,
    engine: str | None = None,
) -> RaStateViews:
    """A state at the start of ``current``'s turn (default: the highest sun's holder).

    ``suns``/``used_suns``: face-up / face-down suns per seat (default: the standard
    groups in seat order, none used); ``tiles``: each seat's holding by tile name;
    ``track``: the auction track; ``draws``: the tiles the next draws reveal, in order
    (later draws are random from ``seed``); ``edition``: "classic" or "2023" (None: the
    rules of records from before editions); ``engine``: "python", "compiled" or "auto"
    (default: the process's, as ``RaGame``; see engines.py)."""
    if suns is None:
        suns = SUN_GROUPS[num_players]
    options = {} if edition is None else full_options({"edition": edition})
    state = blank_state(
        num_players, [sorted(s) for s in suns], None, random.Random(seed), list(FULL_BAG),
        options,
    )
    bag = state.bag

    def take(tile: int, count: int = 1) -> None:
        for _ in range(count):
            try:
                bag.remove(tile)
            except ValueError:
                raise GameOptionError("the scenario uses more tiles than the game has") from None

    if used_suns is not None:
        state.down = [list(s) for s in used_suns]
    for seat, holding in enumerate(tiles or ()):
        for name, count in holding.items():
            tile = tile_type(name)
            take(tile, count)
            state.hold[seat][tile] += count
    if len(track) > AUCTION_TRACK_LENGTH:
        raise GameOptionError("the auction track holds at most 8 tiles")
    state.track = [tile_type(name) for name in track]
    for tile in state.track:
        take(tile)
    take(RA, ra_track)
    state.ra_count = ra_track
    state.stacked = [tile_type(name) for name in reversed(draws)]
    stacked_check = bag[:]
    for tile in state.stacked:
        if tile not in stacked_check:
            raise GameOptionError("the scenario draws more tiles than the bag holds")
        stacked_check.remove(tile)
    if scores is not None:
        state.scores = list(scores)
    state.epoch = epoch
    state.center = center_sun
    state.initial_suns = [sorted(u + d) for u, d in zip(state.up, state.down, strict=True)]
    if current is not None:
        state.cur = current
    state.first_player = state.cur
    return engines.as_engine(state, engine)
