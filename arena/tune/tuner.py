"""``arena tune`` as a library: a bot's declared parameters tuned by SPSA
(:mod:`arena.tune.spsa`) over games the league engine plays and stores, then checked by a
verification match, then written as a new version of its manifest.

    outcome = await tune(setup, listeners=[...])

Everything lives in one league store (``setup.results_dir``): the setup (``tune`` in its
meta: what the games and the trajectory follow from), and every game.  Nothing else is
kept: the state (the iteration, the values) is rebuilt from the stored pairs, so a tune
killed at any moment (even ``kill -9``) resumes where its games stop, on the same
trajectory.  The games are fed to :func:`~arena.league.engine.play_league` as they can
be decided (open-ended play), each pair as soon as its values are known:

* iteration k (1..N) is a pair of games with the same seed (so the same deal), the same
  opponents in the same seats, the tuned bot in the same seat: once as ``NAME:plus``
  playing theta+, once as ``NAME:minus`` playing theta-.  Its seat goes round the table
  from one iteration to the next, its opponents round the tables of the field;
* after the last pair, the verification match: ``NAME:tuned`` (the final values) and
  ``NAME:start`` (the starting ones) at every table, the rest of the seats from the
  field, each table played from every seat on one deal (duplicate format).

The players' names tell the phases apart in the store (``arena games``, ``arena report``
show them); a name with ``:`` or ``#`` (a field's second copy of a bot) is never a
bot's own (bot.toml names have neither).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.league.backends import Backend
from arena.league.config import ClusterSettings, LeagueConfig
from arena.league.engine import League, LeagueListener, LeagueSummary, StoredGame, play_league
from arena.league.schedule import ScheduledGame, game_id, stable_int, table_games
from arena.league.store import LeagueStore, create_store
from arena.rating import Ratings, rate
from arena.records import GameResult
from arena.runner.botspec import BotSpec, Parameter, ParameterValues
from arena.settings import Limits, usable_cores
from arena.tune.spsa import Gains, Spsa, pair_result, played_values, share_ahead

PLUS, MINUS, TUNED, START = "plus", "minus", "tuned", "start"
# the verification match's games when not told: a quarter of the tuning's, within bounds
VERIFY_SHARE = 0.25
VERIFY_MIN_TABLES = 50
VERIFY_MAX_TABLES = 2000


def player_name(bot: str, role: str) -> str:
    """The stored name of the tuned bot in one role (plus, minus, tuned, start)."""
    return f"{bot}:{role}"


def default_verify_games(games: int, players: int) -> int:
    """The verification match's length when not told: a quarter of the tuning's games,
    between 50 and 2000 tables, whole tables (every seat of a deal)."""
    tables = min(VERIFY_MAX_TABLES, max(VERIFY_MIN_TABLES, round(games * VERIFY_SHARE / players)))
    return tables * players


@dataclass(frozen=True)
class Design:
    """What a tune's games and trajectory follow from, kept in its store (``tune`` in the
    meta table): the same design and the same stored games give the same values."""

    bot: str  # the tuned bot's name
    game: str
    players: int
    opponents: tuple[str, ...]  # the field: the opponents' names (unique)
    games: int  # SPSA's games: two per iteration
    parameters: tuple[Parameter, ...]
    start: tuple[float, ...]  # theta_0, one per parameter
    seed: int = 1
    in_flight: int = 1  # pairs played at once

    @property
    def iterations(self) -> int:
        return self.games // 2

    @property
    def gains(self) -> Gains:
        return Gains(self.iterations)

    def role(self, role: str) -> str:
        return player_name(self.bot, role)

    def to_json(self) -> dict[str, Any]:
        gains = self.gains
        return {
            "bot": self.bot, "game": self.game, "players": self.players,
            "opponents": list(self.opponents), "games": self.games, "seed": self.seed,
            "in_flight": self.in_flight,
            "start": dict(zip((p.name for p in self.parameters), self.start, strict=True)),
            "parameters": [{"name": p.name, "default": p.default, "min": p.minimum,
                            "max": p.maximum, "c_end": p.c_end, "r_end": p.r_end,
                            "integer": p.integer} for p in self.parameters],
            "alpha": gains.alpha, "gamma": gains.gamma, "A": gains.stability,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Design:
        """A stored design; ArenaError if it cannot be read (a damaged store)."""
        try:
            parameters = tuple(
                Parameter(str(p["name"]), float(p["default"]), float(p["min"]),
                          float(p["max"]), float(p["c_end"]), float(p["r_end"]),
                          bool(p["integer"])) for p in data["parameters"])
            return cls(bot=str(data["bot"]), game=str(data["game"]),
                       players=int(data["players"]), opponents=tuple(map(str, data["opponents"])),
                       games=int(data["games"]), parameters=parameters,
                       start=tuple(float(data["start"][p.name]) for p in parameters),
                       seed=int(data["seed"]), in_flight=int(data["in_flight"]))
        except (KeyError, TypeError, ValueError) as problem:
            raise ArenaError(f"the store's tune setup cannot be read ({problem!r})") from None


@dataclass(frozen=True)
class TuneSetup:
    """One tune: the design, and the bots and settings that play it (every argument
    checked by arena/tune/commands.py, or by a library caller)."""

    bot: BotSpec  # declares the parameters
    opponents: tuple[BotSpec, ...]  # the field, names unique (a second copy: "name#2")
    game: str
    players: int
    games: int  # SPSA's games: two per iteration
    start: tuple[float, ...]  # theta_0, one per parameter
    results_dir: Path
    verify_games: int
    seed: int = 1
    in_flight: int = 1  # pairs played at once (part of the trajectory: kept in the store)
    limits: Limits = Limits()
    concurrency: int = field(default_factory=usable_cores)
    name: str = ""  # the league's name (default: the results folder's)

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return self.bot.parameters

    @property
    def design(self) -> Design:
        return Design(self.bot.name, self.game, self.players,
                      tuple(spec.name for spec in self.opponents), self.games, self.parameters,
                      self.start, self.seed, self.in_flight)

    def role(self, role: str) -> str:
        return player_name(self.bot.name, role)

    def config(self) -> LeagueConfig:
        """The league the tune's games are stored as."""
        return LeagueConfig(
            path=Path("arena tune"), name=self.name or self.results_dir.name,
            game=self.game, players=(self.players,), roster=None, seed=self.seed,
            concurrency=self.concurrency, results_dir=self.results_dir, limits=self.limits)

    def roster(self) -> list[BotSpec]:
        """The tuned bot in its four roles, then the field."""
        roles = [replace(self.bot, name=self.role(role)) for role in (PLUS, MINUS, TUNED, START)]
        return [*roles, *self.opponents]


