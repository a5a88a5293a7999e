"""Leaderboard data built from a list of games, and its text renderings.

Everything here takes ``list[GameResult]``, so it can be tested without a store; the
commands in ``arena.report.commands`` only fetch the games and print.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from tabulate import tabulate, tabulate_formats

from arena.errors import ArenaError
from arena.rating import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_CENTRE,
    DEFAULT_PRIOR_DRAWS,
    Ratings,
    RatingState,
    canonical_order,
    plackett_luce,
    rate,
    seat_advantage,
    seated,
)
from arena.records import GameResult
from arena.stats.metagame import MetaRanking, meta_ranking

if TYPE_CHECKING:
    from arena.league.formats import BracketRound, Standings

DASH = "—"
# "ahead of next" from which a pair's order counts as settled: the 95% interval of the
# two bots' difference excludes 0 (one-sided 97.5%).  One definition for the notes, the
# report and the server's marks, so that none can say "not settled" beside ">99.9%".
SETTLED = 0.975


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
    # over the games it did not forfeit; None when the games mix engines with different
    # scales, or it forfeited every game
    average_score: float | None
    failures: dict[str, int]  # reason -> games
    group: int
    plackett_luce: float | None = None  # Elo from the optional Plackett–Luce fit
    ahead_of_next: float | None = None  # P(stronger than the next bot of its group)
    alpha_rank: float | None = None  # α-Rank stationary mass (arena.stats.metagame)
    nash: float | None = None  # Nash average: expected margin against the equilibrium mix


@dataclass(frozen=True)
class Leaderboard:
    rows: list[BotRow]
    ratings: Ratings
    num_games: int
    games: tuple[str, ...]  # engines present
    player_counts: tuple[int, ...]
    notes: list[str] = field(default_factory=list)
    nash_support: tuple[str, ...] = ()  # bots the Nash equilibrium plays, when computed


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
    with_metagame: bool = False,
) -> Leaderboard:
    """The leaderboard rows, notes and (optionally) the Plackett–Luce and game-theoretic
    columns: ``with_metagame`` adds α-Rank and Nash averaging (arena.stats.metagame)."""
    ratings = rate(
        results,
        anchor=anchor,
        anchor_elo=anchor_elo,
        bootstrap=bootstrap,
        prior_draws=prior_draws,
        seed=seed,
    )
    return _board(
        ratings, SeatTotals.of(results, ratings.bots),
        engines=tuple(sorted({r.game for r in results})),
        player_counts=tuple(sorted({r.num_players for r in results})),
        luce=plackett_luce(results, prior_draws) if with_plackett_luce else {},
        meta=meta_ranking(results) if with_metagame and results else None,
    )


@dataclass
class SeatTotals:
    """Per bot: games, first places, the sum of its places, the sum of its scores over
    the games it did not forfeit and how many those were, and its failures by reason."""

    games: dict[str, int]
    first_places: dict[str, int]
    places: dict[str, int]
    scores: dict[str, float]
    scored_games: dict[str, int]
    failures: dict[str, Counter[str]]

    @classmethod
    def of(cls, results: Sequence[GameResult], bots: Sequence[str]) -> SeatTotals:
        """From every seat of every game laid out flat (no Python loop per seat).  The
        scores are summed in game order, as a loop would (``np.bincount`` adds its
        weights in order), so the sums are the same to the last bit."""
        flat = seated(results)
        seat_bot, place, score = flat.indices(bots), flat.places, flat.scores
        n = len(bots)
        games = np.bincount(seat_bot, minlength=n)
        firsts = np.bincount(seat_bot[place == 1], minlength=n)
        places = np.bincount(seat_bot, weights=place, minlength=n)  # whole numbers: exact
        sums = np.bincount(seat_bot, weights=score, minlength=n)
        totals = cls(
            games={bot: int(games[i]) for i, bot in enumerate(bots)},
            first_places={bot: int(firsts[i]) for i, bot in enumerate(bots)},
            places={bot: int(places[i]) for i, bot in enumerate(bots)},
            scores={bot: float(sums[i]) for i, bot in enumerate(bots)},
            scored_games={bot: int(games[i]) for i, bot in enumerate(bots)},
            failures={bot: Counter() for bot in bots},
        )
        for result in results:
            if result.failures:
                totals._forfeited(result)
        return totals

    def add(self, result: GameResult) -> None:
        """One more game."""
        for bot, place, score in zip(result.bots, result.placements, result.scores,
                                     strict=True):
            if bot not in self.games:
                self.games[bot] = self.first_places[bot] = self.places[bot] = 0
                self.scores[bot], self.scored_games[bot] = 0.0, 0
                self.failures[bot] = Counter()
            self.games[bot] += 1
            self.first_places[bot] += place == 1
            self.places[bot] += int(place)
            self.scores[bot] += float(score)
            self.scored_games[bot] += 1
        self._forfeited(result)

    def _forfeited(self, result: GameResult) -> None:
        # a forfeited game's score is the fallback policy's, not the bot's: the average
        # score leaves those games out (a bot that crashed at the handshake scored nothing)
        for seat, reason in result.failures.items():
            bot = result.bots[seat]
            self.failures[bot][reason] += 1
            self.scored_games[bot] -= 1
            self.scores[bot] -= float(result.scores[seat])


def _board(
    ratings: Ratings,
    totals: SeatTotals,
    *,
    engines: tuple[str, ...],
    player_counts: tuple[int, ...],
    luce: dict[str, float],
    meta: MetaRanking | None,
) -> Leaderboard:
    rows = []
    for group, members in enumerate(ratings.groups):
        ordered = sorted(members, key=lambda b: (-ratings.elo[ratings.index(b)], b))
        for rank, bot in enumerate(ordered, start=1):
            i = ratings.index(bot)
            after = ordered[rank] if rank < len(ordered) else None
            m = meta.bots.index(bot) if meta is not None else -1
            games, scored_games = totals.games[bot], totals.scored_games[bot]
            rows.append(
                BotRow(
                    rank=rank,
                    bot=bot,
                    elo=float(ratings.elo[i]),
                    low=float(ratings.low[i]),
                    high=float(ratings.high[i]),
                    games=games,
                    first_places=totals.first_places[bot],
                    average_place=totals.places[bot] / games,
                    average_score=totals.scores[bot] / scored_games
                    if len(engines) == 1 and scored_games else None,
                    failures=dict(sorted(totals.failures[bot].items())),
                    group=group,
                    plackett_luce=luce.get(bot),
                    ahead_of_next=(
                        None
                        if after is None
                        else float(ratings.superiority[i, ratings.index(after)])
                    ),
                    alpha_rank=None if meta is None else float(meta.alpha_rank[m]),
                    nash=None if meta is None else float(meta.nash.rating[m]),
                )
            )
    return Leaderboard(
        rows=rows,
        ratings=ratings,
        num_games=ratings.num_games,
        games=engines,
        player_counts=player_counts,
        notes=_notes(ratings, engines) + _unsettled(rows) + _meta_notes(meta),
        nash_support=()
        if meta is None
        else tuple(b for b, p in zip(meta.bots, meta.nash.equilibrium, strict=True) if p > 1e-6),
    )


class LiveLeaderboard:
    """The leaderboard of games that keep coming (the server's ladder), kept up game by
    game: ``board()`` equals ``build_leaderboard`` over the same games with the same
    options (up to the fits' tolerance, see :class:`arena.rating.RatingState`), in
    whatever order they came.  A game whose (engine, id) came already is skipped."""

    def __init__(self, results: Iterable[GameResult] = (), *,
                 bootstrap: int = DEFAULT_BOOTSTRAP,
                 prior_draws: float = DEFAULT_PRIOR_DRAWS, seed: int = 0) -> None:
        games: list[GameResult] = []
        seen: set[tuple[str, str]] = set()
        for result in canonical_order(results):
            if (result.game, result.game_id) not in seen:
                seen.add((result.game, result.game_id))
                games.append(result)
        self.ratings = RatingState.from_results(games, bootstrap=bootstrap,
                                                prior_draws=prior_draws, seed=seed)
        self.totals = SeatTotals.of(games, self.ratings.bots)
        self.engines = {r.game for r in games}
        self.player_counts = {r.num_players for r in games}

    def add(self, result: GameResult) -> bool:
        """One more game (False: it came already)."""
        if not self.ratings.add(result):
            return False
        self.totals.add(result)
        self.engines.add(result.game)
        self.player_counts.add(result.num_players)
        return True

    def board(self) -> Leaderboard:
        return _board(self.ratings.ratings(), self.totals,
                      engines=tuple(sorted(self.engines)),
                      player_counts=tuple(sorted(self.player_counts)), luce={}, meta=None)


def order_settled(ahead_of_next: float | None) -> bool:
    """Whether a bot's place above the next one is settled (see :data:`SETTLED`)."""
    return ahead_of_next is not None and not math.isnan(ahead_of_next) \
        and ahead_of_next >= SETTLED


def _unsettled(rows: Sequence[BotRow]) -> list[str]:
    """A warning for each pair of neighbours whose order the games have not settled,
    and a word on the pairs whose intervals overlap although their order is settled
    (each interval is one bot's rating; "ahead of next" weighs their difference)."""
    unsettled, overlapping = [], []
    for upper, lower in zip(rows, rows[1:], strict=False):
        if upper.group != lower.group:
            continue
        likelihood = DASH if upper.ahead_of_next is None \
            else superiority_text(upper.ahead_of_next)
        pair = f"{upper.bot} / {lower.bot} ({upper.bot} ahead: {likelihood})"
        if not order_settled(upper.ahead_of_next):
            unsettled.append(pair)
        elif lower.high >= upper.low:
            overlapping.append(pair)
    notes = []
    if unsettled:
        notes.append(
            f"Order not settled: {'; '.join(unsettled)}. The likelihood that the upper bot "
            f"is the stronger is below {100 * SETTLED:g}%, so more games could swap them.")
    if overlapping:
        notes.append(
            f"Settled although their 95% intervals overlap: {'; '.join(overlapping)}. An "
            "interval is one bot's rating; \"ahead of next\" weighs the difference "
            "between the two, which their games measure more closely.")
    return notes


def _meta_notes(meta: MetaRanking | None) -> list[str]:
    if meta is None or meta.complete:
        return []
    return [
        "Some bots never shared a table: α-Rank and Nash averaging count those pairs as "
        "even (a 50% share each way)."
    ]


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


def failure_text(failures: dict[str, int], games: int | None = None) -> str:
    """``timeout 3, crash 1``; with ``games``, each count's rate too: ``timeout 3 (1.5%)``."""

    def one(reason: str, count: int) -> str:
        rate = "" if not games else f" ({100 * count / games:.1f}%)"
        return f"{reason} {count}{rate}"

    return ", ".join(one(reason, count) for reason, count in failures.items()) or DASH


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
            "ahead of next": DASH if row.ahead_of_next is None
            else superiority_text(row.ahead_of_next),
            **({} if row.plackett_luce is None else {"PL Elo": round(row.plackett_luce)}),
            **({} if row.alpha_rank is None else {"α-Rank": f"{100 * row.alpha_rank:.1f}%"}),
            **({} if row.nash is None else {"Nash": f"{100 * row.nash:+.1f}"}),
            "games": row.games,
            "first places": row.first_places,
            "avg place": f"{row.average_place:.2f}",
            "avg score": DASH if row.average_score is None else f"{row.average_score:.1f}",
            "failures": failure_text(row.failures, row.games),
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


def only_columns(board: Leaderboard, *, alpha_rank: bool, nash: bool) -> Leaderboard:
    """The board without whichever game-theoretic column was not asked for."""
    rows = [
        replace(
            row,
            alpha_rank=row.alpha_rank if alpha_rank else None,
            nash=row.nash if nash else None,
        )
        for row in board.rows
    ]
    return replace(board, rows=rows)


def render_seats(results: Sequence[GameResult], board: Leaderboard, fmt: str = "simple") -> str:
    """Seat advantage per player count, with 95% intervals (arena.rating.seat_advantage)."""
    lines = [
        {
            "players": e.num_players,
            "seat": e.seat + 1,
            "games": e.games,
            "wins": f"{100 * e.first_share:.1f}% ({100 * e.first_low:.1f} – "
            f"{100 * e.first_high:.1f}; fair {100 / e.num_players:.0f}%)",
            "avg place": f"{e.average_place:.2f}",
            "Elo vs other seats": f"{_signed(e.elo_advantage)} ({_signed(e.elo_low)} – "
            f"{_signed(e.elo_high)})",
        }
        for e in seat_advantage(results, board.ratings)
    ]
    title = "Seat advantage (95% intervals; an interval that excludes 0 is a real edge)"
    return title + "\n" + tabulate(lines, headers="keys", tablefmt=check_format(fmt),
                                    disable_numparse=True)


def _signed(value: float) -> str:
    """+12 / -12, and never "-0"."""
    return f"{int(round(value)):+d}"


def seats_json(results: Sequence[GameResult], board: Leaderboard) -> list[dict[str, Any]]:
    return [
        {
            "players": e.num_players,
            "seat": e.seat + 1,
            "games": e.games,
            "first_share": round(e.first_share, 6),
            "first_share_interval": [round(e.first_low, 6), round(e.first_high, 6)],
            "average_place": round(e.average_place, 6),
            "elo_advantage": round(e.elo_advantage, 2),
            "elo_advantage_interval": [round(e.elo_low, 2), round(e.elo_high, 2)],
        }
        for e in seat_advantage(results, board.ratings)
    ]


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
                "failure_rate": {r: round(n / row.games, 6) for r, n in row.failures.items()},
                "ahead_of_next": None
                if row.ahead_of_next is None
                else _number_or_none(row.ahead_of_next),
                **({} if row.alpha_rank is None else {"alpha_rank": round(row.alpha_rank, 6)}),
                **({} if row.nash is None else {"nash_average": round(row.nash, 6)}),
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


# --------------------------------------------------------------------------- standings


def standings_rows(standings: Standings, board: Leaderboard | None) -> list[dict[str, Any]]:
    """A format's standings (Swiss scores and tie-breaks, a knockout's places), each row
    with the bot's Elo and 95% interval beside it when the board rates it."""
    rated = {row.bot: row for row in board.rows} if board is not None else {}
    rows = []
    for standing in standings.rows:
        line: dict[str, Any] = {"rank": standing.rank, "bot": standing.bot,
                                **standing.values}
        elo = rated.get(standing.bot)
        if board is not None:
            line["Elo"] = DASH if elo is None else round(elo.elo)
            line["95% interval"] = DASH if elo is None else f"{elo.low:.0f} – {elo.high:.0f}"
        rows.append(line)
    return rows


def render_standings(standings: Standings, board: Leaderboard | None,
                     fmt: str = "simple") -> str:
    """The standings as text: title, table, notes, and a knockout's bracket."""
    table = tabulate(standings_rows(standings, board), headers="keys",
                     tablefmt=check_format(fmt), disable_numparse=True)
    parts = [standings.title, table, *standings.notes]
    if standings.bracket:
        parts += ["", render_bracket(standings.bracket)]
    return "\n".join(parts)


def render_bracket(rounds: Sequence[BracketRound]) -> str:
    """A knockout's rounds on a terminal: each table's bots with their points, and who
    went through."""
    lines = ["Bracket"]
    for stage in rounds:
        byes = f" (byes: {', '.join(stage.byes)})" if stage.byes else ""
        lines.append(f"{stage.label}{byes}")
        for table in stage.tables:
            seated = (" v " if len(table.bots) == 2 else " / ").join(
                f"{bot} {points:g}" if table.games else bot
                for bot, points in zip(table.bots, table.points, strict=True))
            went = [bot for bot, on in zip(table.bots, table.advanced, strict=True) if on]
            tie = (f" after {table.tie_breaks} tie-break set"
                   f"{'s' if table.tie_breaks > 1 else ''}") if table.tie_breaks else ""
            tie += ", by seed" if table.by_seed else ""
            outcome = (f"  -> {', '.join(went)}{tie}" if went
                       else "  (playing)" if not table.decided else f"{tie}")
            lines.append(f"  {seated}{outcome}")
    return "\n".join(lines)


def standings_json(standings: Standings, board: Leaderboard | None) -> dict[str, Any]:
    data = standings.as_json()
    data["rows"] = standings_rows(standings, board)
    return data
