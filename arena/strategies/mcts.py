"""Information-set Monte Carlo tree search for Ra (single-observer ISMCTS).

Ra hides only the bag's order, and the engine draws each tile at random from the bag when
it is drawn, so a *determinization* is simply the public position with a fresh random
stream for the draws (``arena.games.ra.determinize`` builds it from the observation).

Each iteration: copy the root position with the search's own random stream (a new
sample of the future draws), walk down one shared tree keyed by actions, choosing at
every decision by UCB for the seat deciding there among the actions legal in this
sample (counting each child's *availability*, as ISMCTS does), add one node, play on
with the cheap rollout policy until the epoch ends, score every seat with the valuation
(its estimated final score) and back up, for each seat, ``0.5 + 0.5 tanh(margin / 10)``
where ``margin`` is its estimate minus the best other seat's.  The answer is the root's
most visited action.

The bundled version (since 1.2, ``paired_root``) keeps no tree: each round draws one sample of
the bag and plays *every* legal action out from it, with the same random numbers for
the rollout policy (common random numbers), and answers the best mean reward.  The luck
of the draw then cancels between the actions compared, which the tree (1.0, 1.1) left to
average out over its few thousand rollouts; it is clearly stronger against greedy
(arena/bots/README.md).

The search stops on its own clock: it never thinks longer than its budget (see
:func:`think_seconds`), checked after every iteration (an iteration is ~1 ms); it stops
sooner when the answer can no longer change, and when the machine is so loaded that it
gets only part of a core (then replies are slow too, so it keeps a wider margin).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.ra import RaState
from arena.games.ra.tiles import OVER, TURN
from arena.strategies.greedy import greedy_action, state_from_observation
from arena.strategies.rollout import rollout_action
from arena.strategies.valuation import seat_values

JSON = Any



@dataclass(frozen=True)
class MctsSettings:
    """The search's knobs.  The defaults are the bundled bot's; :data:`STEPS` keeps each
    earlier version, so every measured improvement can be replayed against its
    predecessor (``python -m arena.strategies.gauntlet``; bots/README.md has the log)."""

    exploration: float = 0.7  # UCB constant, for rewards in [0, 1]
    margin_scale: float = 10.0  # points of margin that make a clear lead
    # "best_rival": a seat's reward is its margin over the best other seat;
    # "pairwise": the mean over the other seats of its margin over each (what the
    # leaderboard's pairwise Elo counts)
    reward: str = "best_rival"
    # decisions of rollout after the tree before the valuation judges the position (then
    # on to the next player's turn, so no auction or disaster is left half-done);
    # negative: play on to the epoch's end
    rollout_decisions: int = -1
    # progressive bias towards the greedy bot's choice: it is tried first and its UCB
    # score gets prior_weight / (visits + 1), in the nodes less than prior_depth
    # decisions below the root (the greedy choice costs about as much as a rollout)
    prior_weight: float = 0.0
    prior_depth: int = 0
    # instead of the tree: flat Monte Carlo at the root with common random numbers, every
    # legal action played out in turn from the same sample of the bag (and the same
    # random numbers for the rollout policy); the best mean reward wins
    paired_root: bool = False
    # Of the arena's time per decision, think this share, minus a fixed allowance for
    # reading the request, answering and the operating system's scheduling.
    time_share: float = 0.6
    time_reserve: float = 0.08
    # ... but the allowance is never more than this share of the time per decision: at
    # short time controls a fixed 80 ms would leave no time to search (1.3)
    reserve_share: float = 1.0

    def __post_init__(self) -> None:
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {self.reward!r}")


REWARDS = ("best_rival", "pairwise")

# The versions of the search, oldest first; the last one is the bundled bot's.
# Each was measured against its predecessor with ``python -m arena.strategies.gauntlet``
# (the commands and figures are in arena/bots/README.md).
STEPS: dict[str, MctsSettings] = {
    "1.0": MctsSettings(),
    # back up each seat's mean margin over every rival (the pairwise order the
    # leaderboard rates) rather than its margin over the best rival alone
    "1.1": MctsSettings(reward="pairwise"),
    # no tree: every legal action played out from the same samples of the bag (common
    # random numbers), the best mean reward wins; won 12 of 12 games against greedy at
    # 3 players and 1000 rollouts per decision (README)
    "1.2": MctsSettings(reward="pairwise", paired_root=True),
    # the time allowance at most 20% of the time per decision: at 0.1 s per decision it
    # searches 40 ms instead of answering greedy's choice (1.2.1); the same from 0.4 s up
    "1.3": MctsSettings(reward="pairwise", paired_root=True, reserve_share=0.2),
}
DEFAULT = list(STEPS.values())[-1]

# Starvation guard: after STARVED_AFTER seconds of search, a process that got less than
# STARVED_SHARE of a core cuts its budget to that share (at least MIN_SHARE).
STARVED_AFTER = 0.02
STARVED_SHARE = 0.7
MIN_SHARE = 0.25
MIN_THINK = 0.005
# With less time than this to search, answer greedy's choice at once: a round of paired
# playouts plays out every legal action, a few ms each, and a few rounds say less than
# greedy's valuation (measured at 0.1 s per decision, 3-4 players, before this rule:
# mcts 1.2.0 -98 [-233, -4] Elo against greedy, 28 games)
MIN_SEARCH_SECONDS = 0.03
# With a whole-game clock: a seat makes about this many decisions per epoch (measured:
# 80 per game at 3-4 players), and the clock is never spread over fewer than this.
DECISIONS_PER_EPOCH = 30
MIN_DECISIONS_LEFT = 5
CHECK_EVERY = 16  # iterations between checks whether the answer is already decided


def think_seconds(move_ms: float | None, limit: float | None = None,
                  game_ms_left: float | None = None, epochs_left: float = 3.0,
                  settings: MctsSettings = DEFAULT) -> float:
    """How long to search for a decision when the arena allows ``move_ms`` milliseconds
    (the overage bank is never counted on), capped at ``limit`` seconds if given.  With a
    whole-game clock (``game_ms_left``), the clock is shared over the decisions still to
    come (about ``DECISIONS_PER_EPOCH`` per epoch left); 0 means answer at once."""
    share, reserve = settings.time_share, settings.time_reserve
    if move_ms is not None:
        reserve = min(reserve, settings.reserve_share * move_ms / 1000.0)
    budget = 1.0 if move_ms is None else share * move_ms / 1000.0 - reserve
    if limit is not None:
        budget = min(budget, limit)
    budget = max(MIN_THINK, budget)
    if game_ms_left is not None:
        decisions_left = max(MIN_DECISIONS_LEFT, DECISIONS_PER_EPOCH * epochs_left)
        clock_share = share * game_ms_left / 1000.0 / decisions_left - reserve
        budget = max(0.0, min(budget, clock_share))
    return budget


def epochs_left(observation: dict[str, JSON]) -> float:
    """Epochs still to play, counting the current one's unfilled part of the Ra track."""
    try:
        done = observation["ra_track"] / observation["ra_track_length"]
        return max(0.0, 3 - observation["epoch"] + 1.0 - done)
    except (KeyError, TypeError, ZeroDivisionError):
        return 3.0


