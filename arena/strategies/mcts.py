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

Version 1.5 (bundled on the compiled core) plays the paired rollouts on to the game's end,
judged by the real final scores instead of the valuation at the epoch's end, with a
quarter of their decisions greedy's: many times the work per playout, which the core's
speed pays for; on the pure-Python engine the bundled bot keeps 1.3's settings
(:func:`bundled_settings`).
On the core the tree of 1.0 and 1.1 runs whole iterations in C too (``_core.Tree``).

The search stops on its own clock: it never thinks longer than its budget (see
:func:`think_seconds`), checked after every iteration (an iteration is ~1 ms); it stops
sooner when the answer can no longer change, and when the machine is so loaded that it
gets only part of a core (then replies are slow too, so it keeps a wider margin).  That
driver, the time and the paired rounds are shared with dice-mcts
(:mod:`arena.strategies.search`); this module holds what is Ra's: the tree, the
playouts and the rewards.

It searches on either Ra engine (``MctsStrategy(engine=...)``, arena/games/ra/engines.py):
on the compiled core every playout runs in C from one call (``Core.paired_playout``:
the same rewards, so the same decisions at a fixed iteration count, tens of times more
playouts per second); on the pure-Python engine, by the functions below.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from arena.games.ra import engines
from arena.games.ra.state import RaState, RaStateViews
from arena.games.ra.tiles import OVER, TURN
from arena.strategies import search as driver
from arena.strategies.greedy import greedy_action, state_from_observation
from arena.strategies.rollout import rollout_action
from arena.strategies.search import (
    MIN_SHARE,
    MIN_THINK,
    SearchClock,
    TimedSearch,
    TimeShare,
    serve_search_bot,
)
from arena.strategies.valuation import seat_values

if TYPE_CHECKING:
    from arena.games.ra.compiled import CompiledRaState

# Installed copies of the bot (tools/outside_ais/install.py writes them) import
# serve_search_bot from here, and the Ra tests the driver's constants and its
# starvation rule (under its name from before the driver was shared).
__all__ = ["DEFAULT", "MIN_SHARE", "MIN_THINK", "PURE_ENGINE_DEFAULT", "STEPS", "MctsSettings",
           "MctsStrategy", "bundled_settings", "step_of",
           "epochs_left", "rewards", "search", "serve_search_bot", "think_seconds"]
_starved_deadline = driver.starved_deadline

JSON = Any


@dataclass(frozen=True)
class MctsSettings(TimeShare):
    """The search's knobs (after the time's, :class:`TimeShare`).  The defaults are the
    first version's; :data:`STEPS` keeps each version, so every measured improvement
    can be replayed against its predecessor (``python -m arena.strategies.gauntlet``;
    bots/README.md has the log)."""

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
    # the share of the playouts' decisions the greedy player makes (the rest are the
    # rollout policy's): 1.0 plays greedy in every seat to the epoch's end, drawing no
    # random numbers for it; a greedy decision costs about 30 rollout-policy decisions in
    # the pure engine (~60 µs) and about 10 in the compiled core (~0.5 µs)
    greedy_share: float = 0.0
    # play the rollouts to the game's end (its real scores) instead of the epoch's end
    to_game_end: bool = False

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
    # the playouts go on to the game's end and are judged by its real scores, not the
    # valuation at the epoch's end, and a quarter of their decisions are greedy's: about
    # twenty-five times the work of 1.3's playouts in the pure engine, which the compiled core's
    # speed pays for (bundled on the core; the pure engine keeps 1.3; README)
    "1.5": MctsSettings(reward="pairwise", paired_root=True, reserve_share=0.2,
                        to_game_end=True, greedy_share=0.25),
}
DEFAULT = list(STEPS.values())[-1]
# On the pure-Python engine the bundled bot plays 1.3: 1.5's playouts cost it many times
# as much, and it has a fifteenth of the core's playouts to spend (arena/bots/README.md).
PURE_ENGINE_DEFAULT = STEPS["1.3"]


def step_of(settings: MctsSettings | None) -> str | None:
    """The version in :data:`STEPS` whose search ``settings`` are (the newest of equals;
    None: none is)."""
    found = [name for name, step in STEPS.items() if step == settings]
    return found[-1] if found else None


def bundled_settings(engine: str) -> MctsSettings:
    """The bundled bot's search on the Ra engine ``engine`` (engines.COMPILED, PYTHON)."""
    return DEFAULT if engine == engines.COMPILED else PURE_ENGINE_DEFAULT

# With less time than this to search, answer greedy's choice at once: a round of paired
# playouts plays out every legal action, a few ms each, and a few rounds say less than
# greedy's valuation (measured at 0.1 s per decision, 3-4 players, before this rule:
# mcts 1.2.0 -98 [-233, -4] Elo against greedy, 28 games)
MIN_SEARCH_SECONDS = 0.03


