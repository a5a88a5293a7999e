from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ArenaError
from arena.league.schedule import ScheduledGame, build_schedule


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


def seat_counts(games: list[ScheduledGame]) -> Counter[tuple[str, int]]:
    return Counter((bot, seat) for g in games for seat, bot in enumerate(g.seats))


def by_table(games: list[ScheduledGame]) -> dict[str, list[ScheduledGame]]:
    tables: dict[str, list[ScheduledGame]] = defaultdict(list)
    for g in games:
        tables[g.table].append(g)
    return tables


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 7), k=st.integers(2, 5), rounds=st.integers(1, 2),
       seed=st.integers(0, 2**40))
def test_round_robin_is_complete_and_balanced(n: int, k: int, rounds: int, seed: int) -> None:
    if k > n:
        return
    games, balance = build_schedule("ra", names(n), [k], seed=seed, rounds=rounds)
    assert len(games) == math.comb(n, k) * k * rounds
    assert len({g.game_id for g in games}) == len(games)  # ids are unique
    # every table: k rotations sharing one seed, each bot in each seat once
    tables = by_table(games)
    assert len(tables) == math.comb(n, k) * rounds
    for rotations in tables.values():
        assert len(rotations) == k and len({g.seed for g in rotations}) == 1
        for seat in range(k):
            assert sorted(g.seats[seat] for g in rotations) == sorted(rotations[0].seats)
    # fresh seeds for every table and round
    assert len({g.seed for g in games}) == len(tables)
    counts = seat_counts(games)
    assert len(set(counts.values())) == 1 and len(counts) == n * k
    meetings = Counter(p for g in games for p in itertools.combinations(sorted(g.seats), 2))
    assert len(meetings) == math.comb(n, 2) and len(set(meetings.values())) == 1
    assert balance[k].games_per_bot[0] == balance[k].games_per_bot[1]
    assert not balance[k].sampled


def test_same_seed_same_schedule_other_seed_other_seeds() -> None:
    first, _ = build_schedule("ra", names(5), [3, 4], seed=7, rounds=2)
    again, _ = build_schedule("ra", list(reversed(names(5))), [3, 4], seed=7, rounds=2)
    other, _ = build_schedule("ra", names(5), [3, 4], seed=8, rounds=2)
    assert first == again
    assert {g.seed for g in first}.isdisjoint({g.seed for g in other})
    assert {g.game_id for g in first}.isdisjoint({g.game_id for g in other})


def test_several_player_counts() -> None:
    games, balance = build_schedule("ra", names(5), [2, 3, 5], seed=1)
    assert Counter(g.num_players for g in games) == {2: 20, 3: 30, 5: 5}
    assert set(balance) == {2, 3, 5}


def test_adding_a_bot_only_adds_games() -> None:
    before, _ = build_schedule("ra", names(5), [3, 4], seed=3, rounds=2)
    after, _ = build_schedule("ra", names(6), [3, 4], seed=3, rounds=2)
    old, new = {g.game_id for g in before}, {g.game_id for g in after}
    assert old < new
    assert all("bot05" in g.seats for g in after if g.game_id not in old)


def test_more_rounds_only_add_games() -> None:
    one, _ = build_schedule("ra", names(4), [3], seed=3, rounds=1)
    two, _ = build_schedule("ra", names(4), [3], seed=3, rounds=2)
    assert {g.game_id for g in one} < {g.game_id for g in two}


def test_seating_order_is_not_alphabetical() -> None:
    games, _ = build_schedule("ra", names(8), [4], seed=5)
    first_rotations = [g.seats for g in games if g.seats[0] == min(g.seats)]
    assert any(list(s) != sorted(s) for s in first_rotations)


@pytest.mark.parametrize(("n", "k", "cap"), [(12, 4, 400), (30, 3, 1500), (9, 5, 300),
                                             (20, 2, 200)])
def test_balanced_sample(n: int, k: int, cap: int) -> None:
    games, balance = build_schedule("ra", names(n), [k], seed=11, max_games=cap)
    assert math.comb(n, k) * k > cap  # really sampled
    assert 0 < len(games) <= cap and balance[k].sampled
    per_bot = Counter(bot for g in games for bot in g.seats)
    assert len(per_bot) == n and len(set(per_bot.values())) == 1  # same number of games
    counts = seat_counts(games)
    assert len(counts) == n * k and len(set(counts.values())) == 1  # seats equal
    meetings = Counter(p for g in games for p in itertools.combinations(sorted(g.seats), 2))
    values = [meetings[p] for p in itertools.combinations(names(n), 2)]
    ideal = sum(values) / len(values)
    # as even as the cyclic construction allows: within a factor of ~2 of the ideal
    assert max(values) <= 2 * ideal + k and min(values) >= ideal / 2 - k
    assert balance[k].meetings == (min(values), max(values))
    for rotations in by_table(games).values():
        assert len(rotations) == k and len({g.seed for g in rotations}) == 1


