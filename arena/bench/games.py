"""``arena bench GAME``: random playouts through a game engine's public API, in-process,
on one core (the engine's own speed, no referee or protocol)."""

from __future__ import annotations

import random
import time
from typing import Any

from arena.errors import ArenaError
from arena.games import builtin_game


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
