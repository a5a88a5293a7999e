"""A full game between seeded random players, through the engine API only: what
``arena selfplay`` shows (:mod:`arena.play.selfplay`) and ``arena bench GAME`` times."""

from __future__ import annotations

import random

from arena.errors import ArenaError
from arena.games.base import Game, GameError, GameState


def random_playout(game: Game, num_players: int, seed: int) -> tuple[GameState, int]:
    """One game with uniformly random choices (seeded by ``seed``, as is the game): the
    final state and the number of decisions."""
    try:
        state = game.new_game(num_players, seed)
    except GameError as problem:  # e.g. a plugin game that needs options
        raise ArenaError(f"cannot start {game.name}: {problem}") from None
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        # choice(legal) draws exactly as legal[randrange(len(legal))] (the same games)
        # with one Python call less: this loop is what `arena bench GAME` times
        state.apply_action(rng.choice(legal))
        decisions += 1
    return state, decisions
