"""Leaderboard figures and their text renderings, from plain lists of games."""

from __future__ import annotations

import json

import pytest

from arena.errors import ArenaError
from arena.records import GameResult
from arena.report.leaderboard import (
    SETTLED,
    build_leaderboard,
    filter_results,
    leaderboard_json,
    leaderboard_table,
    render_matrix,
    render_table,
    superiority_text,
)


def game(
    gid: str,
    bots: tuple[str, ...],
    placements: tuple[int, ...],
    scores: tuple[float, ...],
    failures: dict[int, str] | None = None,
    engine: str = "ra",
) -> GameResult:
    return GameResult(gid, engine, bots, scores, placements, failures or {})


HANDMADE = [
    game("1", ("a", "b", "c"), (1, 2, 3), (30, 20, 10)),
    game("2", ("b", "a"), (2, 1), (5, 7)),
    game("3", ("c", "b", "a"), (1, 1, 3), (9, 9, 0), {2: "timeout"}),
    game("4", ("a", "c"), (2, 1), (1, 0), {0: "crash"}),
    game("5", ("a", "c"), (1, 2), (4, 3)),
]


def test_counts_are_exact_on_a_handmade_league() -> None:
    board = build_leaderboard(HANDMADE, bootstrap=0)
    rows = {row.bot: row for row in board.rows}
    a = rows["a"]
    assert a.games == 5 and a.first_places == 3
    assert a.average_place == pytest.approx((1 + 1 + 3 + 2 + 1) / 5)
    # the scores of its two forfeited games (the fallback's) are left out (issue 31)
    assert a.average_score == pytest.approx((30 + 7 + 4) / 3)
    assert a.failures == {"crash": 1, "timeout": 1}
    assert rows["b"].first_places == 1  # the shared first place of game 3
    assert rows["b"].failures == {}
    assert board.num_games == 5 and board.player_counts == (2, 3) and board.games == ("ra",)
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert [row.elo for row in board.rows] == sorted((row.elo for row in board.rows), reverse=True)


def test_league_order_follows_strength(league: list[GameResult]) -> None:
    board = build_leaderboard(league, bootstrap=20, seed=1)
    assert [row.bot for row in board.rows][:2] == ["foxtrot", "echo"]
    assert board.rows[-1].bot == "alpha"
    assert all(row.low <= row.elo <= row.high for row in board.rows)
    assert board.notes == []


def test_groups_that_never_met_are_ranked_separately_with_a_note() -> None:
    games = [
        game("1", ("a", "b"), (1, 2), (1, 0)),
        game("2", ("a", "b"), (1, 2), (1, 0)),
        game("3", ("x", "y"), (2, 1), (0, 1)),
    ]
    board = build_leaderboard(games, bootstrap=0)
    assert [(row.group, row.rank, row.bot) for row in board.rows] == [
        (0, 1, "a"),
        (0, 2, "b"),
        (1, 1, "y"),
        (1, 2, "x"),
    ]
    assert any("2 groups that never met" in note for note in board.notes)
    text = render_table(board)
    assert "group" in text.splitlines()[0] and "never met" in text


def test_mixed_engines_show_no_average_score() -> None:
    games = [*HANDMADE, game("6", ("a", "b"), (1, 2), (40, 2), engine="ra_dice")]
    board = build_leaderboard(games, bootstrap=0)
    assert all(row.average_score is None for row in board.rows)
    assert any("ra, ra_dice" in note for note in board.notes)


def test_table_in_any_tabulate_format(league: list[GameResult]) -> None:
    # the first 100 games: too few to settle every neighbour, so the table has a note
    board = build_leaderboard(league[:100], bootstrap=10)
    assert board.notes
    github = render_table(board, "github")
    assert github.splitlines()[0].startswith("|   rank | bot")
    assert "95% interval" in github and "timeout" in github and "crash" in github
    tsv = render_table(board, "tsv")
    # the header, a line per bot, then the notes (here: an unsettled pair of neighbours)
    assert len(tsv.splitlines()) == 1 + len(NAMES_IN(league[:100])) + len(board.notes)
    assert tsv.splitlines()[-1] == board.notes[-1]
    assert "<table>" in render_table(board, "html")
    with pytest.raises(ArenaError, match="unknown table format 'fancy'.*github"):
        render_table(board, "fancy")


def NAMES_IN(results: list[GameResult]) -> set[str]:  # noqa: N802 - reads as a constant
    return {bot for r in results for bot in r.bots}


def test_matrix_shows_win_rates_and_superiority() -> None:
    games = [
        *(game(f"w{k}", ("a", "b"), (1, 2), (1, 0)) for k in range(3)),
        game("l", ("a", "b"), (2, 1), (0, 1)),
        game("x", ("c", "d"), (1, 2), (1, 0)),
    ]
    board = build_leaderboard(games, bootstrap=30, seed=0)
    text = render_matrix(board, "plain")
    rates_part, los_part = text.split("Likelihood")
    a_line = next(line for line in rates_part.splitlines() if line.startswith("a "))
    assert "75%" in a_line and "—" in a_line  # 3 of 4 against b; never met c or d
    assert "%" in los_part
    data = leaderboard_json(board, matrix=True)
    assert data["win_rate"]["a"]["b"] == pytest.approx(0.75)
    assert data["win_rate"]["a"]["c"] is None
    assert data["superiority"]["a"]["c"] is None
    assert 0.5 < data["superiority"]["a"]["b"] <= 1.0
    json.dumps(data, allow_nan=False)  # valid JSON: no NaN anywhere


