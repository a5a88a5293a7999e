"""Elo ratings from finished games.

The default is a batch maximum-likelihood Bradley–Terry fit on the Elo scale over the
pairwise results of every game's placements (a tie is half a point each).  Games are first
aggregated into a bot × bot matrix of points, so the fit costs the same for a thousand
games as for a million, and the result cannot depend on the order of the games.

A small virtual-draw prior (each bot draws ``prior_draws`` games against an average
opponent) keeps a bot that wins or loses everything finite.  Bots that never met, directly
or through others, form separate *components*; ratings in different components are not
comparable and are centred separately.

95% intervals come from a bootstrap over whole games: the pairs of one game share its
noise, so a bootstrap over pairs (or the plain Hessian) would be too narrow.  It is a
Poisson bootstrap keyed per game (``bootstrap_weights``), so ``RatingState`` can keep
the same ratings and intervals up game by game (the server's ladder).

``EloTicker`` is the sequential Elo the league scheduler can feed game by game for a live
display; it depends on game order and is not what the leaderboard uses.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.records import GameResult

ELO_PER_NATURAL = 400.0 / math.log(10.0)  # Elo points per unit of natural log-odds
DEFAULT_CENTRE = 1500.0
DEFAULT_PRIOR_DRAWS = 1.0
DEFAULT_BOOTSTRAP = 200
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


# --------------------------------------------------------------------------- pairs


@dataclass(frozen=True)
class Pairs:
    """Every pairwise result of a set of games, one row per pair of seats.

    Games are kept in a canonical order (see ``canonical_order``) so everything derived
    from them, bootstrap included, is independent of the order they were given in.
    """

    bots: tuple[str, ...]  # sorted bot names; the indices below point into this
    num_games: int
    first: np.ndarray  # bot index of one seat of the pair
    second: np.ndarray  # bot index of the other seat
    points: np.ndarray  # points of ``first`` against ``second``: 1, 0.5 or 0
    game: np.ndarray  # index of the game the pair comes from (canonical order)
    first_seat: np.ndarray  # seat (0-based) of ``first`` in that game
    second_seat: np.ndarray
    players: np.ndarray  # number of players of that game

    @property
    def size(self) -> int:
        return len(self.bots)

    def matrix(self, weights: np.ndarray | None = None) -> np.ndarray:
        """``W[i, j]`` = points bot i scored against bot j (optionally weighted per pair)."""
        n = self.size
        w = np.ones(len(self.points)) if weights is None else weights
        won = np.bincount(self.first * n + self.second, weights=self.points * w, minlength=n * n)
        lost = np.bincount(
            self.second * n + self.first, weights=(1.0 - self.points) * w, minlength=n * n
        )
        return (won + lost).reshape(n, n)


_canonical_kept: list[tuple[list[GameResult], list[GameResult]]] = []


def canonical_order(results: Iterable[GameResult]) -> list[GameResult]:
    """The games sorted by content, so any permutation of the input gives the same list.

    The last answer is kept (``arena report`` sorts the same games twice); it is reused
    only for an equal list of games, compared at once when they are the same objects."""
    games = list(results)
    for given, ordered in _canonical_kept:
        if given == games:
            return list(ordered)
    ordered = _canonical_order(games)
    _canonical_kept[:] = [(games, ordered)]
    return list(ordered)


def _canonical_order(games: list[GameResult]) -> list[GameResult]:
    keys = [(r.game, r.game_id) for r in games]
    if len(set(keys)) == len(keys):  # a store's games: the rest of the key never counts
        order = sorted(range(len(games)), key=keys.__getitem__)
        return [games[i] for i in order]
    return sorted(
        games,
        key=lambda r: (r.game, r.game_id, r.sequence, r.bots, r.placements, r.scores),
    )


@dataclass(frozen=True)
class Seated:
    """Every seat of a list of games laid out flat, game after game: what the loops over
    games and seats read, as arrays (a million seats take a fraction of a second)."""

    bots: tuple[str, ...]  # the bots of the games, sorted
    counts: np.ndarray  # seats of each game
    who: np.ndarray  # per seat: its bot, an index into ``bots``
    places: np.ndarray  # per seat: its place (float)
    scores: np.ndarray  # per seat: its score
    misshapen: int  # the first game with fewer than two seats (-1: none)

    @property
    def game(self) -> np.ndarray:
        """Per seat: its game's index."""
        return np.repeat(np.arange(len(self.counts)), self.counts)

    def indices(self, names: Sequence[str]) -> np.ndarray:
        """Per seat: its bot as an index into ``names`` (which holds every bot here)."""
        index = {name: i for i, name in enumerate(names)}
        return np.array([index[bot] for bot in self.bots], dtype=np.int64)[self.who]


_seated_kept: list[tuple[list[GameResult], Seated]] = []


def seated(results: Sequence[GameResult]) -> Seated:
    """The games' seats as flat arrays (:class:`Seated`).  The last two answers are kept
    (the report reads the same games' seats six times, in up to two orders); one is
    reused only for an equal list of games, compared at once when they are the same
    objects.  A game whose bots, placements and scores differ in length is refused
    (ArenaError, as ``build_pairs`` always did)."""
    games = list(results)
    for kept_games, kept in _seated_kept:
        if kept_games == games:
            return kept
    total = len(games)
    counts = np.fromiter(map(len, (r.bots for r in games)), np.int64, total)
    lengths_differ = (
        (np.fromiter((len(r.placements) for r in games), np.int64, total) != counts)
        | (np.fromiter((len(r.scores) for r in games), np.int64, total) != counts))
    misshapen = np.flatnonzero((counts < 2) | lengths_differ)
    if lengths_differ.any():
        _check_shape(games[int(misshapen[0])])
    names = tuple(sorted(set(chain.from_iterable(r.bots for r in games))))
    index = {name: i for i, name in enumerate(names)}
    size = int(counts.sum())
    flat = Seated(
        bots=names,
        counts=counts,
        who=np.fromiter(map(index.__getitem__, chain.from_iterable(r.bots for r in games)),
                        np.int64, size),
        places=np.fromiter(chain.from_iterable(r.placements for r in games), float, size),
        scores=np.fromiter(chain.from_iterable(r.scores for r in games), float, size),
        misshapen=int(misshapen[0]) if len(misshapen) else -1,
    )
    for array in (flat.counts, flat.who, flat.places, flat.scores):
        array.setflags(write=False)
    _seated_kept[:] = [(games, flat), *_seated_kept[:1]]
    return flat


