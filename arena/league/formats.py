"""League formats: how a league chooses its games (docs/leagues.md, *Formats*).

A format is an object, found by its name through the plugin hook
``arena_register_formats`` (:mod:`arena.plugins.hookspecs`), like a game; this module
registers the bundled ones (it is a bundled plugin, :data:`arena.plugins.manager.
BUNDLED_PLUGINS`).  There are two kinds:

* a **schedule** (:class:`ScheduleFormat`): every game made in advance from the league
  file (round robin, gauntlet: :func:`arena.league.schedule.build_schedule`); the engine
  plays what the store lacks (:mod:`arena.league.plan`);
* a **feed** (:class:`FeedFormat`): *stages* of games, each chosen from the results of
  the stages before it (Swiss rounds, a knockout's rounds and tie-breaks, the ladder's
  batches).  :meth:`FeedFormat.start` returns a :class:`Tournament`, the format's state:
  ``next_stage()`` says which games come next, ``record(results)`` takes their results.
  The engine plays a stage, waits until every game of it is stored, records them and asks
  for the next (:mod:`arena.league.stages`).

A stage must be a pure function of the league file (the :class:`Entrants`) and of the
results of the stages before it: never of the clock, the order games finished in, or
which machine played them.  Resuming then needs no state of its own: :func:`replay`
feeds the stored results to a new tournament, stage after stage, until it reaches the
first stage whose games are not all stored, and the league plays on from there; a Dask
cluster plays the same games.  Game seeds and ids come from sha256 of their contents
(:func:`arena.league.schedule.stable_int`, ``game_id``), as a schedule's do.

A table of a feed plays a *match* (:func:`match_games`): its seat rotations in turn, a
fresh deal every k games, so a match of k games is the arena's duplicate table (every
seat once on one deal); for a match that is not a whole number of deals, the base
seating is chosen so that each bot's seats stay as even as they can over the league
(:func:`balanced_order`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.league.schedule import (
    Balance,
    ScheduledGame,
    build_schedule,
    game_id,
    rotations,
    stable_int,
)
from arena.plugins.hookspecs import hookimpl
from arena.records import GameResult

if TYPE_CHECKING:
    from arena.league.config import FormatOptions, LeagueConfig
    from arena.league.matchmaking import LadderState

SEEDINGS = ("order", "random", "rating")


# --------------------------------------------------------------------------- contract


@dataclass(frozen=True)
class Entrants:
    """What a format is given: the league file's settings and its bots.

    ``bots`` are in the order the league gives them (the roster's order; sorted names
    for ``roster = "all"``; a gauntlet's challenger first), or, for a format that seeds
    its field (:meth:`LeagueFormat.seed_order`), in seed order, best first: the order
    kept in the store with the first game, so a resumed league sees the same field."""

    game: str
    bots: tuple[str, ...]
    players: tuple[int, ...]
    seed: int
    rounds: int
    rounds_given: bool
    max_games: int | None
    challenger: str | None
    options: Mapping[str, Any]  # the format's own keys, as its ``check`` returned them


@dataclass(frozen=True)
class Stage:
    """The games of one stage of a feed format, played before the next is chosen."""

    label: str  # e.g. "round 3 of 7", "round 2, tie-break 1"
    games: tuple[ScheduledGame, ...]
    notes: tuple[str, ...] = ()  # e.g. the byes, said when the stage starts
    announced: bool = True  # worth a line when it starts (a ladder's batches are not)


@dataclass(frozen=True)
class Standing:
    """One bot's line in a format's standings."""

    rank: int
    bot: str
    values: Mapping[str, str]  # the format's columns (score, tie-breaks ...), as text
    sort_key: tuple[float, ...] = ()  # what ranked it (for JSON and tests)


@dataclass(frozen=True)
class BracketTable:
    """One table of a knockout round as drawn: who sat there, their points, who went on."""

    bots: tuple[str, ...]
    points: tuple[float, ...]
    advanced: tuple[bool, ...]
    games: int  # games played at this table (tie-breaks included)
    decided: bool  # its results are all in
    tie_breaks: int = 0  # tie-break sets played
    by_seed: bool = False  # still tied after the last tie-break set: the seeds decided


@dataclass(frozen=True)
class BracketRound:
    label: str
    tables: tuple[BracketTable, ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standings:
    """A format's own ranking (Swiss scores with tie-breaks, a knockout's places)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[Standing, ...]
    notes: tuple[str, ...] = ()
    bracket: tuple[BracketRound, ...] = ()  # a knockout's rounds, to draw

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title, "notes": list(self.notes),
            "rows": [{"rank": row.rank, "bot": row.bot, **row.values} for row in self.rows],
        }
        if self.bracket:
            data["bracket"] = [{
                "round": stage.label, "byes": list(stage.byes),
                "tables": [{"bots": list(table.bots), "points": list(table.points),
                            "advanced": list(table.advanced), "games": table.games,
                            "tie_breaks": table.tie_breaks, "by_seed": table.by_seed,
                            "decided": table.decided}
                           for table in stage.tables],
            } for stage in self.bracket]
        return data


