"""Plays the first choice, then dies on its fifth decision of every game."""

import sys

from arena.sdk import run

decisions = 0


def new_game(message: dict) -> None:
    global decisions
    decisions = 0


def choose(observation: dict, legal: list) -> int:
    global decisions
    decisions += 1
    if decisions == 5:
        sys.exit(3)
    return 0


if __name__ == "__main__":
    run(choose, name="crasher", version="1.0.0", on_new_game=new_game)
