"""The search driver the search bots share (mcts for Ra, dice-mcts for the dice game).

Each bot supplies the game: how one iteration or one playout goes, which statistics it
keeps, what a seat's reward is.  This module supplies what does not depend on the game:

* the time: how long to think for a decision (:func:`think_seconds`), when to stop
  (:class:`SearchClock`: a deadline, an iteration limit, and the starvation guard that
  cuts the thinking when the machine leaves the process only part of a core);
* the two ways to search: a tree walked iteration after iteration until the answer can
  no longer change (:func:`run_iterations`, :func:`most_visited`), and flat Monte Carlo
  over the root's actions with common random numbers (:func:`paired_search`, built on
  :func:`paired_rounds`), with its optional pruning of the clearly worse candidates;
* the rewards both bots back up (:func:`pairwise_rewards`, :func:`best_rival_rewards`);
* the bot around the search: the arena's time and seeds (:class:`TimedSearch`), the
  command line (:func:`search_options`) and the protocol loop (:func:`serve_search_bot`).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

JSON = Any

# Starvation guard: after STARVED_AFTER seconds of search, a process that got less than
# STARVED_SHARE of a core cuts its budget to that share (at least MIN_SHARE).
STARVED_AFTER = 0.02
STARVED_SHARE = 0.7
MIN_SHARE = 0.25
MIN_THINK = 0.005
# With a whole-game clock: a seat makes about this many decisions per epoch (measured
# on Ra: 80 per game at 3-4 players), and the clock is never spread over fewer than this.
DECISIONS_PER_EPOCH = 30
MIN_DECISIONS_LEFT = 5
CHECK_EVERY = 16  # iterations between checks whether the answer is already decided


# ------------------------------------------------------------------------- the time


@dataclass(frozen=True)
class TimeShare:
    """How much of the arena's time a search bot thinks: the settings of every search
    bot (:class:`arena.strategies.mcts.MctsSettings`...) begin with these."""

    # Of the arena's time per decision, think this share, minus a fixed allowance for
    # reading the request, answering and the operating system's scheduling.
    time_share: float = 0.6
    time_reserve: float = 0.08
    # ... but the allowance is never more than this share of the time per decision: at
    # short time controls a fixed 80 ms would leave no time to search (mcts 1.3)
    reserve_share: float = 1.0


def think_seconds(move_ms: float | None, limit: float | None, game_ms_left: float | None,
                  epochs_left: float, settings: TimeShare) -> float:
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


def starved_deadline(started: float, seconds: float, spent: float, cpu: float) -> float:
    """When the machine is overloaded (this process got only a share of a core), the
    arena's side and the reply are slow too: think only that share of the budget."""
    share = cpu / spent
    if share >= STARVED_SHARE:
        return math.inf
    return started + seconds * max(MIN_SHARE, share)


@dataclass(frozen=True)
class SearchClock:
    """When a search must stop: at ``deadline`` (wall clock) or after ``limit``
    iterations or playouts, whichever comes first.  ``seconds`` is the time budget the
    starvation guard shortens (None: no guard, as with an iteration count alone)."""

    started: float
    cpu_started: float
    deadline: float
    limit: float
    seconds: float | None

    @classmethod
    def start(cls, seconds: float | None, iterations: int | None) -> SearchClock:
        """A clock started now for ``seconds`` or ``iterations`` (at least one)."""
        if seconds is None and iterations is None:
            raise ValueError("search needs a time or an iteration budget")
        started = time.perf_counter()
        cpu_started = time.process_time()
        deadline = math.inf if seconds is None else started + seconds
        limit = math.inf if iterations is None else iterations
        return cls(started, cpu_started, deadline, limit, seconds)

    def without_starvation_guard(self) -> SearchClock:
        """The same clock thinking to its deadline whatever share of a core it gets."""
        return SearchClock(self.started, self.cpu_started, self.deadline, self.limit, None)

    def starved_deadline(self, spent: float) -> float:
        """The deadline the starvation guard sets after ``spent`` seconds of search."""
        assert self.seconds is not None
        return starved_deadline(self.started, self.seconds, spent,
                                time.process_time() - self.cpu_started)


# ------------------------------------------------------------------ the tree search


def run_iterations(iterate: Callable[[], None], visits: Callable[[int], int],
                   legal: list[int], clock: SearchClock) -> None:
    """Call ``iterate`` (one iteration of a tree search) until ``clock`` runs out or the
    most visited of ``legal`` (``visits(action)``) can no longer be overtaken."""
    started, deadline, limit = clock.started, clock.deadline, clock.limit
    guarded = clock.seconds is not None
    done = 0
    while done < limit:
        now = time.perf_counter()
        if now >= deadline:
            break
        if done % CHECK_EVERY == 0 and done:
            spent = now - started
            counts = [visits(action) for action in legal]
            if decided(counts, done, spent, deadline - now, limit - done):
                break
            if guarded and spent > STARVED_AFTER:
                deadline = min(deadline, clock.starved_deadline(spent))
        iterate()
        done += 1


