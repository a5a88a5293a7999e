"""my-bot: a Ra Arena bot in Python, with the arena's standard-library SDK (arena.sdk).  It
plays a legal action at random, seeded by each game's seed (so its games can be replayed),
until you teach choose() to play: the places marked EDIT are yours.  README.md says how to
run and test it; `arena docs writing-a-bot` says what the arena sends."""

import random

from arena.sdk import run

# EDIT: what the bot tells the arena about itself (bot.toml says the same).
NAME = "my-bot"
VERSION = "0.1.0"

rng = random.Random()  # seeded by each game: the same seed gives the same game


def on_new_game(message: dict) -> None:
    # EDIT: a new game starts: reset what you keep about a game here.  message has "game"
    # ("ra" or "ra_dice"), "num_players", "seat" (yours), "seed", "players", "options".
    rng.seed(message["seed"])


def choose(observation: dict | None, legal: list) -> int:
    # EDIT: your strategy.
    # observation: everything your seat may see (Ra: docs/ra-json.md; the dice game:
    #   docs/rules-ra-dice.md); legal: the actions you may take, each a dict such as
    #   {"type": "bid", "sun": 7}; return the index of your choice in legal.
    # Logs go to stderr, never to stdout (stdout is the protocol):
    #   print(observation, file=sys.stderr)  # after `import sys`
    # For example, draw whenever you may:
    #   for i, action in enumerate(legal):
    #       if action["type"] == "draw":
    #           return i
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name=NAME, version=VERSION, on_new_game=on_new_game)
