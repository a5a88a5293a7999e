"""A Ra: The Dice Game record told as a story, one line per event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.views import deal_words


def _move(move: Mapping[str, Any]) -> str:
    kind = move["type"]
    if kind == "stop":
        return "keeps the dice"
    if kind == "reroll":
        return f"rerolls {', '.join(move['dice'])}"
    if kind == "disaster":
        what = move["what"]
        return "declares no disaster" if what == "none" else f"declares a {what} disaster"
    if kind == "done":
        return "is done"
    if kind == "lose":
        return f"gives up {_marker(move)}"
    dice = ", ".join(move["dice"])
    what = move["what"]
    if what in ("pharaoh", "nile"):
        return f"advances {what.capitalize()} {move['spaces']} (dice {dice})"
    if what == "flood":
        return f"floods the Nile (dice {dice})"
    if what == "civilization":
        return f"places Civilization on {', '.join(move['colours'])} (dice {dice})"
    return f"builds a monument at {_space(move)} (dice {dice})"


def _space(item: Mapping[str, Any]) -> str:
    return f"column {item['column'] + 1}, row {item['row'] + 1} ({item['colour']})"


def _marker(item: Mapping[str, Any]) -> str:
    if item["what"] == "civilization":
        return f"the {item['colour']} Civilization marker"
    return f"the monument at {_space(item)}"


def _line(event: Mapping[str, Any]) -> str | None:
    seat = f"seat {event.get('seat')}"
    kind = event["type"]
    if kind == "roll":
        dice = " ".join(f"{colour}:{face}" for colour, face in event["dice"].items())
        label = "rolls" if event["roll"] == 1 else f"rerolls ({event['roll'] - 1})"
        return f"  {seat} {label}: {dice}"
    if kind == "move":
        return f"  {seat} {_move(event['move'])}"
    if kind == "sun":
        suns = event["suns"]
        if event["effect"] == "ra":
            return f"  {suns} sun(s): Ra moves to space {event['ra']}"
        if event["effect"] == "points":
            return f"  3 suns: {seat} scores 3 (now {event['score']})"
        return f"  {suns} suns: {seat} may declare a disaster"
    if kind == "disaster_hit":
        what = {"pharaoh": "Pharaoh marker to", "nile": "Nile marker to",
                "flood": "a flood marker, floods left"}[event["what"]]
        return f"  {seat} loses {what} {event['now']}"
    if kind == "marker_lost":
        return f"  {seat} loses {_marker(event)}"
    if kind == "ankh_pairs":
        return f"  {seat} scores {event['points']} for Ankh pairs (now {event['score']})"
    if kind == "epoch_scored":
        lines = [f"Epoch {event['epoch']} ends (Ra reached the end in seat "
                 f"{event['ended_by']}'s turn)"]
        for category, points in event["points"].items():
            lines.append(f"  {category:<12} " + "  ".join(f"{p:+d}" for p in points))
        lines.append("  scores       " + "  ".join(str(s) for s in event["scores"]))
        return "\n".join(lines)
    return None


def narrate(record: Mapping[str, Any]) -> list[str]:
    players = record["num_players"]
    lines = [f"Ra: The Dice Game, {players} players, {deal_words(record)}; "
             f"starting scores " + ", ".join(str(10 + s) for s in range(players))]
    turn_of = None
    for event in record.get("events", []):
        if event["type"] == "roll" and event["roll"] == 1:
            turn_of = event["seat"]
            lines.append(f"Seat {turn_of}'s turn")
        line = _line(event)
        if line is not None:
            lines.extend(line.split("\n"))
    if record.get("final_scores") is not None:
        ranking = sorted(range(players), key=lambda seat: record["placements"][seat])
        lines.append("Final: " + ", ".join(
            f"{record['placements'][s]}. seat {s} ({record['final_scores'][s]})" for s in ranking))
    return lines
