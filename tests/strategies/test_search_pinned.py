"""The search bots' choices pinned: mcts and dice-mcts, at fixed seeds and iteration
counts, make exactly the decisions (and gather exactly the statistics) that they made
before their search driver and the dice engine's legality checks were shared (issue
27).  A digest of the root's statistics pins every playout's reward, not only the
answer; a change of play must change these figures on purpose (and bump the bot's
version)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from arena.games.ra import GAME as RA
from arena.games.ra import RaState, engines
from arena.games.ra_dice.state import OVER, RaDiceState
from arena.plugins import load_game
from arena.strategies import dice_mcts, mcts
from arena.strategies.greedy import greedy_action

DICE = load_game("ra_dice")

# 1.2 is left out of both: at a fixed iteration count it plays as 1.3 (they differ
# only in how much of the arena's time they think)
RA_SETTINGS: dict[str, mcts.MctsSettings] = {
    **{name: settings for name, settings in mcts.STEPS.items() if name != "1.2"},
    "prior": mcts.MctsSettings(prior_weight=1.0, prior_depth=2, rollout_decisions=6),
}
DICE_SETTINGS: dict[str, dice_mcts.DiceMctsSettings] = {
    **{name: settings for name, settings in dice_mcts.STEPS.items() if name != "1.2"},
    "horizon": dice_mcts.DiceMctsSettings(horizon_turns=1, rollout_noise=0.3),
    "pruned": dice_mcts.DiceMctsSettings(root_candidates=4, paired_root=True, prune_every=3,
                                         prune_z=0.5, deviate_z=0.5, turn_streams=True),
    "game-end": dice_mcts.DiceMctsSettings(root_candidates=3, paired_root=True,
                                           to_game_end=True),
}


def ra_positions() -> list[RaState]:
    """A few positions of greedy games with a real choice."""
    found = []
    for players, seed in ((3, 1), (4, 2), (5, 3)):
        state = RA.new_game(players, seed)
        for step in range(70):
            if state.is_terminal():
                break
            if step % 23 == 11 and len(state.legal_actions()) > 1:
                found.append(state.clone())
            state.apply_action(greedy_action(state))
    return found


def dice_positions() -> list[RaDiceState]:
    """A few positions of random games with a real choice (rolls, applications,
    disasters)."""
    found = []
    for players, seed in ((2, 4), (3, 9), (4, 14)):
        rng = random.Random(seed)
        state = DICE.new_game(players, seed)
        step = 0
        while state.phase != OVER and step < 80:
            if step % 13 == 6 and len(state.legal_actions()) > 1:
                found.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            step += 1
    return found


def digest(statistics: Any) -> str:
    return hashlib.sha1(repr(statistics).encode()).hexdigest()[:12]


def ra_fingerprint(name: str, engine: str = engines.PYTHON) -> tuple[list[int], str]:
    """The answers from each position (on ``engine``), and a digest of the iterations
    made and the root's children's statistics."""
    answers, statistics = [], []
    for number, state in enumerate(ra_positions()):
        action, tree = mcts.search(engines.as_engine(state, engine), random.Random(number),
                                   iterations=90, settings=RA_SETTINGS[name])
        answers.append(action)
        statistics.append((tree.visits, sorted((a, c.visits, c.avail, c.totals)
                                               for a, c in tree.children.items())))
    return answers, digest(statistics)


def dice_fingerprint(name: str) -> tuple[list[int], str]:
    """The strategy's answers (candidates and all) from each position, and a digest of
    the playouts it made and of the root's edges of a search among the first legal
    actions."""
    answers, statistics = [], []
    settings = DICE_SETTINGS[name]
    for number, state in enumerate(dice_positions()):
        strategy = dice_mcts.DiceMctsStrategy(iterations=60, seed=number, settings=settings)
        strategy.new_game({"seed": number})
        legal = [state.action_to_json(a) for a in state.legal_actions()]
        answers.append(strategy.choose(state.observation(state.current_player()), legal))
        candidates = None
        if settings.root_candidates:
            candidates = state.legal_actions()[:settings.root_candidates]
        _, tree = dice_mcts.search(state, random.Random(number), iterations=60,
                                   settings=settings, candidates=candidates)
        statistics.append((strategy.last_iterations, sorted(
            (a, e.visits, e.avail, e.totals) for a, e in tree.edges.items())))
    return answers, digest(statistics)


# made by the code before the change (b1bdc0f), with ``python tests/strategies/
# test_search_pinned.py``
RA_PINNED: dict[str, tuple[list[int], str]] = {
    "1.0": ([0, 1, 1, 17, 0, 3, 14, 0, 42], "0835193d4dff"),
    "1.1": ([0, 0, 0, 22, 0, 3, 27, 0, 42], "5ba2f60fd94f"),
    "1.3": ([0, 0, 1, 13, 0, 3, 27, 1, 42], "84a3bd0082f1"),
    "1.5": ([0, 1, 0, 17, 0, 3, 14, 0, 42], "1cb42458dac2"),  # made when 1.5 was
    "prior": ([0, 0, 0, 22, 0, 0, 27, 0, 42], "71e85d5fa5ac"),
}
RA_CORE_TREE_PINNED = ([1, 1, 1, 22, 0, 2, 14, 1, 42], "691b32d8ffd5")
DICE_PINNED: dict[str, tuple[list[int], str]] = {
    "1.0": ([2, 10, 15, 4, 0, 3, 3, 0, 8, 6, 3, 2, 4, 0, 2, 3, 2, 1], "872aedd8412a"),
    "1.1": ([1, 14, 4, 9, 22, 6, 3, 1, 5, 6, 1, 3, 9, 20, 1, 6, 0, 2], "7809ccaa10dc"),
    "1.3": ([2, 14, 2, 9, 18, 6, 2, 1, 2, 4, 3, 2, 7, 20, 2, 6, 0, 1], "cfb2a3f923cb"),
    "1.4": ([2, 14, 2, 1, 18, 14, 2, 1, 2, 4, 3, 2, 7, 20, 1, 4, 0, 1], "09187e831571"),
    "horizon": ([1, 14, 12, 1, 1, 2, 2, 1, 0, 1, 3, 2, 4, 20, 4, 8, 2, 1], "14ee5e9b4415"),
    "pruned": ([2, 14, 6, 9, 18, 6, 3, 1, 2, 4, 3, 4, 7, 20, 5, 4, 0, 1], "d3e4065895f7"),
    "game-end": ([2, 14, 0, 9, 18, 6, 3, 1, 2, 7, 1, 2, 6, 4, 1, 0, 4, 1], "7ae032b9ef6d"),
}


@pytest.mark.parametrize("name", list(RA_SETTINGS))
def test_mcts_makes_the_pinned_choices(name: str) -> None:
    """On the pure engine, the reference."""
    assert ra_fingerprint(name) == RA_PINNED[name]


@pytest.mark.parametrize("name", [name for name, settings in RA_SETTINGS.items()
                                  if settings.paired_root])
def test_the_paired_search_makes_them_on_the_core_too(compiled_ra: type, name: str) -> None:
    assert ra_fingerprint(name, engines.COMPILED) == RA_PINNED[name]


def test_the_tree_in_the_core_makes_its_pinned_choices(compiled_ra: type) -> None:
    """The tree (1.1) with its iterations in C (``_core.Tree``) draws other random
    numbers than the Python tree: pinned on its own (tests/strategies/
    test_ra_mcts_core_tree.py checks it searches alike)."""
    assert ra_fingerprint("1.1", engines.COMPILED) == RA_CORE_TREE_PINNED


@pytest.mark.parametrize("name", list(DICE_SETTINGS))
def test_dice_mcts_makes_the_pinned_choices(name: str) -> None:
    assert dice_fingerprint(name) == DICE_PINNED[name]


if __name__ == "__main__":  # prints the figures to pin
    print("RA_PINNED = {")
    for key in RA_SETTINGS:
        print(f"    {key!r}: {ra_fingerprint(key)!r},")
    print(f"}}\nRA_CORE_TREE_PINNED = {ra_fingerprint('1.1', engines.COMPILED)!r}")
    print("DICE_PINNED = {")
    for key in DICE_SETTINGS:
        print(f"    {key!r}: {dice_fingerprint(key)!r},")
    print("}")
