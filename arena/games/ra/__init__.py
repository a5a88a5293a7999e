"""Reiner Knizia's *Ra* (2-5 players): the rules engine.  See docs/rules-ra.md and
docs/ra-json.md."""

from arena.games.ra.determinize import determinize
from arena.games.ra.game import RaGame
from arena.games.ra.state import RaState

GAME = RaGame()

__all__ = ["GAME", "RaGame", "RaState", "determinize"]
