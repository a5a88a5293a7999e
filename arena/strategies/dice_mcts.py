"""Information-set Monte Carlo tree search for Ra: The Dice Game (``bots/dice-mcts``).

The only hidden information is the future dice, so the information set of the player to
move is the public position (:func:`state_from_observation` rebuilds it from the
observation, with the engine's own JSON loader) and a determinization is that position
with a fresh dice stream (``reseed``).  Each iteration samples one, walks the tree, adds
a node, plays on with a cheap rollout policy (:func:`rollout_action`) to the end of the
epoch (or the game), judges every seat with :func:`seat_values` and backs up, per seat,
the mean over the other seats of ``0.5 + 0.5 tanh(margin / scale)``: the pairwise
finishing order the leaderboard counts.

Unlike Ra's draws, a roll changes what the next decisions *are* (which dice are free,
which applications exist), so the tree branches on the dice shown after each action:
a decision node's child for an action holds one node per outcome seen (a deterministic
action has just one).  Selection is UCB over the actions legal in the sample, counting
availability as ISMCTS does; unvisited actions are tried in the rollout policy's order of
preference, best first.

Since 1.2 (``paired_root``) the bundled version searches no tree: it takes dice-greedy's
three best-valued actions and plays each out from the *same* sample of the future dice
(and the same random numbers for the rollout policy), round after round, answering the
best mean reward.  Comparing the candidates on common random numbers cancels the luck of the
dice between them, which the tree (1.0, 1.1) could not average out in a few hundred
rollouts: 1.1 was level with dice-greedy, 1.2 is clearly ahead of it
(arena/bots/README.md has the figures).

1.4 makes the pairing hold beyond the deciding turn: each later turn of a playout rolls
its dice and draws the rollout policy's random numbers from streams of its own
(``turn_streams``), so a reroll against a stop (one roll more) no longer shifts the dice
of every turn after it, and the spread of the paired differences falls by about 40% on
rolling decisions (20% on the others): a comparison as sharp as with ~1.6-2.8x the
playouts.  Playouts also skip the engine's list of applications (the same play, a little
faster).

Time is spent as by the Ra mcts, with the search driver they share
(:mod:`arena.strategies.search`): a share of the arena's
time per decision (1.3: 70% minus 40 ms), never the overage bank.  Up to 1.2 the search
was cut when the process got only part of a core (the Ra mcts's starvation guard); 1.3
thinks to its deadline on the wall clock whatever the CPU it gets, since the playouts
are what a loaded machine leaves it short of, and the reply costs a millisecond or two.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from arena.games.ra_dice import actions as A
from arena.games.ra_dice.actions import BITS, POPCOUNT
from arena.games.ra_dice.board import (
    ANKH,
    CIVILIZATION,
    CIVILIZATION_POINTS,
    COLOURS,
    EPOCHS,
    MONUMENT,
    MONUMENT_BONUS,
    MONUMENT_COLUMN_POINTS,
    NILE,
    NUM_COLUMNS,
    NUM_DICE,
    PHARAOH,
    REROLLS,
    SUN,
    resolve_board,
)
from arena.games.ra_dice.record import state_from_json
from arena.games.ra_dice.state import (
    APPLY,
    DISASTER,
    OVER,
    PHASES,
    ROLL,
    RaDiceState,
)
from arena.strategies import dice_greedy
from arena.strategies import search as driver
from arena.strategies.search import SearchClock, TimedSearch, TimeShare

if TYPE_CHECKING:  # the bot process itself needs none of the runner
    from arena.runner.players import PythonPlayer

JSON = Any
VERSION = "1.4.0"  # bump with any change of play: leagues tell versions apart by it


@dataclass(frozen=True)
class DiceMctsSettings(TimeShare):
    """The search's knobs, after the time's (:class:`TimeShare`), as
    :class:`arena.strategies.mcts.MctsSettings`."""

    exploration: float = 0.7  # UCB constant, for rewards in [0, 1]
    margin_scale: float = 10.0  # points of margin that make a clear lead
    # play rollouts on to the end of the game instead of the epoch's end
    to_game_end: bool = False
    # stop each iteration (tree walk and rollout) once this many turns after the root's
    # have begun: 0 judges the position when the deciding player's turn is over, so the
    # dice of later turns add no noise to the comparison of this turn's choices;
    # negative: on to the epoch's end (or the game's, with to_game_end)
    horizon_turns: int = -1
    # rolling decisions by an expectimax over the rerolls left on dice-greedy's valuation
    # of the dice (dice_greedy.lookahead_roll_values) instead of the tree search
    roll_lookahead: bool = False
    # instead of the tree: every root candidate is played out from the same sample of
    # the future dice (and the same rollout choices' random numbers) in turn, and the
    # best mean reward wins, so the comparison of candidates is a paired one (common
    # random numbers: the luck of the dice cancels between them)
    paired_root: bool = False
    # chance that a rollout decision is uniform instead of the policy's choice
    rollout_noise: float = 0.1
    # search only the greedy bot's this many best-valued actions at the root (0: all)
    root_candidates: int = 0
    # paired search: every this many rounds, drop the candidates whose mean paired
    # deficit to the best one is more than prune_z standard errors (0: never), so the
    # rounds go to the candidates still in contention; one left: it is the answer
    prune_every: int = 0
    prune_z: float = 3.0
    # paired search: answer another candidate than dice-greedy's favourite (the first)
    # only when its mean paired advantage over it is more than this many standard
    # errors (0: the best mean wins), so a short search's noise does not overrule greedy
    deviate_z: float = 0.0
    # playouts: every turn after the root's rolls its dice and draws the rollout
    # policy's random numbers from streams of its own (by its number after the root's),
    # so the paired candidates' playouts meet the same dice and the same policy choices
    # in later turns even when their own turn used a different number of rolls or
    # decisions (with one stream each, the dice of every later turn differ after a
    # reroll against a stop)
    turn_streams: bool = False
    # paired search: cut the thinking when the process gets only part of a core (the
    # Ra mcts's starvation guard); off, it thinks to its deadline on the wall clock
    # whatever share of a core it gets
    starvation_guard: bool = True


# The versions of the search, oldest first; the last one is the bundled bot's.  Each was
# measured against its predecessor with ``python -m arena.strategies.gauntlet`` (the
# commands and figures are in arena/bots/README.md).
STEPS: dict[str, DiceMctsSettings] = {
    "1.0": DiceMctsSettings(),
    # the search alone lost clearly to dice-greedy; among greedy's three best it ties it
    "1.1": DiceMctsSettings(root_candidates=3),
    # greedy's three best played out from the same dice (common random numbers), flat
    # Monte Carlo at the root: +179 Elo over dice-greedy at 3 and at 4 players (60 and 40 games)
    "1.2": DiceMctsSettings(root_candidates=3, paired_root=True),
    # the same search with more playouts at a given clock: playouts ~1.3-1.5x faster (the
    # same play: identical rewards), 70% of the time per decision minus 40 ms instead of
    # 60% minus 80 ms, and no starvation guard (on a loaded machine it cut the search to
    # a quarter of its time: ~46 playouts a decision at 0.5 s under load 6, ~200 without)
    "1.3": DiceMctsSettings(root_candidates=3, paired_root=True, time_share=0.7,
                            time_reserve=0.04, starvation_guard=False),
    # the candidates' playouts meet the same dice and policy choices in every later turn
    # (turn_streams: the paired differences' spread falls by ~40% on rolling decisions and
    # ~20% on the others: the same playouts, a sharper comparison)
    "1.4": DiceMctsSettings(root_candidates=3, paired_root=True, time_share=0.7,
                            time_reserve=0.04, starvation_guard=False, turn_streams=True),
}
DEFAULT = list(STEPS.values())[-1]


# The roll lookahead takes ~25 ms on average and up to ~0.1 s on this machine: with less
# time than this to think, rolling decisions use dice-greedy's one-reroll values.
LOOKAHEAD_SECONDS = 0.15
# With less time than this left to search, answer dice-greedy's favourite at once: a round
# of playouts takes a few ms (far more on a loaded machine) and one round says little.
MIN_SEARCH_SECONDS = 0.02


# --------------------------------------------------------------- the public position


def _options(observation: dict[str, JSON], board_options: JSON) -> dict[str, JSON]:
    """The game's options as the observation shows them: the board, and the edition (the
    rules the scores follow) when the engine names one."""
    options: dict[str, JSON] = {"board": board_options}
    if "edition" in observation:
        options["edition"] = observation["edition"]
    return options


def state_from_observation(observation: dict[str, JSON], seed: int = 0) -> RaDiceState:
    """The full position the observation shows, its future dice drawn from ``seed``."""
    n = int(observation["num_players"])
    board_options = observation["board"]
    board = resolve_board({"board": board_options}, n)
    phase = observation["phase"]
    faces = [FACE_INDEX[die["face"]] for die in observation["dice"]]
    used = sum(1 << i for i, die in enumerate(observation["dice"]) if die["used"])
    civilization = [0] * NUM_DICE
    for colour, seats in observation["civilization"].items():
        for seat in seats:
            civilization[COLOURS.index(colour)] |= 1 << seat
    monuments = [-1] * (5 * NUM_COLUMNS)
    for column, owners in enumerate(observation["monuments"]):
        for row, owner in enumerate(owners):
            if owner is not None:
                monuments[5 * column + board.colour_at[column][row]] = owner
    victims = _victims(observation, monuments, civilization) if phase == "victim" else []
    data = {
        "game": "ra_dice", "version": 1, "num_players": n, "seed": seed,
        "options": _options(observation, board_options), "dice_counter": 0,
        "scores": observation["scores"], "pharaoh": observation["pharaoh"],
        "nile": observation["nile"], "floods": observation["floods"],
        "civilization": civilization, "monuments": monuments,
        "ra": observation["ra"]["position"], "epoch": observation["epoch"],
        "player": observation["turn_player"], "phase": phase, "faces": faces,
        "rolls": REROLLS + 1 - observation["rerolls_left"] if phase == "roll" else 0,
        "used": used, "placed_monuments": observation["monuments_placed_this_turn"],
        "victims": victims, "events": [],
    }
    return state_from_json(data)


FACE_INDEX = {"sun": SUN, "pharaoh": PHARAOH, "nile": NILE, "civilization": CIVILIZATION,
              "monument": MONUMENT, "ankh": ANKH}


def _victims(observation: dict[str, JSON], monuments: list[int],
             civilization: list[int]) -> list[list[int]]:
    """The queue of disaster victims still to choose: the observation shows the first;
    the others are the later seats (in turn order) holding more than two markers of the
    struck kind, each still to lose two (the engine queues exactly those)."""
    first = observation["disaster_victim"]
    what = A.DISASTER_BASE + A.DISASTERS.index(first["what"])
    n, player = observation["num_players"], observation["turn_player"]
    order = [(player + step) % n for step in range(1, n)]
    queue = [[first["seat"], what, first["markers_to_lose"]]]
    for seat in order[order.index(first["seat"]) + 1:]:
        if what == A.DISASTER_CIVILIZATION:
            held = sum(1 for mask in civilization if mask >> seat & 1)
        else:
            held = monuments.count(seat)
        if held > 2:
            queue.append([seat, what, 2])
    return queue


# ------------------------------------------------------------------ the rollout policy

ANKH_COST = 0.9  # an Ankh left unused scores 1 point (2 per pair)
CIVILIZATION_PLANNING = (-5.0, 0.0, 2.5, 5.0, 10.0, 15.0)
MONUMENT_BONUS_PLANNING = (0.0, 0.5, 2.5, 5.0, 10.0, 15.0)


def _keep_value(state: RaDiceState, face: int, counts: list[int]) -> float:
    """How much keeping a die showing ``face`` is worth to the player rolling (rough)."""
    seat = state.player
    if face == PHARAOH:
        return 1.0 if state.pharaoh[seat] < state.board.track_top else 0.0
    if face == NILE:
        if state.floods[seat]:
            return 1.0
        return 0.9 if counts[NILE] + counts[ANKH] >= 2 else 0.4
    if face == CIVILIZATION:
        return 1.0 if counts[CIVILIZATION] + counts[ANKH] >= 2 else 0.3
    if face == MONUMENT:
        return 1.0 if counts[MONUMENT] > 1 or state.placed_monuments == 0 else 0.7
    return 1.2  # an Ankh: wild, or half a pair


def _roll_choice(state: RaDiceState, rng: random.Random) -> int:
    counts = state.free_dice()[0]
    threshold = 0.5 + 0.5 * rng.random()
    mask = 0
    faces = state.faces
    for i in range(NUM_DICE):
        face = faces[i]
        if face != SUN and _keep_value(state, face, counts) < threshold:
            mask |= 1 << i
    return mask or A.STOP  # a mask of unlocked dice is always a legal reroll


def application_value(state: RaDiceState, action: int, counts: list[int]) -> float:
    """A quick estimate of what an application brings now, less the Ankhs it takes from
    the pairs that scoring at the end of the turn would pay (DONE: 0)."""
    seat = state.player
    if action == A.DONE:
        return 0.0
    top = state.board.track_top
    if action < A.NILE_BASE:
        ankhs = action - A.PHARAOH_BASE
        spaces = min(counts[PHARAOH] + ankhs, top - state.pharaoh[seat])
        return 1.2 * spaces - ANKH_COST * ankhs
    if action < A.FLOOD_BASE:
        ankhs = action - A.NILE_BASE
        spaces = min(counts[NILE] + ankhs, top - state.nile[seat])
        return (1.0 if state.floods[seat] else 0.35) * spaces - ANKH_COST * ankhs
    if action < A.CIVILIZATION_BASE:
        ankhs = action - A.FLOOD_BASE
        gain = 0.2 if state.floods[seat] else 2.0 + 0.4 * state.nile[seat]
        return gain - ANKH_COST * ankhs
    if action < A.MONUMENT_BASE:
        added = POPCOUNT[action - A.CIVILIZATION_BASE]
        have = state.civilization_markers[seat]
        spare_civs = counts[CIVILIZATION] - added
        ankhs = max(0, 2 - spare_civs)
        return (CIVILIZATION_PLANNING[min(5, have + added)] - CIVILIZATION_PLANNING[have]
                - ANKH_COST * ankhs)
    space, partner = divmod(action - A.MONUMENT_BASE, 8)
    return _monument_gain(state, space // 5) - (
        ANKH_COST if partner == A.PARTNER_ANKH else 0.0)


def _apply_choice(state: RaDiceState, legal: list[int]) -> int:
    """The application worth most now, or DONE when none is worth anything (the values
    already charge the Ankhs an application takes from the pairs DONE would score)."""
    counts = state.free_dice()[0]
    best, best_value = A.DONE, 0.0
    monuments: dict[int, float] = {}  # a Monument application's value, by its column
    for action in legal:
        if action >= A.MONUMENT_BASE:  # the common case: many spaces and partners
            space, partner = divmod(action - A.MONUMENT_BASE, 8)
            column = space // 5
            cached = monuments.get(column)
            if cached is None:
                cached = monuments[column] = _monument_gain(state, column)
            value = cached
            if partner == A.PARTNER_ANKH:
                value -= ANKH_COST
        elif action != A.DONE:
            value = application_value(state, action, counts)
        else:
            continue
        if value > best_value:
            best, best_value = action, value
    return best


def _monument_gain(state: RaDiceState, column: int) -> float:
    """A Monument marker's value in ``column`` before any Ankh it takes."""
    own = state.monuments[5 * column : 5 * column + 5].count(state.player)
    gain = MONUMENT_BONUS_PLANNING[own + 1] - MONUMENT_BONUS_PLANNING[own]
    if not own:
        gain += 1.0  # a new column
    return gain + 0.5


