"""mcts's tree search with every iteration in the compiled core (``_core.Tree``): it counts
every iteration, is reproducible from its seed, stays within its node limit, and searches
as the Python tree (mcts._iterate) does, which is its reference."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games.ra import RaGame, engines
from arena.games.ra.scenario import build_state
from arena.games.ra.tiles import BID_BASE, PASS
from arena.strategies.greedy import greedy_action
from arena.strategies.mcts import STEPS, search

TREE = STEPS["1.1"]  # the tree (no paired root), pairwise rewards


def position(players: int, seed: int, moves: int) -> Any:
    """A position of the compiled core reached by ``moves`` greedy decisions."""
    state = RaGame("compiled").new_game(players, seed)
    for _ in range(moves):
        state.apply_action(greedy_action(state))
    assert not state.is_terminal()
    return state


def core_tree(seed: int = 1, **options: Any) -> Any:
    from arena.games.ra._core import Tree

    return Tree(seed, TREE.exploration, True, TREE.margin_scale, **options)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_iteration_passes_through_one_root_action(compiled_ra: type, players: int
                                                        ) -> None:
    state = position(players, players, 10 * players)
    before = state.to_json()
    tree = core_tree()
    assert tree.run(state, 500) == 500 and tree.run(state, 300) == 800
    children = tree.root_children()
    assert set(children) <= set(state.legal_actions()) and len(children) > 1
    assert sum(visits for visits, _ in children.values()) == 800
    for visits, totals in children.values():
        # rewards are in [0, 1] per seat, and the empty seats stay empty
        assert all(0 <= total <= visits for total in totals[:players])
        assert not any(totals[players:])
    assert state.to_json() == before  # the search played copies


def test_a_seed_gives_the_same_tree(compiled_ra: type) -> None:
    state = position(3, 8, 30)
    first, again, other = core_tree(5), core_tree(5), core_tree(6)
    for tree in (first, again, other):
        tree.run(state, 400)
    assert first.root_children() == again.root_children()
    assert first.root_children() != other.root_children()


def test_the_tree_stops_growing_at_its_limit(compiled_ra: type) -> None:
    state = position(4, 3, 20)
    tree = core_tree(max_nodes=40)
    assert tree.run(state, 2000) == 2000
    assert tree.size == 40  # it grew to the limit, then went on without adding nodes
    assert sum(visits for visits, _ in tree.root_children().values()) <= 2000


def test_it_bids_last_for_a_rich_lot_nobody_else_wanted(compiled_ra: type) -> None:
    pure = build_state(3, track=["gold", "gold", "gold", "pharaoh", "god"], current=0,
                       draws=["ra"])
    pure.apply_action(0)  # draw: the Ra tile starts an auction
    while pure.cur != 0:
        pure.apply_action(PASS)
    state = engines.as_engine(pure, engines.COMPILED)
    action, tree = search(state, random.Random(5), iterations=3000, settings=TREE)
    assert BID_BASE < action < PASS
    assert 0 < tree.visits <= 3000  # it may stop once the answer cannot change
    assert sum(child.visits for child in tree.children.values()) == tree.visits


@pytest.mark.parametrize(("players", "seed", "moves"), [(3, 1, 12), (3, 4, 40), (4, 2, 25),
                                                         (4, 7, 60), (5, 3, 30)])
def test_it_searches_as_the_python_tree(compiled_ra: type, players: int, seed: int,
                                        moves: int) -> None:
    """The same search with other random numbers: at 2,000 iterations both trees give
    every root action about the same mean reward for the seat deciding."""
    state = position(players, seed, moves)
    pure = engines.to_pure(state)
    seat = state.cur
    means = []
    for root in (state, pure):
        _, tree = search(root, random.Random(seed), iterations=2000, settings=TREE)
        means.append({action: child.totals[seat] / child.visits
                      for action, child in tree.children.items() if child.visits >= 100})
    shared = set(means[0]) & set(means[1])
    assert shared
    for action in shared:
        assert means[0][action] == pytest.approx(means[1][action], abs=0.06)
