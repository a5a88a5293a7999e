"""Matchmaking for information: which table a continuous ladder plays next.

Pure functions of the ladder's sufficient statistics (the bot × bot matrix of points of
``arena.rating``, the games per bot, the player counts of the games) and of the active
bots; nothing here reads a store, starts a game or keeps state between calls.

The next table is the one whose result is expected to shrink the most the 95% intervals
of the *neighbours whose intervals still overlap* (docs/ratings.md, "Matchmaking for
information", has the formula):

* ratings and their covariance come from the same Bradley–Terry fit as the leaderboard
  (with its virtual-draw prior); the covariance is the curvature's, times the design
  effect ``(k + 1) / 3`` of a k-player game (its pairs share one ranking: exact for
  equal bots, where the bootstrap over whole games gives the same);
* a table of k bots is played in all k seat rotations with one seed (``table_games``),
  so it adds ``k · q_ab / c_k`` to the precision of every pair of its bots, where
  ``q_ab`` is the Fisher information of one pairwise result, ``p (1 - p)``, averaged
  over what is still unknown of the gap;
* the new covariance follows from the Woodbury identity, for every bot at once (a game
  between two bots also narrows the intervals of the bots they met before);
* its value is ``Σ_j u_j · Δ(s_a + s_b)`` over neighbouring pairs j = (a, b) of the
  current order, where s is a bot's interval half-width and ``u_j`` is 1 while the two
  intervals overlap and ``RESOLVED_WEIGHT`` once they are apart (a pair apart but in the
  wrong order is still revisited, only less often);
* a table is built greedily: the best pair of one of the neediest bots (Σ u_j × its
  interval) with a near neighbour in the ranking, then the bot that adds the most, until
  it has k bots.

A caller may ask for tables that seat given bots together (a server's new version and
its predecessor under test): those come first in the batch, filled up greedily as above.
Then two rules come first: a bot flagged *new* whose interval still overlaps a
neighbour's gets a seat at every table (the most uncertain new bot first); and an active
bot whose games fall under ``floor`` times the active bots' average is seated next (the
floor share), so no bot waits.  Ties are broken by a seeded generator: the same inputs and
seed give the same tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.errors import ArenaError
from arena.rating import DEFAULT_PRIOR_DRAWS, ELO_PER_NATURAL, Z95, fit_bradley_terry

RESOLVED_WEIGHT = 0.05  # weight of a neighbouring pair whose intervals are apart
FLOOR = 0.25  # an active bot under this share of the average games is seated first
NEAR = 8  # a table's first pair: at most this many ranks apart; the others within 2x
SEEDS = 6  # the first pair has one of this many neediest bots (weight x interval)


def design_effect(players: int) -> float:
    """Variance factor of a k-player game's pairs over independent pairs: ``(k+1)/3``.

    A bot's wins in a game of k equal bots are ``k - place``, place uniform on 1..k:
    variance ``(k² - 1)/12`` against ``(k - 1)/4`` for k - 1 independent pairs; the
    covariances between bots scale the same way, so the bootstrap over whole games widens
    the curvature's variances by this factor (1 for two players)."""
    return (players + 1) / 3.0


def mean_design_effect(games_by_players: Mapping[int, int]) -> float:
    """The design effect of a mix of games, weighted by their pairs."""
    pairs = {k: n * k * (k - 1) / 2 for k, n in games_by_players.items() if n > 0}
    total = sum(pairs.values())
    if total == 0:
        return 1.0
    return sum(design_effect(k) * w for k, w in pairs.items()) / total


@dataclass(frozen=True)
class Estimate:
    """Ratings (natural log-odds) and their covariance, design effect included."""

    natural: np.ndarray
    covariance: np.ndarray  # not centred; see ``centred_sd``

    def centred_sd(self) -> np.ndarray:
        """Standard error of each rating minus the mean rating, in Elo (the leaderboard
        centres ratings on their mean)."""
        return ELO_PER_NATURAL * np.sqrt(np.clip(_centred_variance(self.covariance), 0, None))

    def elo(self) -> np.ndarray:
        return ELO_PER_NATURAL * (self.natural - self.natural.mean()) + 1500.0

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """The 95% intervals, centred as the leaderboard's (mean 1500)."""
        elo, half = self.elo(), Z95 * self.centred_sd()
        return elo - half, elo + half


