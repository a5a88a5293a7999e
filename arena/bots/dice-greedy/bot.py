"""Greedy for Ra: The Dice Game; the strategy lives in arena/strategies/dice_greedy.py so
it also plays in-process.  Deterministic: it uses no randomness at all."""

from arena.sdk import run
from arena.strategies.dice_greedy import VERSION, choose

if __name__ == "__main__":
    run(choose, name="dice-greedy", version=VERSION)