class Node:
    __slots__ = ("children", "visits", "avail", "totals", "favourite")

    def __init__(self, num_players: int) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.avail = 0
        self.totals = [0.0] * num_players
        self.favourite = NOT_ASKED  # the greedy choice in the first sample seen here


NOT_ASKED = -2


def rewards(state: RaState, settings: MctsSettings = DEFAULT) -> list[float]:
    """Per seat, in [0, 1]: how well it stands against its best rival, or against each
    rival on average (``settings.reward``)."""
    values = seat_values(state)
    scale = settings.margin_scale
    tanh = math.tanh
    result = []
    if settings.reward == "pairwise":
        others = len(values) - 1
        for value in values:
            # the seat's own term is tanh(0) = 0 and drops out of the sum
            total = sum(tanh((value - v) / scale) for v in values)
            result.append(0.5 + 0.5 * total / others)
        return result
    for seat, value in enumerate(values):
        rival = max(v for s, v in enumerate(values) if s != seat)
        result.append(0.5 + 0.5 * tanh((value - rival) / scale))
    return result


def search(root: RaState, rng: random.Random, *, seconds: float | None = None,
           iterations: int | None = None,
           settings: MctsSettings = DEFAULT) -> tuple[int, Node]:
    """The best action for the seat deciding in ``root``, by ISMCTS for ``seconds`` of
    wall-clock time or ``iterations`` iterations (whichever ends first; at least one
    must be given), and the search tree."""
    if seconds is None and iterations is None:
        raise ValueError("search needs a time or an iteration budget")
    started = time.perf_counter()
    cpu_started = time.process_time()
    deadline = math.inf if seconds is None else started + seconds
    limit = math.inf if iterations is None else iterations
    n = root.num_players
    tree = Node(n)
    legal = root.legal_actions()
    if settings.paired_root:
        return _paired_search(root, rng, legal, deadline, limit, started, cpu_started,
                              seconds, settings)
    done = 0
    while done < limit:
        now = time.perf_counter()
        if now >= deadline:
            break
        if done % CHECK_EVERY == 0 and done:
            spent = now - started
            if _decided(tree, legal, done, spent, deadline - now, limit - done):
                break
            if seconds is not None and spent > STARVED_AFTER:
                deadline = min(deadline, _starved_deadline(
                    started, seconds, spent, time.process_time() - cpu_started))
        _iterate(root, tree, rng, n, settings)
        done += 1
    best = max(legal, key=lambda a: _visits(tree, a))
    return best, tree