_PAIRS_KEPT = 2  # the report needs two orders: canonical, and the order games finished
_pairs_kept: list[tuple[list[GameResult], tuple[str, ...], Pairs]] = []


def build_pairs(results: Sequence[GameResult], bots: Sequence[str] | None = None) -> Pairs:
    """Turn games (already in the wanted order) into pairwise results.

    A pair of seats held by the same bot says nothing about its strength and is skipped.

    The last few answers are kept: ``arena report`` asks for the same games' pairs four
    times (ratings, seat advantage, rating history, payoffs).  One is reused only for an
    equal list of games (the same objects, compared at once by identity, or equal ones)
    and the same ``bots``, so it is exactly what building it again would give; its
    arrays are read-only, so no caller can change it for the next.
    """
    games = list(results)
    extra = tuple(bots or ())
    for kept_games, kept_bots, kept in _pairs_kept:
        if kept_bots == extra and kept_games == games:
            return kept
    pairs = _build_pairs(games, extra)
    for array in (pairs.first, pairs.second, pairs.points, pairs.game, pairs.first_seat,
                  pairs.second_seat, pairs.players):
        array.setflags(write=False)
    _pairs_kept[:] = [(games, extra, pairs), *_pairs_kept[:_PAIRS_KEPT - 1]]
    return pairs


