"""Plays the first choice, but thinks for ten seconds on its third decision of a game."""

import time

from arena.sdk import run

decisions = 0


def new_game(message: dict) -> None:
    global decisions
    decisions = 0


def choose(observation: dict, legal: list) -> int:
    global decisions
    decisions += 1
    if decisions == 3:
        time.sleep(10)
    return 0


if __name__ == "__main__":
    run(choose, name="slowpoke", version="1.0.0", on_new_game=new_game)
