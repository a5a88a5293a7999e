"""The built-in games, registered through the same hook as any third-party game.

Each built-in game is its own small plugin object so that an engine that fails to import
is reported on its own and never hides the other one."""

from __future__ import annotations

from arena.games import BUILTIN_GAMES, builtin_game
from arena.games.base import Game
from arena.plugins.hookspecs import hookimpl


class BuiltinGamePlugin:
    """Registers one built-in game, importing its engine only when asked."""

    def __init__(self, game_name: str) -> None:
        self.game_name = game_name
        self.module_name = BUILTIN_GAMES[game_name]

    @hookimpl
    def arena_register_games(self) -> list[Game]:
        return [builtin_game(self.game_name)]

    def __repr__(self) -> str:
        return f"BuiltinGamePlugin({self.game_name!r})"


def builtin_plugins() -> list[tuple[str, BuiltinGamePlugin]]:
    """(plugin name, plugin) for every built-in game, in a stable order."""
    return [(f"built-in game {name}", BuiltinGamePlugin(name)) for name in sorted(BUILTIN_GAMES)]
