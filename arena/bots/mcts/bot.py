"""mcts: information-set Monte Carlo tree search (see bots/README.md).

It thinks for 60% of the arena's time per decision minus 80 ms (never the overage bank),
less when a whole-game clock runs short; ``--seconds S`` caps that lower, and
``--iterations N`` searches a fixed number of iterations instead, whatever the arena's
time (pick N to fit it): the same decisions as the in-process strategy for the same game
seed, whatever the machine's load.  ``--engine python`` searches on the pure-Python Ra
engine instead of the compiled core: there it plays 1.3's search (1.5's playouts would
cost it too much); ``--step VERSION`` pins a version's search on either engine (the same
decisions at a fixed iteration count, far fewer playouts per second in Python)."""

from arena.strategies.mcts import MctsStrategy
from arena.strategies.search import serve_search_bot

if __name__ == "__main__":
    serve_search_bot(MctsStrategy, __doc__, ra_engine=True)
