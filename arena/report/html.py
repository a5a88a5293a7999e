"""``arena report``: one self-contained HTML page (inline CSS and SVG, no script, no network)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from arena import __version__
from arena.rating import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_CENTRE,
    DEFAULT_PRIOR_DRAWS,
    rating_history,
    seat_advantage,
    seated,
)
from arena.records import GameRecord, GameResult
from arena.report import svg
from arena.report.leaderboard import (
    DASH,
    SETTLED,
    Leaderboard,
    build_leaderboard,
    failure_text,
    standings_rows,
    superiority_text,
)
from arena.runner.diagnosis import died_at_start

if TYPE_CHECKING:
    from arena.league.formats import Standings


def render_report(
    results: Sequence[GameResult],
    *,
    title: str = "League",
    anchor: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    seed: int = 0,
    stop: Mapping[str, Any] | None = None,
    games: str = "",
    standings: Standings | None = None,
    tuning: str = "",
    failed_at_start: Sequence[StartFailure] = (),
) -> str:
    """The whole page; ``stop`` is the league's sequential test as the store keeps it,
    ``games`` the HTML of its list of games (arena/viewer/index.py), ``standings`` a
    feed format's own ranking (Swiss, knockout: arena.league.formats), ``tuning`` the
    section of a tune's store (arena/tune/report.py), ``failed_at_start`` why bots died
    before their handshake (:func:`start_failures` of the failed games)."""
    board = build_leaderboard(
        results,
        anchor=anchor,
        bootstrap=bootstrap,
        prior_draws=prior_draws,
        seed=seed,
        with_metagame=True,
    )
    colours = {row.bot: svg.colour(i) for i, row in enumerate(board.rows)}
    sections = [
        _header(title, board),
        _notes(board),
        _sequential_test(stop) if stop else "",
        _standings(standings, board) if standings is not None else "",
        tuning,
        _leaderboard(board, colours),
        _history(results, board, prior_draws),
        _heat_map(board),
        _scores(results, board),
        _failures(results, board, failed_at_start),
        _seats(results, board),
        _meta_game(board),
        games,
        _method(board, prior_draws),
    ]
    css = resources.files("arena.report").joinpath("report.css").read_text(encoding="utf-8")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · Ra Arena</title>\n<style>\n{css}</style>\n</head>\n"
        f"<body>\n<main>\n{''.join(sections)}</main>\n</body>\n</html>\n"
    )


def _section(anchor: str, heading: str, intro: str, body: str) -> str:
    lead = f'<p class="lead">{intro}</p>' if intro else ""
    return f'<section id="{anchor}">\n<h2>{heading}</h2>\n{lead}\n{body}\n</section>\n'


def _swatch(fill: str) -> str:
    return f'<span class="swatch" style="background:{fill}"></span>'


def _header(title: str, board: Leaderboard) -> str:
    counts = board.player_counts
    players = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    engines = ", ".join(board.games)
    cards = [
        ("games", f"{board.num_games:,}"),
        ("bots", f"{len(board.rows)}"),
        ("players per game", players),
        ("engine" if len(board.games) == 1 else "engines", engines),
    ]
    card_html = "".join(
        f'<div class="card"><div class="value">{escape(value)}</div>'
        f'<div class="name">{escape(name)}</div></div>'
        for name, value in cards
    )
    top = board.rows[0] if board.rows else None
    leader = (
        f'<p class="subtitle">Leader: <strong>{escape(top.bot)}</strong> at {top.elo:.0f} Elo</p>'
        if top and board.ratings.comparable
        else ""
    )
    return (
        f'<header>\n<p class="kicker">Ra Arena · league report</p>\n<h1>{escape(title)}</h1>\n'
        f'{leader}\n<div class="cards">{card_html}</div>\n</header>\n'
    )


def _notes(board: Leaderboard) -> str:
    return "".join(f'<div class="note" role="note">{escape(note)}</div>\n' for note in board.notes)


def _leaderboard(board: Leaderboard, colours: dict[str, str]) -> str:
    lows = [row.low for row in board.rows] + [row.elo for row in board.rows]
    highs = [row.high for row in board.rows] + [row.elo for row in board.rows]
    pad = max(20.0, 0.05 * (max(highs) - min(lows))) if lows else 20.0
    scale = (min(lows) - pad, max(highs) + pad) if lows else (1400.0, 1600.0)
    los = board.ratings.superiority
    several = len(board.ratings.groups) > 1
    lines = []
    for k, row in enumerate(board.rows):
        after = board.rows[k + 1] if k + 1 < len(board.rows) else None
        ahead = (
            superiority_text(los[board.ratings.index(row.bot), board.ratings.index(after.bot)])
            if after is not None and after.group == row.group
            else DASH
        )
        share = 100 * row.first_places / row.games
        score = DASH if row.average_score is None else f"{row.average_score:.1f}"
        group = f'<td data-label="group">{row.group + 1}</td>' if several else ""
        fails = failure_text(row.failures)
        bar = svg.interval_bar(row.elo, row.low, row.high, scale, colours[row.bot])
        lines.append(
            f'<tr><td class="num rank">{row.rank}</td>{group}'
            f'<td class="bot title">{_swatch(colours[row.bot])}{escape(row.bot)}</td>'
            f'<td class="num elo">{row.elo:.0f}</td>'
            f'<td class="num muted" data-label="95% interval">{row.low:.0f} – {row.high:.0f}'
            f'</td><td class="bar">{bar}</td>'
            f'<td class="num" data-label="ahead of next">{ahead}</td>'
            f'<td class="num" data-label="games">{row.games:,}</td>'
            f'<td class="num" data-label="first places">{row.first_places:,} '
            f'<span class="muted">({share:.0f}%)</span></td>'
            f'<td class="num" data-label="avg place">{row.average_place:.2f}</td>'
            f'<td class="num" data-label="avg score">{score}</td>'
            f'<td class="{"fail" if row.failures else "muted"}" data-label="failures">'
            f"{escape(fails)}</td></tr>"
        )
    head = (
        "<tr><th>#</th>"
        + ("<th>group</th>" if several else "")
        + '<th>bot</th><th class="num">Elo</th><th class="num">95% interval</th>'
        f'<th><span class="scale"><span>{scale[0]:.0f}</span><span>{scale[1]:.0f}</span>'
        '</span></th><th class="num" title="likelihood of superiority over the next bot">'
        'ahead of next</th><th class="num">games</th><th class="num">first places</th>'
        '<th class="num">avg place</th><th class="num">avg score</th><th>failures</th></tr>'
    )
    table = (
        f'<div class="table-wrap"><table class="leaderboard phone-cards"><thead>{head}</thead>'
        f"<tbody>{''.join(lines)}</tbody></table></div>"
    )
    return _section(
        "leaderboard",
        "Leaderboard",
        "Bradley–Terry Elo from every pair of seats in every game, with 95% intervals "
        "(bar). <em>Ahead of next</em> is the likelihood that a bot is truly stronger than "
        f"the one ranked below it: their order is settled from {100 * SETTLED:g}% on. An "
        "interval is one bot's rating, so two may overlap while their order is settled: "
        "their games measure the difference between them more closely.",
        table,
    )


def _history(results: Sequence[GameResult], board: Leaderboard, prior_draws: float) -> str:
    ratings = board.ratings
    anchor = ratings.anchor
    sizes, history = rating_history(
        results,
        checkpoints=40,
        prior_draws=prior_draws,
        anchor=anchor,
        # the table's anchor sits exactly at its pinned rating
        anchor_elo=float(ratings.elo[ratings.index(anchor)]) if anchor else DEFAULT_CENTRE,
    )
    # more lines than colours is unreadable: the top of the table, in its colours
    order = [row.bot for row in board.rows][: len(svg.PALETTE)]
    shown = len(order)
    lines = [(bot, history[bot]) for bot in order]
    chart = svg.wide_and_phone(
        svg.line_chart(sizes, lines, x_label="games played", y_label="Elo"),
        svg.line_chart(sizes, lines, width=svg.PHONE_WIDTH, height=260,
                       x_label="games played", y_label="Elo"))
    legend = "".join(
        f"<li>{_swatch(svg.colour(i))}{escape(bot)}</li>" for i, bot in enumerate(order)
    )
    subset = (
        f" Only the {shown} highest-rated of the {len(board.rows)} bots are drawn."
        if shown < len(board.rows)
        else ""
    )
    return _section(
        "history",
        "Rating over games",
        "The same fit, repeated on the first games in the order they finished; the last "
        f"point of each line is the leaderboard rating.{subset}",
        f'{chart}<ul class="legend">{legend}</ul>',
    )


def _heat_map(board: Leaderboard) -> str:
    ratings = board.ratings
    order = [row.bot for row in board.rows]
    idx = [ratings.index(bot) for bot in order]
    rates = ratings.win_rate()
    wins = ratings.wins
    rows, tips = [], []
    for a, i in zip(order, idx, strict=True):
        rows.append([float(rates[i, j]) for j in idx])
        tip_row = []
        for b, j in zip(order, idx, strict=True):
            met = wins[i, j] + wins[j, i]
            if a == b:
                tip_row.append(a)
            elif met == 0:
                tip_row.append(f"{a} and {b} never met")
            else:
                tip_row.append(
                    f"{a} took {100 * rates[i, j]:.0f}% of the points against {b} over "
                    f"{met:g} pairings; likelihood {a} is stronger: "
                    f"{superiority_text(ratings.superiority[i, j])}"
                )
        tips.append(tip_row)
    chart = svg.wide_and_phone(
        svg.heat_map(order, rows, tips),
        svg.heat_map(order, rows, tips, numbered_width=svg.PHONE_WIDTH))
    numbers = "".join(f'<li><span class="number">{k}</span>{escape(bot)}</li>'
                      for k, bot in enumerate(order, start=1))
    key = (
        '<div class="key"><span>row loses</span><span class="ramp"></span><span>row wins</span>'
        '<span class="never"></span><span>never met</span></div>'
        f'<ul class="legend phone">{numbers}</ul>'
    )
    # every pair once, in words: what a cell's tooltip says, for a screen without hover
    pairs = "".join(f"<li>{escape(tips[i][j])}</li>" for i in range(len(order))
                    for j in range(i + 1, len(order)))
    count = len(order) * (len(order) - 1) // 2
    listed = (f'<details class="pairs"><summary>Every pair in words ({count:,})</summary>'
              f"<ul>{pairs}</ul></details>") if pairs else ""
    return _section(
        "pairwise",
        "Head to head",
        "Share of the points the row bot took from the column bot, counting every pair of "
        "seats they shared (a tie is half a point). Each pair's details: hover its cell, "
        "or open the list below.",
        f"{chart}{key}{listed}",
    )


def _scores_per_bot(results: Sequence[GameResult]) -> dict[str, list[float]]:
    """Each bot's scores in game order, from every seat laid out flat (a stable sort by
    bot keeps each bot's games in order)."""
    flat = seated(results)
    bots, who, scores = flat.bots, flat.who, flat.scores
    if not bots:
        return {}
    order = np.argsort(who, kind="stable")
    ends = np.cumsum(np.bincount(who, minlength=len(bots)))
    return {bot: part.tolist() for bot, part in
            zip(bots, np.split(scores[order], ends[:-1]), strict=True)}


