"""Ra enters the arena like any plugin game: through the ``arena_register_games``
hook (discovery loads this module as it loads an entry point; see
:data:`arena.plugins.discovery.BUNDLED_PLUGINS`)."""

from __future__ import annotations

from arena.games.base import Game
from arena.games.ra import GAME
from arena.plugins.hookspecs import hookimpl


@hookimpl
def arena_register_games() -> list[Game]:
    return [GAME]
