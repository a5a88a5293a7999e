"""dice-mcts: information-set Monte Carlo tree search over the future dice of Ra: The Dice
Game (arena/strategies/dice_mcts.py; bots/README.md gives its strength).

It thinks for 70% of the arena's time per decision minus 40 ms (never the overage bank),
less when a whole-game clock runs short; ``--seconds S`` caps that lower, and
``--iterations N`` searches a fixed number of iterations instead, whatever the arena's
time (pick N to fit it): the same decisions as the in-process strategy for the same game
seed, whatever the machine's load."""

from arena.strategies.dice_mcts import DiceMctsStrategy
from arena.strategies.search import serve_search_bot

if __name__ == "__main__":
    serve_search_bot(DiceMctsStrategy, __doc__)
