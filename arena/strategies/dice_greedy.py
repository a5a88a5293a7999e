"""A greedy player for Ra: The Dice Game, working from the observation and legal JSON only.

Every decision is scored by a hand-made estimate of points, and the best-scored legal
choice wins (ties: the earliest in the legal list, so the bot is deterministic):

- **Rolling**: each reroll (or stopping) is scored by the expected value of the dice it
  leaves, averaged over every outcome of the rerolled dice (``dice_value``).
- **Applying**: an application scores its immediate gain on the board plus the estimated
  value of the dice it leaves free; *done* scores the Ankh pairs it brings.  So Ankhs are
  kept in pairs unless an application needs them more.
- **Disasters**: the one that costs the other players most, the leader counting double.
- **Victims**: the marker whose loss costs least.

The estimates (``Context``) follow the scoring tables; where a step scores nothing now but
leads to points (a second Civilization marker, a second marker in a Monument column), it
gets part of the next step's value.  Nothing is random.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the bot process itself needs none of the runner
    from arena.runner.players import PythonPlayer

JSON = Any

FACES = ("sun", "pharaoh", "nile", "civilization", "monument", "ankh")
SUN, PHARAOH, NILE, CIVILIZATION, MONUMENT, ANKH = range(6)

# The scoring tables (docs/rules-ra-dice.md), and smoothed versions for planning.
PHARAOH_BEST, PHARAOH_WORST = 5.0, -2.0
PHARAOH_SPACE = 0.4  # a space also counts in later epochs (the track is kept)
CIVILIZATION_POINTS = (-5.0, 0.0, 0.0, 5.0, 10.0, 15.0)
CIVILIZATION_PLANNING = (-5.0, 0.0, 2.5, 5.0, 10.0, 15.0)  # 2 markers: half-way to 3
MONUMENT_COLUMN_POINTS = (0, 1, 2, 3, 4, 5, 6, 10, 15)
MONUMENT_BONUS_PLANNING = (0.0, 0.5, 2.5, 5.0, 10.0, 15.0)  # by own markers in a column
ANKH_PAIR = 2.0
THREE_SUNS = 3.0
LEADER_WEIGHT, OTHER_WEIGHT = 1.0, 0.5
IMMEDIATE_TIE_BREAK = 1e-3


# ----------------------------------------------------------------------- the position


@dataclass(frozen=True)
class Context:
    """What each kind of application is worth to the player now (hashable, for caching)."""

    pharaoh: tuple[float, ...]  # pharaoh[k]: advancing k spaces
    nile_dry: tuple[float, ...]  # nile[k]: advancing k spaces without a flood marker
    nile_flooded: tuple[float, ...]  # ... with one
    flood: float  # placing a flood marker now
    civilization: tuple[float, ...]  # civilization[k]: placing k markers
    monument_first: float  # the turn's first Monument marker, on its best space
    monument_next: float  # a further marker (a new column)
    disaster: float  # declaring the best disaster
    placed_monuments: int
    flooded: bool


def _me(observation: JSON) -> int:
    return int(observation["seat"])


def _progress(observation: JSON) -> float:
    """How far the epoch is: 0 at its start, 1 when this turn ends it."""
    ra = observation["ra"]
    span = max(1, ra["last_space"] - ra["start"])
    return min(1.0, max(0.0, (ra["position"] - ra["start"]) / span))


def _race(pharaoh: list[int], seat: int) -> float:
    """What the Pharaoh race would give ``seat`` if the epoch ended now."""
    best, worst = max(pharaoh), min(pharaoh)
    if best == worst:
        return 0.0
    if pharaoh[seat] == best:
        return PHARAOH_BEST
    return PHARAOH_WORST if pharaoh[seat] == worst else 0.0


def _race_lead(pharaoh: list[int], seat: int) -> float:
    """``seat``'s Pharaoh points now less the others' on average: passing a player who
    shares the lead is worth something even though the leader scores 5 either way."""
    others = [_race(pharaoh, other) for other in range(len(pharaoh)) if other != seat]
    return _race(pharaoh, seat) - sum(others) / len(others)


def _pharaoh_gain(observation: JSON, seat: int, spaces: int) -> float:
    """The change in ``seat``'s Pharaoh value if his marker moves by ``spaces`` (±)."""
    pharaoh = list(observation["pharaoh"])
    top = observation["board"]["track_top"]
    before = _race_lead(pharaoh, seat)
    moved = min(top, max(0, pharaoh[seat] + spaces)) - pharaoh[seat]
    pharaoh[seat] += moved
    # A lead counts more the nearer the epoch's end is.
    certainty = 0.5 + 0.5 * _progress(observation)
    return certainty * (_race_lead(pharaoh, seat) - before) + PHARAOH_SPACE * moved