def _build_pairs(results: Sequence[GameResult], bots: Sequence[str]) -> Pairs:
    flat = seated(results)
    names = tuple(sorted(set(flat.bots) | set(bots))) if bots else flat.bots
    firsts: list[np.ndarray] = []
    seconds: list[np.ndarray] = []
    points: list[np.ndarray] = []
    games: list[np.ndarray] = []
    seat_pairs: list[tuple[int, int, int, int]] = []  # (a, b, players, how many)
    if flat.misshapen >= 0:
        _check_shape(results[flat.misshapen])
    counts = flat.counts
    flat_seats = flat.who if names == flat.bots else flat.indices(names)
    flat_places = flat.places
    starts = np.cumsum(counts) - counts
    found, first_seen = np.unique(counts, return_index=True)
    # Vectorised per player count (in the order the counts first appear).
    for count in (int(c) for c in found[np.argsort(first_seen, kind="stable")]):
        game_arr = np.flatnonzero(counts == count)
        at = starts[game_arr][:, None] + np.arange(count)
        seats = flat_seats[at]
        places = flat_places[at]
        misplaced = np.flatnonzero(((places < 1) | (places > count)).any(axis=1))
        if len(misplaced):
            _check_result(results[int(game_arr[misplaced[0]])])
        for a in range(count):
            for b in range(a + 1, count):
                keep = seats[:, a] != seats[:, b]
                pa, pb = places[keep, a], places[keep, b]
                firsts.append(seats[keep, a])
                seconds.append(seats[keep, b])
                points.append(np.where(pa < pb, 1.0, np.where(pa == pb, 0.5, 0.0)))
                games.append(game_arr[keep])
                seat_pairs.append((a, b, count, int(keep.sum())))

    def joined(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    return Pairs(
        bots=names,
        num_games=len(results),
        first=joined(firsts, np.int64),
        second=joined(seconds, np.int64),
        points=joined(points, float),
        game=joined(games, np.int64),
        first_seat=np.repeat([a for a, _, _, _ in seat_pairs], [k for *_, k in seat_pairs]),
        second_seat=np.repeat([b for _, b, _, _ in seat_pairs], [k for *_, k in seat_pairs]),
        players=np.repeat([n for _, _, n, _ in seat_pairs], [k for *_, k in seat_pairs]),
    )


def _check_shape(result: GameResult) -> None:
    n = len(result.bots)
    if n < 2 or len(result.placements) != n or len(result.scores) != n:
        raise ArenaError(
            f"game {result.game_id}: {n} bots but {len(result.placements)} placements and "
            f"{len(result.scores)} scores; the results store looks damaged"
        )


def _check_result(result: GameResult) -> None:
    _check_shape(result)
    n = len(result.bots)
    if any(not 1 <= p <= n for p in result.placements):
        raise ArenaError(
            f"game {result.game_id}: placements {list(result.placements)} must lie in 1..{n}"
        )


# --------------------------------------------------------------------------- fit


def fit_bradley_terry(
    wins: np.ndarray,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    start: np.ndarray | None = None,
    tolerance: float = 1e-10,
) -> np.ndarray:
    """Maximum-likelihood strengths (natural log-odds scale) from a matrix of points.

    ``wins[i, j]`` is what i scored against j.  Each bot also draws ``prior_draws``
    virtual games against a fixed opponent of strength 0, which makes the problem
    strictly concave (one answer, always finite) without a gauge constraint.  Newton's
    method with a backtracking line search: a handful of n × n solves.

    A stack of matrices (``wins`` of shape (b, n, n), ``start`` (n,) or (b, n)) is fitted
    at once, each exactly as alone (its own line search, stopped when its own step is
    under ``tolerance``): the bootstrap's replicates in a few large numpy calls, which
    also leave the interpreter free while they run.
    """
    if prior_draws <= 0:
        raise ArenaError("the virtual-draw prior must be positive (it keeps ratings finite)")
    stacked = wins.ndim == 3
    matrices = wins if stacked else wins[None]
    count, n = matrices.shape[0], matrices.shape[-1]
    if n == 0 or count == 0:
        return np.zeros(matrices.shape[:2] if stacked else (0,))
    r = np.zeros((count, n)) if start is None else np.array(
        np.broadcast_to(start, (count, n)), dtype=float)
    active = np.arange(count)  # the fits still moving
    meetings: np.ndarray | None = None  # wins + wins transposed, of the active fits
    current = _log_likelihood(matrices, r, prior_draws)
    for _ in range(200):
        every = len(active) == count
        w = matrices if every else matrices[active]
        x, value_now = r[active], current[active]
        if meetings is None or not every:
            meetings = w + w.transpose(0, 2, 1)
        p = 1.0 / (1.0 + np.exp(x[:, None, :] - x[:, :, None]))  # p[i, j] = P(i beats j)
        s = 1.0 / (1.0 + np.exp(-x))
        gradient = w.sum(axis=2) - (meetings * p).sum(axis=2) + prior_draws * (0.5 - s)
        precision = _precision(meetings, x, prior_draws, p)
        step = np.linalg.solve(precision, gradient[:, :, None])[:, :, 0]
        scale = np.ones(len(active))
        while True:
            candidate = x + scale[:, None] * step
            value = _log_likelihood(w, candidate, prior_draws)
            accepted = (value >= value_now - 1e-12 * np.abs(value_now)) | (scale < 1e-6)
            if accepted.all():
                break
            scale = np.where(accepted, scale, scale / 2.0)
        r[active], current[active] = candidate, value
        active = active[np.max(np.abs(scale[:, None] * step), axis=1) >= tolerance]
        if not len(active):
            break
    return r if stacked else r[0]


def _log_likelihood(wins: np.ndarray, r: np.ndarray, prior_draws: float) -> np.ndarray:
    """Per matrix of a stack (b, n, n) at strengths r (b, n): the log-likelihood.  Over
    the pairs i < j only (half the logarithms): with d = r_i - r_j, the cell (j, i)'s
    term W_ji·log(1 + e^d) is W_ji·(log(1 + e^-d) + d)."""
    upper, lower = np.triu_indices(r.shape[-1], 1)
    diff = r[:, upper] - r[:, lower]
    against = wins[:, lower, upper]
    pairs = -((wins[:, upper, lower] + against) * np.logaddexp(0.0, -diff)
              + against * diff).sum(axis=1)
    prior = -0.5 * prior_draws * (np.logaddexp(0.0, -r) + np.logaddexp(0.0, r)).sum(axis=1)
    return np.asarray(pairs + prior, dtype=float)


def _precision(meetings: np.ndarray, r: np.ndarray, prior_draws: float,
               p: np.ndarray | None = None) -> np.ndarray:
    """Minus the Hessian of the log-likelihood: positive definite thanks to the prior.
    ``meetings`` is wins plus wins transposed, one matrix (n, n) at r (n,), or a stack
    (b, n, n) at r (b, n); ``p`` the win probabilities at r if already known."""
    if p is None:
        p = 1.0 / (1.0 + np.exp(r[..., None, :] - r[..., :, None]))
    s = 1.0 / (1.0 + np.exp(-r))
    curvature = meetings * p * (1.0 - p)
    precision = -curvature
    diagonal = np.arange(r.shape[-1])
    precision[..., diagonal, diagonal] = curvature.sum(axis=-1) + prior_draws * s * (1.0 - s)
    return precision


def _curvature_covariance(
    wins: np.ndarray,
    natural: np.ndarray,
    prior_draws: float,
    groups: list[list[int]],
    anchor: int | None,
) -> np.ndarray:
    """Covariance of the centred Elo ratings from the curvature of the likelihood.

    It ignores that the pairs of one game are correlated (the bootstrap does not), but
    unlike the bootstrap it widens where a record is perfect or games are few.
    """
    n = len(natural)
    if n == 0:
        return np.zeros((0, 0))
    covariance = np.linalg.inv(_precision(wins + wins.T, natural, prior_draws))
    gauge = np.eye(n)  # the same centring as ``_centre``, as a linear map
    for members in groups:
        if anchor is not None and anchor in members:
            gauge[members, anchor] -= 1.0
        else:
            gauge[np.ix_(members, members)] -= 1.0 / len(members)
    return (gauge @ covariance @ gauge.T) * ELO_PER_NATURAL**2


def components(wins: np.ndarray) -> list[list[int]]:
    """Groups of bots connected by games (directly or through others), largest first."""
    n = wins.shape[0]
    linked = (wins + wins.T) > 0
    group = [-1] * n
    found: list[list[int]] = []
    for root in range(n):
        if group[root] >= 0:
            continue
        members, frontier = [root], [root]
        group[root] = len(found)
        while frontier:
            node = frontier.pop()
            for other in np.flatnonzero(linked[node]):
                if group[other] < 0:
                    group[other] = len(found)
                    members.append(int(other))
                    frontier.append(int(other))
        found.append(sorted(members))
    return sorted(found, key=lambda m: (-len(m), m))


def _centre(
    elo: np.ndarray, groups: list[list[int]], anchor: int | None, anchor_elo: float
) -> np.ndarray:
    """Fix the free offset of each component: its mean, or the anchor bot, sits at the centre."""
    out = elo.copy()  # one rating per bot (n,), or a stack of them (b, n)
    for members in groups:
        if anchor is not None and anchor in members:
            out[..., members] += anchor_elo - elo[..., [anchor]]
        else:
            out[..., members] += DEFAULT_CENTRE - elo[..., members].mean(axis=-1, keepdims=True)
    return out


# --------------------------------------------------------------------------- ratings


@dataclass(frozen=True)
class Ratings:
    bots: tuple[str, ...]  # sorted by name; the arrays below follow this order
    elo: np.ndarray
    low: np.ndarray  # lower end of the 95% interval (see ``rate``)
    high: np.ndarray  # upper end
    wins: np.ndarray  # wins[i, j]: points i scored against j
    superiority: np.ndarray  # P(i is stronger than j); NaN across components
    groups: tuple[tuple[str, ...], ...]  # components, largest first
    num_games: int
    bootstrap: int
    anchor: str | None

    def index(self, bot: str) -> int:
        return self.bots.index(bot)

    def group_of(self, bot: str) -> int:
        return next(g for g, members in enumerate(self.groups) if bot in members)

    @property
    def comparable(self) -> bool:
        """True when every bot is linked to every other one by games."""
        return len(self.groups) <= 1

    def win_rate(self) -> np.ndarray:
        """Share of the points i took against j; NaN where they never met."""
        meetings = self.wins + self.wins.T
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(meetings > 0, self.wins / np.where(meetings > 0, meetings, 1), np.nan)

    def ranked(self) -> list[str]:
        return [self.bots[i] for i in np.lexsort((np.array(self.bots), -self.elo))]

    def as_dict(self) -> dict[str, Any]:
        return {
            "bots": {
                bot: {
                    "elo": float(self.elo[i]),
                    "low": float(self.low[i]),
                    "high": float(self.high[i]),
                    "group": self.group_of(bot),
                }
                for i, bot in enumerate(self.bots)
            },
            "groups": [list(g) for g in self.groups],
            "comparable": self.comparable,
            "games": self.num_games,
            "bootstrap": self.bootstrap,
            "anchor": self.anchor,
        }


def rate(
    results: Iterable[GameResult],
    *,
    anchor: str | None = None,
    anchor_elo: float = DEFAULT_CENTRE,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> Ratings:
    """Bradley–Terry Elo ratings with 95% intervals; see the module docstring.

    Each interval is the wider of the bootstrap percentile interval (``bootstrap``
    Poisson resamples of whole games, see ``bootstrap_weights``; 0 for none) and the
    normal interval from the curvature of the likelihood.  The same games in any order
    with the same ``seed`` give identical output; :class:`RatingState` gives the same
    figures (up to the fits' tolerance) kept up game by game.
    """
    games = canonical_order(results)
    pairs = build_pairs(games)
    _check_rating_options(pairs.bots, anchor, bootstrap)
    wins = pairs.matrix()
    natural = fit_bradley_terry(wins, prior_draws)
    replicates = [
        fit_bradley_terry(matrices, prior_draws, start=natural, tolerance=BOOTSTRAP_TOLERANCE)
        for matrices in _replicate_matrices(pairs, game_keys(games), bootstrap, seed)
    ]
    return _ratings(
        pairs.bots, wins, natural,
        np.concatenate(replicates) if replicates else np.zeros((0, pairs.size)),
        num_games=pairs.num_games, prior_draws=prior_draws, bootstrap=bootstrap,
        anchor=anchor, anchor_elo=anchor_elo,
    )


def _check_rating_options(bots: Sequence[str], anchor: str | None, bootstrap: int) -> None:
    if anchor is not None and anchor not in bots:
        known = ", ".join(bots) or "none"
        raise ArenaError(f"anchor bot {anchor!r} played no game here (bots: {known})")
    if bootstrap < 0:
        raise ArenaError("the number of bootstrap resamples cannot be negative")


def _ratings(
    bots: tuple[str, ...],
    wins: np.ndarray,
    natural: np.ndarray,
    replicates: np.ndarray,
    *,
    num_games: int,
    prior_draws: float,
    bootstrap: int,
    anchor: str | None,
    anchor_elo: float,
) -> Ratings:
    """The ratings, intervals and superiority from the fit (``natural``) and the
    bootstrap replicates' fits (one row each), centred per component."""
    anchor_index = None if anchor is None else bots.index(anchor)
    groups = components(wins)
    elo = _centre(natural * ELO_PER_NATURAL, groups, anchor_index, anchor_elo)
    samples = _centre(replicates * ELO_PER_NATURAL, groups, anchor_index, anchor_elo)
    covariance = _curvature_covariance(wins, natural, prior_draws, groups, anchor_index)
    # The wider of the two intervals: the bootstrap knows that a game's pairs are
    # correlated; the curvature knows that 7 wins out of 7 are not a certainty.
    half_width = Z95 * np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    low, high = elo - half_width, elo + half_width
    if len(samples):
        boot_low, boot_high = np.percentile(samples, [2.5, 97.5], axis=0)
        low, high = np.minimum(low, boot_low), np.maximum(high, boot_high)
    return Ratings(
        bots=bots,
        elo=elo,
        low=low,
        high=high,
        wins=wins,
        superiority=_superiority(elo, samples, covariance, groups),
        groups=tuple(tuple(bots[i] for i in g) for g in groups),
        num_games=num_games,
        bootstrap=bootstrap,
        anchor=anchor,
    )


# --------------------------------------------------------------------------- bootstrap
#
# A Poisson bootstrap: in each replicate every game counts Poisson(1) times (the limit of
# drawing the games with replacement), and that count depends only on the seed, the
# game and the replicate.  So a replicate's points matrix is a sum over games, the same
# whatever order the games come in, and a new game adds its share to every replicate:
# the ladder keeps them up game by game (RatingState) and gets what ``rate`` gets.

BOOTSTRAP_CHUNK = 25  # replicates whose game weights are held at once (games x 25 floats)
# a replicate's fit stops after a step under this (natural units): Newton converges
# quadratically, so the point after such a step is off by about its square, 1e-10
BOOTSTRAP_TOLERANCE = 1e-5
# P(count <= k) for a Poisson(1) count, k = 0..19 (the rest is under 1e-18), as
# thresholds on a uniform 64-bit word
_POISSON_THRESHOLDS = np.array(
    [min(int(p * 2.0**64), 2**64 - 1) for p in
     np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(20)])], dtype=np.uint64)


