"""Plugins: games and bots found through pluggy entry points and ``bot.toml`` folders.

Public API::

    from arena.plugins import discover
    registry = discover()            # or discover([Path("my-bots")])
    registry.bot("random")           # BotSpec, or ArenaError listing the known bots
    registry.game("ra")              # Game
    registry.problems                # what failed to load, and why
    load_game("ra")                  # one game, without reading any bot folder

Plugin authors: ``from arena.plugins import hookimpl`` (the hooks are in ``hookspecs``).
"""

from arena.plugins.discovery import discover, game_registry, load_game
from arena.plugins.hookspecs import hookimpl
from arena.plugins.registry import BotEntry, Problem, Registry

__all__ = ["BotEntry", "Problem", "Registry", "discover", "game_registry", "hookimpl",
           "load_game"]