def think_seconds(move_ms: float | None, limit: float | None = None,
                  game_ms_left: float | None = None, epochs_left: float = 3.0,
                  settings: MctsSettings = DEFAULT) -> float:
    """:func:`arena.strategies.search.think_seconds` with the bundled bot's time share
    unless told otherwise."""
    return driver.think_seconds(move_ms, limit, game_ms_left, epochs_left, settings)


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


def rewards(state: RaStateViews, settings: MctsSettings = DEFAULT) -> list[float]:
    """Per seat, in [0, 1]: how well it stands against its best rival, or against each
    rival on average (``settings.reward``)."""
    if not isinstance(state, RaState):
        return _compiled(state).rewards(settings.reward == "pairwise", settings.margin_scale)
    values = seat_values(state)
    if settings.reward == "pairwise":
        return driver.pairwise_rewards(values, settings.margin_scale)
    return driver.best_rival_rewards(values, settings.margin_scale)


def search(root: RaStateViews, rng: random.Random, *, seconds: float | None = None,
           iterations: int | None = None,
           settings: MctsSettings = DEFAULT) -> tuple[int, Node]:
    """The best action for the seat deciding in ``root``, by ISMCTS for ``seconds`` of
    wall-clock time or ``iterations`` iterations (whichever ends first; at least one
    must be given), and the search tree."""
    clock = SearchClock.start(seconds, iterations)
    n = root.num_players
    tree = Node(n)
    legal = root.legal_actions()
    if settings.paired_root:
        return _paired_search(root, rng, legal, clock, settings)

    if not isinstance(root, RaState) and settings.prior_depth == 0:
        return _search_in_core(_compiled(root), rng, legal, clock, settings)

    def visits(action: int) -> int:
        child = tree.children.get(action)
        return -1 if child is None else child.visits

    driver.run_iterations(lambda: _iterate(root, tree, rng, n, settings), visits, legal,
                          clock)
    return driver.most_visited(legal, visits), tree


# iterations of the tree in C per call into it (about a millisecond's worth)
CORE_BATCH = 32


def _search_in_core(root: CompiledRaState, rng: random.Random, legal: list[int],
                    clock: SearchClock, settings: MctsSettings) -> tuple[int, Node]:
    """The tree search of :func:`_iterate` with every iteration in C
    (``arena.games.ra._core.Tree``: the same selection, expansion, rollout and rewards,
    drawing from its own generator, seeded from ``rng``), run in batches between the
    clock's checks.  The tree returned holds the root's children."""
    from arena.games.ra._core import Tree

    core_tree = Tree(rng.getrandbits(64), settings.exploration,
                     settings.reward == "pairwise", settings.margin_scale,
                     settings.rollout_decisions, settings.greedy_share,
                     to_game_end=settings.to_game_end)
    def batches(action: int) -> int:  # the driver counts its calls: batches
        # asked only at the driver's checks, every CHECK_EVERY batches
        tally = core_tree.root_children().get(action)
        return -1 if tally is None else tally[0] // CORE_BATCH

    limit = clock.limit if math.isinf(clock.limit) else math.ceil(clock.limit / CORE_BATCH)
    batch_clock = dataclasses.replace(clock, limit=limit)
    def run_batch() -> None:
        core_tree.run(root, CORE_BATCH)

    driver.run_iterations(run_batch, batches, legal, batch_clock)
    n = root.num_players
    tree = Node(n)
    for action, (visits, totals) in core_tree.root_children().items():
        child = tree.children[action] = Node(n)
        child.visits, child.totals = visits, totals[:n]
    tree.visits = core_tree.iterations

    def visited(action: int) -> int:
        child = tree.children.get(action)
        return -1 if child is None else child.visits

    return driver.most_visited(legal, visited), tree


def _paired_search(root: RaStateViews, rng: random.Random, legal: list[int],
                   clock: SearchClock, settings: MctsSettings) -> tuple[int, Node]:
    """Flat Monte Carlo over the root's actions with common random numbers: each round
    draws one seed and plays every action out from it (``paired_root``).  The tree
    returned holds one child per action (its visits and totals)."""
    n = root.num_players
    tree = Node(n)
    for action in legal:
        tree.children[action] = Node(n)
    playout: Callable[[int, int], list[float]]
    if isinstance(root, RaState):
        def playout(action: int, seed: int) -> list[float]:
            return _playout(root, action, seed, settings)
    else:  # the whole playout in C, from one call
        core_playout = _compiled(root).paired_playout
        pairwise = settings.reward == "pairwise"
        scale, horizon = settings.margin_scale, settings.rollout_decisions
        greedy_share = settings.greedy_share
        to_game_end = settings.to_game_end

        def playout(action: int, seed: int) -> list[float]:
            return core_playout(action, seed, pairwise, scale, horizon, greedy_share,
                                to_game_end)
    best, tree.visits = driver.paired_search(legal, playout, rng, clock, root.cur,
                                             tree.children)
    return best, tree