def _scores(results: Sequence[GameResult], board: Leaderboard) -> str:
    blocks = []
    for engine in board.games:
        per_bot = _scores_per_bot([r for r in results if r.game == engine])
        rows = [(row.bot, per_bot[row.bot]) for row in board.rows if row.bot in per_bot]
        heading = f"<h3>{escape(engine)}</h3>" if len(board.games) > 1 else ""
        blocks.append(heading + svg.wide_and_phone(
            svg.box_plot(rows), svg.box_plot(rows, width=svg.PHONE_WIDTH, stacked=True)))
    return _section(
        "scores",
        "Scores",
        "Final score per game: whiskers span the lowest to the highest, the box holds the "
        "middle half, the line is the median and the dot the mean.",
        "".join(blocks),
    )


@dataclass(frozen=True)
class StartFailure:
    """Games in which a bot died before its handshake, for one cause."""

    bot: str
    reason: str
    detail: str  # the diagnosis (arena/runner/diagnosis.py)
    games: int
    stderr: str  # its stderr in the newest of them: its first lines and its end


def start_failures(records: Iterable[GameRecord]) -> list[StartFailure]:
    """The failures of ``records`` where a bot died before its handshake (or could not
    be started), one per bot and cause, the most frequent first."""
    found: dict[tuple[str, str, str], list[Any]] = {}
    for record in records:
        for failure in record.failures:
            if died_at_start(failure["detail"]):
                key = (failure["bot"], failure["reason"], failure["detail"])
                found.setdefault(key, [0, ""])
                found[key][0] += 1
                found[key][1] = failure.get("stderr_tail", "")
    return sorted((StartFailure(bot, reason, detail, games, stderr)
                   for (bot, reason, detail), (games, stderr) in found.items()),
                  key=lambda item: (-item.games, item.bot, item.detail))


