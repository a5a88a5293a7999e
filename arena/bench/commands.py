"""``arena bench TARGET``: a game name, or one of the named benchmarks in ``BENCHMARKS``."""

from __future__ import annotations

import argparse
import importlib
import json
from typing import Any

from arena.errors import ArenaError
from arena.games import BUILTIN_GAMES

# target -> module defining ``run_benchmark(args) -> dict``
BENCHMARKS: dict[str, str] = {
    "protocol": "arena.bench.protocol",
    "league": "arena.bench.league",
    "rating": "arena.bench.rating",
    "ra-bots": "arena.bench.strategies",
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
    if not args.seconds > 0:
        raise ArenaError(f"--seconds must be positive, not {args.seconds:g}")
    if args.target in BENCHMARKS:
        result = importlib.import_module(BENCHMARKS[args.target]).run_benchmark(args)
    elif args.target in BUILTIN_GAMES:
        from arena.bench.games import bench_game

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
