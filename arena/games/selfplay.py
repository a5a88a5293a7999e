"""``arena selfplay GAME``: one full game between seeded random players, told as a story."""

from __future__ import annotations

import argparse
import random

from tabulate import tabulate

from arena.errors import ArenaError
from arena.games import BUILTIN_GAMES, builtin_game


def selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=sorted(BUILTIN_GAMES), help="which game")
    parser.add_argument("--players", type=int, default=4, help="number of players (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="game seed (default 1)")
    parser.add_argument("--quiet", action="store_true", help="only the final scores")


def selfplay_command(args: argparse.Namespace) -> int:
    game = builtin_game(args.game)
    if not game.min_players <= args.players <= game.max_players:
        raise ArenaError(
            f"{game.title} is for {game.min_players}-{game.max_players} players, "
            f"not {args.players}"
        )
    state = game.new_game(args.players, args.seed)
    rng = random.Random(args.seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    if not args.quiet:
        for line in game.narrate(state.record()):
            print(line)
        print()
    scores, places = state.returns(), state.placements()
    rows = sorted(
        ({"place": places[s], "seat": s, "player": f"random-{s}", "score": scores[s]}
         for s in range(args.players)),
        key=lambda row: (row["place"], row["seat"]),
    )
    print(f"{game.title}, {args.players} players, seed {args.seed}")
    print(tabulate(rows, headers="keys"))
    return 0