def _epoch_ends_now(observation: JSON) -> bool:
    ra = observation["ra"]
    return observation["phase"] != "roll" and ra["position"] >= ra["last_space"]


def _nile_space_value(observation: JSON, flooded: bool) -> float:
    later = 0.3 if observation["epoch"] < 3 else 0.0  # the Nile marker stays for later epochs
    if flooded:
        return 1.0 + later
    chance = 0.0 if _epoch_ends_now(observation) else 0.5 * (1.0 - _progress(observation))
    return chance + later


def _flood_value(observation: JSON, seat: int) -> float:
    nile, floods = observation["nile"][seat], observation["floods"][seat]
    if floods:
        return 0.2 * nile  # a spare flood marker only insures against a Nile disaster
    if _epoch_ends_now(observation):
        return float(nile)
    return nile + 2.0 * (1.0 - _progress(observation)) + 0.5


def _civilization_markers(observation: JSON, seat: int) -> int:
    return sum(seat in seats for seats in observation["civilization"].values())


def _civilization_gain(observation: JSON, seat: int, added: int) -> float:
    table = CIVILIZATION_POINTS if _epoch_ends_now(observation) else CIVILIZATION_PLANNING
    have = _civilization_markers(observation, seat)
    return table[min(5, have + added)] - table[have]


def _open_civilization_colours(observation: JSON, seat: int) -> int:
    capacity = observation["civilization_capacity"]
    return sum(seat not in seats and len(seats) < capacity
               for seats in observation["civilization"].values())


def _own_per_column(observation: JSON, seat: int) -> list[int]:
    return [column.count(seat) for column in observation["monuments"]]


def _monument_value(observation: JSON, seat: int, column: int) -> float:
    """What one more of ``seat``'s markers in ``column`` is worth."""
    own = _own_per_column(observation, seat)
    gain = MONUMENT_BONUS_PLANNING[own[column] + 1] - MONUMENT_BONUS_PLANNING[own[column]]
    if own[column] == 0:
        columns = sum(1 for count in own if count)
        gain += MONUMENT_COLUMN_POINTS[columns + 1] - MONUMENT_COLUMN_POINTS[columns]
    return gain


def _columns_with_room(observation: JSON) -> list[int]:
    """The Monument columns with at least one empty space."""
    return [column for column, owners in enumerate(observation["monuments"])
            if None in owners]


def context(observation: JSON) -> Context:
    """The value tables for the player to move (colours are ignored: an estimate)."""
    me = _me(observation)
    room_in = _columns_with_room(observation)
    own = _own_per_column(observation, me)
    first = max((_monument_value(observation, me, column) for column in room_in), default=0.0)
    new = [_monument_value(observation, me, column) for column in room_in if not own[column]]
    open_colours = _open_civilization_colours(observation, me)
    room = 5 - _civilization_markers(observation, me)
    civilization = tuple(
        _civilization_gain(observation, me, min(k, open_colours, room)) for k in range(4)
    )
    return Context(
        pharaoh=tuple(_pharaoh_gain(observation, me, k) for k in range(6)),
        nile_dry=tuple(_nile_gain(observation, me, k, False) for k in range(6)),
        nile_flooded=tuple(_nile_gain(observation, me, k, True) for k in range(6)),
        flood=_flood_value(observation, me),
        civilization=civilization,
        monument_first=first,
        monument_next=max(new, default=0.0),
        disaster=max(disaster_values(observation).values()),
        placed_monuments=int(observation["monuments_placed_this_turn"]),
        flooded=bool(observation["floods"][me]),
    )