def _gain_by_own(own: int) -> float:  # _monument_gain's sum, step by step
    gain = MONUMENT_BONUS_PLANNING[own + 1] - MONUMENT_BONUS_PLANNING[own]
    if not own:
        gain += 1.0
    return gain + 0.5


# (a full column, 5 markers, has no space left: its entry is never read)
_GAIN_BY_OWN = (*(_gain_by_own(own) for own in range(5)), 0.0)


def disaster_harm(state: RaDiceState, action: int) -> float:
    """What declaring a disaster costs the other players, the leader counting double."""
    seat = state.player
    n = state.num_players
    scores = state.scores
    leader = max((s for s in range(n) if s != seat), key=lambda s: scores[s])
    harm = 0.0
    for victim in range(n):
        if victim == seat:
            continue
        weight = 1.0 if victim == leader else 0.5
        if action == A.DISASTER_PHARAOH:
            loss = 1.5 * min(2, state.pharaoh[victim])
        elif action == A.DISASTER_NILE:
            loss = 0.5 * state.nile[victim] if state.floods[victim] == 1 else (
                0.1 if state.floods[victim] else 0.5 * min(2, state.nile[victim]))
        elif action == A.DISASTER_CIVILIZATION:
            have = state.civilization_markers[victim]
            loss = CIVILIZATION_PLANNING[have] - CIVILIZATION_PLANNING[max(0, have - 2)]
        elif action == A.DISASTER_MONUMENT:
            loss = 2.0 * min(2, state.monument_markers[victim])
        else:
            loss = 0.0
        harm += weight * loss
    return harm