def _failures(results: Sequence[GameResult], board: Leaderboard,
              failed_at_start: Sequence[StartFailure] = ()) -> str:
    reasons = sorted({reason for row in board.rows for reason in row.failures})
    failed_games: Counter[str] = Counter()
    for result in results:
        for seat in result.failures:
            failed_games[result.bots[seat]] += 1
    if not reasons:
        body = '<p class="ok">No bot failed in any game: no crash, timeout or illegal move.</p>'
    else:
        head = "".join(f'<th class="num">{escape(r)}</th>' for r in reasons)
        lines = []
        for row in board.rows:
            if not row.failures:
                continue
            cells = "".join(
                f'<td class="num" data-label="{escape(r)}">{row.failures.get(r, 0) or DASH}</td>'
                for r in reasons
            )
            rate = 100 * failed_games[row.bot] / row.games
            lines.append(
                f'<tr><td class="bot title">{escape(row.bot)}</td>{cells}'
                f'<td class="num" data-label="games failed">{failed_games[row.bot]:,} / '
                f'{row.games:,} <span class="muted">({rate:.1f}%)</span></td></tr>'
            )
        body = (
            f'<div class="table-wrap"><table class="phone-cards"><thead><tr><th>bot</th>{head}'
            f'<th class="num">games failed</th></tr></thead><tbody>{"".join(lines)}'
            "</tbody></table></div>"
        )
    if failed_at_start:
        items = "".join(
            f'<li><span class="bot">{escape(item.bot)}</span>, {escape(item.reason)} in '
            f'{item.games:,} game{"s" if item.games != 1 else ""}: {escape(item.detail)}'
            + (f'<details><summary>its stderr</summary><pre class="stderr">'
               f"{escape(item.stderr)}</pre></details>" if item.stderr.strip() else "")
            + "</li>"
            for item in failed_at_start)
        body += (f'<h3 id="failed-at-start">Why bots could not start</h3>'
                 f'<ul class="start-failures">{items}</ul>')
    return _section(
        "failures",
        "Failures",
        "Games in which a bot crashed, ran out of time, stalled or broke the protocol; it "
        "was placed last in each of them.",
        body,
    )


