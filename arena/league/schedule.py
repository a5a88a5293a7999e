"""Which games a league plays: pure and deterministic from the configuration.

A *table* is a set of k bots.  Every table is played in k seat rotations so that each of
its bots sits in every seat once, and all rotations share one seed (duplicate format: the
same tiles come out for every seating, so luck cancels).  Each round repeats the tables
with fresh seeds.  Seeds and game ids come from sha256 of their content, never from
Python's ``hash()``, so they are the same on every machine and every run; a game's id
depends only on the game, its seating and its seed, which is what lets a league resume
and lets a new bot add only its own games.

The order of play is a seeded interleaving: round by round, and within a round the tables
of every player count in a seeded shuffle (a table's seat rotations stay together, so its
luck cancels as soon as it is complete).  A league stopped at any point is then a fair
sample of the whole, rather than all tables of one size, in name order.

Formats:

* round-robin: every k-combination of the roster;
* gauntlet: one challenger with every (k-1)-combination of the field;
* either one, when it has more games than ``max_games``, becomes a *balanced sample*:
  cyclic orbits of base tables over the bots (each orbit gives every bot the same number
  of tables), with base tables picked greedily so pairs of bots meet as evenly as possible.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.runner.botspec import ParameterValues


@dataclass(frozen=True)
class ScheduledGame:
    game_id: str
    table: str  # id of the table: the same for all its rotations
    round: int
    seats: tuple[str, ...]  # bot name per seat
    seed: int
    # (bot name, values): parameter values some seats' bots play with instead of their
    # defaults (open-ended play: ``arena tune``'s perturbed players); the caller's ids
    # tell such games apart (arena/tune/tuner.py names each perturbed player)
    parameters: tuple[tuple[str, ParameterValues], ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.seats)


@dataclass(frozen=True)
class Balance:
    """How evenly a schedule spreads games, seats and meetings (min, max over bots/pairs)."""

    games_per_bot: tuple[int, int]
    seat_counts: tuple[int, int]  # per bot and seat
    meetings: tuple[int, int] | None  # per pair of bots; None when no two bots can meet
    sampled: bool

    def describe(self) -> str:
        def span(pair: tuple[int, int] | None) -> str:
            if pair is None:
                return "none (only the challenger meets the field)"
            return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}-{pair[1]}"

        kind = "balanced sample" if self.sampled else "complete"
        return (
            f"{kind}: games per bot {span(self.games_per_bot)}, "
            f"per bot and seat {span(self.seat_counts)}, "
            f"meetings per pair {span(self.meetings)}"
        )


def stable_int(*parts: object) -> int:
    """A 63-bit integer from sha256 of the parts (stable across runs and machines)."""
    digest = hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_id(game: str, seats: Sequence[str], seed: int) -> str:
    """sha256 of ``json.dumps([game, seats, seed], separators=(",", ":"))``, the text
    built directly: a league of hundreds of bots has hundreds of thousands of games, and
    json.dumps was most of the time of planning one (tests check the texts are equal)."""
    text = f"[{_quoted(game)},[{','.join(map(_quoted, seats))}],{seed}]"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=4096)
def _quoted(name: str) -> str:
    return json.dumps(name)


def _table_seed_and_id(seed: int, game: str, k: int, round_number: int,
                       members: Sequence[str]) -> tuple[int, str]:
    """``stable_int(seed, game, k, round, sorted(members))`` and the table's id (sha256 of
    the default ``json.dumps`` of ``[game, k, round, sorted(members)]``), texts built
    directly as in :func:`game_id`."""
    names = [_quoted(name) for name in sorted(members)]
    compact = f"[{seed},{_quoted(game)},{k},{round_number},[{','.join(names)}]]"
    digest = hashlib.sha256(compact.encode()).digest()
    spaced = f"[{_quoted(game)}, {k}, {round_number}, [{', '.join(names)}]]"
    return int.from_bytes(digest[:8], "big") >> 1, hashlib.sha256(spaced.encode()).hexdigest()[:12]


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    return [tuple(table[r:]) + tuple(table[:r]) for r in range(len(table))]


def table_games(game: str, table: Sequence[str], seed: int, round: int = 0,
                parameters: Sequence[tuple[str, ParameterValues]] = ()
                ) -> list[ScheduledGame]:
    """The games of one table chosen by a caller (open-ended play): every seat rotation
    of ``table`` with the one ``seed`` (duplicate format, as a schedule plays a table),
    each id from its game, seating and seed like a scheduled game's, so a table asked
    for twice is stored once.  ``parameters``: values some of its bots play with (see
    :class:`ScheduledGame`)."""
    text = json.dumps([game, len(table), round, list(table), seed], separators=(",", ":"))
    table_id = hashlib.sha256(text.encode()).hexdigest()[:12]
    return [ScheduledGame(game_id(game, seats, seed), table_id, round, seats, seed,
                          tuple(parameters))
            for seats in rotations(table)]


def build_schedule(
    game: str,
    bots: Sequence[str],
    players: Sequence[int],
    *,
    seed: int,
    rounds: int = 1,
    challenger: str | None = None,
    max_games: int | None = None,
) -> tuple[list[ScheduledGame], dict[int, Balance]]:
    """All games of a league, in their order of play, and the balance per player count.

    ``bots`` is the roster (the field, for a gauntlet).  ``max_games`` caps the whole
    league; the budget is split evenly over player counts and rounds."""
    field = sorted(set(bots) - {challenger} if challenger else set(bots))
    games: list[ScheduledGame] = []
    tables_by_round: dict[int, list[list[ScheduledGame]]] = {}
    balances: dict[int, Balance] = {}
    budget = None if max_games is None else max_games // (len(players) * rounds)
    for k in players:
        size = k - 1 if challenger else k
        if len(field) < size:
            who = "the field of the gauntlet" if challenger else "the roster"
            raise ArenaError(
                f"{k}-player games need {size} bots in {who}, but it has {len(field)}"
            )
        for round_number in range(rounds):
            tables, sampled = _tables(
                field, size, budget, seed, k, round_number, len(players) * rounds
            )
            for members in tables:
                if challenger:
                    members = (challenger, *members)
                table_seed, table = _table_seed_and_id(seed, game, k, round_number, members)
                # A shuffled base order, so who sits after whom is not alphabetical.
                order = sorted(members)
                random.Random(table_seed).shuffle(order)
                table_games = [
                    ScheduledGame(game_id(game, seats, table_seed), table, round_number,
                                  seats, table_seed)
                    for seats in rotations(order)
                ]
                games.extend(table_games)
                tables_by_round.setdefault(round_number, []).append(table_games)
        balances[k] = measure_balance(
            [g for g in games if g.num_players == k], sampled=sampled, ignore=challenger
        )
    return _order_of_play(tables_by_round, seed), balances


def _order_of_play(
    tables_by_round: dict[int, list[list[ScheduledGame]]], seed: int
) -> list[ScheduledGame]:
    """Round by round; within a round, every player count's tables in a seeded shuffle."""
    ordered: list[ScheduledGame] = []
    for round_number in sorted(tables_by_round):
        tables = tables_by_round[round_number]
        random.Random(stable_int("order", seed, round_number)).shuffle(tables)
        for table_games in tables:
            ordered.extend(table_games)
    return ordered


