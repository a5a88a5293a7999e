"""greedy: one-step look-ahead on a hand-made valuation of Ra positions (see bots/README.md).
Its weights come from hello's parameters (bot.toml's [parameters]; arena tune tunes them)."""

from arena.sdk import run
from arena.strategies.greedy import GreedyStrategy

if __name__ == "__main__":
    strategy = GreedyStrategy()
    run(strategy.choose, name=strategy.name, version=strategy.version,
        on_hello=lambda hello: strategy.configure(hello.get("parameters")))