def _paired_search(root: RaState, rng: random.Random, legal: list[int], deadline: float,
                   limit: float, started: float, cpu_started: float,
                   seconds: float | None, settings: MctsSettings) -> tuple[int, Node]:
    """Flat Monte Carlo over the root's actions with common random numbers: each round
    draws one seed and plays every action out from it (``paired_root``).  The tree
    returned holds one child per action (its visits and totals)."""
    n = root.num_players
    tree = Node(n)
    seat = root.cur
    for action in legal:
        tree.children[action] = Node(n)
    done = rounds = 0
    for results in paired_rounds(legal, lambda a, seed: _playout(root, a, seed, settings),
                                 rng, deadline, limit, started, cpu_started, seconds):
        for action, result in zip(legal, results, strict=True):
            child = tree.children[action]
            child.visits += 1
            totals = child.totals
            for s in range(n):
                totals[s] += result[s]
        done += len(legal)
        rounds += 1
    tree.visits = done
    if not rounds:
        return legal[0], tree
    best = max(legal, key=lambda a: tree.children[a].totals[seat])  # first on ties
    return best, tree


def paired_rounds(legal: list[int], playout: Callable[[int, int], list[float]],
                  rng: random.Random, deadline: float, limit: float, started: float,
                  cpu_started: float, seconds: float | None) -> Iterator[list[list[float]]]:
    """The rounds of a paired search (mcts and dice-mcts): each draws one seed from
    ``rng`` and yields ``playout(action, seed)`` for every action of ``legal``, in order,
    until ``limit`` playouts or ``deadline`` (shortened when the process is starved); a
    round the deadline cuts short is dropped, so every action keeps the same count."""
    done = rounds = 0
    while done + len(legal) <= max(limit, len(legal)) and len(legal) > 1:
        now = time.perf_counter()
        if now >= deadline:
            break
        spent = now - started
        if seconds is not None and rounds and spent > STARVED_AFTER:
            deadline = min(deadline, _starved_deadline(
                started, seconds, spent, time.process_time() - cpu_started))
        seed = rng.getrandbits(63)
        results: list[list[float]] = []
        for action in legal:
            if results and time.perf_counter() >= deadline:
                break
            results.append(playout(action, seed))
        if len(results) < len(legal):
            break
        yield results
        done += len(legal)
        rounds += 1


def _playout(root: RaState, action: int, seed: int, settings: MctsSettings) -> list[float]:
    """The rewards of ``action`` then the rollout policy to the epoch's end (or the
    horizon), the bag and the policy's random numbers drawn from ``seed``."""
    # a fresh generator instead of a copy of the root's (copying one is most of a
    # clone's cost), seeded as reseed seeds it
    state = root.clone(random.Random(seed))
    state.reseed(seed)
    epoch = state.epoch
    state.apply_action(action)
    _roll_out(state, epoch, random.Random(seed + 1), settings)
    return rewards(state, settings)


