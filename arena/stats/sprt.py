"""Sequential probability ratio tests on the mean score of independent units.

A *unit* is a small group of games whose luck is shared and which is independent of every
other unit: for a head-to-head test, a pair of games on one seed with the seats swapped;
for a challenger against a field, a duplicate set (one table of k bots on one seed, played
in all k seat rotations).  The tested bot's *unit score* is its average share of the
opponents it finished ahead of (a shared place counts half), so it lies in [0, 1] on a
known finite lattice of values (``score_lattice``).  Units are modelled as independent
draws from an unknown distribution on that lattice, and the test is about its mean:

    H0: mean = score0        against        H1: mean = score1        (score0 < score1)

**The statistic** is the generalised log-likelihood ratio that fishtest uses for game
pairs (the "pentanomial" model, whose five values are exactly our 2-player lattice): the
likelihood of the observed units under the most likely distribution with mean ``score1``,
over the same under mean ``score0`` (an empirical likelihood, Owen 2001).  The most
likely distribution with mean s reweights the observed frequencies p̂ as
``p̂_i / (1 + x (a_i - s))`` with x the root of ``Σ p̂_i (a_i - s) / (1 + x (a_i - s)) = 0``
(Van den Bergh, support_MLE_multinomial.pdf).  Empty values get a pseudo-count of 1e-3,
as in fishtest, so the root always exists.

**Stopping**: Wald's bounds, log(β / (1 - α)) below and log((1 - β) / α) above, each
moved inwards by fishtest's dynamic overshoot correction (Siegmund 1985, Corollary 8.33),
estimated from how far the running minimum and maximum of the LLR have jumped so far.

The code is vectorised over many independent tests at once: a league runs one, the
simulations that check the error rates in the test suite run thousands in lock step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from arena.errors import ArenaError

PSEUDO_COUNT = 1e-3  # for lattice values not seen yet, as fishtest regularises
RUNNING, ACCEPT_H0, ACCEPT_H1 = 0, -1, 1
OUTCOMES = {RUNNING: "running", ACCEPT_H0: "H0", ACCEPT_H1: "H1"}


def logistic_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (the Elo curve)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_elo(score: float) -> float:
    """The inverse of ``logistic_score``."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_lattice(player_counts: Iterable[int]) -> np.ndarray:
    """Every value a unit score can take, ascending.

    One game of k players gives the tested bot m / (2(k - 1)) for some whole m (half
    points for shared places); a unit averages k games (2 for a pair), so its score is
    m / (2k(k - 1)).  For 2 players: 0, ¼, ½, ¾, 1: the pentanomial.
    """
    values: set[Fraction] = set()
    for k in player_counts:
        if k < 2:
            raise ArenaError(f"a game needs at least 2 players, not {k}")
        denominator = 2 * k * (k - 1)
        values |= {Fraction(m, denominator) for m in range(denominator + 1)}
    if not values:
        raise ArenaError("a sequential test needs at least one player count")
    return np.array(sorted(float(v) for v in values))


def finish_ahead_share(placements: Sequence[int], seat: int) -> float:
    """The share of the other seats that ``seat`` finished ahead of (ties count half)."""
    mine = placements[seat]
    others = [p for s, p in enumerate(placements) if s != seat]
    ahead = sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others)
    return ahead / len(others)


def place_as_share(place: float, players: int) -> float:
    """An expected finishing place (1 = first) as the finish-ahead share it implies.

    With fractional places for ties (two bots sharing first both count 1.5), a bot's
    share is (k - place) / (k - 1) in every game, so the two measures are one.
    """
    return (players - place) / (players - 1)


