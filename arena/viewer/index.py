"""``arena report``'s replays: one replay page per game in a folder beside the report,
and the report's "Games" section that links each game to its page."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from arena.errors import ArenaError
from arena.outputs import write_output
from arena.records import GameRecord, GameResult


def replay_folder(report: Path) -> Path:
    """Where the replay pages of ``report`` go: ``NAME-games/`` beside ``NAME.html``."""
    return report.with_name(f"{report.stem}-games")


def write_replays(records: Iterable[GameRecord], folder: Path) -> tuple[set[str], list[str]]:
    """One page per game, each written whole or not at all (the folder is made for the
    first); returns the ids of the games written and the problems of those that could not
    be drawn (the others still are)."""
    from arena.viewer.page import render_replay

    written: set[str] = set()
    problems: list[str] = []
    for record in records:
        try:
            page = render_replay(record)
        except ArenaError as problem:  # e.g. a game of an engine no longer installed
            problems.append(str(problem))
            continue
        if not written:
            folder.mkdir(exist_ok=True)
        write_output(folder / f"{record.game_id}.html", page)
        written.add(record.game_id)
    return written, problems


def games_section(results: Sequence[GameResult], folder_name: str, linked: set[str]) -> str:
    """The report's list of games, each in ``linked`` linked to its replay page."""
    rows = []
    for result in sorted(results, key=lambda r: r.sequence):
        order = sorted(range(result.num_players), key=lambda s: (result.placements[s], s))
        seats = ", ".join(
            f"{escape(result.bots[s])} {result.scores[s]:g}"
            + (f" ({escape(result.failures[s])})" if s in result.failures else "")
            for s in order)
        game_id = escape(result.game_id)
        if result.game_id in linked:
            game_id = f'<a href="{escape(folder_name)}/{game_id}.html">{game_id}</a>'
        rows.append(f'<tr><td class="title">{game_id}</td>'
                    f'<td data-label="engine">{escape(result.game)}</td>'
                    f'<td class="result" data-label="result">{seats}</td></tr>')
    return (
        '<section id="games">\n<h2>Games</h2>\n<p class="lead">Every game, best placed first; '
        "the id opens the game's replay, to step through decision by decision.</p>\n"
        '<div class="table-wrap"><table class="phone-cards"><thead><tr><th>game</th><th>engine</th>'
        f"<th>result</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>\n"
        "</section>\n"
    )
