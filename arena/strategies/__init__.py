"""The bundled bots' strategies for Ra, importable so each bot also plays in-process.

* :class:`GreedyStrategy` (``bots/greedy``): one-step look-ahead on a hand-made valuation.
* :class:`MctsStrategy` (``bots/mcts``): information-set Monte Carlo tree search.

Each has ``choose(observation, legal) -> index``; :mod:`arena.strategies.players` wraps
them as in-process players for the referee.
"""

from arena.strategies.greedy import GreedyStrategy

__all__ = ["GreedyStrategy"]
