"""Leaderboard data built from a list of games, and its text renderings.

Everything here takes ``list[GameResult]``, so it can be tested without a store; the
commands in ``arena.report.commands`` only fetch the games and print.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate, tabulate_formats

from arena.errors import ArenaError
from arena.rating import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_CENTRE,
    DEFAULT_PRIOR_DRAWS,
    Ratings,
    plackett_luce,
    rate,
)
from arena.records import GameResult

DASH = "—"


@dataclass(frozen=True)
class BotRow:
    rank: int  # within its group (groups that never met are ranked separately)
    bot: str
    elo: float
    low: float
    high: float
    games: int
    first_places: int  # games it finished first in (a shared first place counts)
    average_place: float
    average_score: float | None  # None when the games mix engines with different scales
    failures: dict[str, int]  # reason -> games
    group: int
    plackett_luce: float | None = None  # Elo from the optional Plackett–Luce fit


@dataclass(frozen=True)
class Leaderboard:
    rows: list[BotRow]
    ratings: Ratings
    num_games: int
    games: tuple[str, ...]  # engines present
    player_counts: tuple[int, ...]
    notes: list[str] = field(default_factory=list)


def filter_results(
    results: Iterable[GameResult], game: str | None = None, num_players: int | None = None
) -> list[GameResult]:
    return [
        r
        for r in results
        if (game is None or r.game == game)
        and (num_players is None or r.num_players == num_players)
    ]


def build_leaderboard(
    results: Sequence[GameResult],
    *,
    anchor: str | None = None,
    anchor_elo: float = DEFAULT_CENTRE,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    seed: int = 0,
    with_plackett_luce: bool = False,
) -> Leaderboard:
    ratings = rate(
        results,
        anchor=anchor,
        anchor_elo=anchor_elo,
        bootstrap=bootstrap,
        prior_draws=prior_draws,
        seed=seed,
    )
    engines = tuple(sorted({r.game for r in results}))
    games: Counter[str] = Counter()
    firsts: Counter[str] = Counter()
    places: Counter[str] = Counter()
    scores: dict[str, float] = {}
    failures: dict[str, Counter[str]] = {bot: Counter() for bot in ratings.bots}
    for result in results:
        for seat, bot in enumerate(result.bots):
            games[bot] += 1
            firsts[bot] += result.placements[seat] == 1
            places[bot] += result.placements[seat]
            scores[bot] = scores.get(bot, 0.0) + result.scores[seat]
            if seat in result.failures:
                failures[bot][result.failures[seat]] += 1
    luce = plackett_luce(results, prior_draws) if with_plackett_luce else {}
    rows = []
    for group, members in enumerate(ratings.groups):
        ordered = sorted(members, key=lambda b: (-ratings.elo[ratings.index(b)], b))
        for rank, bot in enumerate(ordered, start=1):
            i = ratings.index(bot)
            rows.append(
                BotRow(
                    rank=rank,
                    bot=bot,
                    elo=float(ratings.elo[i]),
                    low=float(ratings.low[i]),
                    high=float(ratings.high[i]),
                    games=games[bot],
                    first_places=firsts[bot],
                    average_place=places[bot] / games[bot],
                    average_score=scores[bot] / games[bot] if len(engines) == 1 else None,
                    failures=dict(sorted(failures[bot].items())),
                    group=group,
                    plackett_luce=luce.get(bot),
                )
            )
    return Leaderboard(
        rows=rows,
        ratings=ratings,
        num_games=len(results),
        games=engines,
        player_counts=tuple(sorted({r.num_players for r in results})),
        notes=_notes(ratings, engines),
    )


def _notes(ratings: Ratings, engines: tuple[str, ...]) -> list[str]:
    notes = []
    if not ratings.comparable:
        sizes = ", ".join(str(len(g)) for g in ratings.groups)
        notes.append(
            f"These bots form {len(ratings.groups)} groups that never met, directly or "
            f"through common opponents (sizes {sizes}). Ratings are only comparable within "
            "a group; each group is ranked and centred on its own."
        )
    if len(engines) > 1:
        notes.append(
            f"The games mix {', '.join(engines)}: scores are not comparable across engines, "
            "so no average score is shown (filter with --game)."
        )
    if ratings.anchor is not None:
        notes.append(
            f"Anchored: {ratings.anchor} is fixed at its rating, so its interval is empty."
        )
    return notes


# --------------------------------------------------------------------------- text


def check_format(fmt: str) -> str:
    if fmt not in tabulate_formats:
        raise ArenaError(
            f"unknown table format {fmt!r}; choose one of: {', '.join(tabulate_formats)}"
        )
    return fmt


def failure_text(failures: dict[str, int]) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in failures.items()) or DASH


def table_rows(board: Leaderboard) -> list[dict[str, Any]]:
    several_groups = len(board.ratings.groups) > 1
    rows = []
    for row in board.rows:
        line: dict[str, Any] = {"rank": row.rank}
        if several_groups:
            line["group"] = row.group + 1
        line |= {
            "bot": row.bot,
            "Elo": round(row.elo),
            "95% interval": f"{row.low:.0f} – {row.high:.0f}",
            **({} if row.plackett_luce is None else {"PL Elo": round(row.plackett_luce)}),
            "games": row.games,
            "first places": row.first_places,
            "avg place": f"{row.average_place:.2f}",
            "avg score": DASH if row.average_score is None else f"{row.average_score:.1f}",
            "failures": failure_text(row.failures),
        }
        rows.append(line)
    return rows


def render_table(board: Leaderboard, fmt: str = "simple") -> str:
    text = tabulate(table_rows(board), headers="keys", tablefmt=check_format(fmt))
    return "\n".join([text, *board.notes]) if board.notes else text


def _percent(value: float) -> str:
    return DASH if math.isnan(value) else f"{100 * value:.0f}%"


def superiority_text(value: float) -> str:
    """A probability that never reads as a certainty it is not."""
    if math.isnan(value):
        return DASH
    if value > 0.999:
        return ">99.9%"
    if value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%"


def render_matrix(board: Leaderboard, fmt: str = "simple") -> str:
    """Pairwise win rates (row against column) and likelihood of superiority."""
    check_format(fmt)
    order = [row.bot for row in board.rows]
    idx = [board.ratings.index(bot) for bot in order]
    rates = board.ratings.win_rate()
    los = board.ratings.superiority
    parts = []
    for title, matrix, show in (
        ("Share of the points the row bot took from the column bot", rates, _percent),
        ("Likelihood that the row bot is stronger than the column bot", los, superiority_text),
    ):
        body = [
            [bot, *(show(matrix[i, j]) for j in idx)] for bot, i in zip(order, idx, strict=True)
        ]
        parts.append(title)
        parts.append(tabulate(body, headers=["", *order], tablefmt=fmt, disable_numparse=True))
    return "\n\n".join(parts)


def _number_or_none(value: float) -> float | None:
    return None if math.isnan(value) else round(float(value), 6)


def leaderboard_json(board: Leaderboard, matrix: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "games": board.num_games,
        "engines": list(board.games),
        "player_counts": list(board.player_counts),
        "comparable": board.ratings.comparable,
        "groups": [list(g) for g in board.ratings.groups],
        "anchor": board.ratings.anchor,
        "bootstrap": board.ratings.bootstrap,
        "notes": board.notes,
        "bots": [
            {
                "rank": row.rank,
                "group": row.group,
                "bot": row.bot,
                "elo": round(row.elo, 2),
                "low": round(row.low, 2),
                "high": round(row.high, 2),
                "games": row.games,
                "first_places": row.first_places,
                "average_place": round(row.average_place, 4),
                "average_score": None if row.average_score is None else round(row.average_score, 4),
                "failures": row.failures,
                **(
                    {}
                    if row.plackett_luce is None
                    else {"plackett_luce_elo": round(row.plackett_luce, 2)}
                ),
            }
            for row in board.rows
        ],
    }
    if matrix:
        order = [row.bot for row in board.rows]
        rates, los = board.ratings.win_rate(), board.ratings.superiority
        data["win_rate"] = {
            a: {
                b: _number_or_none(rates[board.ratings.index(a), board.ratings.index(b)])
                for b in order
                if b != a
            }
            for a in order
        }
        data["superiority"] = {
            a: {
                b: _number_or_none(los[board.ratings.index(a), board.ratings.index(b)])
                for b in order
                if b != a
            }
            for a in order
        }
    return data


def leaderboard_table(
    results: Sequence[GameResult],
    *,
    anchor: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    seed: int = 0,
    fmt: str = "simple",
) -> str:
    """The leaderboard as text in one call (what ``arena run`` prints at the end)."""
    board = build_leaderboard(
        results, anchor=anchor, bootstrap=bootstrap, prior_draws=prior_draws, seed=seed
    )
    return render_table(board, fmt)
