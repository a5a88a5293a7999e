"""Ra: The Dice Game (Reiner Knizia, 2009) for 2-4 players.  ``GAME`` is the engine."""

from arena.games.ra_dice.game import RaDiceGame

GAME = RaDiceGame()

__all__ = ["GAME", "RaDiceGame"]