def decided(counts: list[int], done: int, spent: float, left: float,
            iterations_left: float) -> bool:
    """True when the most visited action (its visits among ``counts``) can no longer be
    overtaken: its lead is more than the iterations still possible (at the rate so far).
    Saves time on easy decisions without changing the answer."""
    if len(counts) < 2:
        return True
    possible = min(iterations_left, done / spent * left if spent > 0 else math.inf)
    ranked = sorted(counts, reverse=True)
    return ranked[0] - ranked[1] > possible


def most_visited(legal: list[int], visits: Callable[[int], int]) -> int:
    """The tree search's answer: the most visited action (the first on ties)."""
    return max(legal, key=visits)


# ----------------------------------------------------------------- the paired search


class Tally(Protocol):
    """An action's statistics at the root: its playouts and each seat's total reward."""

    visits: int
    totals: list[float]


def paired_search(legal: list[int], playout: Callable[[int, int], list[float]],
                  rng: random.Random, clock: SearchClock, seat: int,
                  tallies: Mapping[int, Tally], *, prune_every: int = 0,
                  prune_z: float = 3.0, deviate_z: float = 0.0) -> tuple[int, int]:
    """Flat Monte Carlo over the root's actions ``legal`` with common random numbers:
    each round draws one seed and plays every action out from it (``playout(action,
    seed)``: each seat's reward), adding up in ``tallies[action]``.  The answer is the
    best total reward for ``seat`` (the first on ties), and the playouts made.

    ``prune_every``: every this many rounds, drop the actions whose mean paired deficit
    to the best one is more than ``prune_z`` standard errors, so the rounds go to the
    actions still in contention (one left: it is the answer).  ``deviate_z``: answer
    another action than the first (the favourite) only when its mean paired advantage
    over it is more than this many standard errors."""
    # the actions still searched; when some are pruned, the rounds go on among the
    # others (the survivors have all played every round so far, so their totals compare)
    active = list(legal)
    history: dict[int, list[float]] = {action: [] for action in legal}  # seat's rewards
    done = rounds = 0
    pruned = True
    while pruned:
        pruned = False
        for results in paired_rounds(active, playout, rng, clock, clock.limit - done):
            for action, result in zip(active, results, strict=True):
                tally = tallies[action]
                tally.visits += 1
                totals = tally.totals
                for s in range(len(result)):
                    totals[s] += result[s]
                history[action].append(result[seat])
            done += len(results)
            rounds += 1
            if prune_every and rounds % prune_every == 0:
                kept = survivors(tallies, active, history, seat, prune_z)
                if len(kept) < len(active):
                    active, pruned = kept, True
                    break
    if not rounds:
        return legal[0], done
    best = max(active, key=lambda a: tallies[a].totals[seat])  # first on ties
    favourite = legal[0]
    if (deviate_z and best != favourite and favourite in active
            and not significant(history[best], history[favourite], deviate_z)):
        best = favourite
    return best, done


def paired_rounds(legal: list[int], playout: Callable[[int, int], list[float]],
                  rng: random.Random, clock: SearchClock, limit: float
                  ) -> Iterator[list[list[float]]]:
    """The rounds of a paired search: each draws one seed from ``rng`` and yields
    ``playout(action, seed)`` for every action of ``legal``, in order, until ``limit``
    playouts or the clock's deadline (shortened when the process is starved); a round
    the deadline cuts short is dropped, so every action keeps the same count."""
    started, deadline = clock.started, clock.deadline
    guarded = clock.seconds is not None
    done = rounds = 0
    while done + len(legal) <= max(limit, len(legal)) and len(legal) > 1:
        now = time.perf_counter()
        if now >= deadline:
            break
        spent = now - started
        if guarded and rounds and spent > STARVED_AFTER:
            deadline = min(deadline, clock.starved_deadline(spent))
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


def significant(better: list[float], worse: list[float], z: float) -> bool:
    """Whether ``better``'s mean paired advantage over ``worse`` (round by round, the
    same random numbers) is more than ``z`` standard errors."""
    rounds = len(better)
    if rounds < 2:
        return False
    gaps = [x - y for x, y in zip(better, worse, strict=True)]
    mean = sum(gaps) / rounds
    variance = sum((g - mean) ** 2 for g in gaps) / (rounds - 1)
    return mean > z * math.sqrt(variance / rounds)


def survivors(tallies: Mapping[int, Tally], active: list[int],
               history: dict[int, list[float]], seat: int, z: float) -> list[int]:
    """The actions of ``active`` (in order) whose mean paired deficit to the best is at
    most ``z`` standard errors: each round played them from the same random numbers, so
    the differences round by round carry little of the luck."""
    best = max(active, key=lambda a: tallies[a].totals[seat])  # first on ties
    leader = history[best]
    return [action for action in active
            if action == best or not significant(leader, history[action], z)]


