"""``arena selfplay GAME``: one full game between seeded random players, told as a story.

Any registered game (bundled or from a plugin) can be played; the story is the game's own
``narrate``."""

from __future__ import annotations

import argparse

from tabulate import tabulate

from arena.errors import ArenaError
from arena.games.selfplay import random_playout
from arena.settings import seed_option


def selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    from arena.plugins import game_registry

    games = ", ".join(sorted(game_registry().games)) or "none found"
    parser.add_argument("game", help=f"which game ({games})")
    parser.add_argument("--players", type=int,
                        help="number of players (default 4, or the nearest the game allows)")
    parser.add_argument("--seed", type=seed_option, default=1, help="game seed (default 1)")
    parser.add_argument("--quiet", action="store_true", help="only the final scores")


def selfplay_command(args: argparse.Namespace) -> int:
    from arena.plugins import load_game

    game = load_game(args.game)
    players = args.players
    if players is None:
        players = min(max(4, game.min_players), game.max_players)
    if not game.min_players <= players <= game.max_players:
        raise ArenaError(
            f"{game.title} is for {game.min_players}-{game.max_players} players, "
            f"not {players}"
        )
    state, _ = random_playout(game, players, args.seed)
    if not args.quiet:
        for line in game.narrate(state.record()):
            print(line)
        print()
    scores, places = state.returns(), state.placements()
    rows = sorted(
        ({"place": places[s], "seat": s, "player": f"random-{s}", "score": scores[s]}
         for s in range(players)),
        key=lambda row: (row["place"], row["seat"]),
    )
    print(f"{game.title}, {players} players, seed {args.seed}")
    print(tabulate(rows, headers="keys"))
    return 0
