"""What a Ra position is worth to each seat: an estimate of its final score.

``seat_values(state)`` is each seat's score so far plus what its tiles and suns should
still bring: this epoch's scoring (smoothed where the outcome is still open, e.g. a
civilization set that may still grow) and, for the tiles that stay (pharaohs, Niles,
monuments), the epochs after.  The greedy bot compares positions with it and MCTS uses it
to score rollouts cut short at an epoch's end.  All numbers are rough points; the
weights are judgement calls documented in bots/README.md, not fitted constants.

Pure functions of a Ra position's public fields (never the bag's order), fast enough to
be called a few hundred times per decision, for a position of either engine; the
compiled core has the same valuation in C (``holding_value`` in ``_core.pyx``), float
operation by float operation, which the search and greedy bots use on its positions.
:class:`Weights` scales each part of the estimate (all 1.0: as written); the greedy bot
declares them as tunable parameters (its bot.toml, ``arena tune``: docs/tuning.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.ra.state import RaStateViews
from arena.games.ra.tiles import (
    CIVILIZATIONS,
    DROUGHT,
    EARTHQUAKE,
    EPOCHS,
    FLOOD,
    FUNERAL,
    GOD,
    GOLD,
    MONUMENTS,
    NILE,
    OVER,
    PHARAOH,
    RA,
    UNREST,
)

# Civilization points by number of kinds: the rule's table, and an optimistic one for
# early in the epoch (two kinds are most of the way to three).
CIV_FINAL = (-5.0, 0.0, 0.0, 5.0, 10.0, 15.0)
CIV_EARLY = (-3.0, -0.5, 2.5, 6.5, 10.5, 15.0)
# Monument points by copies of one type: 1 for the kind, 5/10/15 for sets of 3/4/5; a
# pair counts a little towards its set.
MONUMENT_TYPE = (0.0, 1.0, 2.5, 6.0, 11.0, 16.0)
MONUMENT_VARIETY_EXTRA = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 7.0)  # 7 kinds: 10, 8: 15
GOD_VALUE = 2.5  # 2 points at the epoch's end, plus the option of taking a tile
# A face-up sun is a chance to win one more lot this epoch; worth about this much when
# it is sure to be used (less when the epoch is likely to end first).
SUN_TEMPO = 3.0
CIVILIZATION_SET = tuple(CIVILIZATIONS)
MONUMENT_SET = tuple(MONUMENTS)


@dataclass(frozen=True)
class Weights:
    """How much each part of a holding's value counts, as a multiple of the estimate as
    written (1.0 everywhere gives the very same numbers, bit for bit)."""

    gods: float = 1.0  # GOD_VALUE per god
    gold: float = 1.0  # 3 points per gold
    pharaohs: float = 1.0  # the pharaoh race, this epoch and later ones
    niles: float = 1.0  # niles and floods
    civilizations: float = 1.0  # the civilization set
    monuments: float = 1.0  # monument sets and variety
    sun_majority: float = 1.0  # the race for the highest (and lowest) sun sum
    sun_tempo: float = 1.0  # face-up suns as chances to win another lot this epoch


AS_WRITTEN = Weights()


def epoch_progress(state: RaStateViews) -> float:
    """How far the epoch is, 0..1, by the Ra track."""
    return state.ra_count / state.ra_limit


def seat_values(state: RaStateViews) -> list[float]:
    """Each seat's estimated final score (exact when the game is over)."""
    if state.phase == OVER:
        return [float(s) for s in state.scores]
    return [
        state.scores[seat] + holding_value(state, state.hold, seat)
        for seat in range(state.num_players)
    ]


Suns = tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]  # face up, face down


def holding_value(state: RaStateViews, holds: Sequence[Sequence[int]], seat: int,
                  weights: Weights = AS_WRITTEN, suns: Suns | None = None) -> float:
    """What ``holds[seat]`` (and the seat's suns) should still score, given everybody's
    holdings ``holds`` (which may be hypothetical: a lot added, a tile lost) and suns
    ``suns`` (face up and face down per seat; default the state's), each part counted as
    ``weights`` says."""
    hold = holds[seat]
    epoch = state.epoch
    later = EPOCHS - epoch  # scorings after this epoch's
    progress = state.ra_count / state.ra_limit
    value = weights.gods * GOD_VALUE * hold[GOD] + weights.gold * 3.0 * hold[GOLD]
    value += weights.pharaohs * _pharaoh_value(holds, seat, later)
    value += weights.niles * _nile_value(hold, later, progress)
    value += weights.civilizations * _civilization_value(hold, progress)
    value += weights.monuments * monument_value(hold)
    value += _sun_value(state, seat, progress, weights,
                        (state.up, state.down) if suns is None else suns)
    return value


def _pharaoh_value(holds: Sequence[Sequence[int]], seat: int, later: int) -> float:
    counts = [h[PHARAOH] for h in holds]
    mine = counts[seat]
    high, low = max(counts), min(counts)
    majority = 0.0 if high == low else 5.0 if mine == high else -2.0 if mine == low else 0.0
    mean = sum(counts) / len(counts)
    # This epoch's race counts fully; later ones are uncertain, but pharaohs stay.
    weight = 1.0 + 0.6 * later
    return weight * (majority + 0.8 * (mine - mean))


def _nile_value(hold: Sequence[int], later: int, progress: float) -> float:
    niles, floods = hold[NILE], hold[FLOOD]
    # without a flood, one may still come this epoch
    now = float(niles + floods) if floods else niles * 0.6 * (1.0 - progress)
    return now + niles * 0.5 * later  # Niles stay; each later epoch needs a new flood