def test_json_has_every_column(league: list[GameResult]) -> None:
    data = leaderboard_json(build_leaderboard(league, bootstrap=10), matrix=False)
    first = data["bots"][0]
    assert set(first) >= {
        "rank", "bot", "elo", "low", "high", "games", "first_places",
        "average_place", "average_score", "failures", "group",
    }  # fmt: skip
    assert data["games"] == len(league) and data["comparable"] is True
    assert "win_rate" not in data
    assert sum(sum(b["failures"].values()) for b in data["bots"]) == sum(
        len(r.failures) for r in league
    )


def test_superiority_text_never_claims_certainty() -> None:
    assert superiority_text(0.99995) == ">99.9%"
    assert superiority_text(0.00001) == "<0.1%"
    assert superiority_text(0.5) == "50.0%"
    assert superiority_text(float("nan")) == "—"


def test_filters_by_engine_and_player_count(league: list[GameResult]) -> None:
    three = filter_results(league, num_players=3)
    assert three and all(r.num_players == 3 for r in three)
    assert filter_results(league, game="ra_dice") == []
    assert len(filter_results(league, game="ra")) == len(league)


def test_leaderboard_table_is_what_the_league_run_prints(league: list[GameResult]) -> None:
    text = leaderboard_table(league, anchor="charlie", bootstrap=10, prior_draws=1.0)
    charlie = next(line for line in text.splitlines() if " charlie " in line)
    assert " 1500 " in charlie and "Anchored" in text


def test_neighbours_whose_order_is_not_settled_are_flagged() -> None:
    from arena.bench.synthetic import simulate_league

    # two bots 10 Elo apart cannot be told apart in 200 games; the third is far below
    results = simulate_league({"a": 1510.0, "b": 1500.0, "c": 900.0}, 200, (2, 3), seed=2)
    board = build_leaderboard(results, bootstrap=0)
    unsettled = [n for n in board.notes if n.startswith("Order not settled")]
    assert len(unsettled) == 1
    top, second, third = board.rows
    assert f"{top.bot} / {second.bot}" in unsettled[0] and f"{second.bot} / c" not in unsettled[0]
    assert top.ahead_of_next is not None and 0.2 < top.ahead_of_next < SETTLED
    assert superiority_text(top.ahead_of_next) in unsettled[0]
    assert second.ahead_of_next is not None and second.ahead_of_next > SETTLED
    assert third.ahead_of_next is None


def test_a_settled_order_is_never_called_unsettled_even_when_intervals_overlap() -> None:
    """Issue 43: "Order not settled" beside "ahead >99.9%" read as a contradiction.  The
    order is judged by the likelihood alone; overlapping intervals of a settled pair get
    a note saying why they do not contradict it."""
    from arena.bench.synthetic import simulate_league

    results = simulate_league({"a": 1560.0, "b": 1500.0, "c": 1450.0, "d": 1400.0}, 300,
                              (3, 4), seed=3)
    board = build_leaderboard(results, bootstrap=0)
    top, second = board.rows[:2]
    assert second.high >= top.low  # the intervals overlap ...
    assert top.ahead_of_next is not None and top.ahead_of_next >= SETTLED  # ... yet settled
    assert not any(n.startswith("Order not settled") for n in board.notes)
    (overlap,) = [n for n in board.notes if n.startswith("Settled although")]
    assert f"{top.bot} / {second.bot}" in overlap and "one bot's rating" in overlap


def test_failure_rates_by_reason(league: list[GameResult]) -> None:
    board = build_leaderboard(league, bootstrap=0)
    row = next(r for r in board.rows if r.failures)
    reason, count = next(iter(row.failures.items()))
    assert f"{reason} {count} ({100 * count / row.games:.1f}%)" in render_table(board)
    data = leaderboard_json(board)
    bot = next(b for b in data["bots"] if b["bot"] == row.bot)
    assert bot["failure_rate"][reason] == pytest.approx(count / row.games, abs=1e-6)


def test_game_theoretic_columns_on_request() -> None:
    from arena.bench.synthetic import simulate_league, spread_ratings

    results = simulate_league(spread_ratings(4, 400), 400, (2, 3), seed=6)
    plain = build_leaderboard(results, bootstrap=0)
    assert plain.rows[0].alpha_rank is None and "α-Rank" not in render_table(plain)
    board = build_leaderboard(results, bootstrap=0, with_metagame=True)
    text = render_table(board)
    assert "α-Rank" in text and "Nash" in text
    assert sum(row.alpha_rank or 0.0 for row in board.rows) == pytest.approx(1.0)
    # a transitive league: the top bot is the equilibrium, everyone else rates below 0
    assert board.nash_support == (board.rows[0].bot,)
    assert board.rows[0].nash == pytest.approx(0.0) and all(
        (row.nash or 0.0) < 0 for row in board.rows[1:]
    )
    assert "alpha_rank" in leaderboard_json(board)["bots"][0]


def test_a_bot_that_forfeits_every_game_shows_no_average_score() -> None:
    games = [game(str(i), ("dead", "ok"), (2, 1), (17.5, 2.5), {0: "crash"}) for i in range(4)]
    rows = {row.bot: row for row in build_leaderboard(games, bootstrap=0).rows}
    assert rows["dead"].average_score is None  # not the fallback's 17.5
    assert rows["ok"].average_score == pytest.approx(2.5)