def rollout_action(state: RaDiceState, rng: random.Random, noise: float = 0.1) -> int:
    """A plausible decision at a few µs: keep useful dice, apply the best-looking one,
    strike the leader; with chance ``noise`` a uniform one (so rollouts explore)."""
    legal = state.legal_actions()
    if noise and rng.random() < noise:
        return legal[rng.randrange(len(legal))]
    phase = state.phase
    if phase == ROLL:
        return _roll_choice(state, rng)
    if phase == APPLY:
        return _apply_choice(state, legal)
    if phase == DISASTER:
        return max(legal, key=lambda action: disaster_harm(state, action))
    return legal[rng.randrange(len(legal))]  # a victim's marker


def preference(state: RaDiceState, legal: list[int]) -> list[int]:
    """``legal`` in the order the search tries them: the rollout policy's favourites
    first (stable for equal values, so the order is deterministic)."""
    phase = state.phase
    if phase == APPLY:
        counts = state.free_dice()[0]
        return sorted(legal, key=lambda a: -application_value(state, a, counts))
    if phase == DISASTER:
        return sorted(legal, key=lambda a: -disaster_harm(state, a))
    if phase == ROLL:
        counts = state.free_dice()[0]
        faces = state.faces
        worth = [0.0 if faces[i] == SUN else _keep_value(state, faces[i], counts)
                 for i in range(NUM_DICE)]

        def kept(action: int) -> float:  # rerolling good dice first is the worst
            return -sum(worth[i] - 0.6 for i in BITS[action]) if action else 0.0

        return sorted(legal, key=lambda a: -kept(a))
    return legal


