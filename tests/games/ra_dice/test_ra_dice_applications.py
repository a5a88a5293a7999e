"""The dice engine's pieces of its list of applications (what a search's playouts ask
instead of the list): whether any application exists, and the engine played with the
list put off until asked (``lazy_applications``) plays exactly as the engine."""

from __future__ import annotations

import random

import pytest

from arena.games.ra_dice import actions as A
from arena.games.ra_dice.actions import BITS
from arena.games.ra_dice.board import ANKH, CIVILIZATION, MONUMENT
from arena.games.ra_dice.state import APPLY, OVER, RaDiceState
from arena.plugins import load_game

GAME = load_game("ra_dice")


def applying_positions(players: int, seed: int) -> list[RaDiceState]:
    """The APPLY positions of a game with random choices."""
    rng = random.Random(seed)
    state = GAME.new_game(players, seed)
    seen = []
    while state.phase != OVER:
        if state.phase == APPLY:
            seen.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return seen


class LazyState(RaDiceState):
    lazy_applications = True


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_pieces_make_the_list_and_tell_whether_it_has_an_application(players: int) -> None:
    checked = 0
    for seed in range(6):
        for state in applying_positions(players, 100 * players + seed):
            legal = state.legal_actions()
            assert state.can_apply() == (len(legal) > 1)
            counts, civ_dice, monument_dice = state.free_dice()
            free = [state.faces[i] for i in range(5) if not state.used >> i & 1]
            assert counts == [free.count(face) for face in range(6)]
            assert civ_dice == sum(1 << i for i in range(5) if not state.used >> i & 1
                                   and state.faces[i] == CIVILIZATION)
            assert monument_dice == sum(1 << i for i in range(5) if not state.used >> i & 1
                                        and state.faces[i] == MONUMENT)
            ankhs = counts[ANKH]
            pieces = [A.DONE, *state.non_monument_applications(counts, civ_dice)]
            for targets, partners in state.monument_options(monument_dice, ankhs):
                pieces += [A.MONUMENT_BASE + 8 * space + partner
                           for space in targets for partner in partners]
            assert pieces == legal
            assert len(state.monument_options(monument_dice, ankhs)) <= len(BITS[monument_dice])
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_putting_the_list_off_plays_exactly_as_the_engine(players: int) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        state = GAME.new_game(players, seed)
        lazy = state.clone()
        lazy.__class__ = LazyState
        while state.phase != OVER:
            legal = state.legal_actions()
            assert lazy.legal_actions() == legal
            action = legal[rng.randrange(len(legal))]
            state.apply_action(action)
            lazy.apply_action(action)
        assert lazy.phase == OVER and lazy.record() == state.record()