def _seats(results: Sequence[GameResult], board: Leaderboard) -> str:
    effects = seat_advantage(results, board.ratings)
    limit = max([abs(e.elo_advantage) for e in effects] + [50.0])
    lines = []
    for effect in effects:
        fair = 100 / effect.num_players
        lines.append(
            f'<tr><td class="title phone">{effect.num_players} players, seat {effect.seat + 1}'
            f'</td><td class="num desk">{effect.num_players}</td>'
            f'<td class="num desk">{effect.seat + 1}</td>'
            f'<td class="num" data-label="games">{effect.games:,}</td>'
            f'<td class="num wide" data-label="wins">{100 * effect.first_share:.1f}% '
            f'<span class="muted">({100 * effect.first_low:.1f}–{100 * effect.first_high:.1f}; '
            f"fair {fair:.0f}%)</span></td>"
            f'<td class="num" data-label="avg place">{effect.average_place:.2f}</td>'
            f'<td class="num wide" data-label="Elo vs other seats">{_signed(effect.elo_advantage)} '
            f'<span class="muted">({_signed(effect.elo_low)} to {_signed(effect.elo_high)})'
            f'</span></td><td class="bar">{svg.centred_bar(effect.elo_advantage, limit)}</td></tr>'
        )
    table = (
        '<div class="table-wrap"><table class="seats phone-cards"><thead><tr>'
        '<th class="phone"></th><th class="num">players</th>'
        '<th class="num">seat</th><th class="num">games</th><th class="num">wins</th>'
        '<th class="num">avg place</th><th class="num">Elo vs other seats</th><th></th>'
        f"</tr></thead><tbody>{''.join(lines)}</tbody></table></div>"
    )
    return _section(
        "seats",
        "Seat advantage",
        "A diagnostic, not a correction: how much better than the other seats each seat "
        "did, given the ratings of the bots that sat there, with 95% intervals in brackets. "
        "An interval that holds 0 is consistent with fair seats.",
        table,
    )


def _standings(standings: Standings, board: Leaderboard) -> str:
    """The format's standings, each bot's Elo beside it; a knockout's bracket drawn."""
    rows = standings_rows(standings, board)
    keys = list(rows[0]) if rows else []
    kind = {key: "bot" if key == "bot" else "num" if all(
        _numeric(str(row[key])) for row in rows) else "" for key in keys}
    head = "".join(f'<th class="{kind[key]}">{escape(key)}</th>' for key in keys)
    lines = "".join(
        "<tr>" + "".join(f'<td class="{kind[key]}">{escape(str(value))}</td>'
                         for key, value in row.items()) + "</tr>"
        for row in rows)
    table = (f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
             f"<tbody>{lines}</tbody></table></div>")
    drawing = ""
    if standings.bracket:
        drawing = '<h3>Bracket</h3><div class="chart">' + svg.bracket([
            (stage.label, stage.byes, [
                [(bot, f"{points:g}" if table.games else "", went)
                 for bot, points, went in zip(table.bots, table.points, table.advanced,
                                              strict=True)]
                for table in stage.tables])
            for stage in standings.bracket]) + "</div>"
    return _section("standings", escape(standings.title),
                    " ".join(escape(note) for note in standings.notes), table + drawing)


