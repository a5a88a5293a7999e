"""A cheating bot: it predicts what chance brings next (Ra's next tile from the bag, the
dice game's next die) from everything it is given, with the arena's own code.

Its attacks, every one it can think of:

1. **Seed recovery.**  The game seed of a league comes from its file (the candidate seeds
   are in ``knowledge.json``, as a bot author who read the league file would have them),
   the ladder's from a counter (``stable_int("ladder-seed", counter, number)``, searched
   here).  A candidate whose public bot seed (``derived_seed(seed, seat, "bot")``) is the
   one this bot was given is the game's; the bot then deals the game itself, replays the
   actions it is told and reads the next draw from the engine.
2. **Memory** (Ra).  A table's seat rotations share their deal: the bot remembers the
   draws of every game this process played, and when the current game's draws so far
   begin one of those it predicts the next one from it.
3. Otherwise it guesses (the likeliest tile; a die's first face).

Each reply carries its prediction as the comment ``predict <how> <value>`` (<how>:
``seed``, ``memory`` or ``guess``): the tile the next draw brings, or the face of the
first die the next roll rolls.  It plays uniformly at random otherwise.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from arena.deals import derived_seed
from arena.games.ra.game import RaGame
from arena.games.ra_dice.game import RaDiceGame
from arena.league.schedule import stable_int
from arena.sdk import run

# the engines themselves (not plugin discovery, which needs packages a bot's path may
# lack); Ra's pure engine, whose bag and generator it reads
GAMES = {"ra": RaGame(engine="python"), "ra_dice": RaDiceGame()}

HERE = Path(__file__).resolve().parent
KNOWN = json.loads((HERE / "knowledge.json").read_text()) \
    if (HERE / "knowledge.json").exists() else {}
LADDER_COUNTERS = 400  # the ladder's first tables of a fresh server
LADDER_NUMBERS = 6  # tables per feed round

rng = random.Random(0)
game = None  # the engine, once known
state = None  # the game as this bot deals it (seed recovered), or None
draws: list[object] = []  # what chance brought in this game so far, in order
memory: list[list[object]] = []  # the draws of every game this process played


def candidate_seeds() -> list[int]:
    seeds = list(KNOWN.get("seeds", []))
    seeds += [stable_int("ladder-seed", counter, number)
              for counter in range(LADDER_COUNTERS) for number in range(LADDER_NUMBERS)]
    seeds += [stable_int("friendly-seed", counter) for counter in range(LADDER_COUNTERS)]
    return seeds


CANDIDATES = candidate_seeds()


def new_game(message: dict) -> None:
    global game, state
    if draws:
        memory.append(list(draws))
    draws.clear()
    rng.seed(message["seed"])
    game = GAMES[message["game"]]
    state = None
    for seed in CANDIDATES:
        if derived_seed(seed, message["seat"], "bot") == message["seed"]:
            state = game.new_game(message["num_players"], seed, message["options"])
            print(f"cheater: found the game seed {seed}", file=sys.stderr)
            break


def on_action(message: dict) -> None:
    global state
    outcome = message.get("outcome") or {}
    if "tile" in outcome:
        draws.append(outcome["tile"])
    if state is None:
        return
    for action in state.legal_actions():
        if state.action_to_json(action) == message["action"]:
            state.apply_action(action)
            break
    else:  # not the game it thought: stop using it
        state = None


def predict(observation: dict | None) -> str:
    if game is None:
        return "guess none"
    if state is not None:
        if game.name == "ra":
            peek = state.clone()
            bag = peek.bag
            return f"seed {tile_name(bag[int(peek.rng.random() * len(bag))])}"
        faces = [0] * 5
        peek = state.dice.clone()
        peek.roll(faces, (0,))  # the first die of any roll takes the first digit
        return f"seed {faces[0]}"
    if game.name == "ra":
        for past in memory:
            if len(past) > len(draws) and past[: len(draws)] == draws:
                return f"memory {past[len(draws)]}"
        bag = (observation or {}).get("bag") or {}
        likeliest = max(sorted(bag), key=lambda name: bag[name]) if bag else "none"
        return f"guess {likeliest}"
    return "guess 0"


def tile_name(tile: int) -> str:
    from arena.games.ra.tiles import TILE_NAMES

    return TILE_NAMES[tile]


def choose(observation: dict | None, legal: list) -> tuple[int, str]:
    return rng.randrange(len(legal)), "predict " + predict(observation)


if __name__ == "__main__":
    run(choose, name="cheater", version="1", on_new_game=new_game, on_action=on_action)
