"""Swiss rounds for tables of any size (2 to 5 players in Ra): a winner in a few rounds
instead of everyone against everyone (docs/leagues.md, *Swiss*).

Each round, the bots are ranked by score (then by seed) and cut into tables of k
neighbours, so tables form within score groups and a group that does not divide floats
its last bots down to the next; when the field does not divide into tables, the bots with
the fewest byes, lowest ranked first, sit the round out (a bye).  Tables are searched
top down (the best-placed free bot with the nearest free bots that fit), with
backtracking, at three levels: no two bots who met before (no repeated pair), else no
table that was played before (no repeated table), else the nearest neighbours; the first
level that has a solution within the search budget wins, so a repeat is only played
where none can be avoided (for fields this small, the search is complete).

A table plays a match of ``games`` games (default k: every seat once on one deal, the
arena's duplicate table, so seats are even by construction; fewer or more games rotate
the seats of a base seating chosen to keep each bot's seats even over the rounds,
:func:`arena.league.formats.balanced_order`).

Score: each round a bot scores its mean finish-ahead share over its table's games (the
share of the other bots it finished ahead of, a shared place counting half): at two
players with the default two games 1 for a won match, 1/2 for a drawn one, 0 for a lost
one, as chess scores; at more players it also counts how far ahead (the board points that
rank teams in some chess events: finer than the place at the table, and found better at
finding the strongest bot by ``arena bench formats``); a bye scores 1/2.  Standings:
score, then the tie-breaks

1. Buchholz for tables: per round, the mean final score of the bots at its table, summed
   over the rounds (at two players exactly Buchholz: the sum of the opponents' scores);
   a round without a table (a bye) counts the bot's own final score, as FIDE's 2023
   tie-break rules count an unplayed round;
2. Sonneborn-Berger for tables: per round, its score times the mean final score of the
   bots at its table, summed (at two players: the scores of the opponents it beat, half
   of those it drew); a bye counts as for Buchholz;
3. seed (the order given, or by rating).

Every round's pairing is a pure function of the field (in seed order), the league's seed
and the results of the rounds before it.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.league.formats import (
    Entrants,
    SeededFormat,
    Stage,
    Standing,
    Standings,
    Tournament,
    balanced_order,
    match_games,
    match_points,
    read_seeding,
    single_count,
    table_key,
)
from arena.league.schedule import ScheduledGame, stable_int
from arena.records import GameResult

if TYPE_CHECKING:
    from arena.league.config import FormatOptions, LeagueConfig

BYE_SCORE = 0.5  # what an even table gives on average
SEARCH_BUDGET = 20_000  # tables tried per level before the next, looser level
NO_REPEATED_PAIR, NO_REPEATED_TABLE, ANY_TABLE = 0, 1, 2
LEVELS = ("no two bots who met before", "no table played before", "the nearest bots")


def default_rounds(bots: int, players: int) -> int:
    """log2(n) + 1 rounds (what finds a clear winner among n, the habit of chess opens),
    at most as many as tables of new opponents allow (n - 1) / (k - 1)."""
    return max(1, min(math.ceil(math.log2(bots)) + 1, math.ceil((bots - 1) / (players - 1))))


class Swiss(SeededFormat):
    name = "swiss"
    summary = "rounds of tables within score groups: a winner in a few rounds"

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        k = single_count(config, self.name)
        games = options.integer("games", 1, 1000, k)
        seeding = read_seeding(options)
        options.finish()
        return {"games": games, **seeding}

    def start(self, entrants: Entrants) -> SwissTournament:
        k = entrants.players[0]
        n = len(entrants.bots)
        if n < k:
            raise ArenaError(f"a Swiss of {k}-player tables needs at least {k} bots; the "
                             f"roster has {n}")
        rounds = entrants.rounds if entrants.rounds_given else default_rounds(n, k)
        games = int(entrants.options.get("games") or k)
        return SwissTournament(entrants, k, rounds, games)


@dataclass
class Record:
    """One bot's Swiss record so far."""

    score: float = 0.0
    games: int = 0
    byes: int = 0
    # per round, the other bots at its table (empty: a bye) and what it scored
    tables: list[tuple[str, ...]] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Pairing:
    tables: tuple[tuple[str, ...], ...]  # bots of each table, best placed first
    byes: tuple[str, ...]
    level: int  # NO_REPEATED_PAIR, NO_REPEATED_TABLE or ANY_TABLE