def game_keys(games: Sequence[GameResult]) -> np.ndarray:
    """Each game's identity for its bootstrap weights (uint64): a hash of its engine, its
    id and how many games before it in ``games`` (in canonical order, where equal ids
    are neighbours) had the same two, so that copies of a game count apart."""
    keys = np.empty(len(games), dtype=np.uint64)
    previous: tuple[str, str] | None = None
    copies = 0
    for position, result in enumerate(games):
        ident = (result.game, result.game_id)
        copies = copies + 1 if ident == previous else 0
        previous = ident
        text = f"{result.game}\x00{result.game_id}\x00{copies}".encode()
        keys[position] = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")
    return keys


def _splitmix(words: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on each word (uint64 arithmetic wraps, as meant)."""
    z = words + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.asarray(z ^ (z >> np.uint64(31)))


def bootstrap_weights(keys: np.ndarray, replicates: np.ndarray, seed: int) -> np.ndarray:
    """How many times each game (``game_keys``) counts in each replicate (indices 0, 1,
    ...): Poisson(1) counts, a pure function of (seed, game, replicate), as floats
    (games x replicates)."""
    salt = _splitmix(replicates.astype(np.uint64)
                     + _splitmix(np.array([seed % 2**64], dtype=np.uint64)))
    words = _splitmix(keys[:, None] ^ salt[None, :])
    # counts 0, 1 and 2 take 92% of the draws: two comparisons for all, a search for
    # the few above
    counts = (words >= _POISSON_THRESHOLDS[0]).astype(np.uint8)
    counts += words >= _POISSON_THRESHOLDS[1]
    more = np.flatnonzero(words >= _POISSON_THRESHOLDS[2])
    counts.flat[more] = np.searchsorted(_POISSON_THRESHOLDS, words.flat[more], side="right")
    return counts.astype(float)


def _replicate_matrices(
    pairs: Pairs, keys: np.ndarray, bootstrap: int, seed: int
) -> Iterator[np.ndarray]:
    """The bootstrap replicates' points matrices, ``BOOTSTRAP_CHUNK`` at a time (b, n, n);
    exact (whole and half points times whole counts), so in any order the same."""
    if bootstrap == 0 or pairs.num_games == 0:
        return
    per_game = _game_matrices(pairs)
    n = pairs.size
    for first in range(0, bootstrap, BOOTSTRAP_CHUNK):
        chunk = np.arange(first, min(first + BOOTSTRAP_CHUNK, bootstrap))
        product = per_game @ bootstrap_weights(keys, chunk, seed)
        yield np.ascontiguousarray(product.T).reshape(len(chunk), n, n)


def _game_matrices(pairs: Pairs) -> Any:
    """Each game's points matrix, flattened, as the columns of a sparse (n·n × games)
    matrix: a replicate's matrix is this times its games' counts."""
    from scipy.sparse import csr_matrix

    n = pairs.size
    cells = np.concatenate([pairs.first * n + pairs.second, pairs.second * n + pairs.first])
    values = np.concatenate([pairs.points, 1.0 - pairs.points])
    games = np.concatenate([pairs.game, pairs.game])
    scored = values != 0.0  # a lost pair adds nothing: half the entries, half the product
    return csr_matrix((values[scored], (cells[scored], games[scored])),
                      shape=(n * n, pairs.num_games))


class RatingState:
    """What ``rate`` computes from, kept up game by game (the ladder's leaderboards): the
    points matrix, every bootstrap replicate's points matrix (Poisson counts per game,
    see ``bootstrap_weights``) and the last fits, from which the next fits start (a game
    among thousands moves them little: two or three Newton steps).

    ``ratings()`` equals ``rate`` over the same games with the same options up to the
    fits' tolerance, whatever order the games were added in.  A game whose (engine, id)
    was added already is skipped (a store holds each id once).  Memory: (bootstrap + 1)
    matrices of bots x bots floats.
    """

    def __init__(self, *, prior_draws: float = DEFAULT_PRIOR_DRAWS,
                 bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> None:
        _check_rating_options((), None, bootstrap)
        if prior_draws <= 0:
            raise ArenaError("the virtual-draw prior must be positive (it keeps ratings finite)")
        self.prior_draws = prior_draws
        self.bootstrap = bootstrap
        self.seed = seed
        self.bots: tuple[str, ...] = ()
        self.num_games = 0
        self.wins = np.zeros((0, 0))
        self.replicate_wins = np.zeros((bootstrap, 0, 0))
        self.natural = np.zeros(0)
        self.replicate_natural = np.zeros((bootstrap, 0))
        self.added: set[tuple[str, str]] = set()
        self.fitted = True  # the fits are those of the games added

    @classmethod
    def from_results(cls, results: Iterable[GameResult], *,
                     prior_draws: float = DEFAULT_PRIOR_DRAWS,
                     bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> RatingState:
        """The state of many games at once (as ``rate`` aggregates them)."""
        state = cls(prior_draws=prior_draws, bootstrap=bootstrap, seed=seed)
        games = []
        for result in canonical_order(results):
            if (result.game, result.game_id) not in state.added:
                state.added.add((result.game, result.game_id))
                games.append(result)
        pairs = build_pairs(games)
        state.bots, state.num_games = pairs.bots, len(games)
        state.wins = pairs.matrix()
        state.replicate_wins = np.zeros((bootstrap, pairs.size, pairs.size))
        done = 0
        for matrices in _replicate_matrices(pairs, game_keys(games), bootstrap, seed):
            state.replicate_wins[done:done + len(matrices)] = matrices
            done += len(matrices)
        state.natural = fit_bradley_terry(state.wins, prior_draws)
        state.replicate_natural = fit_bradley_terry(
            state.replicate_wins, prior_draws, start=state.natural,
            tolerance=BOOTSTRAP_TOLERANCE) if len(games) else np.zeros((bootstrap, pairs.size))
        return state

    def add(self, result: GameResult) -> bool:
        """Fold one game in (False: its id was added already)."""
        ident = (result.game, result.game_id)
        if ident in self.added:
            return False
        _check_result(result)
        pairs = build_pairs([result])
        self._make_room(pairs.bots)
        index = {bot: i for i, bot in enumerate(self.bots)}
        at = np.array([index[bot] for bot in pairs.bots])
        points = pairs.matrix()
        self.wins[np.ix_(at, at)] += points
        if self.bootstrap:
            counts = bootstrap_weights(game_keys([result]), np.arange(self.bootstrap),
                                       self.seed)[0]
            self.replicate_wins[:, at[:, None], at[None, :]] += counts[:, None, None] * points
        self.added.add(ident)
        self.num_games += 1
        self.fitted = False
        return True

    def _make_room(self, names: Sequence[str]) -> None:
        """New bots take their places in name order, with empty rows and columns."""
        if all(name in self.bots for name in names):
            return
        bots = tuple(sorted({*self.bots, *names}))
        position = {bot: i for i, bot in enumerate(bots)}
        old = np.array([position[bot] for bot in self.bots], dtype=np.int64)
        n = len(bots)
        wins = np.zeros((n, n))
        wins[np.ix_(old, old)] = self.wins
        replicate_wins = np.zeros((self.bootstrap, n, n))
        replicate_wins[:, old[:, None], old[None, :]] = self.replicate_wins
        natural = np.zeros(n)
        natural[old] = self.natural
        replicate_natural = np.zeros((self.bootstrap, n))
        replicate_natural[:, old] = self.replicate_natural
        self.bots, self.wins, self.replicate_wins = bots, wins, replicate_wins
        self.natural, self.replicate_natural = natural, replicate_natural

    def ratings(self, *, anchor: str | None = None,
                anchor_elo: float = DEFAULT_CENTRE) -> Ratings:
        """The ratings of every game added, refitted from the last fits."""
        _check_rating_options(self.bots, anchor, self.bootstrap)
        if not self.fitted:
            self.natural = fit_bradley_terry(self.wins, self.prior_draws, start=self.natural)
            if self.num_games:
                self.replicate_natural = fit_bradley_terry(
                    self.replicate_wins, self.prior_draws, start=self.replicate_natural,
                    tolerance=BOOTSTRAP_TOLERANCE)
            self.fitted = True
        replicates = self.replicate_natural if self.num_games else np.zeros((0, len(self.bots)))
        return _ratings(
            self.bots, self.wins.copy(), self.natural, replicates, num_games=self.num_games,
            prior_draws=self.prior_draws, bootstrap=self.bootstrap, anchor=anchor,
            anchor_elo=anchor_elo,
        )


def _superiority(
    elo: np.ndarray, samples: np.ndarray, covariance: np.ndarray, groups: list[list[int]]
) -> np.ndarray:
    """P(i stronger than j): normal approximation, with the larger of the bootstrap and
    the curvature spreads of the gap (as for the intervals)."""
    n = len(elo)
    gap = elo[:, None] - elo[None, :]
    variance = np.diag(covariance)
    spread = np.sqrt(np.clip(variance[:, None] + variance[None, :] - 2.0 * covariance, 0.0, None))
    if len(samples) > 1:
        boot = np.std(samples[:, :, None] - samples[:, None, :], axis=0, ddof=1)
        spread = np.maximum(spread, boot)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(spread > 0, gap / np.where(spread > 0, spread, 1.0), np.sign(gap) * np.inf)
    erf = np.vectorize(math.erf, otypes=[float])
    out = 0.5 * (1.0 + erf(np.nan_to_num(z, nan=0.0, posinf=40.0, neginf=-40.0) / math.sqrt(2)))
    same = np.zeros((n, n), dtype=bool)
    for members in groups:
        same[np.ix_(members, members)] = True
    out[~same] = np.nan
    np.fill_diagonal(out, np.nan)
    return out


def expected_score(elo_a: float, elo_b: float) -> float:
    """The points a is expected to take from b under the Elo model."""
    return 1.0 / (1.0 + 10.0 ** ((elo_b - elo_a) / 400.0))


# --------------------------------------------------------------------------- Plackett–Luce


def plackett_luce(
    results: Iterable[GameResult],
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    tolerance: float = 1e-9,
    max_iterations: int = 20_000,
) -> dict[str, float]:
    """Elo ratings from a Plackett–Luce fit on the full placements (optional model).

    A game is read as successive choices: the winner is picked from all seats, the second
    from the rest, and so on.  Tied seats are each picked from the same remaining set
    (Breslow's approximation).  Same prior, components and centring as ``rate``; fitted
    with Hunter's MM algorithm, which is slower than the Bradley–Terry Newton solve.
    """
    games = canonical_order(results)
    pairs = build_pairs(games)
    index = {bot: i for i, bot in enumerate(pairs.bots)}
    n = len(index)
    sets: list[list[int]] = []  # the seats still to be placed at each choice
    chosen_from: list[int] = []  # how many bots were picked from that set (ties)
    wins = np.full(n, prior_draws / 2)  # virtual draws: half a win each
    for result in games:
        order = sorted(range(result.num_players), key=lambda s: result.placements[s])
        remaining = [index[result.bots[s]] for s in order]
        place_of = [result.placements[s] for s in order]
        start = 0
        while start < len(order) - 1:
            end = start
            while end < len(order) and place_of[end] == place_of[start]:
                end += 1
            sets.append(remaining[start:])
            chosen_from.append(end - start)
            for k in range(start, end):
                wins[remaining[k]] += 1
            start = end
    if n == 0:
        return {}
    width = max((len(m) for m in sets), default=1)
    members = np.full((len(sets), width), -1)
    for row, m in enumerate(sets):
        members[row, : len(m)] = m
    present = members >= 0
    flat_members = members[present]
    weight = np.array(chosen_from, dtype=float)
    gamma = np.ones(n)
    for _ in range(max_iterations):
        total = np.where(present, gamma[np.maximum(members, 0)], 0.0).sum(axis=1)
        per_slot = np.broadcast_to((weight / total)[:, None], members.shape)[present]
        exposure = np.bincount(flat_members, weights=per_slot, minlength=n).astype(float)
        exposure = exposure + prior_draws / (gamma + 1.0)
        updated = wins / exposure
        updated /= np.exp(np.log(updated).mean())  # fix the scale: mean log strength 0
        change = np.max(np.abs(np.log(updated) - np.log(gamma)))
        gamma = updated
        if change < tolerance:
            break
    elo = _centre(np.log(gamma) * ELO_PER_NATURAL, components(pairs.matrix()), None, 0.0)
    return {bot: float(elo[i]) for bot, i in index.items()}


# --------------------------------------------------------------------------- history


def rating_history(
    results: Iterable[GameResult],
    checkpoints: int = 30,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    *,
    anchor: str | None = None,
    anchor_elo: float = DEFAULT_CENTRE,
) -> tuple[list[int], dict[str, list[float | None]]]:
    """Batch ratings refitted on growing prefixes of the games (in ``sequence`` order).

    Returns the number of games at each checkpoint and, per bot, its Elo there (None
    before its first game).  Each prefix is centred as ``rate`` centres the whole league
    (``anchor`` pinned at ``anchor_elo``, or the mean at 1500), so the last point equals
    the leaderboard's rating with the same anchor and prior.
    """
    games = sorted(results, key=lambda r: (r.sequence, r.game_id))
    if not games:
        return [], {}
    pairs = build_pairs(games)
    anchor_index = None if anchor is None else pairs.bots.index(anchor)
    flat = seated(games)
    _, first_seat = np.unique(flat.indices(pairs.bots), return_index=True)  # pairs.bots order
    first_at = flat.game[first_seat]
    first_game = {bot: int(first_at[i]) for i, bot in enumerate(pairs.bots)}
    total = len(games)
    sizes = sorted({max(1, round(total * k / checkpoints)) for k in range(1, checkpoints + 1)})
    history: dict[str, list[float | None]] = {bot: [] for bot in pairs.bots}
    n = pairs.size
    order = np.argsort(pairs.game, kind="stable")
    ends = np.searchsorted(pairs.game[order], sizes)  # pairs of the first `size` games
    wins = np.zeros((n, n))
    done = 0
    for size, end in zip(sizes, ends, strict=True):
        # exact: sums of whole and half points, in any order
        part = order[done:end]
        cells = pairs.first[part] * n + pairs.second[part]
        wins = wins + (
            np.bincount(cells, weights=pairs.points[part], minlength=n * n)
            + np.bincount(pairs.second[part] * n + pairs.first[part],
                          weights=1.0 - pairs.points[part], minlength=n * n)
        ).reshape(n, n)
        done = end
        groups = components(wins)
        elo = _centre(
            fit_bradley_terry(wins, prior_draws) * ELO_PER_NATURAL, groups, anchor_index, anchor_elo
        )
        for i, bot in enumerate(pairs.bots):
            history[bot].append(float(elo[i]) if first_game[bot] < size else None)
    return sizes, history


# --------------------------------------------------------------------------- ticker


class EloTicker:
    """Sequential Elo for a live display: feed it games as they finish.

    In an n-player game every pair of seats is a match; a bot's change is
    ``k / (n - 1)`` times its summed surprise over its n - 1 opponents, so a game moves
    a rating by at most ``k`` whatever the player count.  Changes are computed from the
    ratings before the game, so seat order does not matter.
    """

    def __init__(self, k: float = 32.0, initial: float = DEFAULT_CENTRE) -> None:
        if k <= 0:
            raise ArenaError("the Elo K factor must be positive")
        self.k = k
        self.initial = initial
        self.ratings: dict[str, float] = {}
        self.games: dict[str, int] = {}

    def rating(self, bot: str) -> float:
        return self.ratings.get(bot, self.initial)

    def update(self, result: GameResult) -> dict[str, float]:
        """Apply one game; return each bot's rating change."""
        _check_result(result)
        n = result.num_players
        before = [self.rating(bot) for bot in result.bots]
        change: dict[str, float] = {bot: 0.0 for bot in result.bots}
        for a in range(n):
            for b in range(n):
                if a == b or result.bots[a] == result.bots[b]:
                    continue
                pa, pb = result.placements[a], result.placements[b]
                actual = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
                surprise = actual - expected_score(before[a], before[b])
                change[result.bots[a]] += self.k / (n - 1) * surprise
        for bot, delta in change.items():
            self.ratings[bot] = self.rating(bot) + delta
        for bot in set(result.bots):
            self.games[bot] = self.games.get(bot, 0) + 1
        return change

    def leaderboard(self) -> list[tuple[str, float]]:
        return sorted(self.ratings.items(), key=lambda item: (-item[1], item[0]))


# --------------------------------------------------------------------------- seats


@dataclass(frozen=True)
class SeatEffect:
    num_players: int
    seat: int  # 0-based
    games: int
    first_share: float  # share of wins (a shared first place counts as a fraction)
    average_place: float
    # Elo this seat seems worth against the other seats of the same games, given the
    # bots' ratings: +120 for seat 1 alone shows as +120 there and -60 at two other seats
    elo_advantage: float
    elo_low: float = math.nan  # 95% interval of elo_advantage (games as the units)
    elo_high: float = math.nan
    first_low: float = math.nan  # 95% Wilson interval of first_share
    first_high: float = math.nan


def _seat_summary(
    games: Sequence[GameResult],
) -> list[tuple[tuple[int, int], tuple[float, float, float]]]:
    """Per (players, seat), in order: games, first places (a first place shared by k
    counts 1/k) and the sum of places, from every seat laid out flat.  Each sum adds its
    games in order, as a loop over the games would (``np.bincount`` adds in order), so
    the figures are the same to the last bit."""
    flat = seated(games)
    total, counts, place = len(games), flat.counts, flat.places
    size = len(place)
    if size == 0:
        return []
    game_of = flat.game
    seat = np.arange(size) - np.repeat(np.cumsum(counts) - counts, counts)
    players = counts[game_of]
    first = place == 1
    winners = np.bincount(game_of[first], minlength=total)
    shares = np.zeros(size)
    shares[first] = 1.0 / winners[game_of[first]]
    width = int(counts.max()) + 1
    key = players * width + seat
    keys = int(key.max()) + 1
    games_at = np.bincount(key, minlength=keys)
    firsts_at = np.bincount(key, weights=shares, minlength=keys)
    places_at = np.bincount(key, weights=place, minlength=keys)
    return [
        ((int(k) // width, int(k) % width),
         (float(games_at[k]), float(firsts_at[k]), float(places_at[k])))
        for k in np.flatnonzero(games_at)
    ]


def seat_advantage(results: Iterable[GameResult], ratings: Ratings) -> list[SeatEffect]:
    """How much each seat seems worth, per player count: a diagnostic, not a correction.

    For every seat, the Elo offset that makes the pairwise points expected from the bots'
    ratings match the points actually scored from that seat against the other seats
    (solved by bisection).  Zero everywhere means the seats are fair.

    Its 95% interval is the sandwich (M-estimator) one with games as independent units:
    the spread of each game's points-minus-expected over the slope of the expectation.
    It takes the ratings as known, which they nearly are when the seats rotate.
    """
    games = list(results)
    pairs = build_pairs(games)
    elo = np.array([ratings.elo[ratings.index(bot)] for bot in pairs.bots])
    gap = elo[pairs.first] - elo[pairs.second] if len(elo) else np.zeros(0)
    effects = []
    for (n, seat), (count, firsts, places) in _seat_summary(games):
        as_first = (pairs.players == n) & (pairs.first_seat == seat)
        as_second = (pairs.players == n) & (pairs.second_seat == seat)
        scored = pairs.points[as_first].sum() + (1.0 - pairs.points[as_second]).sum()
        gaps = np.concatenate([gap[as_first], -gap[as_second]])
        points = np.concatenate([pairs.points[as_first], 1.0 - pairs.points[as_second]])
        game_of = np.concatenate([pairs.game[as_first], pairs.game[as_second]])
        offset = _offset(float(scored), gaps)
        half_width = Z95 * _offset_error(offset, gaps, points, game_of)
        first_low, first_high = wilson_interval(firsts, count)
        effects.append(
            SeatEffect(
                num_players=n,
                seat=seat,
                games=int(count),
                first_share=firsts / count,
                average_place=places / count,
                elo_advantage=offset,
                elo_low=offset - half_width,
                elo_high=offset + half_width,
                first_low=first_low,
                first_high=first_high,
            )
        )
    return effects


def _offset_error(
    offset: float, gaps: np.ndarray, points: np.ndarray, game_of: np.ndarray
) -> float:
    """Standard error of a seat's offset: per-game residuals over the expectation's slope."""
    if len(gaps) == 0:
        return math.nan
    expected = 1.0 / (1.0 + 10.0 ** (-(gaps + offset) / 400.0))
    slope = float((expected * (1.0 - expected)).sum()) / ELO_PER_NATURAL
    per_game = np.bincount(np.unique(game_of, return_inverse=True)[1], points - expected)
    return math.sqrt(float((per_game**2).sum())) / slope if slope > 0 else math.inf


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound near 0 and 1, unlike p ± z·se)."""
    if trials <= 0:
        return math.nan, math.nan
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    spread = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    spread /= 1 + z * z / trials
    return max(0.0, centre - spread), min(1.0, centre + spread)


def _offset(scored: float, gaps: np.ndarray) -> float:
    """The Elo shift d with sum(expected(gap + d)) == scored, clamped to ±800."""
    if len(gaps) == 0:
        return 0.0
    # n bots make at most n² distinct gaps: each is evaluated once, times its count
    values, counts = np.unique(gaps, return_counts=True)
    low, high = -800.0, 800.0
    for _ in range(60):
        mid = (low + high) / 2
        expected = (counts / (1.0 + 10.0 ** (-(values + mid) / 400.0))).sum()
        low, high = (mid, high) if expected < scored else (low, mid)
    return (low + high) / 2
