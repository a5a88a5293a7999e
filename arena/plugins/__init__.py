"""Plugins: games and bots found through pluggy entry points and ``bot.toml`` folders.

Public API::

    from arena.plugins import discover
    registry = discover()            # or discover([Path("my-bots")])
    registry.bot("random")           # BotSpec, or ArenaError listing the known bots
    registry.game("ra")              # Game
    registry.problems                # what failed to load, and why

Plugin authors: ``from arena.plugins import hookimpl`` (the hooks are in ``hookspecs``).
"""

from arena.plugins.discovery import discover
from arena.plugins.hookspecs import hookimpl
from arena.plugins.registry import BotEntry, Problem, Registry

__all__ = ["BotEntry", "Problem", "Registry", "discover", "hookimpl"]
