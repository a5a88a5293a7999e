"""mcts: information-set Monte Carlo tree search (see bots/README.md).

It thinks for 60% of the arena's time per decision minus 80 ms (never the overage bank),
less when a whole-game clock runs short; ``--seconds S`` caps that lower, and
``--iterations N`` searches a fixed number of iterations instead, whatever the arena's
time (pick N to fit it): the same decisions as the in-process strategy for the same game
seed, whatever the machine's load."""

import argparse

from arena.sdk import run
from arena.strategies.mcts import MctsStrategy

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=None,
                        help="think at most this long per decision")
    parser.add_argument("--iterations", type=int, default=None,
                        help="search this many iterations per decision (deterministic)")
    options = parser.parse_args()
    if options.seconds is not None and not options.seconds > 0:
        parser.error("--seconds must be more than 0")
    if options.iterations is not None and options.iterations < 1:
        parser.error("--iterations must be at least 1")
    strategy = MctsStrategy(seconds=options.seconds, iterations=options.iterations)
    run(strategy.choose, name=strategy.name, version=strategy.version,
        on_new_game=strategy.new_game, on_request=strategy.on_request)