# --------------------------------------------------------------------- the valuation


def seat_values(state: RaDiceState) -> list[float]:
    """Each seat's estimated final score: its score plus what its markers should still
    bring in the scorings to come (exact when the game is over)."""
    if state.phase == OVER:
        return [float(s) for s in state.scores]
    n = state.num_players
    board = state.board
    span = max(1, board.ra_end - board.ra_start)
    progress = min(1.0, max(0.0, (state.ra - board.ra_start) / span))
    scorings = EPOCHS - state.epoch + 1  # this epoch's included
    pharaoh = state.pharaoh
    best, worst = max(pharaoh), min(pharaoh)
    mean_pharaoh = sum(pharaoh) / n
    final_monuments = _monument_points(state)
    values = []
    for seat in range(n):
        race = 0.0 if best == worst else 5.0 if pharaoh[seat] == best else (
            -2.0 if pharaoh[seat] == worst else 0.0)
        value = float(state.scores[seat])
        # this epoch's race counts more the nearer its end; later ones half
        value += race * (0.4 + 0.6 * progress) + 0.5 * race * (scorings - 1)
        value += 0.3 * (pharaoh[seat] - mean_pharaoh) * scorings
        nile = state.nile[seat]
        flooded = state.floods[seat] > 0
        value += nile * (1.0 if flooded else 0.5 * (1.0 - progress))
        value += 0.5 * nile * (scorings - 1)
        markers = state.civilization_markers[seat]
        value += progress * CIVILIZATION_POINTS[markers] + (1 - progress) * (
            CIVILIZATION_PLANNING[markers] if markers else 0.0)
        value += final_monuments[seat]
        values.append(value)
    return values


