"""The payoff tensor of a league and the game-theoretic rankings built on it.

**Payoff tensor.** For every table composition (the set of bots at a table, whatever the
seating), each bot's mean score, mean finishing place and mean finish-ahead share (the
share of the other seats it finished ahead of, a shared place counting half).  This is
the empirical meta-game: the data α-Rank and Nash averaging rank from, and what
``arena leaderboard --payoffs`` exports.

**Pairwise meta-game.** Both rankings need a payoff for every *pair* of bots.  A league's
tables never seat one bot twice, so the symmetric k-player tensor has no entry for a bot
against copies of another (the monomorphic populations α-Rank's dynamics move between);
the pairwise reduction is measured instead: ``M[i, j]`` is the share of the points i took
from j over every game where both sat, in whatever company (so kingmaking and
table-composition effects are in it, unlike in a one-number rating).  ``M + Mᵀ = 1``
where they met; pairs that never met count as even (0.5), which the callers flag.

* **α-Rank** (Omidshafiei et al. 2019, single population, local selection model): the
  stationary distribution of a Markov chain over "everyone plays bot i", where a mutant
  j takes over a population of m with the fixation probability of the pairwise-
  comparison process, ``ρ = (1 - e^{-αΔ}) / (1 - e^{-mαΔ})``, Δ = M[j, i] - M[i, j].
  Mass concentrates on the bots no other bot can invade: a cycle (rock-paper-scissors)
  shares its mass, a dominant bot takes all of it.
* **Nash averaging** (Balduzzi et al. 2018): the maximum-entropy Nash equilibrium p of the
  zero-sum game ``A = M - Mᵀ`` (antisymmetric), and each bot's rating ``(A p)_i``: its
  expected margin against the equilibrium mix of bots.  Bots in the equilibrium's support
  rate 0, everyone else below; adding copies of a bot changes nobody's rating, so a
  league cannot be tilted by entering many clones.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.records import GameResult
from arena.stats.sprt import finish_ahead_share

# --------------------------------------------------------------------------- tensor


@dataclass(frozen=True)
class PayoffEntry:
    """One bot at one table composition."""

    table: tuple[str, ...]  # the bots at the table, sorted by name
    bot: str
    games: int
    mean_score: float
    mean_place: float  # 1 = first; shared places count as their average
    mean_ahead: float  # share of the other seats it finished ahead of


def fractional_places(placements: Sequence[int]) -> list[float]:
    """Places with ties shared: two bots tied for first both count 1.5.  A tied group
    counts the mean of the positions it takes after the seats placed better, whatever
    number it is given (two forfeits of four, placed 4 and 4, count 3.5 each)."""
    return [
        sum(1 for q in placements if q < p) + (sum(1 for q in placements if q == p) + 1) / 2.0
        for p in placements
    ]


def payoff_tensor(results: Iterable[GameResult]) -> list[PayoffEntry]:
    """Every (table composition, bot) of the games, sorted by player count, table, bot.

    Games where one bot holds several seats are left out: a composition is a set of bots.
    """
    sums: dict[tuple[tuple[str, ...], str], list[float]] = {}
    for result in results:
        if len(set(result.bots)) != len(result.bots):
            continue
        table = tuple(sorted(result.bots))
        places = fractional_places(result.placements)
        for seat, bot in enumerate(result.bots):
            entry = sums.setdefault((table, bot), [0.0, 0.0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += result.scores[seat]
            entry[2] += places[seat]
            entry[3] += finish_ahead_share(result.placements, seat)
    return [
        PayoffEntry(table, bot, int(n), score / n, place / n, ahead / n)
        for (table, bot), (n, score, place, ahead) in sorted(
            sums.items(), key=lambda item: (len(item[0][0]), item[0])
        )
    ]


PAYOFF_FIELDS = ("players", "table", "bot", "games", "mean_score", "mean_place", "mean_ahead")


def payoffs_json(entries: Sequence[PayoffEntry]) -> dict[str, Any]:
    """The tensor as JSON: one object per composition, the bots' payoffs inside."""
    tables: dict[tuple[str, ...], dict[str, Any]] = {}
    for e in entries:
        table = tables.setdefault(
            e.table, {"players": len(e.table), "bots": list(e.table), "payoffs": {}}
        )
        table["payoffs"][e.bot] = {
            "games": e.games,
            "mean_score": round(e.mean_score, 6),
            "mean_place": round(e.mean_place, 6),
            "mean_ahead": round(e.mean_ahead, 6),
        }
    return {
        "measures": {
            "mean_score": "the bot's mean final score at this table",
            "mean_place": "its mean finishing place (1 = first; shared places averaged)",
            "mean_ahead": "its mean share of the other seats it finished ahead of",
        },
        "tables": list(tables.values()),
    }