def _civilization_value(hold: Sequence[int], progress: float) -> float:
    kinds = 0
    duplicates = 0
    for tile in CIVILIZATION_SET:
        count = hold[tile]
        if count:
            kinds += 1
            duplicates += count - 1
    final = CIV_FINAL[kinds]
    early = CIV_EARLY[kinds]
    # duplicates score nothing but shield the set from unrest
    return progress * final + (1.0 - progress) * early + 0.3 * duplicates


def monument_value(hold: Sequence[int]) -> float:
    kinds = 0
    value = 0.0
    for tile in MONUMENT_SET:
        count = hold[tile]
        if count:
            kinds += 1
            value += MONUMENT_TYPE[count]
    return 0.9 * (value + MONUMENT_VARIETY_EXTRA[kinds])


def _sun_value(state: RaStateViews, seat: int, progress: float, weights: Weights,
               suns: Suns) -> float:
    """Final sun-sum majority (uncertain until the last epoch) and the tempo of face-up
    suns (each one can still win a lot this epoch)."""
    up, down = suns
    sums = [sum(u) + sum(d) for u, d in zip(up, down, strict=True)]
    mine = sums[seat]
    high, low = max(sums), min(sums)
    majority = 0.0 if high == low else 5.0 if mine == high else -5.0 if mine == low else 0.0
    mean = sum(sums) / len(sums)
    weight = (0.4, 0.6, 0.9)[state.epoch - 1]
    value = weights.sun_majority * (weight * majority + 0.25 * (mine - mean))
    tempo = weights.sun_tempo * SUN_TEMPO
    return value + tempo * len(up[seat]) * sun_use_chance(state, up)


def sun_use_chance(state: RaStateViews, up: Sequence[Sequence[int]] | None = None) -> float:
    """The chance that a face-up sun gets used before the epoch ends: few Ra tiles left
    and many suns on the table (``up``, default the state's) means some will not be."""
    suns_up = sum(len(u) for u in (state.up if up is None else up))
    if not suns_up:
        return 0.0
    # Roughly two auctions per Ra tile still to come (one drawn, one invoked).
    auctions_left = 2.0 * (state.ra_limit - state.ra_count)
    return min(1.0, auctions_left / suns_up)


# -- hypothetical holdings -------------------------------------------------------------


def with_tiles(holds: Sequence[Sequence[int]], seat: int, tiles: Sequence[int],
               state: RaStateViews, weights: Weights = AS_WRITTEN) -> list[list[int]]:
    """Everybody's holdings after ``seat`` takes ``tiles`` (disasters among them strike
    after the rest is placed, choosing the least valuable losses)."""
    new = [list(h) for h in holds]
    hold = new[seat]
    disasters = []
    for tile in tiles:
        if tile >= FUNERAL:
            disasters.append(tile)
        elif tile != RA:
            hold[tile] += 1
    for disaster in sorted(disasters):
        strike(state, new, seat, disaster, weights)
    return new


def strike(state: RaStateViews, holds: list[list[int]], seat: int, disaster: int,
           weights: Weights = AS_WRITTEN) -> None:
    """Apply one disaster to ``holds[seat]`` in place, losing as little as possible."""
    hold = holds[seat]
    if disaster == FUNERAL:
        hold[PHARAOH] -= min(2, hold[PHARAOH])
        return
    if disaster == DROUGHT:
        lost = min(2, hold[FLOOD])
        hold[FLOOD] -= lost
        hold[NILE] -= min(2 - lost, hold[NILE])
        return
    victims = CIVILIZATION_SET if disaster == UNREST else MONUMENT_SET
    assert disaster in (UNREST, EARTHQUAKE)
    for _ in range(2):
        held = [t for t in victims if hold[t]]
        if not held:
            return
        hold[cheapest_loss(state, holds, seat, held, weights)] -= 1


def cheapest_loss(state: RaStateViews, holds: list[list[int]], seat: int,
                  candidates: Sequence[int], weights: Weights = AS_WRITTEN) -> int:
    """The tile among ``candidates`` whose loss costs ``seat`` the least."""
    best_tile, best_value = candidates[0], float("-inf")
    hold = holds[seat]
    for tile in candidates:
        hold[tile] -= 1
        value = holding_value(state, holds, seat, weights)
        hold[tile] += 1
        if value > best_value:
            best_tile, best_value = tile, value
    return best_tile


def win_gain(state: RaStateViews, seat: int, bid: int, tiles: Sequence[int] | None = None,
             weights: Weights = AS_WRITTEN) -> float:
    """How much ``seat`` gains by winning the auction of ``tiles`` (default: the auction
    track) with sun ``bid``: the lot, minus a face-up sun, plus the centre sun face down."""
    lot = state.track if tiles is None else tiles
    before = holding_value(state, state.hold, seat, weights)
    holds = with_tiles(state.hold, seat, lot, state, weights)
    up, down = list(state.up), list(state.down)
    up[seat] = [s for s in up[seat] if s != bid]
    down[seat] = [*down[seat], state.center]
    return holding_value(state, holds, seat, weights, (up, down)) - before


def take_gain(state: RaStateViews, seat: int, tile: int, weights: Weights = AS_WRITTEN) -> float:
    """How much ``seat`` gains by taking ``tile`` with a god (the god is spent)."""
    before = holding_value(state, state.hold, seat, weights)
    holds = with_tiles(state.hold, seat, [tile], state, weights)
    holds[seat][GOD] -= 1
    return holding_value(state, holds, seat, weights) - before
