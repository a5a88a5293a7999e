"""The bundled bots' strategies, importable so each bot also plays in-process.

* :class:`GreedyStrategy` (``bots/greedy``, Ra): one-step look-ahead on a hand-made
  valuation (``valuation.py``).
* :class:`MctsStrategy` (``bots/mcts``, Ra): information-set Monte Carlo tree search.
* ``dice_greedy`` (``bots/dice-greedy``): Ra: The Dice Game.
* ``dice_mcts`` (``bots/dice-mcts``): Monte Carlo search over the dice game's future dice.
* ``search``: the search driver both search bots share (time, stopping, paired rounds,
  the protocol bot around them); each bot keeps only its game's tree and playouts.

The Ra strategies have ``choose(observation, legal) -> index``;
:mod:`arena.strategies.players` wraps them as in-process players for the referee, and
``bots/README.md`` describes them and their measured strength.
"""

from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import MctsStrategy

__all__ = ["GreedyStrategy", "MctsStrategy"]
