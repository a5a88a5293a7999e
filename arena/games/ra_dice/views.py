"""Ra: The Dice Game shown and encoded: the terminal board (``arena play``) and the
observation vector of the PettingZoo environments (docs/envs.md), both read from a seat's
observation only (docs/ra-dice-json.md), so they show exactly what a bot sees.  The replay
page draws the game with replay.js and replay.css beside this file.
:class:`arena.games.ra_dice.game.RaDiceGame` calls these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.views import Encoder, Layout, words

JSON = Any


def board_text(v: Mapping[str, JSON], names: Sequence[str]) -> list[str]:
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


DICE_PHASES = ("roll", "disaster", "victim", "apply", "over")
DICE_FACES = ("sun", "pharaoh", "nile", "civilization", "monument", "ankh")
DICE_DISASTERS = ("none", "pharaoh", "nile", "civilization", "monument")


def observation_encoder(first: Mapping[str, JSON]) -> Encoder:
    n = int(first["num_players"])
    colours = [die["colour"] for die in first["dice"]]
    columns = len(first["monuments"])

    def encode(v: Mapping[str, JSON]) -> list[float]:
        out = Layout()
        out.seat_phase_and_turn(v, n, DICE_PHASES)
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
