"""Uniformly random among the legal choices, seeded by each new game's bot seed."""

import random

from arena.sdk import run

rng = random.Random(0)


def new_game(message: dict) -> None:
    rng.seed(message["seed"])  # same game seed, same choices


def choose(observation: dict | None, legal: list) -> int:
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name="random", version="1.0.0", on_new_game=new_game, observation=False)