def _monument_points(state: RaDiceState) -> list[float]:
    spaces = state.monuments
    points = []
    for seat in range(state.num_players):
        columns = 0
        total = 0.0
        for column in range(NUM_COLUMNS):
            own = spaces[5 * column : 5 * column + 5].count(seat)
            if own:
                columns += 1
                total += MONUMENT_BONUS[own]
        points.append(total + MONUMENT_COLUMN_POINTS[columns])
    return points


def rewards(state: RaDiceState, scale: float) -> list[float]:
    """Per seat, in [0, 1]: its mean margin over each other seat, squashed."""
    values = seat_values(state)
    others = len(values) - 1
    tanh = math.tanh
    return [0.5 + 0.5 * sum(tanh((value - v) / scale) for v in values) / others
            for value in values]


# ------------------------------------------------------------------------- the search


class Node:
    """A decision point: per action an :class:`Edge` (statistics for that choice)."""

    __slots__ = ("edges", "visits", "order", "only")

    def __init__(self) -> None:
        self.edges: dict[int, Edge] = {}
        self.visits = 0
        self.order: list[int] | None = None  # untried actions, best first
        self.only: set[int] | None = None  # the root's candidates, if restricted


class Edge:
    """One action of a node: its statistics, and one node per dice outcome seen."""

    __slots__ = ("visits", "avail", "totals", "outcomes")

    def __init__(self, num_players: int) -> None:
        self.visits = 0
        self.avail = 0
        self.totals = [0.0] * num_players
        self.outcomes: dict[tuple[int, ...], Node] = {}