class Tournament(ABC):
    """A feed format's state over one league: what it has recorded so far."""

    @abstractmethod
    def next_stage(self) -> Stage | None:
        """The games of the next stage (the same stage until :meth:`record` takes its
        results); None when the league is over."""

    @abstractmethod
    def record(self, results: Sequence[GameResult]) -> None:
        """The results of the stage :meth:`next_stage` returned, one per game, in its
        order."""

    def expected_games(self) -> int | None:
        """The league's games, for the progress line (a knockout's tie-breaks are not
        known in advance: at least this many); None if unknown."""
        return None

    def description(self) -> str:
        """One line: what this league is, e.g. "Swiss, 7 rounds, tables of 3"."""
        return ""

    def standings(self) -> Standings | None:
        """The format's own ranking so far; None if it has none (the Elo leaderboard is
        its ranking)."""
        return None


class LeagueFormat:
    """A league format, registered through ``arena_register_formats``.  Subclass
    :class:`ScheduleFormat` or :class:`FeedFormat` (the engine asks which)."""

    name: str = ""
    summary: str = ""  # one line for `arena run --help`, the docs and errors

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        """The format's own keys (``options``, read with its methods, then
        ``options.finish()``), checked against the whole league file; returns them with
        their defaults.  Raise ArenaError (``options.error(key, why)``) naming the key."""
        options.finish()
        return {}

    def seed_order(self, entrants: Entrants) -> tuple[str, ...]:
        """The field in seed order (best first) when a league starts; by default the
        order given.  Called once per league: the order is stored with its games, and a
        resumed league keeps it (ratings that moved since do not redraw a bracket)."""
        return entrants.bots


class ScheduleFormat(LeagueFormat):
    """Every game made in advance."""

    @abstractmethod
    def schedule(self, entrants: Entrants) -> tuple[list[ScheduledGame], dict[int, Balance]]:
        """Every game of the league in its order of play, and the balance per player count
        (ArenaError: the league cannot be scheduled, e.g. too few bots)."""


class FeedFormat(LeagueFormat):
    """Stages of games chosen from the results of the stages before."""

    @abstractmethod
    def start(self, entrants: Entrants) -> Tournament:
        """A new tournament (ArenaError: this field cannot play it, e.g. too few bots)."""


# --------------------------------------------------------------------------- lookup


def find_format(name: str) -> LeagueFormat:
    """The format called ``name``, bundled or from a plugin (ArenaError naming the known
    ones otherwise)."""
    from arena.plugins import discovery

    found: LeagueFormat = discovery.format_registry().format(name)
    return found


def league_format(config: LeagueConfig) -> LeagueFormat:
    """The league's format (ArenaError naming the file's key if there is none such)."""
    try:
        found = find_format(config.format)
    except ArenaError as problem:
        raise ArenaError(f"{config.path}: key 'format': {problem}") from None
    if not isinstance(found, ScheduleFormat | FeedFormat):
        raise ArenaError(f"{config.path}: key 'format': format {config.format!r} is a "
                         f"{type(found).__name__}, neither a ScheduleFormat nor a FeedFormat "
                         "(arena.league.formats)")
    return found


def checked_options(config: LeagueConfig, league: LeagueFormat | None = None) -> dict[str, Any]:
    """The league's format's keys, checked by the format (ArenaError naming the key)."""
    from arena.league.config import FormatOptions

    league = league or league_format(config)
    return league.check(config, FormatOptions(config))


def entrants_of(config: LeagueConfig, bots: Sequence[str],
                options: Mapping[str, Any] | None = None) -> Entrants:
    return Entrants(
        game=config.game, bots=tuple(bots), players=config.players, seed=config.seed,
        rounds=config.rounds, rounds_given=config.rounds_given, max_games=config.max_games,
        challenger=config.challenger,
        options=checked_options(config) if options is None else options,
    )


