"""What the pages and the API show, made from plain data: a bot's results against each
opponent, its rating chart, the leaderboard's unsettled pairs, the replay page's policy,
the API reference's list of routes.  Pure functions: no store, no request."""

from __future__ import annotations

import base64
import hashlib
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.records import GameResult

FAILURES_SHOWN = 5  # the newest failures of each reason on a bot page

# the replay page at phone width: long words (paths in a stderr tail) wrap, the controls
# shrink
REPLAY_PHONE_STYLE = (
    "pre, .failure, #move { overflow-wrap: anywhere; } "
    "@media (max-width: 600px) { main { padding: 8px; } #position { min-width: 0; } "
    ".controls input[type=range] { min-width: 0; flex-basis: 100%; } "
    ".seats { grid-template-columns: 1fr; } }")


def text(value: Any) -> str:
    """A form field as text ('' for a file or a missing field)."""
    return value if isinstance(value, str) else ""


def finite(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with every infinite or NaN number as None (JSON has neither)."""
    return {key: (None if isinstance(value, float) and not math.isfinite(value) else value)
            for key, value in row.items()}


def when(stamp: float | None) -> str:
    """A time as the pages show it: UTC, to the minute."""
    if stamp is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))


def bot_results(versions: list[dict[str, Any]], results: list[GameResult]
                ) -> dict[str, Any]:
    """Per ladder name: games, first places and failures; and its results against each
    opponent (won: placed ahead of it; lost; tied), most played first."""
    names = {v["ladder_name"] for v in versions}
    totals: dict[str, dict[str, Any]] = {
        name: {"games": 0, "firsts": 0, "failures": {}} for name in names}
    against: dict[str, dict[str, dict[str, int]]] = {name: {} for name in names}
    for result in results:
        for seat, bot in enumerate(result.bots):
            if bot not in names:
                continue
            total = totals[bot]
            total["games"] += 1
            total["firsts"] += result.placements[seat] == 1
            if seat in result.failures:
                reason = result.failures[seat]
                total["failures"][reason] = total["failures"].get(reason, 0) + 1
            for other, opponent in enumerate(result.bots):
                if other == seat:
                    continue
                line = against[bot].setdefault(opponent, {"games": 0, "won": 0, "lost": 0,
                                                          "tied": 0})
                line["games"] += 1
                mine, theirs = result.placements[seat], result.placements[other]
                line["won" if mine < theirs else "lost" if mine > theirs else "tied"] += 1
    return {"totals": totals, "opponents": {
        name: sorted(({"bot": opponent, **line} for opponent, line in lines.items()),
                     key=lambda line: (-line["games"], line["bot"]))
        for name, lines in against.items()}}


def failures_to_show(results: list[GameResult], name: str) -> tuple[
        list[tuple[str, int]], dict[str, int]]:
    """NAME's failures in ``results``: the (game id, seat) of the newest FAILURES_SHOWN of
    each reason, and how many of each reason there are."""
    per_reason: dict[str, int] = {}
    chosen = []
    for result in reversed(results):
        for seat, bot in enumerate(result.bots):
            if bot != name or seat not in result.failures:
                continue
            reason = result.failures[seat]
            per_reason[reason] = per_reason.get(reason, 0) + 1
            if per_reason[reason] <= FAILURES_SHOWN:
                chosen.append((result.game_id, seat))
    return chosen, per_reason


def rating_chart(results: list[GameResult], name: str,
                 history: Callable[[int], tuple[list[int], dict[str, list[float | None]]]]
                 ) -> str:
    """The report's chart (arena/report/svg.py) of NAME's Elo as the ladder's games of its
    player count came in: the ratings refitted on growing prefixes of those games
    (``history(count)``: arena.rating.rating_history of them), centred like the
    leaderboard's table; "" before its second game."""
    from arena.report.svg import PHONE_WIDTH, line_chart, wide_and_phone

    mine = [result for result in results if name in result.bots]
    if len(mine) < 2:
        return ""
    count = mine[-1].num_players
    sizes, history_of = history(count)
    lines = [(name, history_of.get(name, []))]
    games = f"{count}-player ladder games"
    return wide_and_phone(
        line_chart(sizes, lines, width=1100, height=320, x_label=games, y_label="Elo"),
        line_chart(sizes, lines, width=PHONE_WIDTH, height=240, x_label=games, y_label="Elo"))


def shown_names(names: Iterable[str]) -> dict[str, str]:
    """How the pages name ladder bots: a house bot (arena/NAME@TAG) without its tag where
    no other house bot of that name is among ``names`` (after an upgrade of the bundled
    bots, the old and the new both keep their tags); every other name as it is."""
    from arena.server.core import HOUSE_PREFIX

    names = set(names)
    bases = Counter(name.split("@", 1)[0] for name in names if name.startswith(HOUSE_PREFIX))
    return {name: base if name.startswith(HOUSE_PREFIX) and bases[base] == 1 else name
            for name in names for base in [name.split("@", 1)[0]]}


def mark_unsettled(rows: list[dict[str, Any]]) -> None:
    """``unsettled`` on both rows of each pair of neighbours in the same group whose
    order is not settled (the report's notion, ``order_settled``: more games could swap
    them)."""
    from arena.report.leaderboard import order_settled

    for row in rows:
        row["unsettled"] = False
    for upper, lower in zip(rows, rows[1:], strict=False):
        if upper.get("group") == lower.get("group") \
                and not order_settled(upper.get("ahead_of_next")):
            upper["unsettled"] = lower["unsettled"] = True


def replay_policy(html: str) -> str:
    """The Content-Security-Policy of a replay page: only its own inline script and
    style run (by their hashes), nothing is loaded."""
    def hashes(element: str) -> str:
        return " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
            for text in re.findall(f"<{element}>(.*?)</{element}>", html, re.S))

    return (f"default-src 'none'; script-src {hashes('script')}; "
            f"style-src {hashes('style')}; img-src 'self'; form-action 'none'; "
            "frame-ancestors 'none'; base-uri 'none'")


def replay_page(html: str, game_id: str) -> str:
    """The replay viewer's page of a stored game with a link back to the ladder and the
    record's download, readable on a phone."""
    links = (f'<nav class="arena-links"><a href="/">← the ladder</a> · '
             f'<a href="/games/{game_id}/record.json" download>download the '
             "record (JSON, as arena export writes it)</a></nav>\n")
    return html.replace("<main>\n", "<main>\n" + links, 1).replace(
        "</head>", f"<style>{REPLAY_PHONE_STYLE}</style>\n</head>", 1)


def api_routes(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    """Each operation of the OpenAPI description, as the docs page lists it."""
    routes = []
    for path, operations in openapi.get("paths", {}).items():
        for method, operation in operations.items():
            parameters = [f"{p['name']} ({p['in']}{', required' if p.get('required') else ''})"
                          for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {})
            routes.append({"method": method.upper(), "path": path,
                           "tag": (operation.get("tags") or ["other"])[0],
                           "description": operation.get("description", ""),
                           "parameters": parameters, "body": ", ".join(body)})
    return sorted(routes, key=lambda route: route["tag"])