def search(root: RaDiceState, rng: random.Random, *, seconds: float | None = None,
           iterations: int | None = None, settings: DiceMctsSettings = DEFAULT,
           candidates: list[int] | None = None) -> tuple[int, Node]:
    """The best action for the seat deciding in ``root`` and the tree, by ISMCTS for
    ``seconds`` or ``iterations`` (whichever ends first; at least one must be given),
    among ``candidates`` (default: every legal action; the first is tried first)."""
    clock = SearchClock.start(seconds, iterations)
    tree = Node()
    legal = root.legal_actions() if candidates is None else candidates
    tree.order = list(legal)
    tree.only = None if candidates is None else set(candidates)
    if settings.paired_root:
        return _paired_search(root, rng, legal, clock, settings)

    def visits(action: int) -> int:
        edge = tree.edges.get(action)
        return -1 if edge is None else edge.visits

    driver.run_iterations(lambda: _iterate(root, tree, rng, settings), visits, legal, clock)
    return driver.most_visited(legal, visits), tree


def _paired_search(root: RaDiceState, rng: random.Random, legal: list[int],
                   clock: SearchClock, settings: DiceMctsSettings) -> tuple[int, Node]:
    """Flat Monte Carlo over the root's candidates with common random numbers: each
    round draws one seed and plays every candidate out from it (``paired_root``), with
    the settings' pruning and caution about overruling greedy's favourite.  The tree
    returned holds one edge per candidate (its visits and totals)."""
    tree = Node()
    n = root.num_players
    for action in legal:
        tree.edges[action] = Edge(n)
    if not settings.starvation_guard:
        clock = clock.without_starvation_guard()
    best, tree.visits = driver.paired_search(
        legal, lambda a, seed: _playout(root, a, seed, settings), rng, clock,
        root.current_player(), tree.edges, prune_every=settings.prune_every,
        prune_z=settings.prune_z, deviate_z=settings.deviate_z)
    return best, tree


# The paired search's statistics, by the names the dice tests pin them (the search
# itself is the driver's: arena/strategies/search.py).
_significant = driver.significant


def _survivors(tree: Node, active: list[int], history: dict[int, list[float]],
               seat: int, z: float) -> list[int]:
    """The pruning rule (:func:`arena.strategies.search.survivors`) on the root's edges."""
    return driver.survivors(tree.edges, active, history, seat, z)


class _NoEvents(list):  # type: ignore[type-arg]
    """An event log that keeps nothing: a playout's position is never recorded, and
    building the engine's log was a tenth of a playout's cost."""

    __slots__ = ()

    def append(self, item: object) -> None:
        pass


_NO_EVENTS = _NoEvents()


def _playout(root: RaDiceState, action: int, seed: int,
             settings: DiceMctsSettings) -> list[float]:
    """The rewards of ``action`` then the rollout policy to the horizon, the dice and
    the policy's random numbers drawn from ``seed``.

    The same play as ``state.apply_action(rollout_action(state, rng, noise))`` step by
    step, only faster: the policy's choices are legal by construction, so they go to the
    engine's rules directly (no legality check, no copy of the legal list, which a roll
    decision needs only when the noise picks a uniform action), and no event is logged."""
    state = cast(_PlayoutState, root.clone())
    state.__class__ = _PlayoutState  # the same position, the playouts' shortcuts
    state.reseed(seed)
    state.events = _NO_EVENTS
    streams = settings.turn_streams
    if streams:
        state.turn_streams = True
    rng = random.Random(seed)
    noise = settings.rollout_noise
    horizon = settings.horizon_turns
    to_end = settings.to_game_end
    turn_player = state.player
    turns = 0
    epoch = state.epoch
    state.apply_action(action)
    rand = rng.random
    while state.phase != OVER:
        if state.player != turn_player:
            turn_player = state.player
            turns += 1
            if streams:
                rng.seed(seed + turns)
        if horizon >= 0 and turns > horizon:
            break
        if horizon < 0 and not to_end and state.epoch != epoch:
            break
        phase = state.phase
        if noise and rand() < noise:
            legal = state._legal
            if legal is None:
                legal = state._compute_legal_actions()
            choice = legal[rng.randrange(len(legal))]
        elif phase == ROLL:
            choice = _roll_choice(state, rng)
        elif phase == APPLY:
            choice = _best_application(state)
        else:
            legal = state._legal
            if legal is None:
                legal = state._compute_legal_actions()
            if phase == DISASTER:
                choice = max(legal, key=lambda a: disaster_harm(state, a))
            else:
                choice = legal[rng.randrange(len(legal))]
        state._legal = None
        state._apply_legal_action(choice)
    return rewards(state, settings.margin_scale)