def precision(wins: np.ndarray, natural: np.ndarray, prior_draws: float) -> np.ndarray:
    """Minus the Hessian of the Bradley–Terry log-likelihood with its prior (as
    ``arena.rating``): the Fisher information of the pairs played."""
    meetings = wins + wins.T
    p = 1.0 / (1.0 + np.exp(natural[None, :] - natural[:, None]))
    s = 1.0 / (1.0 + np.exp(-natural))
    return information(meetings * p * (1.0 - p), s * (1.0 - s) * prior_draws)


def information(weights: np.ndarray, diagonal: np.ndarray) -> np.ndarray:
    """The Laplacian of pair weights plus a diagonal (the prior's share)."""
    out = -weights.astype(float)
    out[np.diag_indices(len(diagonal))] = weights.sum(axis=1) - np.diag(weights) + diagonal
    return out


def estimate(
    wins: np.ndarray,
    design: float = 1.0,
    *,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    start: np.ndarray | None = None,
    tolerance: float = 1e-8,
) -> Estimate:
    """The leaderboard's fit (``fit_bradley_terry``, warm-started from ``start`` if
    given) and the covariance ``design · precision⁻¹``."""
    natural = fit_bradley_terry(wins, prior_draws, start=start, tolerance=tolerance)
    covariance = design * np.linalg.inv(precision(wins, natural, prior_draws))
    return Estimate(natural, covariance)


def _centred_variance(covariance: np.ndarray) -> np.ndarray:
    row = covariance.mean(axis=1)
    return np.diag(covariance) - 2.0 * row + row.mean()


