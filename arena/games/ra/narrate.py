"""A Ra record told as a person would tell it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.ra.tiles import EPOCH_NAMES

CATEGORY_HEADERS = ("gods", "pharaohs", "nile", "gold", "civilizations", "monuments", "suns")


def narrate(record: Mapping[str, Any]) -> list[str]:
    n = record["num_players"]
    names = list(record.get("players") or [f"seat {s}" for s in range(n)])
    setup = record["setup"]
    lines = [f"Ra for {n} players, seed {record['seed']}."]
    lines.append(
        "Suns: " + "; ".join(f"{names[s]} {'-'.join(map(str, sorted(suns, reverse=True)))}"
                             for s, suns in enumerate(setup["suns"]))
        + f"; centre sun {setup['center_sun']}. {names[setup['first_player']]} starts."
    )
    limit = setup["ra_track_length"]
    epoch = 0
    pending_draws: list[str] = []

    def flush_draws() -> None:
        if pending_draws:
            lines.append("  Drawn: " + ", ".join(pending_draws) + ".")
            pending_draws.clear()

    for event in record["events"]:
        kind = event["type"]
        if event.get("epoch", 0) != epoch and kind != "epoch_end":
            epoch = event["epoch"]
            lines.append("")
            lines.append(f"Epoch {epoch}: the {EPOCH_NAMES[epoch - 1]}")
        if kind == "draw":
            if event["tile"] == "ra":
                flush_draws()
                who = names[event["seat"]]
                lines.append(f"  {who} draws Ra tile {event['ra_track']} of {limit}.")
            else:
                pending_draws.append(f"{_tile(event['tile'])} ({names[event['seat']]})")
            continue
        flush_draws()
        if kind == "god":
            lines.append(f"  {names[event['seat']]} plays a god to take {_tile(event['tile'])}.")
        elif kind == "auction":
            lines.extend(_auction(event, names))
        elif kind == "disaster":
            lost = ", ".join(f"{n} {_tile(tile, n)}" for tile, n in event["lost"].items())
            lines.append(
                f"    {event['disaster'].capitalize()}: {names[event['seat']]} loses "
                f"{lost or 'nothing'}."
            )
        elif kind == "epoch_end":
            lines.extend(_epoch_end(event, names))
    flush_draws()
    final = record.get("final")
    if final:
        lines.append("")
        lines.append("Final ranking:")
        order = sorted(range(n), key=lambda s: final["placements"][s])
        for seat in order:
            lines.append(
                f"  {final['placements'][seat]}. {names[seat]}: {final['scores'][seat]} points "
                f"(highest sun {final['highest_suns'][seat]})"
            )
    return lines


def _auction(event: Mapping[str, Any], names: list[str]) -> list[str]:
    ra_player = names[event["ra_player"]]
    lot = ", ".join(_tile(t) for t in event["lot"]) or "no tiles"
    if event["kind"] == "ra_drawn":
        opening = f"  Auction (Ra tile) for {lot}:"
    elif event["kind"] == "invoked_full":
        opening = f"  {ra_player} invokes Ra on a full track: {lot}:"
    else:
        opening = f"  {ra_player} invokes Ra for {lot}:"
    bids = []
    for bid in event["bids"]:
        if bid["sun"] is not None:
            bids.append(f"{names[bid['seat']]} {bid['sun']}")
        elif bid.get("could_bid"):
            bids.append(f"{names[bid['seat']]} passes")
        else:
            bids.append(f"{names[bid['seat']]} cannot outbid")
    result = "; ".join(bids)
    if event["winner"] is not None:
        outcome = (f"{names[event['winner']]} wins with sun {event['sun_paid']} "
                   f"and takes sun {event['sun_won']}")
    elif event["lot_discarded"]:
        outcome = "all pass; the full track is discarded"
    else:
        outcome = "all pass; the tiles stay"
    return [f"{opening} {result} -> {outcome}."]


def _epoch_end(event: Mapping[str, Any], names: list[str]) -> list[str]:
    from tabulate import tabulate

    why = "the Ra track is full" if event["reason"] == "ra_track_full" else "all suns are used"
    lines = [f"  Epoch {event['epoch']} ends: {why}."]
    if event["track_discarded"]:
        lines.append(f"  Discarded from the auction track: {', '.join(event['track_discarded'])}.")
    rows = [
        [names[s], *(points[c] for c in CATEGORY_HEADERS), event["net"][s], event["scores"][s]]
        for s, points in enumerate(event["points"])
    ]
    table = tabulate(rows, headers=["", *CATEGORY_HEADERS, "epoch", "total"])
    lines.extend("    " + row for row in table.splitlines())
    return lines


def _tile(name: str, count: int = 1) -> str:
    word = name.replace("_", " ")
    if count > 1 and not word.endswith("s"):
        word += "s"
    return word
