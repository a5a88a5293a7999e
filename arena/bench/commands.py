"""``arena bench TARGET``: a game name, or one of the named benchmarks in ``BENCHMARKS``."""

from __future__ import annotations

import argparse
import importlib
import json
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.settings import seed_option

if TYPE_CHECKING:
    from arena.plugins import Registry

# target -> module defining ``run_benchmark(args) -> dict``
BENCHMARKS: dict[str, str] = {
    "ra": "arena.bench.ra",  # Ra's engine: both engines in one run (a game's name otherwise)
    "protocol": "arena.bench.protocol",
    "league": "arena.bench.league",
    "rating": "arena.bench.rating",
    "ra-bots": "arena.bench.strategies",
    "store": "arena.bench.store",
    "sandbox": "arena.bench.sandbox",
    "sprt": "arena.bench.sprt",
    "plan": "arena.bench.plan",
    "scale": "arena.bench.scale",
    "matchmaking": "arena.bench.matchmaking",
    "formats": "arena.bench.formats",
    "serve": "arena.bench.serve",
    "freshness": "arena.bench.freshness",
    "tune": "arena.bench.tune",
    "tune-greedy": "arena.bench.tune",
}


def bench_arguments(parser: argparse.ArgumentParser) -> None:
    from arena.plugins import game_registry

    parser.add_argument("target", help=f"what to measure: {_targets(game_registry())} (a "
                                       "game's name benchmarks its engine)")
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="time to spend per measurement (default 5)"
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        help="player counts (default: every count the game allows; league --cluster: 2 3 4; "
             "formats: 2 3)",
    )
    parser.add_argument("--seed", type=seed_option, default=1, help="master seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--cluster", action="store_true",
        help="league: also on Dask worker processes on loopback, against the local backend",
    )
    parser.add_argument(
        "--games", type=int, metavar="N",
        help="scale: games in the synthesised store (default 100000); league --cluster: "
             "games per league (default 200 x --seconds); tune: the tuning's games (default "
             "400, 1600 and 6400; tune-greedy 20000)",
    )
    parser.add_argument(
        "--league-games", type=int, metavar="N",
        help="scale: games of the league whose memory is sampled (default 10000)",
    )
    parser.add_argument(
        "--repetitions", type=int, metavar="N",
        help="matchmaking: simulated ladders per scenario (default 20); league --cluster: "
             "cluster leagues per row, each between two local ones (default 7); formats: "
             "simulated leagues per row (default 100); tune: runs per budget and method "
             "(default 5)",
    )
    parser.add_argument(
        "--bots", type=int, nargs="+", metavar="N",
        help="formats: field sizes (default 16 32 64)",
    )
    parser.add_argument(
        "--cores", type=int, metavar="N",
        help="league: run on the first N of the CPUs this process may use, and so does "
             "everything it starts (default: all; league --cluster: 2, with N Dask workers)",
    )
    parser.add_argument(
        "--clients", type=int, metavar="N",
        help="serve: clients watching the server (default 50)",
    )
    parser.add_argument(
        "--database", metavar="URL",
        help="serve: also on PostgreSQL, with one and two web processes, in this empty "
             "database (postgresql://USER@HOST/DB; its tables are removed at the end)",
    )
    parser.add_argument(
        "--against", metavar="DIR",
        help="scale: also run the commands with this checkout of the arena first on "
             "PYTHONPATH (before and after, in one run)",
    )


def bench_command(args: argparse.Namespace) -> int:
    if not args.seconds > 0:
        raise ArenaError(f"--seconds must be positive, not {args.seconds:g}")
    for option in ("games", "league_games", "repetitions", "clients", "cores"):
        value = getattr(args, option, None)
        if value is not None and value < 1:
            raise ArenaError(f"--{option.replace('_', '-')} must be at least 1, not {value}")
    for option in ("bots", "players"):
        for value in getattr(args, option, None) or ():
            if value < 2:
                raise ArenaError(f"--{option} must be at least 2, not {value}")
    if args.target in BENCHMARKS:
        result = importlib.import_module(BENCHMARKS[args.target]).run_benchmark(args)
    else:
        from arena.bench.games import bench_game
        from arena.plugins import game_registry

        registry = game_registry()
        if args.target not in registry.games and args.target not in registry.unusable_games \
                and not registry.game_problems:
            raise ArenaError(f"unknown benchmark {args.target!r}; choose one of: "
                             f"{_targets(registry)}")
        game = registry.game(args.target)  # says why a game cannot be used
        result = bench_game(game, args.players, args.seconds, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_rows(result)
    return 0


def _targets(registry: Registry) -> str:
    return ", ".join(dict.fromkeys([*sorted(registry.games), *BENCHMARKS]))


def print_rows(result: dict[str, Any]) -> None:
    from tabulate import tabulate

    print(result["title"])
    print(tabulate(result["rows"], headers="keys", floatfmt=result.get("floatfmt", ".1f")))
    for line in result.get("notes", []):
        print(line)
