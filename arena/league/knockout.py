"""Knockout brackets for tables of any size (docs/leagues.md, *Knockout*).

The field is seeded (the order given, a seeded shuffle, or by rating from another
league's results) and plays rounds of tables until a final table of k decides the
winner.  The rounds' sizes are fixed at the start: the final has k bots, and each round
before it as many as feed it when the top ``advance`` of each table go through
(``ceil(size * k / advance)``: 2, 4, 8, 16 ... at two players); the first round takes
the field down to the next of those sizes, the best seeds sitting it out (byes) and the
others playing as few tables as that needs.  Each round the bots still in are ranked by
seed and dealt to tables like cards (the best seed with the worst: 1 v 16, 2 v 15 ... at
two players; serpentine for more), so the best seeds meet last.

A table plays a match of ``games`` games (default k: every seat once on one deal; more
games rotate the seats, a fresh deal every k).  Its bots are ranked by their points over
the match (the sum of their finish-ahead shares: a won 2-player game is 1, a draw 1/2).
When a tie straddles the places that go through, the table plays tie-break sets (k games,
every seat once on a fresh deal; up to ``tie_breaks`` of them), and the tied bots are
ranked by their tie-break points; still tied after the last, the better seed goes
through.  When a round needs more (or fewer) bots than the top ``advance`` of every
table, the next places are compared across tables by their points, then by seed (the
"best runners-up" of many group stages).

Standings: the winner, then by the round reached (the final's places first), then the
place at the last table, the points there, the seed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.league.formats import (
    BracketRound,
    BracketTable,
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

DEFAULT_TIE_BREAKS = 3  # sets of tie-break games before the better seed goes through


class Knockout(SeededFormat):
    name = "knockout"
    summary = "a seeded bracket: matches of N games, the top places of each table go on"

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        k = single_count(config, self.name)
        if config.rounds_given:
            raise ArenaError(f"{config.path}: key 'rounds': a knockout's rounds follow "
                             "from its bracket; remove the key")
        games = options.integer("games", 1, 1000, k)
        tie_breaks = options.integer("tie_breaks", 0, 100, DEFAULT_TIE_BREAKS)
        if k == 2 and options.given("advance"):
            options.integer("advance", 1, 1, 1)  # says what is allowed
        advance = options.integer("advance", 1, max(1, k - 1), 1)
        seeding = read_seeding(options)
        options.finish()
        return {"games": games, "tie_breaks": tie_breaks, "advance": advance, **seeding}

    def start(self, entrants: Entrants) -> KnockoutTournament:
        k = entrants.players[0]
        if len(entrants.bots) < k:
            raise ArenaError(f"a knockout of {k}-player tables needs at least {k} bots; "
                             f"the roster has {len(entrants.bots)}")
        options = entrants.options
        return KnockoutTournament(entrants, k, int(options.get("games") or k),
                                  int(options.get("tie_breaks", DEFAULT_TIE_BREAKS)),
                                  int(options.get("advance") or 1))


def round_sizes(bots: int, players: int, advance: int) -> list[int]:
    """The bots entering each round, the field first and the final's k last."""
    sizes = [players]
    while sizes[-1] < bots:
        sizes.append(math.ceil(sizes[-1] * players / advance))
    return [bots, *reversed(sizes[:-1])] if bots > players else [players]


def deal(seeds: Sequence[str], tables: int) -> list[list[str]]:
    """Bots in seed order dealt to ``tables`` tables like cards, back and forth (1 v 2t,
    2 v 2t - 1 ... for pairs): every table gets one bot of each band of seeds."""
    dealt: list[list[str]] = [[] for _ in range(tables)]
    for number, bot in enumerate(seeds):
        band, place = divmod(number, tables)
        dealt[place if band % 2 == 0 else tables - 1 - place].append(bot)
    return dealt


@dataclass
class Table:
    """One table of a round: its match, then any tie-break sets."""

    bots: tuple[str, ...]  # in seed order
    seating: tuple[str, ...]  # the match's base seating
    seed: int
    key: str
    cut: int  # the places that go through (ties across it are broken by games)
    match: dict[str, float] = field(default_factory=dict)
    tie: dict[str, float] = field(default_factory=dict)
    sets: int = 0  # tie-break sets played
    games: int = 0
    decided: bool = False  # every result is in and the cut is settled (or given up)

    def order(self, seed_rank: dict[str, int]) -> list[str]:
        return sorted(self.bots, key=lambda bot: (-self.match.get(bot, 0.0),
                                                  -self.tie.get(bot, 0.0), seed_rank[bot]))

    def tied_at_cut(self, seed_rank: dict[str, int]) -> bool:
        ranked = self.order(seed_rank)
        if self.cut >= len(ranked):
            return False
        above, below = ranked[self.cut - 1], ranked[self.cut]
        return (self.match.get(above, 0.0), self.tie.get(above, 0.0)) == \
            (self.match.get(below, 0.0), self.tie.get(below, 0.0))