def _nile_gain(observation: JSON, seat: int, spaces: int, flooded: bool) -> float:
    room = observation["board"]["track_top"] - observation["nile"][seat]
    return min(spaces, room) * _nile_space_value(observation, flooded)


# ----------------------------------------------------------------- value of free dice


@lru_cache(maxsize=65536)
def dice_value(counts: tuple[int, ...], ctx: Context, rolled: bool) -> float:
    """The best estimated value of applying dice with these face counts (Suns included
    when ``rolled``: their effect is still to come), trying every use of the Ankhs."""
    suns, pharaohs, niles, civs, monuments, ankhs = counts
    value = 0.0
    if rolled:
        value = THREE_SUNS if suns == 3 else ctx.disaster if suns >= 4 else 0.0
    best = -math.inf
    for to_pharaoh in range(ankhs + 1 if pharaohs else 1):
        for to_civ in range(min(2, ankhs - to_pharaoh) + 1 if civs else 1):
            spare = ankhs - to_pharaoh - to_civ
            for to_monument in range(spare + 1 if monuments else 1):
                rest = spare - to_monument
                total = ctx.pharaoh[min(5, pharaohs + to_pharaoh)] if pharaohs else 0.0
                if civs and civs + to_civ >= 3:
                    total += ctx.civilization[min(3, civs + to_civ - 2)]
                total += _monuments_value(monuments, to_monument, ctx)
                total += _nile_and_pairs(niles, rest, ctx)
                best = max(best, total)
    return value + best