def test_sample_is_deterministic_and_cap_too_small_is_explained() -> None:
    a, _ = build_schedule("ra", names(12), [4], seed=2, max_games=200)
    b, _ = build_schedule("ra", names(12), [4], seed=2, max_games=200)
    assert a == b
    with pytest.raises(ArenaError, match="max_games is too small.*at least 48"):
        build_schedule("ra", names(12), [4], seed=2, max_games=40)


def test_cap_above_the_full_schedule_plays_everything() -> None:
    games, balance = build_schedule("ra", names(5), [3], seed=2, max_games=10_000)
    assert len(games) == 30 and not balance[3].sampled


def test_gauntlet() -> None:
    games, balance = build_schedule("ra", ["hero", *names(5)], [3], seed=4, rounds=2,
                                    challenger="hero")
    assert all("hero" in g.seats for g in games)
    assert len(games) == math.comb(5, 2) * 3 * 2
    assert Counter(g.seats.index("hero") for g in games) == {0: 20, 1: 20, 2: 20}
    assert balance[3].games_per_bot[0] == balance[3].games_per_bot[1] == 24


def test_gauntlet_sample_keeps_the_field_balanced() -> None:
    games, balance = build_schedule("ra", ["hero", *names(20)], [4], seed=4,
                                    challenger="hero", max_games=300)
    assert len(games) <= 300 and all("hero" in g.seats for g in games)
    per_bot = Counter(bot for g in games for bot in g.seats if bot != "hero")
    assert len(per_bot) == 20 and len(set(per_bot.values())) == 1
    assert balance[4].sampled


def test_too_few_bots() -> None:
    with pytest.raises(ArenaError, match="4-player games need 4 bots in the roster, but it has 3"):
        build_schedule("ra", names(3), [4], seed=1)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(5, 16), k=st.integers(2, 5), orbits=st.integers(1, 4),
       seed=st.integers(0, 2**40))
def test_any_balanced_sample_gives_equal_games_and_seats(
    n: int, k: int, orbits: int, seed: int
) -> None:
    cap = orbits * n * k
    if math.comb(n, k) * k <= cap:
        return  # small enough to play completely
    games, balance = build_schedule("ra", names(n), [k], seed=seed, max_games=cap)
    assert balance[k].sampled and 0 < len(games) <= cap
    counts = seat_counts(games)
    assert len(counts) == n * k and len(set(counts.values())) == 1
    assert len({g.game_id for g in games}) == len(games)


def test_order_of_play_interleaves_player_counts_round_by_round() -> None:
    bots = [f"b{i}" for i in range(6)]
    games, _ = build_schedule("ra", bots, [2, 3, 4], seed=11, rounds=2)
    # round by round: every game of round 0 comes before any game of round 1
    rounds = [g.round for g in games]
    assert rounds == sorted(rounds)
    # a table's seat rotations are played one after the other
    starts = [i for i, g in enumerate(games) if i == 0 or games[i - 1].table != g.table]
    for i in starts:
        size = games[i].num_players
        assert {g.table for g in games[i:i + size]} == {games[i].table}
    assert len(starts) == len({(g.table, g.round) for g in games})
    # stopped after the first fifth of round 0, the league has every player count,
    # in about the share the whole round has
    round_zero = [g for g in games if g.round == 0]
    early = round_zero[: len(round_zero) // 5]
    for k in (2, 3, 4):
        share = sum(g.num_players == k for g in round_zero) / len(round_zero)
        assert abs(sum(g.num_players == k for g in early) / len(early) - share) < 0.25
    # the order is the seed's: the same seed gives it again, another seed another order
    again, _ = build_schedule("ra", bots, [2, 3, 4], seed=11, rounds=2)
    other, _ = build_schedule("ra", bots, [2, 3, 4], seed=12, rounds=2)
    assert [g.game_id for g in again] == [g.game_id for g in games]
    assert [g.table for g in other] != [g.table for g in games]


def test_ids_and_seeds_built_directly_equal_their_json_definition() -> None:
    import hashlib
    import json

    from arena.league.schedule import _table_seed_and_id, game_id, stable_int

    for game, seats, seed in (("ra", ["a", "b.c", "x-y_1"], 0),
                              ("ra_dice", ["é", 'q"uote', "back\\slash"], 2**62 + 7)):
        text = json.dumps([game, list(seats), seed], separators=(",", ":"))
        assert game_id(game, seats, seed) == hashlib.sha256(text.encode()).hexdigest()[:16]
        for k, round_number in ((3, 0), (5, 12)):
            key = [game, k, round_number, sorted(seats)]
            expected_id = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:12]
            assert _table_seed_and_id(seed, game, k, round_number, seats) == (
                stable_int(seed, *key), expected_id)
