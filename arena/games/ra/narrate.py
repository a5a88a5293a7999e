"""A Ra record told as a person would tell it, epoch by epoch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.ra.tiles import CATEGORIES, EPOCH_NAMES
from arena.games.views import deal_words

SHORT_HEADERS = {"civilizations": "civ"}


def narrate(record: Mapping[str, Any]) -> list[str]:
    n = record["num_players"]
    names = [str(name) for name in record.get("players") or [f"Seat {s}" for s in range(n)]]
    setup = record["setup"]
    edition = (record.get("options") or {}).get("edition")
    rules = f"the {edition} edition" if edition else "the rules from before editions"
    lines = [f"Ra for {n} players ({rules}), {deal_words(record)}. "
             "Everybody starts with 10 points."]
    suns = "; ".join(
        f"{names[s]} {'-'.join(map(str, sorted(group, reverse=True)))}"
        for s, group in enumerate(setup["suns"])
    )
    lines.append(f"Suns: {suns}; centre sun {setup['center_sun']}.")
    lines.append(f"{names[setup['first_player']]} holds the highest sun and starts.")
    story = _Story(lines, names, setup["ra_track_length"], setup["center_sun"])
    for event in record["events"]:
        story.tell(event)
    story.flush_draws()
    if story.ra_draw:  # a record that stops during an auction
        lines.append(f"  {story.ra_draw}: the auction is under way.")
    final = record.get("final")
    if final:
        lines.append("")
        tie_rule = "a tie for first goes to the highest sun" if edition else \
            "ties broken by the highest sun"
        lines.append(f"Final ranking ({tie_rule}):")
        for seat in sorted(range(n), key=lambda s: final["placements"][s]):
            lines.append(
                f"  {final['placements'][seat]}. {names[seat]}: {final['scores'][seat]} points"
                f" (highest sun {final['highest_suns'][seat]})"
            )
    return lines


class _Story:
    def __init__(self, lines: list[str], names: list[str], ra_limit: int, center: int) -> None:
        self.lines, self.names, self.ra_limit, self.center = lines, names, ra_limit, center
        self.epoch = 0
        self.draws: list[str] = []
        self.ra_draw: str | None = None  # "X draws Ra tile k of n", awaiting its auction

    def flush_draws(self) -> None:
        if self.draws:
            self.lines.append("  Drawn: " + ", ".join(self.draws) + ".")
            self.draws.clear()

    def tell(self, event: Mapping[str, Any]) -> None:
        kind, names = event["type"], self.names
        if kind != "epoch_end" and event["epoch"] != self.epoch:
            self.epoch = event["epoch"]
            self.lines.extend(["", f"Epoch {self.epoch}: the {EPOCH_NAMES[self.epoch - 1]}"])
        if kind == "draw" and event["tile"] != "ra":
            self.draws.append(f"{_tile(event['tile'])} ({names[event['seat']]})")
            return
        self.flush_draws()
        if kind == "draw":
            self.ra_draw = (
                f"{names[event['seat']]} draws Ra tile {event['ra_track']} of {self.ra_limit}"
            )
        elif kind == "god":
            taken = _tile(event["tile"])
            self.lines.append(f"  {names[event['seat']]} plays a god to take {taken}.")
        elif kind == "auction":
            self.auction(event)
        elif kind == "disaster":
            lost = ", ".join(f"{k} {_tile(t, k)}" for t, k in event["lost"].items()) or "nothing"
            self.lines.append(
                f"    {event['disaster'].capitalize()}: {names[event['seat']]} loses {lost}."
            )
        elif kind == "epoch_end":
            self.epoch_end(event)

    def auction(self, event: Mapping[str, Any]) -> None:
        names = self.names
        lot = ", ".join(_tile(t) for t in event["lot"]) or "no tiles"
        if event["kind"] == "ra_drawn" and self.ra_draw:
            opening = self.ra_draw
        elif event["kind"] == "invoked_full":
            opening = f"{names[event['ra_player']]} invokes Ra on a full track"
        else:
            opening = f"{names[event['ra_player']]} invokes Ra"
        self.ra_draw = None
        self.lines.append(f"  {opening}: {lot} + sun {self.center}.")
        bids = [
            f"{names[b['seat']]} bids {b['sun']}" if b["sun"] is not None
            else f"{names[b['seat']]} passes"
            for b in event["bids"]
            if b["sun"] is not None or b.get("could_bid")
        ]
        said = ", ".join(bids) + " -> " if bids else ""
        if event["winner"] is not None:
            outcome = f"{names[event['winner']]} wins with {event['sun_paid']}."
            self.center = event["sun_paid"]
        elif event["lot_discarded"]:
            outcome = "nobody bids: the full track is discarded."
        else:
            outcome = "nobody bids: the tiles stay."
        self.lines.append(f"    {said}{outcome}")

    def epoch_end(self, event: Mapping[str, Any]) -> None:
        from tabulate import tabulate

        names = self.names
        if event["reason"] == "ra_track_full":
            why = "the Ra track is full"
            if self.ra_draw:
                why = f"{self.ra_draw}: {why}"
        else:
            why = "the last sun is used"
        self.ra_draw = None
        self.lines.append(f"  Epoch {event['epoch']} ends: {why}.")
        if event["track_discarded"]:
            discarded = ", ".join(_tile(t) for t in event["track_discarded"])
            self.lines.append(f"  Discarded from the auction track: {discarded}.")
        rows = [
            [names[s], *(points[c] for c in CATEGORIES), event["net"][s], event["scores"][s]]
            for s, points in enumerate(event["points"])
        ]
        headers = ["", *(SHORT_HEADERS.get(c, c) for c in CATEGORIES), "epoch", "total"]
        table = tabulate(rows, headers=headers)
        self.lines.extend("    " + row for row in table.splitlines())


def _tile(name: str, count: int = 1) -> str:
    word = name.replace("_", " ")
    if count > 1 and not word.endswith("s"):
        word += "s"
    return word
