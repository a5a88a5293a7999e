"""SPSA as fishtest runs it, pure and deterministic (docs/tuning.md has the formulas).

Simultaneous perturbation stochastic approximation (Spall) moves every parameter at once
from the difference of two noisy measurements: each iteration perturbs the current
values by +c_k and -c_k along random signs, plays one game with each (same seed, same
seats), and steps along the signs in proportion to the difference of their results.
fishtest (official-stockfish/fishtest, server/fishtest/spsa_workflow.py) tunes
Stockfish this way; the gains here are its gains, per parameter, from its ``c_end`` and
``r_end``:

    N  = iterations (pairs of games),  A = int(0.1 N),  alpha = 0.602,  gamma = 0.101
    c  = c_end * N**gamma              c_k = c / k**gamma                (k = 1..N)
    a  = r_end * c_end**2 * (A + N)**alpha
                                       a_k = a / (A + k)**alpha
    theta+ = clip(theta + c_k * delta),   theta- = clip(theta - c_k * delta)
    theta  <- clip(theta + (a_k / c_k) * result_k * delta)

``delta`` is +1 or -1 per parameter, from a generator seeded by the tune's seed and k;
``clip`` keeps a value within its bounds; ``result_k`` is theta+'s wins minus losses
over the pair, fishtest's measure, here ``2 * (s+ - s-)`` where s is the share of its
opponents a player finished ahead of (a tie half), so 2 at two players when theta+ won
and theta- lost (:func:`pair_result`).

Iterations in flight: with ``in_flight`` = B pairs played at once, iteration k is played
at the values after the updates of iterations 1..k-B (all known when it starts, however
the games finish), and its update is applied, in order, to the latest values: the same
games give the same trajectory on any machine, at any speed, after any restart.
fishtest's workers do the same without the order (each reports when it is done).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.league.schedule import stable_int
from arena.runner.botspec import Parameter

ALPHA = 0.602  # fishtest's (Spall's) exponents
GAMMA = 0.101
A_RATIO = 0.1  # fishtest's A = int(0.1 * N)
# stable_int gives 63 bits: a uniform number in [0, 1) from one
_UNIT = float(1 << 63)


@dataclass(frozen=True)
class Gains:
    """SPSA's gain sequences for ``iterations`` pairs (fishtest's definitions)."""

    iterations: int  # N
    alpha: float = ALPHA
    gamma: float = GAMMA
    a_ratio: float = A_RATIO

    @property
    def stability(self) -> int:
        """A, the stability constant that keeps the first steps small."""
        return int(self.a_ratio * self.iterations)

    def c(self, parameter: Parameter, k: int) -> float:
        """The perturbation of iteration k (1-based): c_end at k = N."""
        return parameter.c_end * self.iterations ** self.gamma / k ** self.gamma

    def a(self, parameter: Parameter, k: int) -> float:
        """The gain of iteration k: r_end * c_end**2 at k = N."""
        big_a = self.stability
        a = parameter.r_end * parameter.c_end ** 2 * (big_a + self.iterations) ** self.alpha
        return a / (big_a + k) ** self.alpha

    def r(self, parameter: Parameter, k: int) -> float:
        """fishtest's R_k = a_k / c_k**2, the learning rate it shows (r_end at k = N)."""
        return self.a(parameter, k) / self.c(parameter, k) ** 2


def signs(seed: int, k: int, parameters: Sequence[Parameter]) -> tuple[int, ...]:
    """delta_k: +1 or -1 per parameter, from the tune's seed, k and the parameter's name
    (so a parameter's signs do not depend on the others)."""
    return tuple(1 if stable_int("spsa sign", seed, k, p.name) & 1 else -1
                 for p in parameters)


def pair_result(plus_share: float, minus_share: float) -> float:
    """result_k: theta+'s wins minus losses over the pair, fishtest's measure; a game's
    is 2s - 1 (s: the share of opponents finished ahead of, a tie half)."""
    return 2.0 * (plus_share - minus_share)