def expected_information(gap: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """``E[p (1 - p)]`` of a pairwise result whose log-odds gap is normal(gap, variance)
    (the probit approximation of the logistic: scale the gap by 1/κ, κ² = 1 + π v / 8)."""
    kappa = np.sqrt(1.0 + math.pi * np.clip(variance, 0.0, None) / 8.0)
    p = 1.0 / (1.0 + np.exp(-gap / kappa))
    return p * (1.0 - p) / kappa


def neighbour_weights(mean: np.ndarray, sd: np.ndarray, order: np.ndarray | None = None
                      ) -> np.ndarray:
    """Per bot, the summed weight ``u_j`` of the neighbouring pairs it belongs to: 1 for a
    pair whose 95% intervals overlap, ``RESOLVED_WEIGHT`` for a pair apart.  ``order``
    is the ranking (strongest first; default: by ``mean``); mean and sd in Elo."""
    ranking = np.argsort(-mean, kind="stable") if order is None else order
    upper, lower = ranking[:-1], ranking[1:]
    apart = mean[upper] - Z95 * sd[upper] > mean[lower] + Z95 * sd[lower]
    u = np.where(apart, RESOLVED_WEIGHT, 1.0)
    weight = np.zeros(len(mean))
    np.add.at(weight, upper, u)
    np.add.at(weight, lower, u)
    return weight


def table_values(
    tables: np.ndarray,
    mean: np.ndarray,
    covariance: np.ndarray,
    weight: np.ndarray,
    players: int,
    plays: float = 1.0,
) -> np.ndarray:
    """The value of each candidate table (rows of bot indices, m ≤ k of them so far):
    ``Σ_i weight_i · (s_i - s'_i)``, s the centred standard error (natural units) before
    and s' after ``plays`` tables of k players (k rotations each) with those bots."""
    count, m = tables.shape
    c = design_effect(players)
    gaps = mean[tables][:, :, None] - mean[tables][:, None, :]
    sub = covariance[tables[:, :, None], tables[:, None, :]]  # (count, m, m)
    diag = np.diagonal(sub, axis1=1, axis2=2)
    gap_var = diag[:, :, None] + diag[:, None, :] - 2.0 * sub
    q = expected_information(gaps, gap_var)
    q[:, np.arange(m), np.arange(m)] = 0.0
    laplacian = -q
    laplacian[:, np.arange(m), np.arange(m)] = q.sum(axis=2)
    laplacian *= plays * players / c
    # Woodbury: C' = C - C P (I + L C_SS)^-1 L Pᵀ C; K = (I + L C_SS)^-1 L
    kernel = np.linalg.solve(np.eye(m)[None] + laplacian @ sub, laplacian)
    who = np.flatnonzero(weight > 0)
    if len(who) == 0:
        return np.zeros(count)
    # centred columns of the members (G C P), for the weighted bots only: (count, w, m)
    picked = covariance[who][:, tables] - covariance.mean(axis=0)[tables][None]
    picked = picked.transpose(1, 0, 2)
    shrink = ((picked @ kernel) * picked).sum(axis=2)
    before = _centred_variance(covariance)[who]
    after = np.clip(before[None, :] - shrink, 1e-12, None)
    gain: np.ndarray = (np.sqrt(before)[None, :] - np.sqrt(after)) @ weight[who]
    return gain


def updated_covariance(
    table: Sequence[int], mean: np.ndarray, covariance: np.ndarray, players: int,
    plays: float = 1.0,
) -> np.ndarray:
    """The covariance expected after ``plays`` tables of these bots (Woodbury)."""
    index = np.asarray(table)
    m = len(index)
    sub = covariance[np.ix_(index, index)]
    diag = np.diag(sub)
    q = expected_information(mean[index][:, None] - mean[index][None, :],
                             diag[:, None] + diag[None, :] - 2.0 * sub)
    np.fill_diagonal(q, 0.0)
    laplacian = (np.diag(q.sum(axis=1)) - q) * plays * players / design_effect(players)
    kernel = np.linalg.solve(np.eye(m) + laplacian @ sub, laplacian)
    side = covariance[:, index]
    out: np.ndarray = covariance - side @ kernel @ side.T
    return out


@dataclass(frozen=True)
class Choice:
    """One chosen table (bot indices) and why: "new", "floor" or "information"."""

    bots: tuple[int, ...]
    reason: str


def choose_tables(
    mean: np.ndarray,
    covariance: np.ndarray,
    games: np.ndarray,
    players: int,
    count: int = 1,
    *,
    new: np.ndarray | None = None,
    active: np.ndarray | None = None,
    plays: float = 1.0,
    rng: np.random.Generator | None = None,
    order: np.ndarray | None = None,
    weight: np.ndarray | None = None,
    floor: float = FLOOR,
    together: Sequence[Sequence[int]] = (),
) -> list[Choice]:
    """The next ``count`` tables (indices), each chosen as if the ones before it had been
    played ``plays`` times (their expected information is added; the outcomes are not
    known yet), so a batch spreads over the ladder.

    ``mean`` (natural log-odds) and ``covariance`` are the estimate (an oracle may pass
    the truth); ``games`` the games each bot has played; ``order`` the ranking whose
    neighbouring pairs count (default: by ``mean``); ``weight`` replaces the per-bot
    weights of those pairs (what an oracle aims at); the first tables seat the bots of
    each group of ``together`` (then filled up as any table).
    """
    n = len(mean)
    if players < 2:
        raise ArenaError(f"a table needs at least 2 players, not {players}")
    rng = rng or np.random.default_rng(0)
    on = np.ones(n, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    fresh = np.zeros(n, dtype=bool) if new is None else np.asarray(new, dtype=bool) & on
    live = np.flatnonzero(on)
    if len(live) < players:
        raise ArenaError(f"{players}-player tables need {players} active bots, "
                         f"not {len(live)}")
    covariance = covariance.copy()
    played = np.asarray(games, dtype=float).copy()
    chosen: list[Choice] = []
    for number in range(count):
        sd = np.sqrt(np.clip(_centred_variance(covariance), 0.0, None))
        ranked = order if order is not None else live[np.argsort(-mean[live], kind="stable")]
        if weight is None:
            aims = np.zeros(n)
            aims[ranked] = neighbour_weights(mean[ranked], sd[ranked], np.arange(len(ranked)))
        else:
            aims = weight
        first: Sequence[int] = together[number] if number < len(together) else ()
        seed, reason = (None, "together") if first else _seed(fresh, on, aims, played, sd,
                                                              floor, rng)
        table = _build(seed, mean, covariance, aims, on, players, plays, rng, ranked, first)
        chosen.append(Choice(tuple(int(b) for b in table), reason))
        covariance = updated_covariance(table, mean, covariance, players, plays)
        played[list(table)] += plays * players
    return chosen


def _seed(fresh: np.ndarray, on: np.ndarray, weight: np.ndarray, played: np.ndarray,
          sd: np.ndarray, floor: float, rng: np.random.Generator) -> tuple[int | None, str]:
    """New first (the widest interval among new bots still overlapping a neighbour), then
    the floor (the least-played active bot under its share), else none."""
    unsettled = np.flatnonzero(fresh & (weight >= 1.0))
    if len(unsettled):
        widest = sd[unsettled] + 1e-9 * rng.random(len(unsettled))
        return int(unsettled[np.argmax(widest)]), "new"
    live = np.flatnonzero(on)
    average = played[live].mean()
    owed = live[played[live] < floor * average]
    if len(owed):
        least = played[owed] + 1e-6 * rng.random(len(owed))
        return int(owed[np.argmin(least)]), "floor"
    return None, "information"


def _build(seed: int | None, mean: np.ndarray, covariance: np.ndarray, weight: np.ndarray,
           on: np.ndarray, players: int, plays: float, rng: np.random.Generator,
           ranked: np.ndarray, first: Sequence[int] = ()) -> list[int]:
    """Greedy: the best first pair (``first`` if given, else with the seed if any, else
    one of the ``SEEDS`` neediest bots with a bot at most ``NEAR`` ranks away), then the
    bot adding the most (within ``2 NEAR`` ranks of the table), until the table is
    full."""
    n = len(mean)
    position = np.full(n, -1, dtype=np.int64)
    position[ranked] = np.arange(len(ranked))
    usable = on & (position >= 0)
    if first:
        candidates = np.array([list(first)[:players]], dtype=np.int64)
    elif seed is None:
        # the neediest bots (weight x interval) and their near neighbours in the ranking
        sd = np.sqrt(np.clip(_centred_variance(covariance), 0.0, None))
        need = np.where(usable, weight * sd, -np.inf) + 1e-12 * rng.random(n)
        by_need = np.argsort(-need, kind="stable")
        firsts = by_need[usable[by_need]][:SEEDS]  # never a bot that is not active
        pairs = [(int(a), int(b)) for a in firsts
                 for b in np.flatnonzero(usable & (np.abs(position - position[a]) <= NEAR))
                 if b != a]
        candidates = np.array(pairs, dtype=np.int64)
    else:
        others = np.flatnonzero(usable & (np.arange(n) != seed))
        candidates = np.column_stack([np.full(len(others), seed), others])
    while True:
        values = table_values(candidates, mean, covariance, weight, players, plays)
        values = values + 1e-9 * (1.0 + np.abs(values).max()) * rng.random(len(values))
        table = [int(b) for b in candidates[int(np.argmax(values))]]
        if len(table) == players:
            return table
        reach = np.abs(position[:, None] - position[table][None, :]).min(axis=1)
        others = np.flatnonzero(usable & ~np.isin(np.arange(n), table) & (reach <= 2 * NEAR))
        if len(others) < players - len(table):
            others = np.flatnonzero(usable & ~np.isin(np.arange(n), table))
        candidates = np.column_stack([np.tile(table, (len(others), 1)), others])


# --------------------------------------------------------------------------- by name


@dataclass(frozen=True)
class LadderState:
    """What the matchmaker needs from the ladder's stored games, by bot name."""

    bots: tuple[str, ...]
    wins: np.ndarray  # wins[i, j]: points bots[i] took from bots[j] (``Pairs.matrix``)
    games: np.ndarray  # games each bot played
    games_by_players: Mapping[int, int]  # games per player count (the design effect)

    @classmethod
    def from_results(cls, results: Sequence[object], bots: Sequence[str] = ()) -> LadderState:
        """From stored games (``GameResult``); ``bots`` adds bots without games yet."""
        from arena.rating import build_pairs, canonical_order, seated

        games = canonical_order(results)  # type: ignore[arg-type]
        pairs = build_pairs(games, bots)
        flat = seated(games)
        played = np.bincount(flat.indices(pairs.bots), minlength=pairs.size) \
            if len(flat.who) else np.zeros(pairs.size, dtype=np.int64)
        by_players: dict[int, int] = {}
        for k in flat.counts.tolist():
            by_players[k] = by_players.get(k, 0) + 1
        return cls(pairs.bots, pairs.matrix(), played, by_players)

    def extended(self, results: Sequence[object]) -> LadderState:
        """This state with more stored games (``GameResult``) folded in: equal to
        :meth:`from_results` over all the games (its sums do not depend on the order, and
        half points add exactly), at the cost of the new games only, so a long ladder
        does not re-read its whole history for every batch of tables."""
        if not results:
            return self
        more = LadderState.from_results(results)
        bots = tuple(sorted(set(self.bots) | set(more.bots)))
        index = {bot: i for i, bot in enumerate(bots)}
        wins = np.zeros((len(bots), len(bots)))
        games = np.zeros(len(bots), dtype=np.int64)
        for part in (self, more):
            at = np.array([index[bot] for bot in part.bots], dtype=np.int64)
            if len(at):
                wins[np.ix_(at, at)] += part.wins
                games[at] += part.games
        by_players = dict(self.games_by_players)
        for k, count in more.games_by_players.items():
            by_players[k] = by_players.get(k, 0) + count
        return LadderState(bots, wins, games, by_players)


def next_tables(
    state: LadderState,
    active: Sequence[str],
    players: int,
    count: int = 1,
    *,
    new: Sequence[str] = (),
    seed: int = 0,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    floor: float = FLOOR,
    together: Sequence[Sequence[str]] = (),
) -> list[tuple[str, ...]]:
    """The next ``count`` tables of ``players`` bots among ``active`` (names); each is
    to be played in all its seat rotations with one seed
    (``arena.league.schedule.table_games``).  Bots of ``new`` are new versions; the
    first tables seat the bots of each group of ``together`` (active bots)."""
    names = sorted(set(active))
    unknown = set(names) - set(state.bots)
    bots = tuple(sorted(set(state.bots) | unknown))
    n = len(bots)
    wins = np.zeros((n, n))
    games = np.zeros(n)
    at = np.array([bots.index(b) for b in state.bots], dtype=np.int64)
    if len(at):
        wins[np.ix_(at, at)] = state.wins
        games[at] = state.games
    fitted = estimate(wins, mean_design_effect(state.games_by_players),
                      prior_draws=prior_draws)
    index = {b: i for i, b in enumerate(bots)}
    on = np.zeros(n, dtype=bool)
    on[[index[b] for b in names]] = True
    fresh = np.zeros(n, dtype=bool)
    fresh[[index[b] for b in new if b in index]] = True
    if any(b not in names for group in together for b in group):
        raise ArenaError("a table can only seat active bots together")
    groups = [[index[b] for b in group] for group in together]
    choices = choose_tables(fitted.natural, fitted.covariance, games, players, count,
                            new=fresh, active=on, rng=np.random.default_rng(seed),
                            floor=floor, together=groups)
    return [tuple(bots[i] for i in choice.bots) for choice in choices]