def _tables(
    field: Sequence[str],
    size: int,
    budget: int | None,
    seed: int,
    k: int,
    round_number: int,
    parts: int,
) -> tuple[list[tuple[str, ...]], bool]:
    total = math.comb(len(field), size)
    if budget is None or total * k <= budget:
        return list(itertools.combinations(field, size)), False
    orbit_games = len(field) * k
    if budget < orbit_games:
        raise ArenaError(
            f"max_games is too small for a balanced sample of {k}-player games: each round "
            f"needs at least {orbit_games} ({len(field)} bots x {k} seats) per player count; "
            f"raise max_games to at least {orbit_games * parts} or remove it"
        )
    rng = random.Random(stable_int("sample", seed, k, round_number))
    # Positions on the cycle are a seeded shuffle, so names do not decide who meets whom.
    order = list(field)
    rng.shuffle(order)
    blocks = cyclic_blocks(len(order), size, budget // orbit_games, rng)
    return [tuple(order[(b + shift) % len(order)] for b in block)
            for block in blocks for shift in range(len(order))], True


def cyclic_blocks(n: int, size: int, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """``count`` base tables over Z_n, each containing 0, whose orbits (all n shifts) are
    distinct full tables, chosen so the cyclic differences are covered evenly (a pair of
    bots at cyclic distance d meets once per occurrence of d in a base table): greedy
    picks, then a few passes of single-block swaps that lower the spread."""
    coverage: Counter[int] = Counter()  # pair meetings per difference class so far

    def added_cost(cover: Counter[int], block: tuple[int, ...]) -> int:
        """How much adding ``block``'s orbit raises the sum of squared coverage: the
        greedy's cost, computed from the block's few differences rather than all n/2."""
        return sum((cover[d] + x) ** 2 - cover[d] ** 2
                   for d, x in _differences(block, n).items())

    def candidates(taken: set[tuple[int, ...]]) -> list[tuple[int, ...]]:
        found = {}
        for _attempt in range(200):
            block = tuple(sorted([0, *rng.sample(range(1, n), size - 1)]))
            canonical = _canonical(block, n)
            if canonical not in taken and canonical not in found and _full_orbit(block, n):
                found[canonical] = block
        return list(found.values())

    chosen: list[tuple[int, ...]] = []
    for _ in range(count):
        options = candidates({_canonical(b, n) for b in chosen})
        if not options:
            break  # every distinct orbit is used: a smaller, still balanced, sample
        block = min(options, key=lambda b: added_cost(coverage, b))
        coverage += _differences(block, n)
        chosen.append(block)
    for _pass in range(3):
        improved = False
        for i, block in enumerate(chosen):
            without = coverage - _differences(block, n)
            taken = {_canonical(b, n) for b in chosen}
            best = min(candidates(taken) + [block], key=lambda b: added_cost(without, b))
            if added_cost(without, best) < added_cost(without, block):
                chosen[i], coverage, improved = best, without + _differences(best, n), True
        if not improved:
            break
    return chosen


def _differences(block: Sequence[int], n: int) -> Counter[int]:
    """Meetings per difference class that one orbit of ``block`` adds to each pair."""
    counts: Counter[int] = Counter()
    for a, b in itertools.combinations(block, 2):
        d = min((a - b) % n, (b - a) % n)
        counts[d] += 2 if 2 * d == n else 1  # the pairs at distance n/2 appear twice
    return counts


def _canonical(block: Sequence[int], n: int) -> tuple[int, ...]:
    return min(tuple(sorted((b - s) % n for b in block)) for s in block)


def _full_orbit(block: Sequence[int], n: int) -> bool:
    """No shift but 0 maps ``block`` onto itself.  A set fixed by a shift is a union of
    cosets of the subgroup that shift generates, whose order m divides both n and the
    block's size, and is then fixed by that subgroup's generator n/m: so only the shifts
    n/m for the few such m need a look (the block's size is a player count)."""
    members = frozenset(block)
    size = len(members)
    return all(
        frozenset((b + n // m) % n for b in block) != members
        for m in range(2, size + 1)
        if size % m == 0 and n % m == 0
    )


def measure_balance(
    games: Sequence[ScheduledGame], *, sampled: bool, ignore: str | None = None
) -> Balance:
    """Balance over the bots other than ``ignore`` (a gauntlet's challenger)."""
    per_bot: Counter[str] = Counter()
    per_seat: Counter[tuple[str, int]] = Counter()
    meetings: Counter[tuple[str, str]] = Counter()
    for g in games:
        for seat, bot in enumerate(g.seats):
            if bot == ignore:
                continue
            per_bot[bot] += 1
            per_seat[bot, seat] += 1
        for a, b in itertools.combinations(sorted(set(g.seats) - {ignore}), 2):
            meetings[a, b] += 1
    bots = sorted(per_bot)
    k = games[0].num_players if games else 0
    seats = [per_seat[bot, s] for bot in bots for s in range(k)]
    pairs = [meetings[a, b] for a, b in itertools.combinations(bots, 2)]
    # In a gauntlet the field never meets without the challenger's table; pairs that
    # cannot meet at all (k=2 gauntlet) are left out rather than counted as zero.
    if pairs and max(pairs) == 0:
        pairs = []

    def span(values: list[int]) -> tuple[int, int]:
        return (min(values), max(values)) if values else (0, 0)

    return Balance(
        span(list(per_bot.values())), span(seats), span(pairs) if pairs else None, sampled
    )