def _monuments_value(monuments: int, ankhs: int, ctx: Context) -> float:
    if not monuments:
        return 0.0
    value = 0.0
    if ctx.placed_monuments == 0:  # the first marker takes one die, on any space
        value, monuments = ctx.monument_first, monuments - 1
    further = min(monuments, (monuments + ankhs) // 2)
    return value + further * ctx.monument_next


def _nile_and_pairs(niles: int, ankhs: int, ctx: Context) -> float:
    """Nile dice (advance, or flood first) with the Ankhs left; unused Ankhs pair up."""
    best = ankhs // 2 * ANKH_PAIR
    if not niles:
        return best
    for to_flood in range(min(2, ankhs) + 1):
        flooding = niles + to_flood >= 3
        if to_flood and not flooding:
            break
        left_niles = niles - (3 - to_flood) if flooding else niles
        advance_table = ctx.nile_flooded if flooding or ctx.flooded else ctx.nile_dry
        for to_advance in range(ankhs - to_flood + 1 if left_niles > 0 else 1):
            value = ctx.flood if flooding else 0.0
            value += advance_table[min(5, left_niles + to_advance)] if left_niles > 0 else 0.0
            value += (ankhs - to_flood - to_advance) // 2 * ANKH_PAIR
            best = max(best, value)
    return best


def _free_counts(observation: JSON, spent: frozenset[str] = frozenset()) -> list[int]:
    counts = [0] * 6
    for die in observation["dice"]:
        if not die["used"] and die["colour"] not in spent:
            counts[FACES.index(die["face"])] += 1
    return counts


# ----------------------------------------------------------------------------- rolling


# Every multiset of k new faces with its probability (each face 1/6), for k = 0..5.
def _outcomes(k: int) -> list[tuple[tuple[int, ...], float]]:
    found: dict[tuple[int, ...], int] = {}

    def walk(left: int, lowest: int, faces: list[int]) -> None:
        if left == 0:
            counts = tuple(faces.count(face) for face in range(6))
            found[counts] = found.get(counts, 0) + 1
            return
        for face in range(lowest, 6):
            walk(left - 1, face, [*faces, face])

    walk(k, 0, [])
    result = []
    for counts in found:
        ways = math.factorial(k)
        for count in counts:
            ways //= math.factorial(count)
        result.append((counts, ways / 6**k))
    return result


OUTCOMES = [_outcomes(k) for k in range(6)]


def _roll_value(observation: JSON, rerolled: frozenset[str], ctx: Context) -> float:
    kept = [0] * 6
    for die in observation["dice"]:
        if die["colour"] not in rerolled:
            kept[FACES.index(die["face"])] += 1
    expected = 0.0
    for new, probability in OUTCOMES[len(rerolled)]:
        counts = tuple(a + b for a, b in zip(kept, new, strict=True))
        expected += probability * dice_value(counts, ctx, True)
    return expected


def _sub_multisets(counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every multiset of faces within ``counts`` (the dice one might keep)."""
    result: list[tuple[int, ...]] = [()]
    for count in counts:
        result = [(*prefix, k) for prefix in result for k in range(count + 1)]
    return result


@lru_cache(maxsize=65536)
def _shown_value(counts: tuple[int, ...], left: int, ctx: Context) -> float:
    """The value of a roll showing ``counts`` with ``left`` rerolls still allowed, when
    each reroll is chosen for the best expected value (Suns stay locked; rolling ends
    when every die shows a Sun)."""
    stop = dice_value(counts, ctx, True)
    suns = counts[SUN]
    if left <= 0 or suns == len(FACES) - 1:
        return stop
    best = stop
    free = (0, *counts[1:])
    for keep in _sub_multisets(free):
        k = sum(free) - sum(keep)
        if k:
            kept = (suns, *keep[1:])
            best = max(best, _reroll_value(kept, k, left - 1, ctx))
    return best


@lru_cache(maxsize=65536)
def _reroll_value(kept: tuple[int, ...], k: int, left: int, ctx: Context) -> float:
    """The expected value of rerolling ``k`` dice beside ``kept``, ``left`` rerolls
    remaining afterwards."""
    expected = 0.0
    for new, probability in OUTCOMES[k]:
        counts = tuple(a + b for a, b in zip(kept, new, strict=True))
        expected += probability * _shown_value(counts, left, ctx)
    return expected


def lookahead_roll_values(observation: JSON, legal: list[JSON]) -> list[float]:
    """Like ``action_values`` in the rolling phase, but each reroll's value counts the
    rerolls still allowed after it (an expectimax over every outcome on this bot's
    valuation of the dice) instead of stopping after it; the same values on the last
    reroll."""
    ctx = context(observation)
    left = int(observation.get("rerolls_left", 1)) - 1
    values = []
    for action in legal:
        rerolled = frozenset(action.get("dice", ()))
        kept = [0] * 6
        for die in observation["dice"]:
            if die["colour"] not in rerolled:
                kept[FACES.index(die["face"])] += 1
        if rerolled:
            values.append(_reroll_value(tuple(kept), len(rerolled), max(0, left), ctx))
        else:
            values.append(dice_value(tuple(kept), ctx, True))
    return values


# ---------------------------------------------------------------------------- applying


def _application_gain(observation: JSON, action: JSON) -> float:
    me, what = _me(observation), action["what"]
    if what == "pharaoh":
        return _pharaoh_gain(observation, me, action["spaces"])
    if what == "nile":
        return _nile_gain(observation, me, action["spaces"], bool(observation["floods"][me]))
    if what == "flood":
        return _flood_value(observation, me)
    if what == "civilization":
        return _civilization_gain(observation, me, len(action["colours"]))
    if what == "monument":
        return _monument_value(observation, me, action["column"])
    return 0.0


def _after_application(observation: JSON, action: JSON) -> JSON:
    """The observation as the engine will show it after ``action`` (only what the
    estimates read: the applied dice, flood markers, placed Monuments)."""
    me = _me(observation)
    spent = set(action["dice"])
    after = dict(observation)
    after["dice"] = [dict(die, used=die["used"] or die["colour"] in spent)
                     for die in observation["dice"]]
    if action["what"] == "flood":
        after["floods"] = [f + (seat == me) for seat, f in enumerate(observation["floods"])]
    if action["what"] == "monument":
        after["monuments_placed_this_turn"] = observation["monuments_placed_this_turn"] + 1
        monuments = [list(column) for column in observation["monuments"]]
        monuments[action["column"]][action["row"]] = me
        after["monuments"] = monuments
    return after


def _application_value(observation: JSON, action: JSON) -> float:
    """Its gain plus what the dice left free are still worth; among orders worth the same
    (independent applications), the biggest immediate gain goes first."""
    after = _after_application(observation, action)
    rest = tuple(_free_counts(after))
    gain = _application_gain(observation, action)
    return gain + dice_value(rest, context(after), False) + IMMEDIATE_TIE_BREAK * gain


# --------------------------------------------------------------------------- disasters


def _standing(observation: JSON, seat: int) -> float:
    """Score plus what the epoch's end would bring now: who looks like the leader."""
    flooded = observation["floods"][seat] > 0
    civilization = CIVILIZATION_POINTS[_civilization_markers(observation, seat)]
    return (observation["scores"][seat] + _race(observation["pharaoh"], seat)
            + (observation["nile"][seat] if flooded else 0) + civilization)


def _victim_weights(observation: JSON) -> dict[int, float]:
    me = _me(observation)
    others = [seat for seat in range(observation["num_players"]) if seat != me]
    leader = max(others, key=lambda seat: (_standing(observation, seat), -seat))
    return {seat: LEADER_WEIGHT if seat == leader else OTHER_WEIGHT for seat in others}


def _monument_loss(observation: JSON, seat: int, column: int) -> float:
    own = _own_per_column(observation, seat)
    loss = MONUMENT_BONUS_PLANNING[own[column]] - MONUMENT_BONUS_PLANNING[own[column] - 1]
    if own[column] == 1:
        columns = sum(1 for count in own if count)
        loss += MONUMENT_COLUMN_POINTS[columns] - MONUMENT_COLUMN_POINTS[columns - 1]
    return loss


def _disaster_harm(observation: JSON, what: str, seat: int) -> float:
    """What a disaster costs ``seat`` (a victim)."""
    if what == "pharaoh":
        return -_pharaoh_gain(observation, seat, -2)
    if what == "nile":
        nile, floods = observation["nile"][seat], observation["floods"][seat]
        if floods == 1:
            return 0.8 * nile
        if floods > 1:
            return 0.1 * nile
        return 0.5 * min(2, nile)
    if what == "civilization":
        have = _civilization_markers(observation, seat)
        return CIVILIZATION_PLANNING[have] - CIVILIZATION_PLANNING[max(0, have - 2)]
    if what == "monument":  # the victim gives up his two least valuable markers
        losses = sorted(_monument_loss(observation, seat, column)
                        for column, owners in enumerate(observation["monuments"])
                        for owner in owners if owner == seat)
        return sum(losses[:2])
    return 0.0


def disaster_values(observation: JSON) -> dict[str, float]:
    """Each disaster's cost to the other players, weighted towards the leader, plus what
    the declarer gains in the Pharaoh race when the others fall back."""
    me = _me(observation)
    weights = _victim_weights(observation)
    values = {"none": 0.0}
    for what in ("pharaoh", "nile", "civilization", "monument"):
        value = sum(weight * _disaster_harm(observation, what, seat)
                    for seat, weight in weights.items())
        if what == "pharaoh":
            pharaoh = [p if seat == me else max(0, p - 2)
                       for seat, p in enumerate(observation["pharaoh"])]
            value += _race(pharaoh, me) - _race(observation["pharaoh"], me)
        values[what] = value
    return values


def _lose_value(observation: JSON, action: JSON) -> float:
    """Higher is better: minus what losing this marker costs."""
    me = _me(observation)
    if action["what"] == "monument":
        return -_monument_loss(observation, me, action["column"])
    # Every Civilization marker counts the same; give up one on a space that was not full,
    # so no space opens for the others.
    seats = observation["civilization"][action["colour"]]
    return -1.0 if len(seats) >= observation["civilization_capacity"] else 0.0


# ----------------------------------------------------------------------------- choose


def action_values(observation: JSON, legal: list[JSON]) -> list[float]:
    """The estimated value of every legal action, in order (exposed for tests)."""
    phase = observation["phase"]
    if phase == "roll":
        ctx = context(observation)
        return [_roll_value(observation, frozenset(action.get("dice", ())), ctx)
                for action in legal]
    if phase == "apply":
        return [float(action["ankh_pair_points"]) if action["type"] == "done"
                else _application_value(observation, action) for action in legal]
    if phase == "disaster":
        values = disaster_values(observation)
        return [values.get(action.get("what", ""), 0.0) for action in legal]
    if phase == "victim":
        return [_lose_value(observation, action) for action in legal]
    return [0.0] * len(legal)


def choose(observation: JSON, legal: list[JSON]) -> int:
    """The index of the best-valued legal action (the earliest on equal values)."""
    values = action_values(observation, legal)
    best = 0
    for index, value in enumerate(values):
        if value > values[best] + 1e-9:
            best = index
    return best


VERSION = "1.1.0"  # bump with any change of play: leagues tell versions apart by it


def dice_greedy_player(name: str = "dice-greedy") -> PythonPlayer:
    """This strategy as an in-process player for the referee (tests, benchmarks)."""
    from arena.runner.players import PythonPlayer

    return PythonPlayer(name, choose, version=VERSION)


# ------------------------------------------------------------------- strength check


def against_random(num_players: int, games: int, seed: int = 20260) -> dict[str, float]:
    """Play ``games`` in-process games, the greedy bot in a rotating seat and seeded random
    players elsewhere; how often it wins and by how much."""
    from arena.games.ra_dice import GAME as game
    wins, margins, own, others = 0, [], [], []
    for number in range(games):
        seat, rng = number % num_players, random.Random(seed + number)
        state = game.new_game(num_players, seed + number)
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.current_player() == seat:
                seen = [state.action_to_json(action) for action in legal]
                index = choose(state.observation(seat), seen)
            else:
                index = rng.randrange(len(legal))
            state.apply_action(legal[index])
        scores = state.returns()
        rest = [score for other, score in enumerate(scores) if other != seat]
        wins += state.placements()[seat] == 1
        margins.append(scores[seat] - max(rest))
        own.append(scores[seat])
        others.append(sum(rest) / len(rest))
    return {"players": num_players, "games": games, "wins": wins,
            "greedy_mean": sum(own) / games, "random_mean": sum(others) / games,
            "mean_margin": sum(margins) / games, "worst_margin": min(margins)}


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="The greedy dice bot against random bots.")
    parser.add_argument("--games", type=int, default=100, help="games per player count")
    parser.add_argument("--seed", type=int, default=20260, help="first game seed")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    for num_players in (2, 3, 4):
        r = against_random(num_players, args.games, args.seed)
        print(f"{num_players} players: greedy first in {r['wins']}/{r['games']}; mean score "
              f"greedy {r['greedy_mean']:.1f}, random {r['random_mean']:.1f}; margin over the "
              f"best random {r['mean_margin']:.1f} (worst {r['worst_margin']:.0f})")


if __name__ == "__main__":
    main()
