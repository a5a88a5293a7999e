"""Knockout brackets: seeded, byes to the best seeds, tables dealt best with worst, matches
with tie-break sets, the top places of k-player tables going through, one winner."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ArenaError
from arena.league.formats import replay
from arena.league.knockout import KnockoutTournament, deal, round_sizes
from arena.league.schedule import ScheduledGame
from arena.records import GameResult
from tests.league.formats_helpers import (
    by_strength,
    names,
    play_out,
    ranked_strength,
    start,
)


def test_round_sizes_end_in_a_final_table_of_k() -> None:
    assert round_sizes(8, 2, 1) == [8, 4, 2]
    assert round_sizes(12, 2, 1) == [12, 8, 4, 2]
    assert round_sizes(16, 3, 1) == [16, 9, 3]
    assert round_sizes(10, 4, 2) == [10, 8, 4]
    assert round_sizes(3, 3, 1) == [3]
    assert round_sizes(5, 3, 2) == [5, 3]


def test_pairs_are_dealt_best_with_worst() -> None:
    assert deal(list("abcdefgh"), 4) == [["a", "h"], ["b", "g"], ["c", "f"], ["d", "e"]]
    assert deal(list("abcdef"), 2) == [["a", "d", "e"], ["b", "c", "f"]]


def test_a_two_player_bracket_gives_the_best_seeds_the_byes() -> None:
    tournament = start("knockout", 12, 2, {"games": 2})
    assert isinstance(tournament, KnockoutTournament)
    first = tournament.next_stage()
    assert first is not None
    round_one = tournament.rounds[0]
    assert round_one.byes == names(12)[:4]
    assert [table.bots for table in round_one.tables] == [
        ("bot04", "bot11"), ("bot05", "bot10"), ("bot06", "bot09"), ("bot07", "bot08")]
    assert len(first.games) == 8 and first.notes == ("bye: bot00, bot01, bot02, bot03",)
    # every match: both seats on one deal
    for table in Counter(game.table for game in first.games).values():
        assert table == 2


def test_the_strongest_bot_wins_when_strength_decides() -> None:
    tournament = start("knockout", 16, 2, {"games": 2})
    bots = names(16)
    strength = {bot: -float(i) for i, bot in enumerate(reversed(bots))}  # last seed best
    play_out(tournament, by_strength(strength, noise=0.001))
    standings = tournament.standings()
    assert standings.rows[0].bot == "bot15" and standings.rows[0].values["result"] == "winner"
    assert [stage.label for stage in standings.bracket] == [
        "round 1 of 4", "quarter-final", "semi-final", "final"]
    assert standings.rows[1].values["result"].startswith("out in the final")


def tied(game: ScheduledGame) -> GameResult:
    """Every game a shared first place: every match is a tie."""
    return GameResult(game.game_id, "ra", game.seats, (1.0,) * len(game.seats),
                      (1,) * len(game.seats))


def test_a_tied_match_plays_tie_break_sets_then_the_better_seed_goes_through() -> None:
    tournament = start("knockout", 4, 2, {"games": 2, "tie_breaks": 2})
    stages = play_out(tournament, tied)
    labels = [stage.label for stage in stages]
    assert labels == ["semi-final", "semi-final, tie-break 1", "semi-final, tie-break 2",
                      "final", "final, tie-break 1", "final, tie-break 2"]
    assert len(stages[1].games) == 4  # both tables, a set of two games each
    assert tournament.standings().rows[0].bot == "bot00"  # the first seed, by seed
    # tie-break sets are fresh deals, every seat once
    seeds = Counter((game.table, game.seed) for stage in stages[1:3] for game in stage.games)
    assert set(seeds.values()) == {2} and len(seeds) == 4


def test_a_tie_break_set_that_settles_it_ends_the_play_off() -> None:
    outcome = by_strength(ranked_strength(names(2)), noise=0.001)

    def first_match_tied(game: ScheduledGame) -> GameResult:
        return tied(game) if game.seed == first_seed else outcome(game)

    tournament = start("knockout", 2, 2, {"games": 2})
    stage = tournament.next_stage()
    assert stage is not None
    first_seed = stage.games[0].seed
    stages = play_out(tournament, first_match_tied)
    assert [s.label for s in stages] == ["final", "final, tie-break 1"]
    assert tournament.standings().rows[0].bot == "bot00"


def test_three_player_tables_send_the_winners_and_the_best_runner_up() -> None:
    tournament = start("knockout", 16, 3, {"games": 3})
    assert isinstance(tournament, KnockoutTournament)
    play_out(tournament, by_strength(ranked_strength(names(16)), noise=0.5))
    first = tournament.rounds[0]
    assert len(first.byes) == 4 and len(first.tables) == 4
    assert len(first.advanced) == 9  # 4 byes, 4 winners, the best second
    winners = {table.order(tournament.seed_rank)[0] for table in first.tables}
    assert winners <= set(first.advanced)
    seconds = [table.order(tournament.seed_rank)[1] for table in first.tables]
    assert len(set(seconds) & set(first.advanced)) == 1
    assert [len(r.entrants) for r in tournament.rounds] == [16, 9, 3]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), k=st.integers(2, 5), data=st.data())
def test_every_bracket_ends_with_one_winner(n: int, k: int, data: st.DataObject) -> None:
    if n < k:
        with pytest.raises(ArenaError, match=f"needs at least {k} bots"):
            start("knockout", n, k)
        return
    advance = data.draw(st.integers(1, k - 1))
    games = data.draw(st.integers(1, 2 * k))
    tournament = start("knockout", n, k, {"games": games, "advance": advance})
    assert isinstance(tournament, KnockoutTournament)
    noise = data.draw(st.sampled_from([0.5, 3.0]))
    play_out(tournament, by_strength(ranked_strength(names(n)), noise=noise, ties=0.2))
    assert [len(r.entrants) for r in tournament.rounds] == round_sizes(n, k, advance)
    for number, current in enumerate(tournament.rounds):
        seated = [bot for table in current.tables for bot in table.bots]
        assert all(len(table.bots) == k for table in current.tables)
        assert sorted(seated + list(current.byes)) == sorted(current.entrants)
        going_on = len(tournament.rounds[number + 1].entrants) \
            if number + 1 < len(tournament.rounds) else 1
        assert len(current.advanced) == going_on
        assert set(current.byes) <= set(current.advanced)
    standings = tournament.standings()
    assert sorted(row.bot for row in standings.rows) == sorted(names(n))
    assert [row.values["result"] for row in standings.rows].count("winner") == 1
    assert standings.rows[0].bot == tournament.rounds[-1].advanced[0]


def test_the_bracket_is_rebuilt_from_the_stored_results() -> None:
    outcome = by_strength(ranked_strength(names(10)), noise=2.0, ties=0.3)
    whole = start("knockout", 10, 2, {"games": 2}, seed=3)
    stages = play_out(whole, outcome)
    stored = {game.game_id: outcome(game) for stage in stages for game in stage.games}
    again = start("knockout", 10, 2, {"games": 2}, seed=3)
    assert replay(again, stored) is None
    assert again.standings() == whole.standings()
    # half a stage stored: the same stage is asked for again
    partial = {g.game_id: stored[g.game_id] for stage in stages[:2] for g in stage.games}
    resumed = start("knockout", 10, 2, {"games": 2}, seed=3)
    assert replay(resumed, partial) == stages[2]
