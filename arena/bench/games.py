"""``arena bench GAME``: random playouts through a game engine's public API, in-process,
on one core (the engine's own speed, no referee or protocol).  Any registered game."""

from __future__ import annotations

import time
from typing import Any

from arena.errors import ArenaError
from arena.games.base import Game
from arena.games.selfplay import random_playout


def bench_game(
    game: Game, player_counts: list[int] | None, seconds: float, seed: int
) -> dict[str, Any]:
    counts = player_counts or list(range(game.min_players, game.max_players + 1))
    for num_players in counts:
        if not game.min_players <= num_players <= game.max_players:
            raise ArenaError(
                f"{game.name} is for {game.min_players}-{game.max_players} players, "
                f"not {num_players}"
            )
    rows = []
    for num_players in counts:
        games = decisions = 0
        cpu_start = time.process_time()  # CPU time too: wall time swings with machine load
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline or games == 0:
            decisions += random_playout(game, num_players, seed + games)[1]
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
                "µs/decision": 1e6 * elapsed / decisions if decisions else None,
            }
        )
    return {
        "title": f"{game.title}: random playouts, in-process, one core",
        "benchmark": game.name,
        "rows": rows,
    }