class SwissTournament(Tournament):
    def __init__(self, entrants: Entrants, players: int, rounds: int, games: int) -> None:
        self.entrants = entrants
        self.k = players
        self.rounds = rounds
        self.games_per_table = games
        self.seed_rank = {bot: i for i, bot in enumerate(entrants.bots)}
        self.records = {bot: Record() for bot in entrants.bots}
        self.met: Counter[frozenset[str]] = Counter()  # pairs of bots: tables shared
        self.played_tables: set[frozenset[str]] = set()
        self.seats: Counter[tuple[str, int]] = Counter()  # (bot, seat) -> games
        self.round = 0  # rounds recorded
        self.pairings: list[Pairing] = []  # every round paired so far
        self._stage: Stage | None = None
        self._tables: list[tuple[tuple[str, ...], list[ScheduledGame]]] = []

    # -- the rounds -------------------------------------------------------------------
    def next_stage(self) -> Stage | None:
        if self.round >= self.rounds:
            return None
        if self._stage is None:
            self._stage = self._pair_round()
        return self._stage

    def ranked_for_pairing(self) -> list[str]:
        """Score, then seed: the order tables are cut from."""
        return sorted(self.records, key=lambda bot: (-self.records[bot].score,
                                                     self.seed_rank[bot]))

    def _pair_round(self) -> Stage:
        order = self.ranked_for_pairing()
        position = {bot: i for i, bot in enumerate(order)}
        # byes: the fewest byes so far, lowest ranked first
        count = len(order) % self.k
        byes = sorted(order, key=lambda bot: (self.records[bot].byes, -position[bot]))[:count]
        playing = [bot for bot in order if bot not in byes]
        tables, level = partition(playing, self.k, self.met, self.played_tables)
        pairing = Pairing(tuple(tables), tuple(sorted(byes, key=position.__getitem__)), level)
        self.pairings.append(pairing)
        e, r = self.entrants, self.round
        self._tables = []
        for members in pairing.tables:
            names = sorted(members)
            seed = stable_int(e.seed, "swiss", e.game, self.k, r, names)
            rng = random.Random(stable_int("swiss-seats", seed))
            seating = balanced_order(members, self.seats, self.games_per_table, rng)
            table = table_key("swiss", e.game, self.k, r, names)
            self._tables.append((members, match_games(e.game, seating, seed,
                                                      self.games_per_table, round=r,
                                                      table=table)))
        notes = []
        if pairing.byes:
            notes.append(f"bye: {', '.join(pairing.byes)}")
        if level != NO_REPEATED_PAIR:
            notes.append(f"no pairing without repeats exists; tables of {LEVELS[level]}")
        games = tuple(game for _, table_games in self._tables for game in table_games)
        return Stage(f"round {r + 1} of {self.rounds}", games, tuple(notes))

    def record(self, results: Sequence[GameResult]) -> None:
        by_id = {result.game_id: result for result in results}
        for members, games in self._tables:
            table_results = [by_id[game.game_id] for game in games]
            points = match_points(table_results)
            for bot in members:
                record = self.records[bot]
                scored = points.get(bot, 0.0) / len(games)
                record.score += scored
                record.scores.append(scored)
                record.games += len(games)
                record.tables.append(tuple(other for other in members if other != bot))
            for pair in combinations(members, 2):
                self.met[frozenset(pair)] += 1
            self.played_tables.add(frozenset(members))
            for game in games:
                for seat, bot in enumerate(game.seats):
                    self.seats[bot, seat] += 1
        for bot in self.pairings[-1].byes:
            record = self.records[bot]
            record.score += BYE_SCORE
            record.scores.append(BYE_SCORE)
            record.byes += 1
            record.tables.append(())
        self.round += 1
        self._stage = None
        self._tables = []

    # -- what it shows ----------------------------------------------------------------
    def expected_games(self) -> int:
        tables = len(self.entrants.bots) // self.k
        return self.rounds * tables * self.games_per_table

    def description(self) -> str:
        n = len(self.entrants.bots)
        tables, byes = divmod(n, self.k)
        bye = f", {byes} bye{'s' if byes > 1 else ''} a round" if byes else ""
        how = ("every seat once on one deal" if self.games_per_table == self.k
               else "seats rotated, kept even over the rounds")
        rounds = f"{self.rounds} round{'s' if self.rounds > 1 else ''}"
        return (f"Swiss: {n} bots, {rounds} of {tables} table{'s' if tables > 1 else ''} of "
                f"{self.k}{bye}; {self.games_per_table} games a table ({how}): "
                f"{self.expected_games()} games")

    def opposition(self) -> dict[str, list[float]]:
        """Per bot and round: the mean final score of its table's other bots (a bye: its
        own final score)."""
        score = {bot: record.score for bot, record in self.records.items()}
        return {bot: [sum(score[o] for o in table) / len(table) if table else score[bot]
                      for table in record.tables]
                for bot, record in self.records.items()}

    def buchholz(self) -> dict[str, float]:
        """Per bot: the opposition's mean final score, summed over rounds."""
        return {bot: sum(rounds) for bot, rounds in self.opposition().items()}

    def sonneborn_berger(self) -> dict[str, float]:
        """Per bot: each round's score times that round's opposition, summed."""
        return {bot: sum(scored * strength for scored, strength in
                         zip(self.records[bot].scores, rounds, strict=True))
                for bot, rounds in self.opposition().items()}

    def standings(self) -> Standings:
        buchholz = self.buchholz()
        berger = self.sonneborn_berger()
        records = self.records

        def key(bot: str) -> tuple[float, ...]:
            return (-records[bot].score, -buchholz[bot], -berger[bot], self.seed_rank[bot])

        order = sorted(records, key=key)
        rows = []
        for rank, bot in enumerate(order, start=1):
            record = records[bot]
            rows.append(Standing(rank, bot, {
                "score": _number(record.score),
                "Buchholz": f"{buchholz[bot]:.2f}",
                "Sonneborn-Berger": f"{berger[bot]:.2f}",
                "games": str(record.games),
                "byes": str(record.byes),
            }, key(bot)))
        done = (f"after {self.round} of {self.rounds} rounds" if self.round < self.rounds
                else f"{self.rounds} rounds")
        return Standings(
            title=f"Swiss standings ({done}, tables of {self.k})",
            columns=("score", "Buchholz", "Sonneborn-Berger", "games", "byes"),
            rows=tuple(rows),
            notes=("Score: per round, the bot's mean share of the other bots at its table it "
                   "finished ahead of, over the table's games (2 players, 2 games: 1 a won "
                   "match, 1/2 a drawn one); a bye 1/2. Tie-breaks: Buchholz (the mean final "
                   "score of its table's other bots, summed over rounds; a bye counts its "
                   "own score), then Sonneborn-Berger (each round's score times that mean, "
                   "summed), then seed.",),
        )


