"""``arena bench TARGET``: speed measurements, kept out of the unit tests.

TARGET is a game name (random playouts through the engine's public API, in-process, one
core) or one of the named benchmarks in ``BENCHMARKS``, which live beside the code they
measure.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import time
from typing import Any

from arena.errors import ArenaError
from arena.games import BUILTIN_GAMES, builtin_game

# target -> module defining ``run_benchmark(args) -> dict``
BENCHMARKS: dict[str, str] = {
    "protocol": "arena.runner.bench",
    "league": "arena.league.bench",
    "rating": "arena.rating_bench",
    "ra-bots": "arena.strategies.bench",
}


def bench_arguments(parser: argparse.ArgumentParser) -> None:
    targets = ", ".join([*sorted(BUILTIN_GAMES), *BENCHMARKS])
    parser.add_argument("target", help=f"what to measure: {targets}")
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="time to spend per measurement (default 5)"
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        help="player counts (default: every count the game allows)",
    )
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def bench_command(args: argparse.Namespace) -> int:
    if args.target in BENCHMARKS:
        result = importlib.import_module(BENCHMARKS[args.target]).run_benchmark(args)
    elif args.target in BUILTIN_GAMES:
        result = bench_game(args.target, args.players, args.seconds, args.seed)
    else:
        targets = ", ".join([*sorted(BUILTIN_GAMES), *BENCHMARKS])
        raise ArenaError(f"unknown benchmark {args.target!r}; choose one of: {targets}")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_rows(result)
    return 0


def print_rows(result: dict[str, Any]) -> None:
    from tabulate import tabulate

    print(result["title"])
    print(tabulate(result["rows"], headers="keys", floatfmt=".1f"))
    for line in result.get("notes", []):
        print(line)


def random_playout(game_name: str, num_players: int, seed: int) -> int:
    """Play one game with uniformly random choices; return the number of decisions."""
    game = builtin_game(game_name)
    rng = random.Random(seed)
    state = game.new_game(num_players, seed)
    decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        decisions += 1
    return decisions


def bench_game(
    game_name: str, player_counts: list[int] | None, seconds: float, seed: int
) -> dict[str, Any]:
    game = builtin_game(game_name)
    counts = player_counts or list(range(game.min_players, game.max_players + 1))
    rows = []
    for num_players in counts:
        if not game.min_players <= num_players <= game.max_players:
            raise ArenaError(
                f"{game_name} is for {game.min_players}-{game.max_players} players, "
                f"not {num_players}"
            )
        games = decisions = 0
        cpu_start = time.process_time()  # CPU time too: wall time swings with machine load
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            decisions += random_playout(game_name, num_players, seed + games)
            games += 1
        elapsed = time.perf_counter() - start
        cpu_elapsed = time.process_time() - cpu_start
        rows.append(
            {
                "players": num_players,
                "games": games,
                "games/s": games / elapsed,
                "games/s (CPU time)": games / cpu_elapsed,
                "decisions/game": decisions / games,
                "µs/decision": 1e6 * elapsed / decisions,
            }
        )
    return {
        "title": f"{game.title}: random playouts, in-process, one core",
        "benchmark": game_name,
        "rows": rows,
    }
