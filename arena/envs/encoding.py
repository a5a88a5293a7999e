"""Observations as fixed-length number vectors, and the size of each game's action set,
for the PettingZoo environments (docs/envs.md).

An encoder reads only the JSON observation the engine gives a seat (what a bot sees), so
an agent trained here sees nothing a bot in a league could not.  Anything the encoder
does not know (a new tile, face or phase from a newer engine) is an error, not a silent
zero: a test plays whole games through every encoder."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

JSON = Any
Encoder = Callable[[Mapping[str, JSON]], "np.ndarray"]


class Layout:
    """Appends named features to a vector, so that every encoding has one fixed order."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def number(self, value: float | int | bool | None) -> None:
        self.values.append(-1.0 if value is None else float(value))

    def one_hot(self, value: object, choices: Sequence[object], what: str) -> None:
        if value is not None and value not in choices:
            raise ValueError(f"unknown {what} {value!r} (known: {', '.join(map(str, choices))})")
        self.values.extend(1.0 if value == choice else 0.0 for choice in choices)

    def counts(self, counts: Mapping[str, int], names: Sequence[str], what: str) -> None:
        unknown = set(counts) - set(names)
        if unknown:
            raise ValueError(f"unknown {what} {sorted(unknown)}")
        self.values.extend(float(counts.get(name, 0)) for name in names)

    def vector(self) -> np.ndarray:
        return np.asarray(self.values, dtype=np.float32)


def _playing(seat: int) -> int | None:
    """The seat to move, None once the game is over (the engine says -1)."""
    return None if seat < 0 else seat


# ---------------------------------------------------------------------------- Ra
RA_PHASES = ("turn", "god", "auction", "disaster", "over")


def ra_encoder(first: Mapping[str, JSON]) -> Encoder:
    """An encoder for Ra games shaped like ``first`` (a seat's view of a new game): tile
    kinds are those its bag lists, suns run up to the highest sun in play."""
    tiles = list(first["bag"])
    n = int(first["num_players"])
    top_sun = max([first["center_sun"]] + [s for p in first["players"] for s in p["suns"]])
    suns = list(range(1, top_sun + 1))

    def encode(v: Mapping[str, JSON]) -> np.ndarray:
        out = Layout()
        out.one_hot(v["seat"], range(n), "seat")
        out.one_hot(v["phase"], RA_PHASES, "phase")
        out.one_hot(_playing(v["current_player"]), range(n), "seat")
        out.one_hot(v["ra_player"], range(n), "seat")
        for value in (v["epoch"], v["ra_track"], v["ra_track_length"], v["center_sun"],
                      v["bag_size"]):
            out.number(value)
        track: dict[str, int] = {}
        for name in v["auction_track"]:
            track[name] = track.get(name, 0) + 1
        out.counts(track, tiles, "tile")
        for p in v["players"]:
            out.number(p["score"])
            out.counts({str(s): 1 for s in p["suns"]}, [str(s) for s in suns], "sun")
            out.counts({str(s): 1 for s in p["used_suns"]}, [str(s) for s in suns], "sun")
            out.counts(p["tiles"], tiles, "tile")
        auction = v.get("auction")
        out.number(auction is not None)
        bids = {b["seat"]: b["sun"] for b in auction["bids"]} if auction else {}
        out.number(auction["high_bid"] if auction else 0)
        out.one_hot(auction["high_bidder"] if auction else None, range(n), "seat")
        for seat in range(n):
            out.number(bids.get(seat, 0) or 0)
        disaster = v.get("disaster")
        out.number(disaster["to_lose"] if disaster else 0)
        out.counts(v["bag"], tiles, "tile")
        return out.vector()

    return encode


# ---------------------------------------------------------------------------- the dice game
DICE_PHASES = ("roll", "disaster", "victim", "apply", "over")
DICE_FACES = ("sun", "pharaoh", "nile", "civilization", "monument", "ankh")
DICE_DISASTERS = ("none", "pharaoh", "nile", "civilization", "monument")


def dice_encoder(first: Mapping[str, JSON]) -> Encoder:
    n = int(first["num_players"])
    colours = [die["colour"] for die in first["dice"]]
    columns = len(first["monuments"])

    def encode(v: Mapping[str, JSON]) -> np.ndarray:
        out = Layout()
        out.one_hot(v["seat"], range(n), "seat")
        out.one_hot(v["phase"], DICE_PHASES, "phase")
        out.one_hot(_playing(v["current_player"]), range(n), "seat")
        out.one_hot(v["turn_player"], range(n), "seat")
        victim = v["disaster_victim"]  # None, or who must give up what, and how much
        out.one_hot(victim["seat"] if victim else None, range(n), "seat")
        out.one_hot(victim["what"] if victim else None, DICE_DISASTERS, "disaster")
        out.number(victim["markers_to_lose"] if victim else 0)
        for value in (v["epoch"], v["rerolls_left"], v["monuments_placed_this_turn"],
                      v["ra"]["position"], v["ra"]["start"], v["ra"]["last_space"],
                      v["civilization_capacity"]):
            out.number(value)
        for die in v["dice"]:
            out.one_hot(die["face"], DICE_FACES, "face")
            out.number(die["used"])
        for key in ("scores", "pharaoh", "nile", "floods"):
            for seat in range(n):
                out.number(v[key][seat])
        for colour in colours:
            holders = v["civilization"].get(colour, [])
            for seat in range(n):
                out.number(holders.count(seat))
        if len(v["monuments"]) != columns:
            raise ValueError(f"{len(v['monuments'])} monument columns, expected {columns}")
        for column in v["monuments"]:
            for owner in column:
                out.one_hot(owner, range(n), "seat")
        return out.vector()

    return encode


def encoder_for(first: Mapping[str, JSON]) -> Encoder:
    game = first.get("game")
    if game == "ra":
        return ra_encoder(first)
    if game == "ra_dice":
        return dice_encoder(first)
    raise ValueError(f"no observation encoding for the game {game!r} (ra, ra_dice)")


def action_count(game: str) -> int:
    """How many action numbers the engine uses (they run from 0; docs/ra-json.md and
    arena/games/ra_dice/actions.py list them)."""
    if game == "ra":
        from arena.games.ra.tiles import NUM_ACTIONS

        return int(NUM_ACTIONS)
    if game == "ra_dice":
        from arena.games.ra_dice.actions import LOSE_MONUMENT_BASE, MONUMENT_BASE, MONUMENT_LAST

        return int(LOSE_MONUMENT_BASE + (MONUMENT_LAST - MONUMENT_BASE + 1) // 8)
    raise ValueError(f"no action encoding for the game {game!r} (ra, ra_dice)")