def _number(value: float) -> str:
    return f"{value:g}" if abs(value * 4 - round(value * 4)) < 1e-9 else f"{value:.2f}"


# --------------------------------------------------------------------------- pairing


def partition(order: Sequence[str], k: int, met: Counter[frozenset[str]],
              played: set[frozenset[str]], budget: int = SEARCH_BUDGET
              ) -> tuple[list[tuple[str, ...]], int]:
    """``order`` (best placed first; a multiple of k bots) cut into tables of k, each
    taking the best-placed free bot and the nearest free bots that fit: at the strictest
    level that has a solution within ``budget`` tables tried.  Returns the tables and the
    level."""
    n = len(order)
    if n % k:
        raise ArenaError(f"{n} bots do not fill tables of {k}")
    index = {bot: i for i, bot in enumerate(order)}
    # bit j of fits[i]: bots i and j never met
    fits = [0] * n
    for i in range(n):
        for j in range(n):
            if i != j and frozenset((order[i], order[j])) not in met:
                fits[i] |= 1 << j
    played_indices = {frozenset(index[b] for b in table) for table in played
                      if all(b in index for b in table)}

    def new_pairs(table: tuple[int, ...]) -> bool:
        return all(fits[a] >> b & 1 for a, b in combinations(table, 2))

    def new_table(table: tuple[int, ...]) -> bool:
        return frozenset(table) not in played_indices

    checks: list[Callable[[tuple[int, ...]], bool]] = [new_pairs, new_table, lambda t: True]
    for level, fits_table in enumerate(checks):
        found = _search(n, k, fits_table, fits if level == NO_REPEATED_PAIR else None,
                        budget if level < ANY_TABLE else None)
        if found is not None:
            return [tuple(order[i] for i in table) for table in found], level
    raise AssertionError("the last level always has a solution")  # pragma: no cover


class _OutOfBudget(Exception):
    pass


def _search(n: int, k: int, fits_table: Callable[[tuple[int, ...]], bool],
            fits: list[int] | None, budget: int | None) -> list[tuple[int, ...]] | None:
    """Depth-first: the first free bot with k - 1 of the later free bots, nearest first
    (combinations in lexicographic order), backtracking.  ``fits``: also prune a choice
    that leaves a free bot with fewer than k - 1 free bots it may still meet."""
    chosen: list[tuple[int, ...]] = []
    tried = 0

    def room(free: int) -> bool:
        if fits is None:
            return True
        rest = free
        while rest:
            low = rest & -rest
            i = low.bit_length() - 1
            if (fits[i] & free).bit_count() < k - 1:
                return False
            rest ^= low
        return True

    def dfs(free: int) -> bool:
        nonlocal tried
        if not free:
            return True
        first = (free & -free).bit_length() - 1
        others = free & ~(1 << first)
        if fits is not None:
            others &= fits[first]
        candidates = [i for i in range(first + 1, n) if others >> i & 1]
        for combo in combinations(candidates, k - 1):
            tried += 1
            if budget is not None and tried > budget:
                raise _OutOfBudget
            table = (first, *combo)
            if not fits_table(table):
                continue
            left = free
            for i in table:
                left &= ~(1 << i)
            if not room(left):
                continue
            chosen.append(table)
            if dfs(left):
                return True
            chosen.pop()
        return False

    try:
        return list(chosen) if dfs((1 << n) - 1) else None
    except _OutOfBudget:
        return None