@dataclass(frozen=True)
class Design:
    """What a test decides between, and with which error rates."""

    values: tuple[float, ...]  # the unit-score lattice, ascending
    score0: float  # mean unit score under H0
    score1: float  # under H1
    alpha: float  # chance of accepting H1 when H0 holds
    beta: float  # chance of accepting H0 when H1 holds

    def __post_init__(self) -> None:
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ArenaError(f"{name} must be between 0 and 0.5 (got {value})")
        if not self.values[0] < self.score0 < self.score1 < self.values[-1]:
            raise ArenaError(
                f"the H0 score {self.score0:.4g} must be below the H1 score "
                f"{self.score1:.4g}, both strictly between {self.values[0]:g} and "
                f"{self.values[-1]:g}"
            )

    @property
    def lower(self) -> float:
        """Wald's lower bound: below it, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound: above it, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def categories(self, scores: np.ndarray | Sequence[float]) -> np.ndarray:
        """Index of each unit score in the lattice (ArenaError if one is not on it)."""
        values = np.asarray(self.values)
        scores = np.asarray(scores, dtype=float)
        index = np.clip(np.searchsorted(values, scores - 1e-9), 0, len(values) - 1)
        off = np.abs(values[index] - scores) > 1e-9
        if off.any():
            raise ArenaError(f"unit score {scores[off][0]!r} is not a possible value of this test")
        return index


def head_to_head(elo0: float, elo1: float, alpha: float, beta: float) -> Design:
    """fishtest's pentanomial SPRT: pairs of 2-player games, hypotheses in logistic Elo."""
    if not elo0 < elo1:
        raise ArenaError(f"elo0 must be below elo1 (got {elo0:g} and {elo1:g})")
    return Design(
        tuple(score_lattice([2])), logistic_score(elo0), logistic_score(elo1), alpha, beta
    )


def against_field(
    player_counts: Iterable[int], ahead0: float, ahead1: float, alpha: float, beta: float
) -> Design:
    """A challenger against a field on duplicate sets: hypotheses on its finish-ahead share."""
    return Design(tuple(score_lattice(player_counts)), ahead0, ahead1, alpha, beta)


# --------------------------------------------------------------------------- likelihood


