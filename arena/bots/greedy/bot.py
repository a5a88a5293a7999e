"""greedy: one-step look-ahead on a hand-made valuation of Ra positions (see bots/README.md).
Its weights come from hello's parameters (bot.toml's [parameters]; arena tune tunes them).
``--engine python`` values on the pure-Python Ra engine instead of the compiled core (the
same choices, slower)."""

import sys

from arena.games.ra import engines
from arena.sdk import run
from arena.strategies.greedy import GreedyStrategy, greedy_options

if __name__ == "__main__":
    strategy = GreedyStrategy(**greedy_options(None, __doc__))
    print(f"greedy {strategy.version} on {engines.describe(strategy.engine)}", file=sys.stderr)
    run(strategy.choose, name=strategy.name, version=strategy.version,
        on_hello=lambda hello: strategy.configure(hello.get("parameters")))