def _roll_out(state: RaState, epoch: int, rng: random.Random, settings: MctsSettings
              ) -> None:
    """The rollout policy to the end of ``epoch`` (or the horizon's turn)."""
    horizon = settings.rollout_decisions
    played = 0
    while state.phase != OVER and state.epoch == epoch:
        if 0 <= horizon <= played and state.phase == TURN:
            break
        state.apply_action(rollout_action(state, rng))
        played += 1


def _starved_deadline(started: float, seconds: float, spent: float, cpu: float) -> float:
    """When the machine is overloaded (this process got only a share of a core), the
    arena's side and the reply are slow too: think only that share of the budget."""
    share = cpu / spent
    if share >= STARVED_SHARE:
        return math.inf
    return started + seconds * max(MIN_SHARE, share)


def _decided(tree: Node, legal: list[int], done: int, spent: float, left: float,
             iterations_left: float) -> bool:
    """True when the most visited action can no longer be overtaken: its lead is more
    than the iterations still possible (at the rate so far).  Saves time on easy
    decisions without changing the answer."""
    if len(legal) < 2:
        return True
    possible = min(iterations_left, done / spent * left if spent > 0 else math.inf)
    visits = sorted((_visits(tree, a) for a in legal), reverse=True)
    return visits[0] - visits[1] > possible


def _visits(tree: Node, action: int) -> int:
    child = tree.children.get(action)
    return -1 if child is None else child.visits


def _iterate(root: RaState, tree: Node, rng: random.Random, n: int,
             settings: MctsSettings) -> None:
    state = root.clone(rng)  # a fresh sample of the bag's future, drawn from rng
    exploration = settings.exploration
    prior_weight, prior_depth = settings.prior_weight, settings.prior_depth
    node = tree
    path = [tree]
    # selection and expansion
    while state.phase != OVER:
        legal = state.legal_actions()
        player = state.cur
        children = node.children
        favourite = -1
        if len(path) <= prior_depth:
            favourite = node.favourite
            if favourite == NOT_ASKED:
                favourite = node.favourite = greedy_action(state)
        if favourite >= 0 and favourite not in children and favourite in legal:
            untried = [favourite]
        else:
            untried = [a for a in legal if a not in children]
        if untried:
            action = untried[rng.randrange(len(untried))]
            child = Node(n)
            children[action] = child
            for a in legal:
                sibling = children.get(a)
                if sibling is not None:
                    sibling.avail += 1
            state.apply_action(action)
            path.append(child)
            break
        log_term = 0.0
        best_score, best_action = -1.0, legal[0]
        for a in legal:
            child = children[a]
            child.avail += 1
            log_term = math.log(child.avail)
            visits = child.visits
            score = child.totals[player] / visits + exploration * math.sqrt(log_term / visits)
            if a == favourite:
                score += prior_weight / (visits + 1)
            if score > best_score:
                best_score, best_action = score, a
        node = children[best_action]
        state.apply_action(best_action)
        path.append(node)
    # rollout to the end of the epoch (or the horizon), then the valuation's estimate
    _roll_out(state, state.epoch, rng, settings)
    result = rewards(state, settings)
    for visited in path:
        visited.visits += 1
        totals = visited.totals
        for seat in range(n):
            totals[seat] += result[seat]