def entrants_from_snapshot(snapshot: Mapping[str, Any]) -> Entrants | None:
    """The entrants of a stored league (the configuration snapshot its store keeps, with
    the field in seed order), for rebuilding its standings; None if the snapshot lacks
    what they need (a league stored before formats were objects)."""
    bots = snapshot.get("field")
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        return None
    try:
        return Entrants(
            game=str(snapshot["game"]), bots=tuple(bots),
            players=tuple(int(k) for k in snapshot["players"]), seed=int(snapshot["seed"]),
            rounds=int(snapshot.get("rounds", 1)),
            rounds_given=bool(snapshot.get("rounds_given", False)),
            max_games=snapshot.get("max_games"), challenger=snapshot.get("challenger"),
            options=dict(snapshot.get("format_options") or {}),
        )
    except (KeyError, TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- replay


class LeagueChanged(ArenaError):
    """Stored games that the format, replayed, does not play: the file changed."""


def replay(tournament: Tournament, stored: Mapping[str, GameResult]) -> Stage | None:
    """Record every stage whose games are all in ``stored`` (game id -> result), in
    order; return the first stage that is not complete (None: the league is over)."""
    while (stage := tournament.next_stage()) is not None:
        if not all(game.game_id in stored for game in stage.games):
            return stage
        tournament.record([stored[game.game_id] for game in stage.games])
    return None


def is_feed(snapshot: Mapping[str, Any] | None) -> bool:
    """Whether a stored league's format chooses its games stage by stage (without reading
    its games); False for a schedule, or a format not installed here."""
    if not snapshot or not isinstance(snapshot.get("format"), str):
        return False
    try:
        return isinstance(find_format(snapshot["format"]), FeedFormat)
    except ArenaError:
        return False


def rebuild(snapshot: Mapping[str, Any] | None, results: Sequence[GameResult]
            ) -> Tournament | None:
    """The tournament of a stored feed-format league as far as its games go (for
    ``arena leaderboard`` and ``arena report``); None for a schedule format, a format
    not installed here, or a store without its field."""
    if not snapshot or not isinstance(snapshot.get("format"), str):
        return None
    entrants = entrants_from_snapshot(snapshot)
    try:
        league = find_format(snapshot["format"])
    except ArenaError:
        return None
    if entrants is None or not isinstance(league, FeedFormat):
        return None
    try:
        tournament = league.start(entrants)
    except ArenaError:
        return None
    replay(tournament, {result.game_id: result for result in results})
    return tournament


# --------------------------------------------------------------------------- matches


def table_key(*parts: object) -> str:
    """A table's id: 12 hex digits of sha256 of its parts (as schedules make them)."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:12]


def match_games(game: str, order: Sequence[str], seed: int, count: int, *, round: int,
                table: str, first: int = 0) -> list[ScheduledGame]:
    """Games ``first`` .. ``first + count - 1`` of one table's match: the seat rotations
    of ``order`` in turn, a fresh deal every k games (deal d's seed is
    ``stable_int(seed, "deal", d)``, deal 0's is ``seed`` itself, so a match of k games
    is exactly the games :func:`arena.league.schedule.table_games` gives)."""
    seatings = rotations(order)
    k = len(order)
    games = []
    for number in range(first, first + count):
        deal = number // k
        deal_seed = seed if deal == 0 else stable_int(seed, "deal", deal)
        seats = seatings[number % k]
        games.append(ScheduledGame(game_id(game, seats, deal_seed), table, round, seats,
                                   deal_seed))
    return games


def balanced_order(members: Sequence[str], seat_counts: Mapping[tuple[str, int], int],
                   games: int, rng: random.Random) -> tuple[str, ...]:
    """The base seating of a match of ``games`` games (rotations of it in turn) that keeps
    the bots' seats most even: the smallest sum of squared counts per bot and seat once
    the match is added to ``seat_counts`` ((bot, seat) -> games so far), ties broken by
    ``rng``.  With a whole number of deals every seating is as even: a seeded shuffle."""
    k = len(members)
    shuffled = list(members)
    rng.shuffle(shuffled)
    if games % k == 0:
        return tuple(shuffled)

    def cost(order: tuple[str, ...]) -> int:
        added: Counter[tuple[str, int]] = Counter()
        for number in range(games):
            for position, bot in enumerate(order):
                added[bot, (position - number) % k] += 1
        return sum((seat_counts.get(key, 0) + count) ** 2 - seat_counts.get(key, 0) ** 2
                   for key, count in added.items())

    return min(itertools.permutations(shuffled), key=cost)  # k <= 8: at most 40320


def seat_counts_of(games: Sequence[ScheduledGame]) -> Counter[tuple[str, int]]:
    counts: Counter[tuple[str, int]] = Counter()
    for game in games:
        for seat, bot in enumerate(game.seats):
            counts[bot, seat] += 1
    return counts


def match_points(results: Sequence[GameResult]) -> dict[str, float]:
    """Each bot's points over some games of one table: the sum of its finish-ahead shares
    (:func:`arena.stats.sprt.finish_ahead_share`; in a 2-player game 1 a win, 1/2 a
    draw)."""
    from arena.stats.sprt import finish_ahead_share

    points: dict[str, float] = {}
    for result in results:
        for seat, bot in enumerate(result.bots):
            points[bot] = points.get(bot, 0.0) + finish_ahead_share(result.placements, seat)
    return points


def read_seeding(options: FormatOptions) -> dict[str, Any]:
    """The ``seeding`` and ``ratings`` keys every seeded bundled format takes."""
    seeding = options.choice("seeding", SEEDINGS, "order")
    ratings = options.path("ratings")
    if seeding == "rating" and ratings is None:
        raise options.error("ratings", 'seeding = "rating" needs ratings = "RESULTS_DIR": '
                            "a league's results folder whose Elo seeds the field")
    if seeding != "rating" and ratings is not None:
        raise options.error("ratings", 'is only used with seeding = "rating"')
    return {"seeding": seeding, "ratings": None if ratings is None else str(ratings)}


class SeededFormat(FeedFormat):
    """A feed format whose field is seeded by its ``seeding`` and ``ratings`` keys (read by
    :func:`read_seeding`): as given, a seeded shuffle, or by rating (highest first; bots
    the ratings lack after, in the order given)."""

    def seed_order(self, entrants: Entrants) -> tuple[str, ...]:
        seeding = str(entrants.options.get("seeding", "order"))
        if seeding == "random":
            order = list(entrants.bots)
            random.Random(stable_int("seeding", entrants.seed)).shuffle(order)
            return tuple(order)
        if seeding == "rating":
            ratings = ratings_of(str(entrants.options["ratings"]))
            given = {bot: i for i, bot in enumerate(entrants.bots)}
            return tuple(sorted(entrants.bots, key=lambda bot: (
                bot not in ratings, -ratings.get(bot, 0.0), given[bot])))
        return entrants.bots


def ratings_of(folder: str) -> dict[str, float]:
    """The Elo of each bot in a league's results folder (the leaderboard's fit)."""
    from pathlib import Path

    from arena.league.store import open_store
    from arena.rating import rate

    store = open_store(Path(folder))
    try:
        results = store.results()
    finally:
        store.close()
    if not results:
        raise ArenaError(f"{folder}: no games to seed by (seeding = \"rating\")")
    ratings = rate(results, bootstrap=0)
    return {bot: float(ratings.elo[i]) for i, bot in enumerate(ratings.bots)}


def single_count(config: LeagueConfig, name: str) -> int:
    """The one player count a feed format's tables take."""
    if len(config.players) != 1:
        raise ArenaError(f"{config.path}: key 'players': format {name!r} plays tables of "
                         f"one size; give one player count, not {list(config.players)}")
    if config.max_games is not None and name != "ladder":
        raise ArenaError(f"{config.path}: key 'max_games': format {name!r} sets its own "
                         "length; max_games is for round-robin and gauntlet")
    return config.players[0]


