"""A position drawn as text for a person at the terminal (``arena play``).

It reads only the observation the engine gives the seat (docs/ra-json.md,
docs/ra-dice-json.md), so the human sees exactly what a bot would see."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

JSON = Any


def words(name: object) -> str:
    return str(name).replace("_", " ")


def draw(observation: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
    game = observation.get("game")
    if game == "ra":
        return _draw_ra(observation, names)
    if game == "ra_dice":
        return _draw_dice(observation, names)
    return json.dumps(observation, indent=1).splitlines()


def _tiles(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{words(t)}{f' x{n}' if n > 1 else ''}" for t, n in counts.items()) \
        or "no tiles"


def _draw_ra(v: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
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


def _draw_dice(v: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
    dice = "  ".join(f"{d['colour']}:{words(d['face'])}{' (used)' if d['used'] else ''}"
                     for d in v["dice"])
    ra = v["ra"]
    lines = [
        f"Epoch {v['epoch']} · phase {words(v['phase'])} · {names[v['turn_player']]}'s turn",
        f"Ra track      at {ra['position']} (ends at {ra['last_space']})",
        f"Dice          {dice}   rerolls left {v['rerolls_left']}",
    ]
    victim = v.get("disaster_victim")
    if victim:
        lines.append(f"Disaster ({words(victim['what'])}): {names[victim['seat']]} gives up "
                     f"{victim['markers_to_lose']} marker(s)")
    for s in range(v["num_players"]):
        civs = [colour for colour, holders in v["civilization"].items() if s in holders]
        monuments = sum(owner == s for column in v["monuments"] for owner in column)
        lines.append(
            f"  {names[s]:<16} score {v['scores'][s]:>3}  pharaoh {v['pharaoh'][s]}  "
            f"nile {v['nile'][s]}  floods {v['floods'][s]}  monuments {monuments}  "
            f"civilizations {', '.join(civs) or '-'}")
    return lines