def share_ahead(placements: Sequence[int], seat: int) -> float:
    """s: the share of the other seats that ``seat`` finished ahead of (1 = first),
    a tie counting half."""
    mine = placements[seat]
    others = [p for i, p in enumerate(placements) if i != seat]
    return sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others) / len(others)


def played_values(values: Sequence[float], parameters: Sequence[Parameter], seed: int,
                  k: int, sign: str) -> tuple[float, ...]:
    """What a bot gets for ``values``: an integer parameter rounded at random, as fishtest
    rounds (floor(v + u), u uniform in [0, 1), so its mean is v), u seeded by the tune,
    k, the side (``sign``: "+", "-" or another label) and the parameter's name."""
    played = []
    for value, parameter in zip(values, parameters, strict=True):
        if parameter.integer:
            u = stable_int("spsa round", seed, k, sign, parameter.name) / _UNIT
            value = parameter.clip(float(math.floor(value + u)))
        played.append(value)
    return tuple(played)


@dataclass
class Spsa:
    """One tune's state: the values after each applied iteration, rebuilt from the pairs'
    results in any order (:meth:`record`) and advanced in order (:meth:`advance`)."""

    parameters: tuple[Parameter, ...]
    start: tuple[float, ...]
    gains: Gains
    seed: int
    in_flight: int = 1
    # trajectory[j]: the values after the updates of iterations 1..j (trajectory[0]: start)
    trajectory: list[tuple[float, ...]] = field(default_factory=list)
    results: dict[int, float] = field(default_factory=dict)  # k -> result_k

    def __post_init__(self) -> None:
        if len(self.start) != len(self.parameters):
            raise ValueError("one start value per parameter")
        if self.in_flight < 1:
            raise ValueError("at least one pair in flight")
        if not self.trajectory:
            self.trajectory = [tuple(p.clip(v) for p, v in zip(self.parameters, self.start,
                                                               strict=True))]

    @property
    def applied(self) -> int:
        """Iterations whose update is applied (1..applied, in order)."""
        return len(self.trajectory) - 1

    @property
    def done(self) -> bool:
        return self.applied >= self.gains.iterations

    @property
    def theta(self) -> tuple[float, ...]:
        """The current values."""
        return self.trajectory[-1]

    def can_start(self, k: int) -> bool:
        """Whether iteration k's values are known (those after iteration k - B)."""
        return k - self.in_flight <= self.applied

    def base(self, k: int) -> tuple[float, ...]:
        """The values iteration k perturbs: after the updates of iterations 1..k-B."""
        if not self.can_start(k):
            raise ValueError(f"iteration {k} waits for iteration {k - self.in_flight}")
        return self.trajectory[max(0, k - self.in_flight)]

    def perturbed(self, k: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(theta+, theta-) of iteration k, clipped to the bounds (before any rounding of
        integer parameters: :func:`played_values`)."""
        base = self.base(k)
        delta = signs(self.seed, k, self.parameters)
        plus, minus = [], []
        for value, parameter, sign in zip(base, self.parameters, delta, strict=True):
            step = self.gains.c(parameter, k) * sign
            plus.append(parameter.clip(value + step))
            minus.append(parameter.clip(value - step))
        return tuple(plus), tuple(minus)

    def record(self, k: int, result: float) -> None:
        """Iteration k's pair is played: ``result`` (:func:`pair_result`)."""
        if not 1 <= k <= self.gains.iterations:
            raise ValueError(f"iteration {k} is not one of 1..{self.gains.iterations}")
        self.results[k] = result

    def advance(self) -> int:
        """Apply every recorded update that is next in order; how many were applied."""
        count = 0
        while (k := self.applied + 1) in self.results and k <= self.gains.iterations:
            self.trajectory.append(self.updated(self.theta, k, self.results[k]))
            count += 1
        return count

    def updated(self, theta: Sequence[float], k: int, result: float) -> tuple[float, ...]:
        """``theta`` after iteration k's update for ``result``."""
        delta = signs(self.seed, k, self.parameters)
        return tuple(
            parameter.clip(value + self.gains.a(parameter, k) / self.gains.c(parameter, k)
                           * result * sign)
            for value, parameter, sign in zip(theta, self.parameters, delta, strict=True))
