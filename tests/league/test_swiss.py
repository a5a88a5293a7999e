"""Swiss pairings: tables within score groups, no repeated table where one can be avoided
(checked against every way to seat the field), byes that rotate, seats kept even, and a
round's pairing a function of the results before it only."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ArenaError
from arena.league.formats import replay
from arena.league.swiss import (
    ANY_TABLE,
    NO_REPEATED_PAIR,
    NO_REPEATED_TABLE,
    SwissTournament,
    default_rounds,
    partition,
)
from tests.league.formats_helpers import (
    by_strength,
    names,
    play_out,
    ranked_strength,
    start,
)


def partitions(bots: list[str], k: int) -> Iterator[list[tuple[str, ...]]]:
    """Every way to cut ``bots`` into tables of k (the brute force the search is held to)."""
    if not bots:
        yield []
        return
    first, rest = bots[0], bots[1:]
    for others in itertools.combinations(rest, k - 1):
        left = [bot for bot in rest if bot not in others]
        for tail in partitions(left, k):
            yield [(first, *others), *tail]


def repeats(tables: list[tuple[str, ...]], met: Counter[frozenset[str]],
            played: set[frozenset[str]]) -> tuple[bool, bool]:
    pair = any(frozenset(p) in met for t in tables for p in itertools.combinations(t, 2))
    return pair, any(frozenset(t) in played for t in tables)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 10), k=st.integers(2, 3), rounds=st.integers(2, 7),
       seed=st.integers(0, 2**32))
def test_no_repeated_pair_or_table_where_avoidable(n: int, k: int, rounds: int,
                                                   seed: int) -> None:
    tournament = start("swiss", n, k, seed=seed, rounds=rounds)
    assert isinstance(tournament, SwissTournament)
    strength = {bot: ((i * 7919 + seed) % 7) / 3 for i, bot in enumerate(names(n))}

    def check(stage: object) -> None:
        pairing = tournament.pairings[-1]
        tables = list(pairing.tables)
        met, played = tournament.met, tournament.played_tables
        pair, table = repeats(tables, met, played)
        playing = [bot for t in tables for bot in t]
        if pair or table:  # then no seating of these bots avoids it
            options = [repeats(p, met, played) for p in partitions(playing, k)]
            if pair:
                assert all(p for p, _ in options), "a repeated pair was avoidable"
            if table:
                assert all(t for _, t in options), "a repeated table was avoidable"
        expected = NO_REPEATED_PAIR if not pair else NO_REPEATED_TABLE if not table \
            else ANY_TABLE
        assert pairing.level == expected

    stages = play_out(tournament, by_strength(strength), check)
    assert len(stages) == rounds


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 17), k=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_byes_rotate_and_every_bot_plays_every_round_but_its_byes(n: int, k: int,
                                                                  seed: int) -> None:
    if n < k:
        return
    rounds = 2 * n
    tournament = start("swiss", n, k, seed=seed, rounds=rounds)
    assert isinstance(tournament, SwissTournament)

    def check(stage: object) -> None:
        pairing = tournament.pairings[-1]
        seated = [bot for table in pairing.tables for bot in table]
        assert sorted(seated + list(pairing.byes)) == sorted(names(n))  # each bot once
        assert all(len(table) == k for table in pairing.tables)
        assert len(pairing.byes) == n % k
        # the byes go to the bots that had the fewest: never one more while another waits
        had = {bot: record.byes for bot, record in tournament.records.items()}
        if pairing.byes:
            assert max(had[bot] for bot in pairing.byes) <= min(had[bot] for bot in seated)

    play_out(tournament, by_strength(ranked_strength(names(n))), check)
    counts = [record.byes for record in tournament.records.values()]
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize(("n", "k", "games"), [(8, 2, 2), (9, 3, 3), (10, 4, 4), (9, 3, 6)])
def test_a_whole_number_of_deals_gives_every_bot_every_seat_equally(n: int, k: int,
                                                                    games: int) -> None:
    tournament = start("swiss", n, k, {"games": games}, rounds=5)
    stages = play_out(tournament, by_strength(ranked_strength(names(n))))
    seats = Counter((bot, seat) for stage in stages for game in stage.games
                    for seat, bot in enumerate(game.seats))
    for bot in names(n):
        assert len({seats[bot, seat] for seat in range(k)}) == 1
    # a table's deal is played from every seat: its k games share one seed
    for stage in stages:
        by_table = Counter((game.table, game.seed) for game in stage.games)
        assert set(by_table.values()) == {k}


def test_fewer_games_than_seats_still_keep_each_bots_seats_even() -> None:
    """With fewer games than seats a table cannot give every bot the seat it lacks (three
    bots may all lack the first): each table takes the seating that keeps the bots' seats
    most even, so no bot's seats ever differ by more than 2, and most by at most 1 (a
    random seating: 3.4 apart on average here)."""
    spreads = []
    for n, k, games, rounds in [(9, 3, 1, 9), (8, 4, 1, 8), (10, 5, 2, 10), (6, 3, 2, 6),
                                (12, 3, 1, 12), (10, 5, 1, 20), (7, 3, 1, 14)]:
        for seed in range(3):
            tournament = start("swiss", n, k, {"games": games}, rounds=rounds, seed=seed)
            stages = play_out(tournament, by_strength(ranked_strength(names(n)), seed + 1))
            seats = Counter((bot, seat) for stage in stages for game in stage.games
                            for seat, bot in enumerate(game.seats))
            for bot in names(n):
                counts = [seats[bot, seat] for seat in range(k)]
                spreads.append(max(counts) - min(counts))
    assert max(spreads) <= 2
    assert sum(spreads) / len(spreads) < 0.8


def test_round_two_pairs_within_score_groups() -> None:
    # 2 players, no draws: 4 winners and 4 losers; the winners play each other
    tournament = start("swiss", 8, 2, rounds=3)
    assert isinstance(tournament, SwissTournament)
    outcome = by_strength(ranked_strength(names(8)), noise=3.0)
    first = tournament.next_stage()
    assert first is not None
    # round 1: neighbours in seed order (score groups of one: everyone at 0)
    assert tournament.pairings[0].tables == (("bot00", "bot01"), ("bot02", "bot03"),
                                              ("bot04", "bot05"), ("bot06", "bot07"))
    tournament.record([outcome(game) for game in first.games])
    scores = {bot: record.score for bot, record in tournament.records.items()}
    tournament.next_stage()
    for table in tournament.pairings[1].tables:
        assert len({scores[bot] for bot in table}) == 1, (table, scores)


def test_the_field_ranks_by_score_then_buchholz_then_sonneborn_berger() -> None:
    tournament = start("swiss", 12, 3, rounds=4)
    assert isinstance(tournament, SwissTournament)
    play_out(tournament, by_strength(ranked_strength(names(12)), noise=1.5))
    standings = tournament.standings()
    keys = [row.sort_key for row in standings.rows]
    assert keys == sorted(keys)
    assert [row.rank for row in standings.rows] == list(range(1, 13))
    buchholz, berger = tournament.buchholz(), tournament.sonneborn_berger()
    scores = {bot: record.score for bot, record in tournament.records.items()}
    for bot, record in tournament.records.items():  # the tie-breaks as documented
        opposition = [sum(scores[o] for o in table) / len(table) if table else scores[bot]
                      for table in record.tables]
        assert buchholz[bot] == pytest.approx(sum(opposition))
        assert berger[bot] == pytest.approx(sum(
            scored * strength for scored, strength in zip(record.scores, opposition,
                                                          strict=True)))
        assert record.score == pytest.approx(sum(record.scores))
    # scores: a share of the table per round, so 4 rounds give at most 4
    assert all(0 <= score <= 4 for score in scores.values())
    assert sum(scores.values()) == pytest.approx(4 * 12 * 0.5)  # every table gives 1/2 each


def test_a_round_depends_only_on_the_results_before_it() -> None:
    outcome = by_strength(ranked_strength(names(11)), noise=2.0)
    whole = start("swiss", 11, 3, seed=9, rounds=5)
    stages = play_out(whole, outcome)
    stored = {game.game_id: outcome(game) for stage in stages for game in stage.games}
    # a new tournament fed the stored results reaches the same end, stage for stage
    again = start("swiss", 11, 3, seed=9, rounds=5)
    assert replay(again, stored) is None
    assert again.standings() == whole.standings()
    # stopped after round 3 (half of round 4 stored), it asks for round 4's games again
    partial = {game.game_id: stored[game.game_id] for stage in stages[:3]
               for game in stage.games}
    partial.update({game.game_id: stored[game.game_id] for game in stages[3].games[:4]})
    resumed = start("swiss", 11, 3, seed=9, rounds=5)
    assert replay(resumed, partial) == stages[3]
    # another league seed: other deals
    other = start("swiss", 11, 3, seed=10, rounds=5)
    first = other.next_stage()
    assert first is not None and {g.seed for g in first.games}.isdisjoint(
        {g.seed for g in stages[0].games})


def test_rounds_chosen_from_the_field_size() -> None:
    assert default_rounds(16, 2) == 5 and default_rounds(64, 3) == 7
    assert default_rounds(3, 2) == 2 and default_rounds(2, 2) == 1
    tournament = start("swiss", 16, 2)
    assert len(play_out(tournament, by_strength(ranked_strength(names(16))))) == 5


def test_partition_falls_back_only_when_it_must() -> None:
    met: Counter[frozenset[str]] = Counter({frozenset(("a", "b")): 1})
    tables, level = partition(["a", "b", "c", "d"], 2, met, {frozenset(("a", "b"))})
    assert level == NO_REPEATED_PAIR and tables == [("a", "c"), ("b", "d")]
    met = Counter({frozenset(p): 1 for p in itertools.combinations("abcd", 2)})
    tables, level = partition(list("abcd"), 2, met, {frozenset(p) for p in met})
    assert level == ANY_TABLE and tables == [("a", "b"), ("c", "d")]
    with pytest.raises(ArenaError, match="do not fill tables"):
        partition(list("abc"), 2, Counter(), set())


def test_too_few_bots_is_refused() -> None:
    with pytest.raises(ArenaError, match="needs at least 4 bots"):
        start("swiss", 3, 4)