def payoffs_csv(entries: Sequence[PayoffEntry]) -> str:
    """One row per (composition, bot); the composition's bots joined by '+'."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PAYOFF_FIELDS)
    for e in entries:
        writer.writerow(
            [len(e.table), "+".join(e.table), e.bot, e.games, f"{e.mean_score:.6g}",
             f"{e.mean_place:.6g}", f"{e.mean_ahead:.6g}"]
        )
    return out.getvalue()


# --------------------------------------------------------------------------- pairwise


@dataclass(frozen=True)
class PairwiseGame:
    bots: tuple[str, ...]  # sorted by name
    payoff: np.ndarray  # payoff[i, j]: share of the points i took from j (0.5 if never met)
    meetings: np.ndarray  # pairs of seats i and j shared

    @property
    def complete(self) -> bool:
        """True when every pair of bots met at least once."""
        off_diagonal = ~np.eye(len(self.bots), dtype=bool)
        return bool((self.meetings[off_diagonal] > 0).all())


def pairwise_game(results: Iterable[GameResult]) -> PairwiseGame:
    """The pairwise reduction of the tensor (see the module docstring)."""
    from arena.rating import build_pairs, canonical_order

    pairs = build_pairs(canonical_order(results))
    n = len(pairs.bots)
    points = np.zeros((n, n))
    meetings = np.zeros((n, n))
    np.add.at(points, (pairs.first, pairs.second), pairs.points)
    np.add.at(points, (pairs.second, pairs.first), 1.0 - pairs.points)
    np.add.at(meetings, (pairs.first, pairs.second), 1.0)
    np.add.at(meetings, (pairs.second, pairs.first), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        payoff = np.where(meetings > 0, points / np.where(meetings > 0, meetings, 1), 0.5)
    np.fill_diagonal(payoff, 0.5)
    return PairwiseGame(pairs.bots, payoff, meetings)


# --------------------------------------------------------------------------- α-Rank

DEFAULT_ALPHA = 50.0  # selection intensity; payoffs are shares in [0, 1]
DEFAULT_POPULATION = 50


def fixation_probability(advantage: float, alpha: float, population: int) -> float:
    """Chance that one mutant whose payoff exceeds the residents' by ``advantage`` takes
    over a population of ``population`` (pairwise-comparison process, Traulsen et al. 2006).

    Written so that no exponential overflows at large ``alpha``.
    """
    x = alpha * advantage
    if x == 0:
        return 1.0 / population
    if x > 0:
        return math.expm1(-x) / math.expm1(-population * x)
    # (1 - e^{-x}) / (1 - e^{-mx}) multiplied through by e^{mx}
    return math.exp((population - 1) * x) * math.expm1(x) / math.expm1(population * x)


def alpha_rank(
    payoff: np.ndarray, alpha: float = DEFAULT_ALPHA, population: int = DEFAULT_POPULATION
) -> np.ndarray:
    """α-Rank's stationary distribution over the bots of a symmetric pairwise game."""
    payoff = np.asarray(payoff, dtype=float)
    n = len(payoff)
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    if alpha <= 0 or population < 2:
        raise ArenaError("α-Rank needs alpha > 0 and a population of at least 2")
    transition = np.zeros((n, n))
    for resident in range(n):
        for mutant in range(n):
            if mutant != resident:
                advantage = payoff[mutant, resident] - payoff[resident, mutant]
                transition[resident, mutant] = fixation_probability(
                    advantage, alpha, population
                ) / (n - 1)
        transition[resident, resident] = 1.0 - transition[resident].sum()
    return stationary_distribution(transition)