# ---------------------------------------------------------------------- the rewards


def pairwise_rewards(values: list[float], scale: float) -> list[float]:
    """Per seat, in [0, 1]: the mean over the other seats of ``0.5 + 0.5 tanh(margin /
    scale)``, its margin over each (the pairwise order the leaderboard rates)."""
    others = len(values) - 1
    tanh = math.tanh
    rewards = []
    for value in values:
        # the seat's own term is tanh(0) = 0 and drops out; added left to right, as the
        # compiled Ra core adds (sum() of floats rounds otherwise from Python 3.12 on)
        total = 0.0
        for v in values:
            total += tanh((value - v) / scale)
        rewards.append(0.5 + 0.5 * total / others)
    return rewards


def best_rival_rewards(values: list[float], scale: float) -> list[float]:
    """Per seat, in [0, 1]: ``0.5 + 0.5 tanh(margin / scale)``, its margin over the best
    other seat."""
    tanh = math.tanh
    result = []
    for seat, value in enumerate(values):
        rival = max(v for s, v in enumerate(values) if s != seat)
        result.append(0.5 + 0.5 * tanh((value - rival) / scale))
    return result


# ----------------------------------------------------------------- the bot around it


class TimedSearch:
    """What a search bot does with the arena's time, the same for every game's search:
    the bot seed and time control from ``new_game``, the game clock left from each
    request (``on_request``, the SDK's hook; without it the search counts its own
    thinking against the clock), and ``choose`` timing each decision.  A subclass gives
    its ``name``, ``version``, ``settings`` (how much of the time it thinks),
    ``epochs_left`` (how far the game still has to go) and ``_choose``."""

    name: str
    version: str
    settings: TimeShare

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

    def epochs_left(self, observation: dict[str, JSON]) -> float:
        """How much of the game is still to play, in epochs (spreads a game clock)."""
        raise NotImplementedError

    def budget(self, observation: dict[str, JSON]) -> float | None:
        """Seconds to think (None when only an iteration count limits the search)."""
        if self.fixed_search():
            return None
        return think_seconds(self.move_ms, self.seconds, self.clock_left_ms(),
                             self.epochs_left(observation), self.settings)

    def seconds_left(self, observation: dict[str, JSON], started: float) -> float | None:
        """What is left of the budget for a decision asked at ``started`` (None: only an
        iteration count limits the search)."""
        budget = self.budget(observation)
        return None if budget is None else max(0.0, budget - (time.perf_counter() - started))

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


def serve_search_bot(make: Callable[..., TimedSearch], description: str,
                     ra_engine: bool = False) -> None:
    """The protocol bot of a search strategy (arena/bots/mcts, arena/bots/dice-mcts):
    ``--seconds S`` caps the thinking per decision, ``--iterations N`` fixes the search
    instead (deterministic: the same decisions as in-process for the same game seed);
    with ``ra_engine``, ``--engine`` chooses the Ra engine it searches on."""
    from arena.sdk import run

    strategy = make(**search_options(None, description, ra_engine))
    engine = getattr(strategy, "engine", None)
    if engine is not None:  # in the bot's log: what it searches on
        from arena.games.ra.engines import describe
        from arena.strategies.mcts import step_of

        step = step_of(getattr(strategy, "settings", None))
        searching = f", searching as {strategy.name} {step}" if step else ""
        print(f"{strategy.name} {strategy.version} on {describe(engine)}{searching}",
              file=sys.stderr)
    run(strategy.choose, name=strategy.name, version=strategy.version,
        on_new_game=strategy.new_game, on_request=strategy.on_request)


def search_options(argv: Sequence[str] | None, description: str = "",
                   ra_engine: bool = False) -> dict[str, Any]:
    """``seconds`` and ``iterations`` from a search bot's arguments (None: ``sys.argv``),
    and with ``ra_engine`` the ``engine`` (arena/games/ra/engines.py) and the
    ``settings`` of a ``--step`` (mcts's STEPS); argparse exits
    (SystemExit) on a bad one.  The in-process entry points
    (arena/strategies/entry_points.py) read the same arguments."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    if ra_engine:
        from arena.games.ra.engines import add_engine_argument
        from arena.strategies.mcts import STEPS

        add_engine_argument(parser)
        parser.add_argument("--step", choices=list(STEPS), default=None,
                            help="play this version's search (default: the bundled one "
                                 "for the engine)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="think at most this long per decision")
    parser.add_argument("--iterations", type=int, default=None,
                        help="search this many iterations per decision (deterministic)")
    options = parser.parse_args(argv)
    if options.seconds is not None and not options.seconds > 0:
        parser.error("--seconds must be more than 0")
    if options.iterations is not None and options.iterations < 1:
        parser.error("--iterations must be at least 1")
    found = {"seconds": options.seconds, "iterations": options.iterations}
    if ra_engine:
        found["engine"] = options.engine
        if options.step is not None:
            found["settings"] = STEPS[options.step]
    return found


def _positive(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None
