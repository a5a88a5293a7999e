"""Synthetic leagues of known strength, for the benchmarks and the tests.

Bots have known Elo ratings; placements are drawn from Gumbel noise on the Elo scale,
which makes every pairwise result exactly logistic in the rating gap, as Elo assumes.

``PairModel`` and ``FieldModel`` draw the *units* of the sequential tests
(:mod:`arena.stats.sprt`) directly, many tests at once: each model puts shared luck
inside a unit, as a real deal does, and knows its true mean unit score exactly, so a
simulation can sit precisely on H0 or on H1.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from arena.rating import ELO_PER_NATURAL
from arena.records import GameResult
from arena.stats.sprt import Design, logistic_score, score_elo


def simulate_league(
    true_elo: Mapping[str, float],
    num_games: int,
    player_counts: Sequence[int] = (2, 3, 4, 5),
    seed: int = 0,
    game: str = "synthetic",
    seat_bonus: Sequence[float] = (),
) -> list[GameResult]:
    """Games between bots of known strength; seats and player counts drawn at random.

    ``seat_bonus[s]`` Elo is added to whoever sits in seat ``s`` (to test the seat
    diagnostic); seats beyond the list get nothing.
    """
    rng = np.random.default_rng(seed)
    names = list(true_elo)
    strength = np.array([true_elo[name] for name in names])
    results = []
    for g in range(num_games):
        n = int(rng.choice(player_counts))
        seats = rng.choice(len(names), size=n, replace=False)
        bonus = np.array([seat_bonus[s] if s < len(seat_bonus) else 0.0 for s in range(n)])
        performance = strength[seats] + bonus + rng.gumbel(scale=ELO_PER_NATURAL, size=n)
        order = np.argsort(-performance)
        placements = np.empty(n, dtype=int)
        placements[order] = np.arange(1, n + 1)
        results.append(
            GameResult(
                game_id=f"g{g:07d}",
                game=game,
                bots=tuple(names[s] for s in seats),
                scores=tuple(float(round(p / 10.0)) for p in performance),
                placements=tuple(int(p) for p in placements),
                sequence=g,
            )
        )
    return results


def spread_ratings(num_bots: int, spread: float = 600.0) -> dict[str, float]:
    """``num_bots`` true ratings evenly spaced over ``spread`` Elo around 1500."""
    step = spread / max(1, num_bots - 1)
    return {f"bot{i:03d}": 1500.0 - spread / 2 + i * step for i in range(num_bots)}

NATURAL_PER_ELO = 1.0 / ELO_PER_NATURAL


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


def play_tables(strength: np.ndarray, tables: np.ndarray, rng: np.random.Generator
                ) -> np.ndarray:
    """The points matrix of tables played in all their seat rotations, many at once.

    ``strength`` is each bot's true rating in natural log-odds, ``tables`` one row of bot
    indices per table (k columns).  Each table is k games (one per rotation; seats do
    not matter here), each an independent Plackett–Luce draw: strength plus Gumbel
    noise.  Returns ``W[i, j]``, the points i took from j over all those games (as
    ``Pairs.matrix``)."""
    n = len(strength)
    count, k = tables.shape
    performance = strength[tables][:, None, :] + rng.gumbel(size=(count, k, k))
    cells: list[np.ndarray] = []
    points: list[np.ndarray] = []
    for a in range(k):
        for b in range(a + 1, k):
            ahead = (performance[:, :, a] > performance[:, :, b]).sum(axis=1)
            cells += [tables[:, a] * n + tables[:, b], tables[:, b] * n + tables[:, a]]
            points += [ahead, k - ahead]
    return np.bincount(np.concatenate(cells), weights=np.concatenate(points).astype(float),
                       minlength=n * n).reshape(n, n)
