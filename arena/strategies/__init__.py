"""The bundled bots' strategies, importable so each bot also plays in-process.

* :class:`GreedyStrategy` (``bots/greedy``, Ra): one-step look-ahead on a hand-made
  valuation (``valuation.py``).
* :class:`MctsStrategy` (``bots/mcts``, Ra): information-set Monte Carlo tree search.
* ``dice_greedy`` (``bots/dice-greedy``): Ra: The Dice Game.

The Ra strategies have ``choose(observation, legal) -> index``;
:mod:`arena.strategies.players` wraps them as in-process players for the referee, and
``bots/README.md`` describes them and their measured strength.
"""

from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import MctsStrategy

__all__ = ["GreedyStrategy", "MctsStrategy"]
