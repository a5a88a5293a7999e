"""The greedy Ra player: one step of look-ahead with the valuation of ``valuation.py``.

At each decision it values what the choice brings to its own estimated final score,
against what the others would gain:

* **bid**: for each sun it may bid, the gain of winning the lot with it (tiles, the sun
  given away, the centre sun taken) plus a share of what it denies the others, times the
  chance that nobody after it outbids (each later bidder who can outbid is assumed to do so
  in proportion to the lot's worth to him); it bids the best one, or passes when no bid is
  worth it;
* **turn**: invokes Ra when the auction it would start is worth more than the tiles it
  could still add by drawing; takes a tile with a god when the tile is worth more than
  keeping the god; otherwise draws;
* **disaster**: loses the tile whose loss costs it least.

Decisions take about a millisecond in Python; on a position of the compiled Ra core the
same choice (the same code ported to C, float operation by float operation) takes a few
microseconds.  The same observation always gives the same choice, on either engine.

Its constants are tunable parameters (:class:`GreedyParameters`, declared in its
bot.toml; ``arena tune greedy``, docs/tuning.md): the three margins above and the weight
of each part of the valuation (:class:`~arena.strategies.valuation.Weights`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass, fields, replace
from typing import TYPE_CHECKING, Any, cast

from arena.games.ra import determinize, engines
from arena.games.ra.state import RaState, RaStateViews
from arena.games.ra.tiles import (
    AUCTION,
    AUCTION_TRACK_LENGTH,
    BID_BASE,
    DISASTER,
    DISCARD_BASE,
    DRAW,
    END_TURN,
    GOD_BASE,
    GOD_FOLLOW_UP,
    INVOKE_RA,
    PASS,
    RA,
    TURN,
)
from arena.strategies.valuation import AS_WRITTEN, Weights, holding_value, take_gain, win_gain

if TYPE_CHECKING:
    from arena.games.ra.compiled import CompiledRaState

JSON = Any

DENIAL = 0.6  # how much of an opponent's gain it is worth to deny him, over (n-1)
BID_MARGIN = 0.5  # a bid must be worth at least this much (else pass)
GOD_MARGIN = 0.5  # a god take must gain at least this much beyond the god's own value


@dataclass(frozen=True)
class GreedyParameters:
    """Everything the greedy bot weighs, as its bot.toml's ``[parameters]`` name them
    (the valuation's weights by their own names)."""

    denial: float = DENIAL
    bid_margin: float = BID_MARGIN
    god_margin: float = GOD_MARGIN
    valuation: Weights = AS_WRITTEN

    @classmethod
    def from_values(cls, values: Mapping[str, float]) -> GreedyParameters:
        """From the values the arena passes (hello's ``parameters``); ValueError naming
        a name it does not know (the manifest and this class disagree: a bug)."""
        own = {f.name for f in fields(cls) if f.name != "valuation"}
        weights = {f.name for f in fields(Weights)}
        unknown = sorted(set(values) - own - weights)
        if unknown:
            raise ValueError(f"greedy has no parameter {unknown[0]!r}")
        valuation = replace(AS_WRITTEN, **{k: float(v) for k, v in values.items()
                                           if k in weights})
        return cls(valuation=valuation, **{k: float(v) for k, v in values.items() if k in own})


    def for_the_core(self) -> tuple[float, ...]:
        """These numbers in the order the compiled core reads them (_core.pyx's
        Parameters): the margins, then the valuation's weights in their own order."""
        return (self.denial, self.bid_margin, self.god_margin, *astuple(self.valuation))


AS_MADE = GreedyParameters()


def outbid_chance(gain: float) -> float:
    """How likely a later bidder outbids, given what the lot is worth to him."""
    return min(0.95, max(0.0, (gain - 1.0) / 6.0))


def _lowest_sun_above(suns: list[int], high: int) -> int | None:
    for sun in suns:  # ascending
        if sun > high:
            return sun
    return None


def rival_gain(state: RaStateViews, seat: int, high: int,
               weights: Weights = AS_WRITTEN) -> float | None:
    """What the lot is worth to ``seat`` if he outbids ``high`` with his cheapest sun;
    None when he cannot outbid."""
    sun = _lowest_sun_above(state.up[seat], high)
    return None if sun is None else win_gain(state, seat, sun, weights=weights)


def bid_scores(state: RaStateViews, legal: list[int],
               parameters: GreedyParameters = AS_MADE) -> dict[int, float]:
    """Expected worth of each legal bid to the seat bidding now (pass = 0)."""
    weights = parameters.valuation
    seat = state.cur
    others = state.num_players - 1
    later = state.queue[state.queue_index + 1:]
    threat = 0.0
    if state.high_bidder >= 0:
        threat = max(threat, win_gain(state, state.high_bidder, state.high, weights=weights))
    scores: dict[int, float] = {}
    for action in legal:
        if not BID_BASE < action < PASS:
            continue
        sun = action - BID_BASE
        win = 1.0
        for rival in later:
            gain = rival_gain(state, rival, sun, weights)
            if gain is not None:
                threat = max(threat, gain)
                win *= 1.0 - outbid_chance(gain)
        scores[action] = win * (win_gain(state, seat, sun, weights=weights)
                                + parameters.denial * threat / others)
    return scores


def choose_bid(state: RaStateViews, legal: list[int],
               parameters: GreedyParameters = AS_MADE) -> int:
    scores = bid_scores(state, legal, parameters)
    best = max(scores, key=lambda a: (scores[a], -a)) if scores else PASS
    if PASS in legal and (not scores or scores[best] < parameters.bid_margin):
        return PASS
    return best


def invoke_value(state: RaStateViews, weights: Weights = AS_WRITTEN) -> float:
    """Expected worth to the seat on turn of invoking Ra now (he bids last)."""
    seat = state.cur
    mine = state.up[seat]
    nobody = 1.0
    rivals_best = 0
    for rival in range(state.num_players):
        if rival == seat or not state.up[rival]:
            continue
        gain = rival_gain(state, rival, 0, weights)
        if gain is not None:
            nobody *= 1.0 - outbid_chance(gain)
        rivals_best = max(rivals_best, state.up[rival][-1])
    full = len(state.track) == AUCTION_TRACK_LENGTH
    cheap = win_gain(state, seat, mine[0], weights=weights)
    if full:
        cheap = max(0.0, cheap)  # on a full track the Ra player may pass too
    contested = 0.0
    if mine[-1] > rivals_best:  # he can always have the last word
        contested = 0.7 * max(0.0, win_gain(state, seat, mine[-1], weights=weights))
    return nobody * cheap + (1.0 - nobody) * contested


def draw_threshold(state: RaStateViews) -> float:
    """How much an auction must be worth now to beat drawing another tile."""
    room = AUCTION_TRACK_LENGTH - len(state.track)
    threshold = 1.0 + 0.6 * room
    bag_size = len(state.bag)
    if state.ra_count == state.ra_limit - 1 and bag_size:
        # the next Ra tile ends the epoch: drawing risks every sun still face up
        threshold *= max(0.0, 1.0 - 2.5 * state.bag.count(RA) / bag_size)
    return threshold


def best_god_take(state: RaStateViews, legal: list[int],
                  weights: Weights = AS_WRITTEN) -> tuple[int, float]:
    best, best_gain = -1, float("-inf")
    for action in legal:
        if GOD_BASE <= action < BID_BASE:
            gain = take_gain(state, state.cur, state.track[action - GOD_BASE], weights)
            if gain > best_gain:
                best, best_gain = action, gain
    return best, best_gain


def choose_turn(state: RaStateViews, legal: list[int],
                parameters: GreedyParameters = AS_MADE) -> int:
    options: dict[int, float] = {}
    if DRAW in legal:
        options[DRAW] = 0.0
    options[INVOKE_RA] = invoke_value(state, parameters.valuation) \
        - (draw_threshold(state) if DRAW in legal else 0.0)
    god, gain = best_god_take(state, legal, parameters.valuation)
    if god >= 0:
        options[god] = gain - parameters.god_margin
    return max(options, key=lambda a: (options[a], -a))


def choose_god_follow_up(state: RaStateViews, legal: list[int],
                         parameters: GreedyParameters = AS_MADE) -> int:
    god, gain = best_god_take(state, legal, parameters.valuation)
    return god if god >= 0 and gain > parameters.god_margin else END_TURN


def choose_discard(state: RaStateViews, legal: list[int], weights: Weights = AS_WRITTEN) -> int:
    seat = state.cur
    holds = [list(h) for h in state.hold]
    best, best_value = legal[0], float("-inf")
    for action in legal:
        tile = action - DISCARD_BASE
        holds[seat][tile] -= 1
        value = holding_value(state, holds, seat, weights)
        holds[seat][tile] += 1
        if value > best_value:
            best, best_value = action, value
    return best


def greedy_action(state: RaStateViews, parameters: GreedyParameters = AS_MADE) -> int:
    """The greedy choice (an engine action int) for the seat deciding in ``state``: in C
    for a position of the compiled core, else by the functions above."""
    if not isinstance(state, RaState):
        return cast("CompiledRaState", state).greedy_action(parameters.for_the_core())
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    phase = state.phase
    if phase == AUCTION:
        return choose_bid(state, legal, parameters)
    if phase == TURN:
        return choose_turn(state, legal, parameters)
    if phase == GOD_FOLLOW_UP:
        return choose_god_follow_up(state, legal, parameters)
    if phase == DISASTER:
        return choose_discard(state, legal, parameters.valuation)
    raise ValueError(f"no decision in phase {phase}")


def state_from_observation(observation: dict[str, JSON], legal: list[dict[str, JSON]],
                           seed: int = 0, engine: str | None = None
                           ) -> tuple[RaStateViews, list[int]]:
    """A full state for the observation (the bag's order from ``seed``) in ``engine``
    (engines.resolve) and the engine actions in the order of ``legal``."""
    pure = determinize(observation, int(observation["seat"]), seed)
    actions = pure.legal_actions()
    if [pure.action_to_json(a) for a in actions] != legal:
        raise ValueError("the legal list does not match the observation's position")
    return engines.as_engine(pure, engine), actions


def greedy_options(argv: Sequence[str] | None, description: str = "") -> dict[str, JSON]:
    """The greedy bot's arguments (None: ``sys.argv``): ``--engine``; argparse exits on a
    bad one.  The bot program and its in-process entry point read the same."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    engines.add_engine_argument(parser)
    return {"engine": parser.parse_args(argv).engine}


class GreedyStrategy:
    """``choose(observation, legal) -> index`` for the SDK or a PythonPlayer, weighing as
    ``parameters`` say (set later, from hello, by :meth:`configure`), on the Ra engine
    ``engine`` ("compiled", "python", "auto"; None: the process's choice, see
    arena/games/ra/engines.py): the same choices on both."""

    name = "greedy"
    version = "1.0.0"

    def __init__(self, parameters: GreedyParameters = AS_MADE,
                 engine: str | None = None) -> None:
        self.parameters = parameters
        self.engine = engines.resolve(engine)

    def configure(self, values: Mapping[str, float] | None) -> None:
        """Weigh with ``values`` (hello's ``parameters``; None: as made)."""
        self.parameters = AS_MADE if values is None else GreedyParameters.from_values(values)

    def choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]]) -> int:
        if len(legal) == 1:
            return 0
        state, actions = state_from_observation(observation, legal, engine=self.engine)
        return actions.index(greedy_action(state, self.parameters))