# --------------------------------------------------------------------------- schedules


class RoundRobin(ScheduleFormat):
    name = "round-robin"
    summary = "every table of k bots of the roster, in all seat rotations, each round"

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        options.finish()
        return {}

    def schedule(self, entrants: Entrants) -> tuple[list[ScheduledGame], dict[int, Balance]]:
        return build_schedule(entrants.game, entrants.bots, entrants.players,
                              seed=entrants.seed, rounds=entrants.rounds,
                              max_games=entrants.max_games)


class Gauntlet(ScheduleFormat):
    name = "gauntlet"
    summary = "the challenger at every table of k - 1 bots of the field"

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        options.finish()
        if config.challenger is None:  # the file's check says so first; a caller's config
            raise ArenaError(f"{config.path}: key 'challenger': is required for format = "
                             '"gauntlet": the bot to test')
        return {}

    def schedule(self, entrants: Entrants) -> tuple[list[ScheduledGame], dict[int, Balance]]:
        return build_schedule(entrants.game, entrants.bots, entrants.players,
                              seed=entrants.seed, rounds=entrants.rounds,
                              challenger=entrants.challenger, max_games=entrants.max_games)


# --------------------------------------------------------------------------- ladder


def ladder_batch(game: str, tables: Sequence[Sequence[str]], counter: object, round: int
                 ) -> list[list[ScheduledGame]]:
    """A ladder's batch of tables as games: table ``number`` of batch ``counter`` on the
    seed ``stable_int("ladder-seed", counter, number)``, in all its seat rotations (the
    server's ladder counts its batches in its database; a league's ladder names them by
    its seed and the batch)."""
    from arena.league.schedule import table_games

    return [table_games(game, table, stable_int("ladder-seed", counter, number), round=round)
            for number, table in enumerate(tables)]


