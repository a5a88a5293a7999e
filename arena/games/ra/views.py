"""Ra shown and encoded: the terminal board (``arena play``) and the observation vector
of the PettingZoo environments (docs/envs.md), both read from a seat's observation only
(docs/ra-json.md), so they show exactly what a bot sees.  The replay page draws Ra with
replay.js and replay.css beside this file.  :class:`arena.games.ra.game.RaGame` calls
these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.views import Encoder, Layout, words

JSON = Any


def _tiles(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{words(t)}{f' x{n}' if n > 1 else ''}" for t, n in counts.items()) \
        or "no tiles"


def board_text(v: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
    filled, length = v["ra_track"], v["ra_track_length"]
    lines = [
        f"Epoch {v['epoch']} · phase {words(v['phase'])} · bag {v['bag_size']} tiles",
        f"Ra track      [{'#' * filled}{'.' * (length - filled)}] {filled} of {length}",
        f"Auction track {', '.join(map(words, v['auction_track'])) or 'empty'}"
        f"   (sun in the middle: {v['center_sun']})",
    ]
    auction = v.get("auction")
    if auction:
        bids = "; ".join(
            f"{names[b['seat']]} "
            + (f"bid {b['sun']}" if b["sun"] is not None
               else "could not bid" if b.get("could_bid") is False else "passed")
            for b in auction["bids"]) or "no bids yet"
        lines.append(f"Auction ({words(auction['kind'])}): {bids}")
    disaster = v.get("disaster")
    if disaster:
        lines.append(f"Disaster ({words(disaster['disaster'])}): {names[disaster['seat']]} "
                     f"discards {disaster['to_lose']} more tile(s)")
    for p in v["players"]:
        marks = " <- Ra player" if p["seat"] == v.get("ra_player") else ""
        used = f" (used: {' '.join(map(str, p['used_suns']))})" if p["used_suns"] else ""
        lines.append(f"  {names[p['seat']]:<16} score {p['score']:>3}  suns "
                     f"{' '.join(map(str, p['suns'])) or '-'}{used}{marks}")
        lines.append(f"  {'':<16} {_tiles(p['tiles'])}")
    return lines


RA_PHASES = ("turn", "god", "auction", "disaster", "over")


def observation_encoder(first: Mapping[str, JSON]) -> Encoder:
    """An encoder for Ra games shaped like ``first`` (a seat's view of a new game): tile
    kinds are those its bag lists, suns run up to the highest sun in play."""
    tiles = list(first["bag"])
    n = int(first["num_players"])
    top_sun = max([first["center_sun"]] + [s for p in first["players"] for s in p["suns"]])
    suns = list(range(1, top_sun + 1))

    def encode(v: Mapping[str, JSON]) -> list[float]:
        out = Layout()
        out.seat_phase_and_turn(v, n, RA_PHASES)
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
