"""Synthetic bots of known strength, for checking the sequential tests by simulation.

Each model draws one *unit* (a pair of games, or a duplicate set) for many independent
tests at once and returns its lattice index per test, as the league would feed it.  Both
models put shared luck inside a unit, as a real deal does, and both know their true mean
unit score exactly, so a simulation can sit precisely on H0 or on H1.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numpy as np

from arena.stats.sprt import Design, logistic_score, score_elo

NATURAL_PER_ELO = math.log(10.0) / 400.0


@dataclass(frozen=True)
class PairModel:
    """Two bots; games in pairs on one deal with the seats swapped.

    The deal favours one seat: where the tested bot holds it, its chance to win rises by
    δ, and in the other game of the pair it falls by δ (δ uniform on [-luck, luck], so
    the games of a pair are negatively correlated, as duplicate deals make them).  A
    share ``ties`` of games end in a shared first place (half a point each).  The mean
    score per game is exactly ``logistic_score(elo)``.
    """

    elo: float  # true strength of the tested bot minus the other's, logistic Elo
    luck: float = 0.3
    ties: float = 0.1

    def __post_init__(self) -> None:
        score = logistic_score(self.elo)
        assert min(score, 1 - score) - self.ties / 2 - self.luck >= 0, "probabilities < 0"

    def draw_units(self, rng: np.random.Generator, count: int) -> np.ndarray:
        score = logistic_score(self.elo)
        favour = rng.uniform(-self.luck, self.luck, count)
        total = np.zeros(count, dtype=np.int64)  # half points over the pair: 0..4
        for sign in (1.0, -1.0):
            win = score - self.ties / 2 + sign * favour
            u = rng.random(count)
            total += np.where(u < win, 2, np.where(u < win + self.ties, 1, 0))
        return total  # the lattice 0, ¼, ½, ¾, 1 in order: index = half points


@dataclass(frozen=True)
class FieldModel:
    """A challenger against a field, on duplicate sets, as a gauntlet league plays them.

    Tables cycle as the league schedules them (per round: every player count, every
    combination of the field).  Each table is one deal played in all k seat rotations;
    the deal ranks the seats' hands, and a game is decided by the hands alone with
    chance ``decisive`` (luck the rotations cancel), otherwise by the bots: placings
    follow strength plus Gumbel noise (the Plackett–Luce model), so the challenger
    finishes ahead of a bot d Elo weaker with chance ``logistic_score(d)``.
    """

    challenger: float  # Elo
    field: tuple[float, ...]  # Elo of each bot of the field
    players: tuple[int, ...] = (4,)
    decisive: float = 0.3

    def tables(self) -> list[tuple[int, ...]]:
        return [
            combo
            for k in self.players
            for combo in itertools.combinations(range(len(self.field)), k - 1)
        ]

    def true_share(self) -> float:
        """The mean unit score over one cycle of tables (exact)."""
        shares = [
            np.mean([logistic_score(self.challenger - self.field[j]) for j in table])
            for table in self.tables()
        ]
        return self.decisive / 2 + (1 - self.decisive) * float(np.mean(shares))

    def with_share(self, target: float) -> FieldModel:
        """The same field, with the challenger's strength set so the mean share is ``target``."""
        low, high = -2000.0, 2000.0
        for _ in range(100):
            middle = (low + high) / 2
            if replace(self, challenger=middle).true_share() < target:
                low = middle
            else:
                high = middle
        return replace(self, challenger=(low + high) / 2)

    def draw_units(
        self, rng: np.random.Generator, step: int, count: int, design: Design
    ) -> np.ndarray:
        """Unit number ``step`` of every test: lattice indices, one per test."""
        tables = self.tables()
        table = tables[step % len(tables)]
        k = len(table) + 1
        strength = NATURAL_PER_ELO * np.array(
            [self.challenger, *(self.field[j] for j in table)]
        )  # bot 0 is the challenger
        hands = rng.random((count, k))  # quality of each seat's hand, fixed for the set
        ahead = np.zeros(count)
        for rotation in range(k):
            seat_of = (np.arange(k) + rotation) % k
            by_hand = hands[:, seat_of]
            by_bot = strength + rng.gumbel(size=(count, k))
            decided = (rng.random(count) < self.decisive)[:, None]
            performance = np.where(decided, by_hand, by_bot)
            ahead += (performance[:, :1] > performance[:, 1:]).sum(axis=1)
        return design.categories(ahead / (k * (k - 1)))


def equal_field(size: int, players: tuple[int, ...], decisive: float = 0.3) -> FieldModel:
    return FieldModel(0.0, tuple(0.0 for _ in range(size)), players, decisive)


def elo_for_share(share: float) -> float:
    return score_elo(share)