def ladder_tables(state: LadderState, active: Sequence[str], players: int, count: int,
                  counter: object, *, new: Sequence[str] = (),
                  together: Sequence[Sequence[str]] = ()) -> list[tuple[str, ...]]:
    """The ladder's next ``count`` tables, chosen for information
    (:func:`arena.league.matchmaking.next_tables`) from ``state`` (the stored games as the
    matchmaker sees them), the seed of the choice from ``counter``: the server's ladder
    and a league of format "ladder" alike."""
    from arena.league.matchmaking import next_tables

    return next_tables(state, active, players, count=count, new=new,
                       seed=stable_int("ladder-table", counter), together=together)


class Ladder(FeedFormat):
    """The server's ladder as a league: batches of tables chosen for information from
    the games stored so far, while a whole table fits in ``max_games``.  A batch has
    ``tables`` tables (default: the bots over the smallest table size, so each bot plays
    about once a batch), the player counts taking turns batch by batch."""

    name = "ladder"
    summary = "tables chosen for information from the results so far, up to max_games"

    def check(self, config: LeagueConfig, options: FormatOptions) -> dict[str, Any]:
        tables = options.integer("tables", 1, 10_000, None)
        options.finish()
        if config.max_games is None:
            raise ArenaError(f"{config.path}: key 'max_games': format \"ladder\" plays "
                             "until max_games games are stored: give it")
        if config.rounds_given:
            raise ArenaError(f"{config.path}: key 'rounds': format \"ladder\" has no rounds "
                             "(its length is max_games); remove it")
        return {"tables": tables}

    def start(self, entrants: Entrants) -> Tournament:
        small = min(entrants.players)
        if len(entrants.bots) < max(entrants.players):
            raise ArenaError(f"{max(entrants.players)}-player tables need as many bots; "
                             f"the roster has {len(entrants.bots)}")
        per_batch = entrants.options.get("tables") or max(1, len(entrants.bots) // small)
        return LadderTournament(entrants, int(per_batch))


@dataclass
class LadderTournament(Tournament):
    entrants: Entrants
    per_batch: int
    stored: int = 0  # games recorded
    batch: int = 0
    state: Any = None  # the matchmaker's LadderState of the games recorded so far
    _stage: Stage | None = None

    def next_stage(self) -> Stage | None:
        from arena.league.matchmaking import LadderState

        cap = self.entrants.max_games or 0
        e = self.entrants
        k = e.players[self.batch % len(e.players)]
        left = (cap - self.stored) // k  # whole tables, within the cap
        if left < 1:
            return None
        if self._stage is None:
            counter = [e.seed, self.batch]
            self.state = self.state or LadderState.from_results([], e.bots)
            tables = ladder_tables(self.state, e.bots, k, min(self.per_batch, left), counter)
            games = [g for table in ladder_batch(e.game, tables, counter, self.batch)
                     for g in table]
            self._stage = Stage(f"batch {self.batch + 1}", tuple(games), announced=False)
        return self._stage

    def record(self, results: Sequence[GameResult]) -> None:
        self.state = self.state.extended(results)
        self.stored += len(results)
        self.batch += 1
        self._stage = None

    def expected_games(self) -> int | None:
        return self.entrants.max_games

    def description(self) -> str:
        e = self.entrants
        return (f"ladder: {self.per_batch} tables a batch chosen for information, at most "
                f"{e.max_games} games (whole tables)")


# --------------------------------------------------------------------------- bundled


def bundled_formats() -> list[LeagueFormat]:
    from arena.league.knockout import Knockout
    from arena.league.swiss import Swiss

    return [RoundRobin(), Gauntlet(), Swiss(), Knockout(), Ladder()]


@hookimpl
def arena_register_formats() -> list[LeagueFormat]:
    """The formats bundled with Ra Arena, registered as a plugin's are."""
    return bundled_formats()
