"""Game engines.  Each game is a small package exposing ``GAME``, a :class:`Game`."""

from __future__ import annotations

import importlib

from arena.errors import ArenaError
from arena.games.base import Game

# The games that ship with Ra Arena: name -> module that defines GAME.
BUILTIN_GAMES: dict[str, str] = {
    "ra": "arena.games.ra",
    "ra_dice": "arena.games.ra_dice",
}


def builtin_game(name: str) -> Game:
    """The built-in game called ``name``."""
    try:
        module_name = BUILTIN_GAMES[name]
    except KeyError:
        known = ", ".join(sorted(BUILTIN_GAMES))
        raise ArenaError(f"unknown game {name!r}; known games: {known}") from None
    game: Game = importlib.import_module(module_name).GAME
    return game
