"""The HTML report's content, checked without a browser."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

import pytest

from arena.records import GameResult
from arena.report.html import render_report
from arena.report.leaderboard import build_leaderboard
from arena.report.svg import contrast, heat_map, padded_ticks, quartiles, rate_colour, ticks


class Outline(HTMLParser):
    """Collects tags, attributes and visible text; checks that tags are balanced."""

    VOID = {"meta", "link", "br", "img", "input", "hr", "circle", "line", "rect", "polyline"}

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def outline(page: str) -> Outline:
    parser = Outline()
    parser.feed(page)
    parser.close()
    assert parser.open == [], f"unclosed tags: {parser.open}"
    return parser


def test_report_shows_every_section_and_bot(league: list[GameResult]) -> None:
    page = render_report(league, title="Spring league", bootstrap=20, seed=1)
    parsed = outline(page)
    sections = [attrs.get("id") for tag, attrs in parsed.tags if tag == "section"]
    assert sections == [
        "leaderboard", "history", "pairwise", "scores", "failures", "seats", "meta-game"
    ]
    text = " ".join(parsed.text)
    board = build_leaderboard(league, bootstrap=20, seed=1)
    for row in board.rows:
        assert row.bot in text
        assert f"{row.elo:.0f}" in text and f"{row.low:.0f} – {row.high:.0f}" in text
    assert "Spring league" in text and "400" in text
    assert "timeout" in text and "crash" in text
    leaderboard_rows = page.split('<table class="leaderboard phone-cards">')[1].split("</table>")[0]
    assert leaderboard_rows.count("<tr>") == 1 + len(board.rows)


def test_report_is_self_contained(league: list[GameResult]) -> None:
    page = render_report(league, bootstrap=5)
    parsed = outline(page)
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    for _, attrs in parsed.tags:
        assert "src" not in attrs
        assert not str(attrs.get("href", "")).startswith(("http", "//"))
    # the only URL is the SVG namespace, which is never fetched
    assert set(re.findall(r"https?://[^\s\"')]+", page)) == {"http://www.w3.org/2000/svg"}
    assert "@import" not in page and "url(http" not in page


def test_bot_names_are_escaped(league: list[GameResult]) -> None:
    evil = '<script>alert("x")</script>'
    renamed = [
        dataclasses.replace(r, bots=tuple(evil if b == "alpha" else b for b in r.bots))
        for r in league[:80]
    ]
    page = render_report(renamed, title="<b>t</b>", bootstrap=0)
    assert "<script>" not in page and "<b>t</b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    outline(page)


def test_report_is_deterministic(league: list[GameResult]) -> None:
    first = render_report(league[:200], bootstrap=15, seed=4)
    assert first == render_report(list(reversed(league[:200])), bootstrap=15, seed=4)


def test_no_failures_and_separate_groups_are_said_plainly() -> None:
    games = [
        GameResult(f"a{k}", "ra", ("a", "b"), (2.0, 1.0), (1, 2), sequence=k) for k in range(5)
    ] + [
        GameResult(f"x{k}", "ra", ("x", "y", "z"), (3.0, 2.0, 1.0), (1, 2, 3), sequence=5 + k)
        for k in range(5)
    ]
    page = render_report(games, bootstrap=5)
    assert "No bot failed in any game" in page
    assert "2 groups that never met" in page
    assert "never met" in page.split('id="pairwise"')[1]
    assert "Leader:" not in page  # no single leader across groups that never met


def test_chart_helpers() -> None:
    assert ticks(1180, 1820) == [1200, 1400, 1600, 1800]  # ~5 ticks: step 200, not 100
    assert ticks(1450, 1560) == [1450, 1475, 1500, 1525, 1550]
    assert ticks(0, 1) == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert padded_ticks(1180, 1820) == [1000, 1200, 1400, 1600, 1800, 2000]
    assert padded_ticks(5, 5)[0] == 5 and padded_ticks(5, 5)[-1] == pytest.approx(6)
    assert quartiles([1, 2, 3, 4, 5]) == (1, 2, 3, 4, 5)
    assert rate_colour(0.5) == ("#f7f7f7", "#1f2933")
    assert rate_colour(0.0)[0] != rate_colour(1.0)[0]


def test_heat_map_text_is_readable_on_every_cell() -> None:
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    for k in range(101):
        background, ink = rate_colour(k / 100)
        assert contrast(background, ink) >= 4.5, (k, background)


def test_heat_map_text_colour_survives_the_stylesheet() -> None:
    # the page's CSS sets a fill for all SVG text; only an inline style beats it
    nan = float("nan")
    rates = [[nan, 0.97, nan], [0.03, nan, nan], [nan, nan, nan]]
    tips = [["a", "a vs b", "never"], ["b vs a", "b", "never"], ["never", "never", "c"]]
    chart = heat_map(["a", "b", "c"], rates, tips)
    assert 'style="fill:#1f2933"' in chart and ">97<" in chart
    assert 'style="fill:#616e7c"' in chart and "url(#never)" in chart  # grey "—" cells


def test_rating_history_draws_at_most_ten_lines() -> None:
    from arena.bench.synthetic import simulate_league, spread_ratings

    results = simulate_league(spread_ratings(14), 300, seed=2)
    page = render_report(results, bootstrap=0)
    history = page.split('id="history"')[1].split("</section>")[0]
    wide, phone = history.split('class="chart desk"')[1].split('class="chart phone"')
    assert wide.count("<polyline") == phone.count("<polyline") == 10  # drawn for each
    assert "Only the 10 highest-rated of the 14 bots are drawn." in history
    assert "bot013" in history and "bot000" not in history


@pytest.mark.parametrize("anchor", [None, "bot000"])
def test_rating_chart_ends_at_the_table_rating(anchor: str | None) -> None:
    """Issue 18 item 7: with an anchor the chart used to stay mean-centred (mcts near
    1,800 on the chart, 2,448 in the table); its last points must be the table's Elo."""
    from arena.bench.synthetic import simulate_league, spread_ratings

    # a weak anchor far below the mean, so a mean-centred chart would be hundreds off
    results = simulate_league(spread_ratings(5, spread=600), 400, seed=4)
    page = render_report(results, bootstrap=0, anchor=anchor)
    board = build_leaderboard(results, bootstrap=0, anchor=anchor)
    history = page.split('id="history"')[1].split("</section>")[0]
    ends = dict(re.findall(r"<title>([\w-]+): (-?\d+)</title></polyline>", history))
    table = {row.bot: round(row.elo) for row in board.rows}
    assert {bot: int(value) for bot, value in ends.items()} == table
    if anchor is not None:
        assert table[anchor] == 1500 and max(table.values()) > 1900