# what to change on the command line for each part of the design that differs
_OPTIONS = {"games": "--games", "players": "--players", "opponents": "--against",
            "start": "--start", "seed": "--seed", "in_flight": "--in-flight",
            "game": "--game", "bot": "BOT", "parameters": "the bot's [parameters]"}


def check_design(stored: Mapping[str, Any], wanted: Mapping[str, Any],
                 results_dir: Path) -> None:
    """ArenaError naming what differs between the tune in the store and this one."""
    changed = [key for key in wanted if stored.get(key) != wanted[key]]
    if not changed:
        return
    parts = []
    for key in changed:
        option = _OPTIONS.get(key)
        what = f"{key} ({option})" if option else key
        parts.append(f"{what} was {_short(stored.get(key))}, now {_short(wanted[key])}")
    raise ArenaError(
        f"{results_dir} holds a tune that was started otherwise: {'; '.join(parts)}. Run "
        "it as it was started to resume it, or give another --results-dir for a new tune")


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class TunePlan:
    """Which games a tune plays: pure, from its design (ids never depend on the values)."""

    def __init__(self, design: Design, verify_games: int = 0) -> None:
        self.design = design
        self.pair_tables = list(itertools.combinations(design.opponents, design.players - 1))
        self.verify_tables = list(itertools.combinations(design.opponents,
                                                         design.players - 2))
        self.verify_count = verify_games // design.players  # whole tables
        if not self.pair_tables:
            raise ArenaError(f"{design.players}-player games need {design.players - 1} "
                             f"opponents; the field has {len(design.opponents)}")

    def pair_seed(self, k: int) -> int:
        return stable_int("tune pair", self.design.seed, k)

    def pair_seats(self, k: int, role: str) -> tuple[str, ...]:
        """Iteration k's seating with the tuned bot as ``role``: its seat goes round the
        table, and after each round the opponents are the field's next table."""
        n = self.design.players
        opponents = list(self.pair_tables[((k - 1) // n) % len(self.pair_tables)])
        opponents.insert((k - 1) % n, self.design.role(role))
        return tuple(opponents)

    def pair_ids(self, k: int) -> tuple[str, str]:
        seed = self.pair_seed(k)
        return (game_id(self.design.game, self.pair_seats(k, PLUS), seed),
                game_id(self.design.game, self.pair_seats(k, MINUS), seed))

    def pair_games(self, k: int, plus: ParameterValues, minus: ParameterValues
                   ) -> list[ScheduledGame]:
        """Iteration k's two games: one deal, one seating, theta+ then theta-."""
        seed = self.pair_seed(k)
        return [table_games(self.design.game, self.pair_seats(k, role), seed, round=k,
                            parameters=[(self.design.role(role), values)])[0]
                for role, values in ((PLUS, plus), (MINUS, minus))]

    def verify_games(self, t: int, tuned: ParameterValues, start: ParameterValues
                     ) -> list[ScheduledGame]:
        """Table t (0-based) of the verification match: the tuned and the starting values
        with one of the field's tables, in a seeded order, from every seat."""
        seed = stable_int("tune verify", self.design.seed, t)
        members = [self.design.role(TUNED), self.design.role(START),
                   *self.verify_tables[t % len(self.verify_tables)]]
        random.Random(seed).shuffle(members)
        return table_games(self.design.game, members, seed, round=t,
                           parameters=[(self.design.role(TUNED), tuned),
                                       (self.design.role(START), start)])

    def verify_ids(self) -> set[str]:
        return {game.game_id for t in range(self.verify_count)
                for game in self.verify_games(t, (), ())}


def _named(parameters: Sequence[Parameter], values: Sequence[float]) -> ParameterValues:
    return tuple((p.name, float(v)) for p, v in zip(parameters, values, strict=True))


def tuned_values(parameters: Sequence[Parameter], theta: Sequence[float]) -> tuple[float, ...]:
    """The values a tune ends with, as the new manifest writes them: an integer
    parameter rounded to the nearest whole number."""
    return tuple(p.clip(float(round(v))) if p.integer else v
                 for p, v in zip(parameters, theta, strict=True))


class Tuner(LeagueListener):
    """A tune's state as its games are stored, and the feed of the games to play next.
    Handed every stored game (those of earlier runs first, :meth:`absorb`)."""

    def __init__(self, design: Design, verify_games: int = 0) -> None:
        self.design = design
        self.plan = TunePlan(design, verify_games)
        self.spsa = Spsa(design.parameters, design.start, design.gains, design.seed,
                         design.in_flight)
        self.roles: dict[str, tuple[str, int]] = {}  # game id -> (role, k)
        for k in range(1, design.iterations + 1):
            plus, minus = self.plan.pair_ids(k)
            self.roles[plus], self.roles[minus] = (PLUS, k), (MINUS, k)
        self.verify_ids = self.plan.verify_ids()
        self.shares: dict[int, dict[str, float]] = {}  # k -> role -> share ahead
        self.stored: set[str] = set()
        self.verification: list[GameResult] = []
        self.failures = 0  # forfeits of the tuned bot in its pairs
        self._changed = trio.Event()

    @classmethod
    def of_store(cls, store: LeagueStore) -> Tuner | None:
        """The tune a store holds, every stored game absorbed (None: it holds no tune)."""
        stored = store.tune_setup
        if stored is None:
            return None
        tuner = cls(Design.from_json(stored))
        for result in store.results():
            tuner.absorb(result)
        return tuner

    # -- the state
    def absorb(self, result: GameResult) -> None:
        """One stored game: a pair's half, or a game of the verification match."""
        self.stored.add(result.game_id)
        role = self.roles.get(result.game_id)
        if role is None:
            if self.design.role(TUNED) in result.bots:
                self.verification.append(result)
            return
        side, k = role
        seat = result.bots.index(self.design.role(side))
        if seat in result.failures:
            self.failures += 1
        pair = self.shares.setdefault(k, {})
        pair[side] = share_ahead(result.placements, seat)
        if len(pair) == 2:
            self.spsa.record(k, pair_result(pair[PLUS], pair[MINUS]))
            self.spsa.advance()

    @property
    def final(self) -> tuple[float, ...]:
        return tuned_values(self.design.parameters, self.spsa.theta)

    @property
    def finished(self) -> bool:
        return self.spsa.done and self.verify_ids <= self.stored

    def verification_results(self) -> list[GameResult]:
        """The stored games of the verification match's tables."""
        return [result for result in self.verification if result.game_id in self.verify_ids]

    # -- the league's listener
    def league_started(self, league: League) -> None:
        league.store.save_tune_setup(self.design.to_json())

    def game_stored(self, league: League, game: StoredGame) -> None:
        self.absorb(game.result)
        self._changed.set()
        self._changed = trio.Event()

    # -- the feed
    async def games(self) -> AsyncIterator[ScheduledGame]:
        """The games still to play, each as soon as its values are known."""
        design = self.design
        parameters = design.parameters
        for k in range(1, design.iterations + 1):
            if k in self.spsa.results:
                continue
            while not self.spsa.can_start(k):
                await self._changed.wait()
            plus, minus = self.spsa.perturbed(k)
            games = self.plan.pair_games(
                k, _named(parameters, played_values(plus, parameters, design.seed, k, "+")),
                _named(parameters, played_values(minus, parameters, design.seed, k, "-")))
            for game in games:
                if game.game_id not in self.stored:
                    yield game
        while not self.spsa.done:
            await self._changed.wait()
        tuned, start = _named(parameters, self.final), _named(parameters, design.start)
        for t in range(self.plan.verify_count):
            for game in self.plan.verify_games(t, tuned, start):
                if game.game_id not in self.stored:
                    yield game


class TuneListener(LeagueListener):
    """A league listener that also hears of the tune itself (the terminal's values)."""

    def tune_started(self, tuner: Tuner) -> None:
        """Before any game (also when nothing is left to play): the tune's state, rebuilt
        from the store, kept up to date as games are stored (before the listeners hear
        of each)."""


@dataclass(frozen=True)
class Verification:
    """The verification match: the tuned values against the starting ones."""

    games: int
    ratings: Ratings | None  # anchored at the starting values (None: no game)
    start_name: str
    tuned_name: str

    def elo(self, name: str) -> tuple[float, float, float] | None:
        """``name``'s Elo over the starting values, with its 95% interval."""
        if self.ratings is None or name not in self.ratings.bots:
            return None
        i = self.ratings.index(name)
        base = float(self.ratings.elo[self.ratings.index(self.start_name)])
        return (float(self.ratings.elo[i]) - base, float(self.ratings.low[i]) - base,
                float(self.ratings.high[i]) - base)


def verify(results: Sequence[GameResult], design: Design, seed: int = 0) -> Verification:
    """The Elo of every player of the verification match over the starting values, with
    95% intervals (arena/rating.py: Bradley-Terry, a bootstrap over whole games)."""
    start, tuned = design.role(START), design.role(TUNED)
    ratings = rate(results, anchor=start, seed=seed) if results else None
    return Verification(len(results), ratings, start, tuned)


@dataclass(frozen=True)
class TuneOutcome:
    setup: TuneSetup
    trajectory: list[tuple[float, ...]]  # the values after each applied iteration
    final: tuple[float, ...]
    verification: Verification
    summary: LeagueSummary | None  # None: nothing was left to play
    failures: int  # forfeits of the tuned bot in its pairs

    @property
    def complete(self) -> bool:
        return (len(self.trajectory) - 1 >= self.setup.design.iterations
                and self.verification.games >= self.setup.verify_games)


async def tune(setup: TuneSetup, *, store: LeagueStore | None = None,
               backend: Backend | None = None, listeners: Sequence[LeagueListener] = (),
               cluster: ClusterSettings | None = None, deal_key: str | None = None
               ) -> TuneOutcome:
    """Play what is missing of ``setup``'s tune and return where it stands.  ``store``:
    default the SQLite store of ``setup.results_dir`` (opened and closed here);
    ``backend``, ``cluster``, ``deal_key``: as :func:`~arena.league.engine.play_league`
    takes them.  ArenaError for a store holding something else."""
    owned = store is None
    tune_store = create_store(setup.results_dir) if store is None else store
    try:
        design = setup.design
        stored = tune_store.tune_setup
        if tune_store.count():
            if stored is None:
                raise ArenaError(f"{setup.results_dir} holds a league's games, not a tune: "
                                 "give arena tune another --results-dir")
            check_design(stored, design.to_json(), setup.results_dir)
        tuner = Tuner(design, setup.verify_games)
        for result in tune_store.results():
            tuner.absorb(result)
        for listener in listeners:
            if isinstance(listener, TuneListener):
                listener.tune_started(tuner)
        summary = None
        if not tuner.finished:
            summary = await play_league(
                setup.config(), store=tune_store, backend=backend, bots=setup.roster(),
                listeners=[tuner, *listeners], games=tuner.games(),
                concurrency=setup.concurrency, cluster=cluster, deal_key=deal_key)
        return TuneOutcome(setup, list(tuner.spsa.trajectory), tuner.final,
                           verify(tuner.verification_results(), design), summary,
                           tuner.failures)
    finally:
        if owned:
            tune_store.close()