class TimedSearch:
    """What a search bot does with the arena's time, the same for every game's search:
    the bot seed and time control from ``new_game``, the game clock left from each
    request (``on_request``, the SDK's hook; without it the search counts its own
    thinking against the clock), and ``choose`` timing each decision.  A subclass gives
    ``budget`` (seconds to think) and ``_choose``."""

    def __init__(self, seconds: float | None = None, iterations: int | None = None,
                 seed: int = 0) -> None:
        self.seconds = seconds
        self.iterations = iterations
        self.move_ms: float | None = None
        self.game_ms: float | None = None  # the whole-game clock, None: no clock
        self.clock_used = 0.0  # seconds of this game's clock used, by our own count
        self.game_ms_left: float | None = None  # from the current request, if any
        self.rng = random.Random(seed)
        self.last_iterations = 0

    def new_game(self, message: dict[str, JSON]) -> None:
        self.rng.seed(message.get("seed", 0))
        timing = message.get("time") or {}
        self.move_ms = _positive(timing.get("move_ms"))
        self.game_ms = _positive(timing.get("game_ms"))
        self.clock_used = 0.0
        self.game_ms_left = None

    def on_request(self, message: dict[str, JSON]) -> None:
        timing = message.get("time") or {}
        move_ms = _positive(timing.get("move_ms"))
        if move_ms is not None:
            self.move_ms = move_ms
        left = timing.get("game_ms_left")
        self.game_ms_left = float(left) if isinstance(left, int | float) else None

    def clock_left_ms(self) -> float | None:
        """What is left on the game clock (None: no clock)."""
        if self.game_ms_left is None and self.game_ms is not None:
            return max(0.0, self.game_ms - 1000.0 * self.clock_used)
        return self.game_ms_left

    def fixed_search(self) -> bool:
        """Only an iteration count limits the search: the same decisions on any machine
        under any load (the starvation guard would otherwise cut it short)."""
        return self.iterations is not None and self.seconds is None

    def budget(self, observation: dict[str, JSON]) -> float | None:
        raise NotImplementedError

    def choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]]) -> int:
        started = time.perf_counter()
        try:
            return self._choose(observation, legal, started)
        finally:
            self.clock_used += time.perf_counter() - started
            self.game_ms_left = None  # used up: the next request brings its own

    def _choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]],
                started: float) -> int:
        raise NotImplementedError


def serve_search_bot(make: Callable[..., TimedSearch], description: str) -> None:
    """The protocol bot of a search strategy (arena/bots/mcts, arena/bots/dice-mcts):
    ``--seconds S`` caps the thinking per decision, ``--iterations N`` fixes the search
    instead (deterministic: the same decisions as in-process for the same game seed)."""
    from arena.sdk import run

    strategy = make(**search_options(None, description))
    run(strategy.choose, name=strategy.name, version=strategy.version,  # type: ignore[attr-defined]
        on_new_game=strategy.new_game, on_request=strategy.on_request)


def search_options(argv: Sequence[str] | None, description: str = "") -> dict[str, Any]:
    """``seconds`` and ``iterations`` from a search bot's arguments (None: ``sys.argv``);
    argparse exits (SystemExit) on a bad one.  The in-process entry points
    (arena/strategies/entry_points.py) read the same arguments."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=None,
                        help="think at most this long per decision")
    parser.add_argument("--iterations", type=int, default=None,
                        help="search this many iterations per decision (deterministic)")
    options = parser.parse_args(argv)
    if options.seconds is not None and not options.seconds > 0:
        parser.error("--seconds must be more than 0")
    if options.iterations is not None and options.iterations < 1:
        parser.error("--iterations must be at least 1")
    return {"seconds": options.seconds, "iterations": options.iterations}


class MctsStrategy(TimedSearch):
    """``choose(observation, legal) -> index`` with ISMCTS.

    Time as :class:`TimedSearch` handles it.  ``seconds`` caps the thinking time (None:
    as much as the arena's time allows, safely); ``iterations`` fixes the work instead,
    which makes the bot fully deterministic."""

    name = "mcts"
    version = "1.3.0"  # bump with any change of play: leagues tell versions apart by it

    def __init__(self, seconds: float | None = None, iterations: int | None = None,
                 seed: int = 0, settings: MctsSettings = DEFAULT) -> None:
        super().__init__(seconds, iterations, seed)
        self.settings = settings

    def budget(self, observation: dict[str, JSON]) -> float | None:
        """Seconds to think (None when only an iteration count limits the search)."""
        if self.fixed_search():
            return None
        return think_seconds(self.move_ms, self.seconds, self.clock_left_ms(),
                             epochs_left(observation), self.settings)

    def _choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]],
                started: float) -> int:
        if len(legal) == 1:
            return 0
        state, actions = state_from_observation(observation, legal)
        budget = self.budget(observation)
        seconds = None if budget is None else budget - (time.perf_counter() - started)
        if seconds is not None and seconds < MIN_SEARCH_SECONDS:
            self.last_iterations = 0
            return actions.index(greedy_action(state))
        action, tree = search(state, self.rng, seconds=seconds, iterations=self.iterations,
                              settings=self.settings)
        self.last_iterations = tree.visits
        if not tree.visits:  # no time at all to search: the greedy choice is instant
            action = greedy_action(state)
        return actions.index(action)


def _positive(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None
