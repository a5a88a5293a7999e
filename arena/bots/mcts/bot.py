"""mcts: information-set Monte Carlo tree search (see bots/README.md).

It thinks for 60% of the arena's time per decision minus 80 ms (never the overage bank),
less when a whole-game clock runs short; ``--seconds S`` caps that lower."""

import argparse

from arena.sdk import run
from arena.strategies.mcts import MctsStrategy

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=None,
                        help="think at most this long per decision")
    options = parser.parse_args()
    if options.seconds is not None and not options.seconds > 0:
        parser.error("--seconds must be more than 0")
    strategy = MctsStrategy(seconds=options.seconds)
    run(strategy.choose, name=strategy.name, version=strategy.version,
        on_new_game=strategy.new_game, on_request=strategy.on_request)