@dataclass
class Round:
    number: int
    entrants: tuple[str, ...]  # in seed order
    going_on: int  # how many reach the next round (1: the final's winner)
    byes: tuple[str, ...]
    tables: list[Table]
    advanced: tuple[str, ...] = ()
    done: bool = False


class KnockoutTournament(Tournament):
    def __init__(self, entrants: Entrants, players: int, games: int, tie_breaks: int,
                 advance: int) -> None:
        self.entrants = entrants
        self.k = players
        self.games_per_match = games
        self.tie_breaks = tie_breaks
        self.advance = advance
        self.seed_rank = {bot: i for i, bot in enumerate(entrants.bots)}
        self.sizes = round_sizes(len(entrants.bots), players, advance)
        self.rounds: list[Round] = []
        self.seats: Counter[tuple[str, int]] = Counter()
        self._stage: Stage | None = None
        # the current stage: (table, its games, whether they are a tie-break set)
        self._pending: list[tuple[Table, list[ScheduledGame], bool]] = []
        self._open_round(tuple(entrants.bots))

    # -- the rounds -------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return bool(self.rounds) and self.rounds[-1].done and \
            len(self.rounds) == len(self.sizes)

    def _open_round(self, entrants: tuple[str, ...]) -> None:
        number = len(self.rounds)
        m = len(entrants)
        going_on = self.sizes[number + 1] if number + 1 < len(self.sizes) else 1
        k, a = self.k, self.advance
        byes: tuple[str, ...] = ()
        if going_on == 1:  # the final: one table of k
            tables_count = 1
        else:
            out = m - going_on
            tables_count = min(m // k, math.ceil(out / (k - a)))
            byes = entrants[:m - tables_count * k]
        players = [bot for bot in entrants if bot not in byes]
        from_tables = going_on - len(byes)
        cut = a if tables_count > 1 else from_tables
        e = self.entrants
        tables = []
        for bots in deal(players, tables_count):
            names = sorted(bots)
            seed = stable_int(e.seed, "knockout", e.game, k, number, names)
            rng = random.Random(stable_int("knockout-seats", seed))
            seating = balanced_order(bots, self.seats, self.games_per_match, rng)
            key = table_key("knockout", e.game, k, number, names)
            tables.append(Table(tuple(bots), seating, seed, key, min(cut, k)))
        self.rounds.append(Round(number, entrants, going_on, tuple(byes), tables))

    def next_stage(self) -> Stage | None:
        if self.finished:
            return None
        if self._stage is None:
            self._stage = self._make_stage()
        return self._stage

    def _label(self, number: int) -> str:
        last = len(self.sizes) - 1
        if number == last:
            return "final"
        if self.k == 2 and number == last - 1:
            return "semi-final"
        if self.k == 2 and number == last - 2:
            return "quarter-final"
        return f"round {number + 1} of {len(self.sizes)}"

    def _in(self, number: int) -> str:
        """"in the final", "in round 1 of 4"."""
        label = self._label(number)
        return f"in {label}" if label.startswith("round") else f"in the {label}"

    def _make_stage(self) -> Stage:
        current = self.rounds[-1]
        e, n = self.entrants, current.number
        self._pending = []
        if not any(table.games for table in current.tables):  # the matches
            for table in current.tables:
                games = match_games(e.game, table.seating, table.seed, self.games_per_match,
                                    round=n, table=table.key)
                self._pending.append((table, games, False))
            notes = (f"bye: {', '.join(current.byes)}",) if current.byes else ()
            return Stage(self._label(n), tuple(g for _, games, _ in self._pending
                                              for g in games), notes)
        # tie-breaks: one set at each table whose cut is still tied
        undecided = [table for table in current.tables if not table.decided]
        sets = max(table.sets for table in undecided) + 1
        for table in undecided:
            seed = stable_int(table.seed, "tie-break", table.sets + 1)
            games = match_games(e.game, table.seating, seed, self.k, round=n, table=table.key)
            self._pending.append((table, games, True))
        tied = "; ".join(" v ".join(table.bots) for table in undecided)
        return Stage(f"{self._label(n)}, tie-break {sets}",
                     tuple(g for _, games, _ in self._pending for g in games),
                     (f"tied: {tied}",))

    def record(self, results: Sequence[GameResult]) -> None:
        by_id = {result.game_id: result for result in results}
        for table, games, tie_break in self._pending:
            points = match_points([by_id[game.game_id] for game in games])
            into = table.tie if tie_break else table.match
            for bot in table.bots:
                into[bot] = into.get(bot, 0.0) + points.get(bot, 0.0)
            table.sets += tie_break
            table.games += len(games)
            for game in games:
                for seat, bot in enumerate(game.seats):
                    self.seats[bot, seat] += 1
            table.decided = not table.tied_at_cut(self.seed_rank) or \
                table.sets >= self.tie_breaks
        self._stage = None
        self._pending = []
        current = self.rounds[-1]
        if all(table.decided for table in current.tables):
            current.advanced = self._going_on(current)
            current.done = True
            if len(self.rounds) < len(self.sizes):
                self._open_round(tuple(sorted(current.advanced,
                                              key=self.seed_rank.__getitem__)))

    def _going_on(self, current: Round) -> tuple[str, ...]:
        """The byes, then the best of the tables: by place at the table, then points,
        then seed."""
        ranked = []
        for table in current.tables:
            for place, bot in enumerate(table.order(self.seed_rank)):
                ranked.append((place, -table.match.get(bot, 0.0), self.seed_rank[bot], bot))
        ranked.sort()
        wanted = current.going_on - len(current.byes)
        return (*current.byes, *(bot for *_, bot in ranked[:wanted]))

    # -- what it shows ----------------------------------------------------------------
    def expected_games(self) -> int:
        tables = 0
        for number, size in enumerate(self.sizes):
            going_on = self.sizes[number + 1] if number + 1 < len(self.sizes) else 1
            tables += 1 if going_on == 1 else min(size // self.k,
                                                  math.ceil((size - going_on) /
                                                            (self.k - self.advance)))
        return tables * self.games_per_match

    def description(self) -> str:
        n = len(self.entrants.bots)
        go = "the winner" if self.advance == 1 else f"the top {self.advance}"
        return (f"knockout: {n} bots, {len(self.sizes)} rounds of tables of {self.k} "
                f"({go} of each going on), {self.games_per_match} games a match, up to "
                f"{self.tie_breaks} tie-break sets of {self.k}: at least "
                f"{self.expected_games()} games")

    def champion(self) -> str | None:
        if not self.finished:
            return None
        return self.rounds[-1].advanced[0] if self.rounds[-1].advanced else None

    def bracket(self) -> tuple[BracketRound, ...]:
        drawn = []
        for current in self.rounds:
            advanced = set(current.advanced)
            tables = tuple(BracketTable(
                bots=tuple(table.order(self.seed_rank)) if table.games else table.bots,
                points=tuple(table.match.get(bot, 0.0) + table.tie.get(bot, 0.0) for bot in
                             (table.order(self.seed_rank) if table.games else table.bots)),
                advanced=tuple(bot in advanced for bot in
                               (table.order(self.seed_rank) if table.games else table.bots)),
                games=table.games, decided=table.decided, tie_breaks=table.sets,
                by_seed=table.decided and table.tied_at_cut(self.seed_rank))
                for table in current.tables)
            drawn.append(BracketRound(self._label(current.number), tables, current.byes))
        return tuple(drawn)

    def standings(self) -> Standings:
        last: dict[str, tuple[int, int, float]] = {}  # bot -> (round, place, points)
        for current in self.rounds:
            for bot in current.byes:
                last[bot] = (current.number, 0, 0.0)
            for table in current.tables:
                for place, bot in enumerate(table.order(self.seed_rank)):
                    points = table.match.get(bot, 0.0) + table.tie.get(bot, 0.0)
                    last[bot] = (current.number, place, points)
        champion = self.champion()

        def key(bot: str) -> tuple[float, ...]:
            reached, place, points = last.get(bot, (-1, 0, 0.0))
            return (bot != champion, -reached, place, -points, self.seed_rank[bot])

        rows = []
        for rank, bot in enumerate(sorted(self.entrants.bots, key=key), start=1):
            reached, place, points = last.get(bot, (-1, 0, 0.0))
            at = self.rounds[reached] if reached >= 0 else None
            if bot == champion:
                result = "winner"
            elif at is not None and bot in at.byes and not at.done:
                result = f"{self._label(reached)}: bye"
            elif at is not None and not at.done:
                result = f"playing {self._in(reached)}"
            elif at is not None and bot in at.advanced:
                result = f"{self._label(reached)}: through"
            else:
                result = f"out {self._in(reached)} ({_ordinal(place + 1)} at its table)"
            rows.append(Standing(rank, bot, {
                "result": result, "points": f"{points:g}",
                "seed": str(self.seed_rank[bot] + 1)}, key(bot)))
        state = "" if self.finished else " (under way)"
        return Standings(
            title=f"Knockout standings{state}: {len(self.entrants.bots)} bots, tables of "
                  f"{self.k}",
            columns=("result", "points", "seed"),
            rows=tuple(rows),
            notes=("Points: finish-ahead shares over the match and any tie-break sets at "
                   "the bot's last table (2 players: 1 a win, 1/2 a draw). A tie for the "
                   "places going through is played off in sets of tie-break games; after "
                   f"{self.tie_breaks} the better seed goes through.",),
            bracket=self.bracket(),
        )


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"
