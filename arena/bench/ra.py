"""``arena bench ra``: Ra's random playouts on both engines in one run, against the pure
engine and the API floor measured beside them.

Per player count, game by game in turn (so the machine's load hits every figure alike),
the same random games (``arena.games.selfplay.random_playout``: seed ``s``, choices by
``random.Random(s).choice``) are played:

* on the pure-Python engine through the public API (the baseline);
* on the compiled core through the same API loop (what an environment or a referee
  gets: the loop itself costs the API floor);
* on the compiled core as whole playouts in C (``_core.random_games``: what a search
  gets, one call per playout), the same games to the bit;
* on the API floor (arena/bench/games.py: the API loop over rules that cost nothing, as
  many decisions as the pure game), which no engine reached through the API beats.

The figures: games per second of each; each engine's speed-up over the pure engine (by
wall time, and by CPU time, steadier on a loaded machine); and the whole playouts in C
against the floor (above 1: faster than any engine could be through the API loop).
The issue's goal: at least 10x the pure engine at 2 to 5 players.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from arena.bench.games import _mean_legal_width, _NullGame
from arena.errors import ArenaError
from arena.games.ra import RaGame, engines
from arena.games.ra.editions import RULES, full_options
from arena.games.selfplay import random_playout


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    counts = args.players or [2, 3, 4, 5]
    for count in counts:
        if not 2 <= count <= 5:
            raise ArenaError(f"ra is for 2-5 players, not {count}")
    compiled = engines.compiled_available()
    rows = [_row(players, args.seconds, args.seed, compiled) for players in counts]
    notes = [
        "the same random games on each (seed s, random.Random(s).choice), interleaved game "
        "by game; games/s by wall time",
        "python: the pure-Python engine through the API loop (is_terminal, legal_actions, "
        "a seeded choice, apply_action): the baseline",
        "API floor: that loop over rules that cost nothing (as many decisions as the pure "
        "game, legal lists of the game's mean length)",
    ]
    if compiled:
        notes += [
            "compiled API: the compiled core through the same loop; compiled C: whole "
            "playouts in C (one call each), the same games to the bit",
            "C ÷ python: the whole playouts' speed-up over the pure engine (CPU: by CPU "
            "time); C ÷ floor: over the API floor (above 1: faster than any engine through "
            "the API loop). Goal: C ÷ python >= 10 at 2-5 players",
        ]
    else:
        notes.append(f"no compiled core to measure: {engines.describe(engines.AUTO)}")
    return {
        "title": "Ra: random playouts on both engines, in-process, one core",
        "benchmark": "ra",
        "engine": engines.describe(engines.AUTO),
        "rows": rows,
        "notes": notes,
    }


def _row(players: int, seconds: float, seed: int, compiled: bool) -> dict[str, Any]:
    pure_game = RaGame(engines.PYTHON)
    core_game = RaGame(engines.COMPILED) if compiled else None
    random_games: Callable[..., tuple[int, list[int]]] | None = None
    if compiled:
        from arena.games.ra import _core

        random_games = _core.random_games
    rules = RULES[full_options(None)["edition"]]  # what new_game(players, seed) plays
    null = _NullGame(_mean_legal_width(pure_game, players, seed))
    clock, cpu_clock = time.perf_counter, time.process_time
    wall = {"python": 0.0, "compiled API": 0.0, "compiled C": 0.0, "API floor": 0.0}
    cpu = dict.fromkeys(wall, 0.0)
    games = decisions = 0
    deadline = clock() + seconds

    def timed(name: str, run: Callable[..., Any], *args: Any) -> Any:
        start, cpu_start = clock(), cpu_clock()
        result = run(*args)
        wall[name] += clock() - start
        cpu[name] += cpu_clock() - cpu_start
        return result

    while clock() < deadline or games == 0:
        game_seed = seed + games
        made = timed("python", random_playout, pure_game, players, game_seed)[1]
        if core_game is not None and random_games is not None:
            again = timed("compiled API", random_playout, core_game, players, game_seed)[1]
            in_c = timed("compiled C", random_games, players, game_seed, 1, rules, False)[0]
            if not made == again == in_c:
                raise ArenaError(f"game {game_seed}: the engines played {made}, {again} and "
                                 f"{in_c} decisions")
        null.decisions = made
        timed("API floor", random_playout, null, 1, game_seed)
        decisions += made
        games += 1
    row: dict[str, Any] = {"players": players, "games": games,
                           "decisions/game": decisions / games}
    for name in wall:
        if wall[name]:
            row[f"{name} games/s"] = games / wall[name]
    if compiled:
        row["C ÷ python"] = wall["python"] / wall["compiled C"]
        row["C ÷ python (CPU)"] = cpu["python"] / cpu["compiled C"]
        row["API ÷ python"] = wall["python"] / wall["compiled API"]
        row["C ÷ floor"] = wall["API floor"] / wall["compiled C"]
    return row