def _numeric(text: str) -> bool:
    """A number, or numbers joined by " / " or a dash (an interval, points of games)."""
    parts = text.replace(" / ", " ").replace(" – ", " ").split()
    try:
        return bool(parts) and all(float(part) == float(part) for part in parts)
    except ValueError:
        return text == DASH


def _sequential_test(stop: Mapping[str, Any]) -> str:
    outcome = str(stop.get("outcome", "running"))
    rows = [
        ("H0", str(stop.get("h0_text", ""))),
        ("H1", str(stop.get("h1_text", ""))),
        ("decision", {"H0": "H0 accepted", "H1": "H1 accepted"}.get(outcome, outcome)),
        ("log-likelihood ratio", f"{float(stop.get('llr', 0.0)):.3f} (bounds "
         f"{float(stop.get('lower', 0.0)):.3f} and {float(stop.get('upper', 0.0)):.3f})"),
        ("error rates", f"alpha {stop.get('alpha')}, beta {stop.get('beta')}"),
        ("used", f"{stop.get('units')} {stop.get('unit')} ({stop.get('games')} games) of "
         f"{stop.get('units_total')}"),
    ]
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return _section(
        "sequential-test",
        "Sequential test",
        escape(str(stop.get("verdict", ""))) + " The league stops as soon as the "
        "log-likelihood ratio leaves its bounds (docs/ratings.md).",
        f'<div class="table-wrap"><table><tbody>{body}</tbody></table></div>',
    )


def _meta_game(board: Leaderboard) -> str:
    lines = "".join(
        f'<tr><td class="bot title">{escape(row.bot)}</td>'
        f'<td class="num" data-label="Elo">{row.elo:.0f}</td>'
        f'<td class="num" data-label="α-Rank">{100 * (row.alpha_rank or 0.0):.1f}%</td>'
        f'<td class="num" data-label="Nash">{100 * (row.nash or 0.0):+.1f}</td></tr>'
        for row in board.rows
    )
    support = ", ".join(board.nash_support) or DASH
    return _section(
        "meta-game",
        "Game-theoretic rankings",
        "From the pairwise payoffs (share of points each bot took from each other bot). "
        "<em>α-Rank</em>: the share of time an evolving population spends on each bot; "
        "<em>Nash</em>: the bot's margin, in points per 100 pairings, against the maximum-"
        f"entropy Nash mix of bots ({escape(support)}); 0 for the bots in that mix. They "
        "differ from Elo when strength is not one number (cycles, kingmaking).",
        '<div class="table-wrap"><table class="phone-cards"><thead><tr><th>bot</th>'
        '<th class="num">Elo</th>'
        '<th class="num">α-Rank</th><th class="num">Nash</th></tr></thead>'
        f"<tbody>{lines}</tbody></table></div>",
    )


def _signed(value: float) -> str:
    """+12 / −12 with a real minus sign, and never "−0"."""
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}".replace("-", "−")


def _method(board: Leaderboard, prior_draws: float) -> str:
    ratings = board.ratings
    centre = (
        f"{escape(ratings.anchor)} is fixed at 1500"
        if ratings.anchor
        else "the mean rating is 1500"
    )
    reps = (
        f"the wider of {ratings.bootstrap} bootstrap resamples of whole games and the "
        "likelihood's curvature"
        if ratings.bootstrap
        else "from the likelihood's curvature only (no bootstrap)"
    )
    return (
        "<footer>\n<h2>How these numbers are made</h2>\n<p>Each game is split into the "
        "pairwise results of its placements (better place: 1 point, tie: ½ each). A "
        "Bradley–Terry model on the Elo scale (a 400-point gap means 10:1 odds) is fitted "
        f"to all of them at once, so the order of the games does not matter; {centre}. "
        f"Every bot also gets {prior_draws:g} virtual draw(s) against an average opponent, "
        f"so a perfect record still gives a finite rating. Intervals: {reps}. Details: "
        f'<code>docs/ratings.md</code>.</p>\n<p class="muted">Ra Arena {escape(__version__)}'
        f" · {len(ratings.bots)} bots · {board.num_games:,} games</p>\n"
        "</footer>\n"
    )