# ---------------------------------------------------------- the playouts' fast path
#
# A playout spends most of its time in the APPLY phase: listing every application after
# each one (a Monument die alone offers dozens of spaces and partners) and scoring each
# would cost most of it.  In a playout only the policy's choice is needed: the engine
# lists the applications only when asked (``lazy_applications``: it only checks that
# *some* exists, to end a turn with nothing to apply), and :func:`_best_application`
# finds the policy's choice from the engine's pieces of the list instead: the same
# action as ``_apply_choice(state, state.legal_actions())``, the earliest of the
# best-valued.


def _best_application(state: RaDiceState) -> int:
    """``_apply_choice`` on the engine's list of applications, without the list: the
    engine's own pieces of it (free_dice, non_monument_applications, monument_options)
    in its order."""
    counts, civ_dice, monument_dice = state.free_dice()
    best, best_value = A.DONE, 0.0
    # the engine's order: Pharaoh, Nile, flood, Civilization, Monument applications
    for action in state.non_monument_applications(counts, civ_dice):
        value = application_value(state, action, counts)
        if value > best_value:
            best, best_value = action, value
    if monument_dice:
        spaces, seat = state.monuments, state.player
        # a marker's value by column (_monument_gain's, by the markers already there)
        gains = [_GAIN_BY_OWN[spaces[5 * column : 5 * column + 5].count(seat)]
                 for column in range(NUM_COLUMNS)]
        for targets, partners in state.monument_options(monument_dice, counts[ANKH]):
            # a die partner (or none, for the turn's first marker) costs nothing and the
            # Ankh its ANKH_COST, so only the engine's first other partner than the Ankh
            # can be chosen (the Ankh comes first), or the Ankh when it is the only one
            partner = partners[0]
            if partner == A.PARTNER_ANKH and len(partners) > 1:
                partner = partners[1]
            cost = ANKH_COST if partner == A.PARTNER_ANKH else 0.0
            for space in targets:
                value = gains[space // 5] - cost
                if value > best_value:
                    best, best_value = A.MONUMENT_BASE + 8 * space + partner, value
    return best


# the engine's check, by the name the dice tests pin it (once a copy of the engine's rules)
_can_apply = RaDiceState.can_apply


class _PlayoutState(RaDiceState):
    """A playout's position: entering the APPLY phase does not list the applications
    (the rollout policy needs none; a uniform choice lists them when it is made); with
    ``turn_streams``, the n-th turn after the root's rolls with the dice counter from
    3n (a turn rolls at most REROLLS + 1 = 3 times, the root's turn from 0)."""

    lazy_applications = True
    turn_streams = False
    turns_begun = 0

    def _start_turn(self) -> None:
        if self.turn_streams:
            self.turns_begun += 1
            self.dice.counter = (REROLLS + 1) * self.turns_begun
        RaDiceState._start_turn(self)


def _iterate(root: RaDiceState, tree: Node, rng: random.Random,
             settings: DiceMctsSettings) -> None:
    state = root.clone()
    state.reseed(rng.getrandbits(63))  # a fresh sample of the future dice
    n = state.num_players
    exploration = settings.exploration
    node = tree
    path: list[Edge] = []
    horizon = settings.horizon_turns
    turns = 0  # turns begun since the root's
    turn_player = state.player
    while state.phase != OVER:
        if horizon >= 0 and state.player != turn_player:
            turn_player = state.player
            turns += 1
            if turns > horizon:
                break
        legal = state.legal_actions()
        if node.only is not None:
            legal = [a for a in legal if a in node.only]
        player = state.current_player()
        edges = node.edges
        if node.order is None:
            node.order = preference(state, legal)
        action = next((a for a in node.order if a not in edges and a in legal), -1)
        if action < 0:  # everything tried: UCB among the actions legal in this sample
            best_score = -1.0
            log = math.log
            for a in legal:
                edge = edges.get(a)
                if edge is None:  # only reached by another sample: try it now
                    action = a
                    break
                edge.avail += 1
                score = edge.totals[player] / edge.visits + exploration * math.sqrt(
                    log(edge.avail) / edge.visits)
                if score > best_score:
                    best_score, action = score, a
        edge = edges.get(action)
        if edge is None:  # expansion: one new edge per iteration, then the rollout
            edge = edges[action] = Edge(n)
            for a in legal:
                if a in edges:
                    edges[a].avail += 1
            state.apply_action(action)
            path.append(edge)
            break
        state.apply_action(action)
        path.append(edge)
        # the dice shown (and whose turn, how far Ra is) tell the outcomes apart
        outcome = (*state.faces, state.player, state.ra, state.phase)
        child = edge.outcomes.get(outcome)
        if child is None:
            child = edge.outcomes[outcome] = Node()
        node = child
    epoch = state.epoch
    noise = settings.rollout_noise
    to_end = settings.to_game_end
    if horizon >= 0:
        while state.phase != OVER and turns <= horizon:
            if state.player != turn_player:
                turn_player = state.player
                turns += 1
                if turns > horizon:
                    break
            state.apply_action(rollout_action(state, rng, noise))
    else:
        while state.phase != OVER and (to_end or state.epoch == epoch):
            state.apply_action(rollout_action(state, rng, noise))
    result = rewards(state, settings.margin_scale)
    tree.visits += 1
    for edge in path:
        edge.visits += 1
        totals = edge.totals
        for seat in range(n):
            totals[seat] += result[seat]


# ----------------------------------------------------------------------- the strategy


def legal_matches(state: RaDiceState, legal: list[dict[str, JSON]]) -> list[int]:
    """The engine actions in the order of ``legal``; ValueError if they differ."""
    actions = state.legal_actions()
    if [state.action_to_json(a) for a in actions] != legal:
        raise ValueError("the legal list does not match the observation's position")
    return actions


class DiceMctsStrategy(TimedSearch):
    """``choose(observation, legal) -> index`` with ISMCTS over the dice (see the module
    docstring); the same interface and time handling as :class:`MctsStrategy`."""

    name = "dice-mcts"
    version = VERSION
    settings: DiceMctsSettings

    def __init__(self, seconds: float | None = None, iterations: int | None = None,
                 seed: int = 0, settings: DiceMctsSettings = DEFAULT) -> None:
        super().__init__(seconds, iterations, seed)
        self.settings = settings

    def epochs_left(self, observation: dict[str, JSON]) -> float:
        """The epochs still to score, the current one whole (the dice game shows no
        finer progress that the clock could follow)."""
        return max(0.0, EPOCHS - int(observation.get("epoch", 1)) + 1.0)

    def _choose(self, observation: dict[str, JSON], legal: list[dict[str, JSON]],
                started: float) -> int:
        if len(legal) == 1:
            return 0
        if self.settings.roll_lookahead and observation.get("phase") == "roll":
            budget = self.budget(observation)
            if budget is None or budget >= LOOKAHEAD_SECONDS:
                values = dice_greedy.lookahead_roll_values(observation, legal)
            else:  # too little time for the lookahead (up to ~0.1 s): greedy's values
                values = dice_greedy.action_values(observation, legal)
            best = 0
            for index, value in enumerate(values):
                if value > values[best] + 1e-9:
                    best = index
            return best
        state = state_from_observation(observation)
        actions = legal_matches(state, legal)
        candidates = None
        if self.settings.root_candidates:
            values = dice_greedy.action_values(observation, legal)
            ranked = sorted(range(len(legal)), key=lambda i: (-values[i], i))
            candidates = [actions[i] for i in ranked[:self.settings.root_candidates]]
        seconds = self.seconds_left(observation, started)
        if candidates and seconds is not None and seconds < MIN_SEARCH_SECONDS:
            self.last_iterations = 0  # too little time for a round: greedy's favourite
            return actions.index(candidates[0])
        action, tree = search(state, self.rng, seconds=seconds, iterations=self.iterations,
                              settings=self.settings, candidates=candidates)
        self.last_iterations = tree.visits
        if not tree.visits:  # no time to search: the greedy bot's choice, at once
            if candidates:
                return actions.index(candidates[0])
            return dice_greedy.choose(observation, legal)
        return actions.index(action)


def dice_mcts_player(name: str = "dice-mcts", *, seconds: float | None = None,
                     iterations: int | None = None,
                     settings: DiceMctsSettings = DEFAULT) -> PythonPlayer:
    """This strategy as an in-process player for the referee (tests, gauntlets)."""
    from arena.runner.players import PythonPlayer

    strategy = DiceMctsStrategy(seconds=seconds, iterations=iterations, settings=settings)
    return PythonPlayer(name, strategy.choose, version=strategy.version,
                        on_new_game=strategy.new_game)


__all__ = ["PHASES", "DiceMctsSettings", "DiceMctsStrategy", "dice_mcts_player",
           "search", "state_from_observation"]