def _playout(root: RaStateViews, action: int, seed: int, settings: MctsSettings) -> list[float]:
    """The rewards of ``action`` then the rollout policy to the epoch's end (or the
    horizon), the bag and the policy's random numbers drawn from ``seed``."""
    # a fresh generator instead of a copy of the root's (copying one is most of a
    # clone's cost), seeded as reseed seeds it
    state = root.clone(random.Random(seed))
    state.reseed(seed)
    epoch = -1 if settings.to_game_end else state.epoch
    state.apply_action(action)
    _roll_out(state, epoch, random.Random(seed + 1), settings)
    return rewards(state, settings)


def _roll_out(state: RaStateViews, epoch: int, rng: random.Random, settings: MctsSettings
              ) -> None:
    """The rollout policy to the end of ``epoch`` (of the game when negative; or the
    horizon's turn)."""
    horizon, greedy_share = settings.rollout_decisions, settings.greedy_share
    if not isinstance(state, RaState):
        _compiled(state).roll_out(epoch, rng, horizon, greedy_share)
        return
    played = 0
    while state.phase != OVER and (state.epoch == epoch or epoch < 0):
        if 0 <= horizon <= played and state.phase == TURN:
            break
        _policy_step(state, rng, greedy_share)
        played += 1


def _policy_step(state: RaStateViews, rng: random.Random, greedy_share: float) -> None:
    """One decision of the rollout policy (``greedy_share`` of them greedy's)."""
    if greedy_share >= 1.0 or (greedy_share > 0.0 and rng.random() < greedy_share):
        state.apply_action(greedy_action(state))
    else:
        state.apply_action(rollout_action(state, rng))


def _compiled(state: RaStateViews) -> CompiledRaState:
    """``state``, held by the compiled core (its playouts in C)."""
    return cast("CompiledRaState", state)


def _iterate(root: RaStateViews, tree: Node, rng: random.Random, n: int,
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
    # rollout to the end of the epoch (or the game, or the horizon), then the valuation's
    # estimate
    _roll_out(state, -1 if settings.to_game_end else state.epoch, rng, settings)
    result = rewards(state, settings)
    for visited in path:
        visited.visits += 1
        totals = visited.totals
        for seat in range(n):
            totals[seat] += result[seat]


class MctsStrategy(TimedSearch):
    """``choose(observation, legal) -> index`` with ISMCTS.

    Time as :class:`TimedSearch` handles it.  ``seconds`` caps the thinking time (None:
    as much as the arena's time allows, safely); ``iterations`` fixes the work instead,
    which makes the bot fully deterministic.  ``engine``: the Ra engine it searches on
    ("compiled", "python", "auto"; None: the process's choice, engines.py); ``settings``:
    None plays the bundled search for that engine (:func:`bundled_settings`).  At a fixed
    iteration count a paired version (1.2 on) gives the same decisions on both engines;
    the tree (1.0, 1.1) draws other random numbers in C."""

    name = "mcts"
    # bump with any change of play: leagues tell versions apart by it (1.4: the same search
    # on the compiled Ra core where it is built, many times the playouts at a time control;
    # 1.5: on the core, playouts to the game's end)
    version = "1.5.0"
    settings: MctsSettings

    def __init__(self, seconds: float | None = None, iterations: int | None = None,
                 seed: int = 0, settings: MctsSettings | None = None,
                 engine: str | None = None) -> None:
        super().__init__(seconds, iterations, seed)
        self.engine = engines.resolve(engine)
        self.settings = bundled_settings(self.engine) if settings is None else settings

    def epochs_left(self, observation: dict[str, JSON]) -> float:
        return epochs_left(observation)

    def _choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]],
                started: float) -> int:
        if len(legal) == 1:
            return 0
        state, actions = state_from_observation(observation, legal, engine=self.engine)
        seconds = self.seconds_left(observation, started)
        if seconds is not None and seconds < MIN_SEARCH_SECONDS:
            self.last_iterations = 0
            return actions.index(greedy_action(state))
        action, tree = search(state, self.rng, seconds=seconds, iterations=self.iterations,
                              settings=self.settings)
        self.last_iterations = tree.visits
        if not tree.visits:  # no time at all to search: the greedy choice is instant
            action = greedy_action(state)
        return actions.index(action)