def stationary_distribution(transition: np.ndarray) -> np.ndarray:
    """π with π P = π and Σπ = 1, by the Grassmann–Taksar–Heyman elimination.

    GTH never subtracts, so it keeps full relative precision in states whose mass is
    1e-10 or less, where solving (Pᵀ - I) π = 0 loses it (large α makes such states).
    The state that is hardest to leave is eliminated last: at a large α its way out
    underflows to 0, and the last state is the one GTH never divides by.
    """
    transition = np.asarray(transition, dtype=float)
    order = np.argsort(transition.sum(axis=1) - np.diag(transition), kind="stable")
    p = transition[np.ix_(order, order)].copy()
    n = len(p)
    for k in range(n - 1, 0, -1):
        leaving = p[k, :k].sum()
        if leaving <= 0.0:
            raise ArenaError("α-Rank: the chain falls apart at this alpha (use a lower one)")
        p[:k, k] /= leaving
        p[:k, :k] += np.outer(p[:k, k], p[k, :k])
    pi = np.zeros(n)
    pi[0] = 1.0
    for k in range(1, n):
        pi[k] = pi[:k] @ p[:k, k]
    result = np.zeros(n)
    result[order] = pi / pi.sum()
    return result


# --------------------------------------------------------------------------- Nash averaging


def nash_equilibrium(antisymmetric: np.ndarray) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of the symmetric zero-sum game ``A`` (Aᵀ = -A).

    Its equilibria are the mixes p with ``A p ≤ 0``.  A linear programme per bot finds
    which bots some equilibrium plays (the support of the maximum-entropy one); the mean
    of those programmes' answers is an equilibrium that plays all of them, from which
    SLSQP maximises the entropy over the equilibria on that support.
    """
    from scipy.optimize import linprog, minimize

    a = np.asarray(antisymmetric, dtype=float)
    n = len(a)
    if n <= 1:
        return np.ones(n)
    if not np.allclose(a, -a.T, atol=1e-9):
        raise ArenaError("Nash averaging needs an antisymmetric payoff matrix")
    scale = max(1e-12, float(np.abs(a).max()))
    a = a / scale
    bounds = [(0.0, 1.0)] * n
    equality = (np.ones((1, n)), np.ones(1))
    solutions = []
    for bot in range(n):
        objective = np.zeros(n)
        objective[bot] = -1.0
        found = linprog(objective, A_ub=a, b_ub=np.zeros(n), A_eq=equality[0], b_eq=equality[1],
                        bounds=bounds, method="highs")
        if found.status != 0:  # the value of a symmetric zero-sum game is 0: never seen
            raise ArenaError(f"Nash equilibrium: linear programme failed ({found.message})")
        solutions.append(found.x)
    support = np.flatnonzero(np.max(solutions, axis=0) > 1e-9)
    start = np.mean(solutions, axis=0)[support]
    if len(support) == 1:
        p = np.zeros(n)
        p[support] = 1.0
        return p
    columns = a[:, support]

    def negative_entropy(q: np.ndarray) -> float:
        q = np.clip(q, 1e-300, None)
        return float((q * np.log(q)).sum())

    def gradient(q: np.ndarray) -> np.ndarray:
        return np.log(np.clip(q, 1e-300, None)) + 1.0

    result = minimize(
        negative_entropy,
        start / start.sum(),
        jac=gradient,
        method="SLSQP",
        bounds=[(1e-12, 1.0)] * len(support),
        constraints=[
            {"type": "eq", "fun": lambda q: q.sum() - 1.0, "jac": lambda q: np.ones_like(q)},
            {"type": "ineq", "fun": lambda q: -columns @ q, "jac": lambda q: -columns},
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    q = result.x if result.success else start
    p = np.zeros(n)
    p[support] = np.clip(q, 0.0, None)
    return p / p.sum()


@dataclass(frozen=True)
class NashAverage:
    equilibrium: np.ndarray  # the maximum-entropy Nash mix of bots
    rating: np.ndarray  # (A p)_i: expected margin against that mix (0 in the support)


def nash_average(payoff: np.ndarray) -> NashAverage:
    """Nash averaging of a pairwise game of shares: A = M - Mᵀ (margins in [-1, 1])."""
    payoff = np.asarray(payoff, dtype=float)
    margins = payoff - payoff.T
    p = nash_equilibrium(margins)
    return NashAverage(p, margins @ p)


# --------------------------------------------------------------------------- together


@dataclass(frozen=True)
class MetaRanking:
    bots: tuple[str, ...]
    alpha_rank: np.ndarray  # stationary mass per bot
    nash: NashAverage
    complete: bool  # every pair met


def meta_ranking(
    results: Iterable[GameResult],
    alpha: float = DEFAULT_ALPHA,
    population: int = DEFAULT_POPULATION,
) -> MetaRanking:
    game = pairwise_game(results)
    return MetaRanking(
        game.bots, alpha_rank(game.payoff, alpha, population), nash_average(game.payoff),
        game.complete,
    )