def _multiplier(frequencies: np.ndarray, offsets: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per row, the root x of Σ p_i d_i / (1 + x d_i) = 0 (d = values - target score).

    The function falls from +inf to -inf across the interval where every 1 + x d_i > 0,
    so a Newton step that leaves the current bracket is replaced by bisection.  Warm
    starts from the previous unit's root make one or two steps the rule.
    """
    low = np.full(len(frequencies), -1.0 / offsets.max())
    high = np.full(len(frequencies), -1.0 / offsets.min())
    x = np.clip(start, low + 1e-9 * (high - low), high - 1e-9 * (high - low))
    rows = np.arange(len(frequencies))  # rows not converged yet
    for _ in range(200):
        p, xr = frequencies[rows], x[rows]
        term = p * offsets / (1.0 + xr[:, None] * offsets)
        value = term.sum(axis=1)
        slope = -(term * offsets / (1.0 + xr[:, None] * offsets)).sum(axis=1)
        lo = np.where(value > 0, xr, low[rows])
        hi = np.where(value < 0, xr, high[rows])
        newton = xr - value / slope
        inside = (newton > lo) & (newton < hi)
        updated = np.where(value == 0, xr, np.where(inside, newton, 0.5 * (lo + hi)))
        x[rows], low[rows], high[rows] = updated, lo, hi
        # Once the step is at rounding level the row is done (it would only jitter).
        rows = rows[np.abs(updated - xr) > 1e-12 * np.maximum(1.0, np.abs(xr))]
        if len(rows) == 0:
            return x
    raise ArenaError("the likelihood of a sequential test did not converge")  # not seen


def log_likelihood_ratio(
    counts: np.ndarray,
    values: np.ndarray,
    score0: float,
    score1: float,
    start: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The generalised LLR of H1 against H0 per row of ``counts`` (units per lattice value).

    Returns the LLRs and the two multipliers (pass them back as ``start`` next time).
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    regular = np.where(counts > 0, counts, PSEUDO_COUNT)
    total = regular.sum(axis=1)
    frequencies = regular / total[:, None]
    zero = np.zeros(len(counts))
    x0_start, x1_start = start if start is not None else (zero, zero)
    d0, d1 = values - score0, values - score1
    x0 = _multiplier(frequencies, d0, x0_start)
    x1 = _multiplier(frequencies, d1, x1_start)
    # p_j,i = p̂_i / (1 + x_j d_j,i), so log(p_1,i / p_0,i) needs no p̂
    jumps = np.log1p(x0[:, None] * d0) - np.log1p(x1[:, None] * d1)
    return total * (frequencies * jumps).sum(axis=1), x0, x1


# --------------------------------------------------------------------------- tests


class SequentialTests:
    """``count`` independent tests of one design, fed one unit at a time each."""

    def __init__(self, design: Design, count: int = 1) -> None:
        self.design = design
        self.values = np.asarray(design.values)
        self.counts = np.zeros((count, len(self.values)))
        self.units = np.zeros(count, dtype=np.int64)
        self.llr = np.zeros(count)
        self.outcome = np.zeros(count, dtype=np.int8)  # RUNNING, ACCEPT_H0 or ACCEPT_H1
        self._x0 = np.zeros(count)
        self._x1 = np.zeros(count)
        # Overshoot: running minimum / maximum of the LLR, and the sums of its jumps.
        self._low = np.zeros(count)
        self._low_sum = np.zeros(count)
        self._low_squares = np.zeros(count)
        self._high = np.zeros(count)
        self._high_sum = np.zeros(count)
        self._high_squares = np.zeros(count)

    def add(self, categories: np.ndarray | Sequence[int]) -> None:
        """One more unit for every test still running (lattice index per test)."""
        running = np.flatnonzero(self.outcome == RUNNING)
        if len(running) == 0:
            return
        chosen = np.asarray(categories)[running]
        self.counts[running, chosen] += 1
        self.units[running] += 1
        llr, self._x0[running], self._x1[running] = log_likelihood_ratio(
            self.counts[running],
            self.values,
            self.design.score0,
            self.design.score1,
            (self._x0[running], self._x1[running]),
        )
        self.llr[running] = llr
        lower, upper = self._track_overshoot(running, llr)
        self.outcome[running] = np.where(
            llr < lower, ACCEPT_H0, np.where(llr > upper, ACCEPT_H1, RUNNING)
        )

    def _track_overshoot(self, rows: np.ndarray, llr: np.ndarray) -> tuple[np.ndarray, ...]:
        """The bounds moved inwards by the expected overshoot (fishtest's correction)."""
        fell = llr < self._low[rows]
        jump = np.where(fell, llr - self._low[rows], 0.0)
        self._low_sum[rows] += jump
        self._low_squares[rows] += jump**2
        self._low[rows] = np.minimum(self._low[rows], llr)
        rose = llr > self._high[rows]
        jump = np.where(rose, llr - self._high[rows], 0.0)
        self._high_sum[rows] += jump
        self._high_squares[rows] += jump**2
        self._high[rows] = np.maximum(self._high[rows], llr)
        with np.errstate(divide="ignore", invalid="ignore"):
            below = np.where(
                self._low_sum[rows] != 0, -self._low_squares[rows] / self._low_sum[rows] / 2, 0.0
            )
            above = np.where(
                self._high_sum[rows] != 0,
                self._high_squares[rows] / self._high_sum[rows] / 2,
                0.0,
            )
        return self.design.lower + below, self.design.upper - above

    def mean_score(self, row: int = 0) -> float | None:
        """The plain average unit score so far (biased by the early stop: a description)."""
        seen = self.counts[row].sum()
        return float(self.counts[row] @ self.values / seen) if seen else None


def outcome_name(outcome: int) -> str:
    return OUTCOMES[int(outcome)]


def summary(tests: SequentialTests, row: int = 0) -> dict[str, Any]:
    """One test's state as JSON data."""
    design = tests.design
    return {
        "outcome": outcome_name(tests.outcome[row]),
        "llr": round(float(tests.llr[row]), 6),
        "lower": round(design.lower, 6),
        "upper": round(design.upper, 6),
        "units": int(tests.units[row]),
        "mean_score": tests.mean_score(row),
        "score0": design.score0,
        "score1": design.score1,
        "alpha": design.alpha,
        "beta": design.beta,
    }
