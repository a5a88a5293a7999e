"""Version verdicts: each new valid version of a bot meets its predecessor (the previous
valid version) in the ladder, and a sequential test says whether it is stronger, weaker
or not clearly different, with the Elo difference and its 95% interval.

**The games.**  While the test is open the predecessor stays in the ladder's roster as a
tester, and at least ``TOGETHER_SHARE`` of the new version's games are at tables that
seat both (the rest of such a table is filled by the matchmaker with the bots around
them); the predecessor plays the matchmaker's other tables too.  A table is played in all
its k seat rotations on one seed, so its k games are one *unit* of the test (the deal's
luck cancels within it, as in a duplicate set): the unit's score is the new version's
mean pairwise result against the predecessor over those games (placed ahead 1, a shared
place ½, behind 0), the Bradley–Terry pairwise result the leaderboard's ratings are
fitted to, whatever the other seats did.

**The test** is the project's GSPRT (:mod:`arena.stats.sprt`: fishtest's pentanomial
SPRT for 2-player pairs, its lattice generalisation for k-player units), run twice on
the same units: *up*, H0 "at most ``elo0`` Elo stronger" against H1 "at least ``elo1``
stronger", and its mirror *down* on the predecessor's score (1 − the unit's).  Up
accepting H1 is "stronger", down accepting H1 is "weaker", both accepting H0 is "no
clear difference" (Sobel and Wald's three-decision procedure from two SPRTs, 1949);
after ``max_games`` games without an answer it is "inconclusive".  Units are taken in
the order their tables were dealt, as :mod:`arena.league.stop` takes them: a unit
counts once all its games are stored, the test waits at a table whose games are still
being played (so long games, which may be lost ones, cannot bias it), and a table cut
short by a stop (its missing games will never come) is left out.

**The figures** are computed again from the stored games whenever a unit arrives, never
accumulated, and stored (``server_verdicts``) with the state: a verdict survives
restarts and cannot drift from the games.  The Elo difference is the mean unit score on
the Elo curve, its 95% interval the normal one of that mean (units are independent) by
the delta method, both with one virtual drawn unit added (as the leaderboard's
virtual-draw prior), which keeps them finite after a clean sweep.  After an early stop
the mean is somewhat exaggerated (every sequential test's is): the interval describes,
the test decides.

**Ends and restarts.**  A test that has ended never changes.  A newer valid version ends
an open test as "superseded" (with its figures so far) and starts its own against the
version it replaces; a bot that is disabled or deleted pauses its test (neither version
plays) and enabling it resumes from the stored games; a version sent back to validation
pauses its test until it is valid again.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.league.schedule import ScheduledGame
from arena.rating import ELO_PER_NATURAL, Z95
from arena.records import GameResult
from arena.server.context import ServerContext
from arena.server.settings import ServerSettings
from arena.server.store import Verdict, Version
from arena.stats.sprt import (
    ACCEPT_H0,
    ACCEPT_H1,
    Design,
    SequentialTests,
    logistic_score,
    score_elo,
    score_lattice,
)

# at least this share of a version's ladder games (counting games in flight) seat its
# predecessor too while their test is open: a third keeps most of its games for the
# ladder's own order, and the test's units still come every third table
TOGETHER_SHARE = 1 / 3

TableKey = tuple[int, str]  # (round, table id): the order tables were dealt in


@dataclass(frozen=True)
class VerdictSettings:
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    players: tuple[int, ...]

    @classmethod
    def of(cls, settings: ServerSettings) -> VerdictSettings:
        return cls(settings.verdict_elo0, settings.verdict_elo1, settings.verdict_alpha,
                   settings.verdict_beta, settings.verdict_max_games, settings.players)

    def design(self) -> Design:
        """The GSPRT on a unit's mean pairwise score: every k-player unit's score is on
        the lattice of its player count (for pairs, the pentanomial)."""
        return Design(tuple(score_lattice(self.players)), logistic_score(self.elo0),
                      logistic_score(self.elo1), self.alpha, self.beta)


@dataclass
class Unit:
    """The games of one table where both versions sat."""

    key: TableKey
    players: int
    scores: list[float]  # the new version's pairwise result, one per stored game

    @property
    def complete(self) -> bool:
        return 0 < len(self.scores) == self.players  # every seat rotation is stored

    @property
    def score(self) -> float:
        return sum(self.scores) / len(self.scores)


@dataclass(frozen=True)
class Figures:
    state: str  # testing, stronger, weaker, no_difference, inconclusive
    elo: float | None
    low: float | None
    high: float | None
    games: int


def pairwise(result: GameResult, version: str, against: str) -> float:
    """1 if ``version`` placed ahead of ``against`` in this game, ½ for a shared place,
    0 behind."""
    mine = result.placements[result.bots.index(version)]
    theirs = result.placements[result.bots.index(against)]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def units_of(results: Iterable[GameResult], tables: Mapping[str, TableKey], version: str,
             against: str, waiting: Collection[TableKey] = ()) -> list[Unit]:
    """The units of the games where both sat (``tables``: each game's table), and an
    empty unit for each table of theirs in flight with no game stored yet, in the order
    the tables were dealt."""
    units: dict[TableKey, Unit] = {}
    for result in results:
        key = tables.get(result.game_id)
        if key is None or version not in result.bots or against not in result.bots:
            continue
        unit = units.setdefault(key, Unit(key, result.num_players, []))
        unit.scores.append(pairwise(result, version, against))
    for key in waiting:
        units.setdefault(key, Unit(key, 0, []))
    return [units[key] for key in sorted(units)]


def elo_interval(scores: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """The Elo difference the mean unit score means and its 95% interval (delta method),
    with one virtual drawn unit; None before the first unit, no interval before the
    second."""
    if not scores:
        return None, None, None
    values = np.array([*scores, 0.5])
    mean = float(values.mean())
    elo = score_elo(mean)
    if len(scores) < 2:
        return elo, None, None
    error = float(values.std(ddof=1)) / math.sqrt(len(values))
    half = Z95 * error * ELO_PER_NATURAL / (mean * (1.0 - mean))
    return elo, elo - half, elo + half


class VerdictTest:
    """One test, fed its units in order (:meth:`run`); run again on more units, it goes
    on from where it stopped while the units it took are still the first ones, as they
    were (else it starts again: the figures are always those of the units given)."""

    def __init__(self, settings: VerdictSettings) -> None:
        self.settings = settings
        self.design = settings.design()
        self._start()

    def _start(self) -> None:
        self.tests = SequentialTests(self.design, count=2)  # row 0: up, row 1: down
        self.taken: list[tuple[TableKey, bool]] = []  # units passed: (key, fed or skipped)
        self.scores: list[float] = []
        self.games = 0
        self.state = "testing"

    def run(self, units: Sequence[Unit], waiting: Collection[TableKey] = ()) -> Figures:
        """The test over ``units`` as far as it goes: it waits at a unit of ``waiting``
        (tables in flight) that is not complete, skips one that is not complete and not
        in flight, stops at its decision or at ``max_games``."""
        if [(unit.key, unit.complete) for unit in units[:len(self.taken)]] != self.taken:
            self._start()
        for unit in units[len(self.taken):]:
            if self.state != "testing" or not unit.complete and unit.key in waiting:
                break
            self.taken.append((unit.key, unit.complete))
            if unit.complete:
                self._add(unit)
        return Figures(self.state, *elo_interval(self.scores), self.games)

    def _add(self, unit: Unit) -> None:
        score = unit.score
        self.tests.add(self.design.categories([score, 1.0 - score]))
        self.scores.append(score)
        self.games += unit.players
        up, down = (int(outcome) for outcome in self.tests.outcome)
        if up == ACCEPT_H1:
            self.state = "stronger"
        elif down == ACCEPT_H1:
            self.state = "weaker"
        elif up == ACCEPT_H0 and down == ACCEPT_H0:
            self.state = "no_difference"
        elif self.games >= self.settings.max_games:
            self.state = "inconclusive"


def decide(units: Sequence[Unit], settings: VerdictSettings,
           waiting: Collection[TableKey] = ()) -> Figures:
    """The test over ``units`` from the start (:meth:`VerdictTest.run`)."""
    return VerdictTest(settings).run(units, waiting)


# --------------------------------------------------------------------------- shown


def _signed(value: float) -> str:
    return f"{round(value):+d}"  # a whole number: never "-0"


def _figures(verdict: Verdict) -> str:
    if verdict.elo is None:
        return ""
    if verdict.low is None or verdict.high is None:
        return f"{_signed(verdict.elo)} Elo"
    return f"{_signed(verdict.elo)} Elo [{_signed(verdict.low)}, {_signed(verdict.high)}]"


def describe(verdict: Verdict) -> str:
    """The verdict in one line, as the bot page shows it."""
    new, old = f"v{verdict.number}", f"v{verdict.against_number}"
    games = f"{verdict.games} game{'s' if verdict.games != 1 else ''}"
    figures = _figures(verdict)
    if verdict.state in ("stronger", "weaker"):
        return f"{new} {verdict.state} than {old}: {figures}, decided after {games}"
    if verdict.state == "no_difference":
        return f"{new} and {old}: no clear difference: {figures}, decided after {games}"
    if verdict.state == "inconclusive":
        return f"{new} against {old}: no decision within {games} (the cap): {figures}"
    if verdict.state == "superseded":
        if not verdict.games:
            return f"{new} against {old}: superseded by a newer version before a game"
        return (f"{new} against {old}: superseded by a newer version after {games}: "
                f"{figures}")
    if not verdict.games:
        return f"{new} against {old}: still testing: no game together yet"
    return f"{new} against {old}: still testing: {games}, {figures} so far"


def verdict_json(verdict: Verdict | None) -> dict[str, Any] | None:
    """A verdict as the API shows it (on the bot and on each version)."""
    if verdict is None:
        return None

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 1)

    return {"state": verdict.state, "elo": rounded(verdict.elo),
            "low": rounded(verdict.low), "high": rounded(verdict.high),
            "games": verdict.games, "version": verdict.version, "against": verdict.against,
            "text": describe(verdict), "started_at": verdict.started_at,
            "decided_at": verdict.decided_at}


# --------------------------------------------------------------------------- the ladder's


class Verdicts:
    """The ladder's open tests: which predecessors play, which tables seat both, and the
    figures recomputed as their games are stored."""

    def __init__(self, server: ServerContext) -> None:
        self.server = server
        self.open: list[Verdict] = []
        # per open test (version, predecessor): the stored games where both sat, kept up
        # from the ladder's results (scanned up to ``_scanned`` of the list ``_results``)
        self._together: dict[tuple[str, str], list[GameResult]] = {}
        self._results: list[GameResult] = []
        self._scanned = 0
        self._tables: dict[str, TableKey] = {}
        self._computed: dict[int, tuple[int, frozenset[TableKey]]] = {}
        self._tests: dict[int, VerdictTest] = {}
        self._testers: set[str] = set()

    def sync(self) -> list[Version]:
        """Tests started for versions in the ladder that have a predecessor, open tests of
        versions that have a newer valid one ended as "superseded"; returns the
        predecessors that play as testers (their versions in the ladder, valid)."""
        store = self.server.store
        current = store.ladder_versions()
        by_bot: dict[int, list[Version]] = {}
        for version in sorted(store.all_ladder_names().values(), key=lambda v: v.number):
            by_bot.setdefault(version.bot_id, []).append(version)
        for version in current:
            earlier = [v for v in by_bot[version.bot_id] if v.number < version.number]
            if earlier:
                store.start_verdict(version.id, earlier[-1].id)
        in_ladder = {version.id for version in current}
        testers = []
        self.open = []
        for verdict in store.verdicts(open_only=True):
            if any(v.number > verdict.number for v in by_bot.get(verdict.bot_id, [])):
                self._end(verdict, "superseded")
                continue
            self.open.append(verdict)
            against = store.version(verdict.against_id)
            if verdict.version_id in in_ladder and against is not None \
                    and against.state == "valid" and not against.paused:
                testers.append(against)
        self._testers = {version.ladder_name for version in testers}
        return testers

    def testers(self) -> set[str]:
        """The ladder names of the predecessors playing as testers (as of :meth:`sync`)."""
        return set(self._testers)

    def update(self, results: list[GameResult], in_flight: Iterable[ScheduledGame]) -> bool:
        """The open tests' figures from the stored games (``results``, the ladder's list,
        kept up as games are stored) where a unit came in; True when a test ended (its
        predecessor leaves: the roster changes)."""
        playing = list(in_flight)
        self._scan(results)
        ended = False
        for verdict in list(self.open):
            pair = (verdict.version, verdict.against)
            games = self._together[pair]
            waiting = frozenset((g.round, g.table) for g in playing
                                if pair[0] in g.seats and pair[1] in g.seats)
            if self._computed.get(verdict.version_id) == (len(games), waiting):
                continue
            self._computed[verdict.version_id] = (len(games), waiting)
            unknown = [r.game_id for r in games if r.game_id not in self._tables]
            if unknown:
                self._tables.update(self.server.league_store.tables_of(unknown))
            test = self._tests.setdefault(
                verdict.version_id, VerdictTest(VerdictSettings.of(self.server.settings)))
            figures = test.run(units_of(games, self._tables, *pair, waiting), waiting)
            if figures.state == "testing":
                self.server.store.save_verdict(verdict.version_id, "testing", figures.elo,
                                               figures.low, figures.high, figures.games)
            else:
                self._end(verdict, figures.state, figures)
                self.open.remove(verdict)
                ended = True
        return ended

    def together(self, names: Collection[str], games_of: Mapping[str, int],
                 in_flight: Iterable[ScheduledGame]) -> list[tuple[str, str]]:
        """The open tests (version, predecessor) owed a table together now: both among
        ``names``, and fewer than ``TOGETHER_SHARE`` of the version's games (stored and
        in flight) with the predecessor."""
        playing = list(in_flight)
        owed = []
        for verdict in self.open:
            pair = (verdict.version, verdict.against)
            if pair[0] not in names or pair[1] not in names:
                continue
            mine = games_of.get(pair[0], 0) + sum(pair[0] in g.seats for g in playing)
            both = len(self._together.get(pair, ())) + sum(
                pair[0] in g.seats and pair[1] in g.seats for g in playing)
            if both <= TOGETHER_SHARE * mine:
                owed.append(pair)
        return owed

    # -- inside --------------------------------------------------------------------
    def _scan(self, results: list[GameResult]) -> None:
        """Keep ``_together`` up for the open tests: a new test's pair is looked for in
        every stored game once, then only the games stored since."""
        if results is not self._results or len(results) < self._scanned:
            self._results, self._scanned, self._together = results, 0, {}
        pairs = {(v.version, v.against) for v in self.open}
        for pair in pairs - set(self._together):
            self._together[pair] = [r for r in results[:self._scanned]
                                    if pair[0] in r.bots and pair[1] in r.bots]
        for pair in set(self._together) - pairs:
            del self._together[pair]
        for result in results[self._scanned:]:
            for pair, games in self._together.items():
                if pair[0] in result.bots and pair[1] in result.bots:
                    games.append(result)
        self._scanned = len(results)

    def _end(self, verdict: Verdict, state: str, figures: Figures | None = None) -> None:
        """A test's end, stored (with its figures: recomputed, or as last stored) and
        announced as a ``verdict`` event."""
        store = self.server.store
        self._tests.pop(verdict.version_id, None)
        self._computed.pop(verdict.version_id, None)
        if figures is None:
            store.save_verdict(verdict.version_id, state, verdict.elo, verdict.low,
                               verdict.high, verdict.games)
        else:
            store.save_verdict(verdict.version_id, state, figures.elo, figures.low,
                               figures.high, figures.games)
        ended = store.verdict(verdict.version_id)
        data = verdict_json(ended)
        if data is not None:
            self.server.announce("verdict", {"bot": verdict.version.split("@")[0],
                                             "number": verdict.number, **data})
            self.server.log(data["text"])
