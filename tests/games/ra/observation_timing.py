"""Not a test: times Ra observations along recorded random games, the plain reference
(``observation_reference.py``, the function before the caches) against
``state.observation``, alternated in one run so a noisy machine hits both alike.

    .venv/bin/python tests/games/ra/observation_timing.py [games=40] [rounds=6]

Per round and version: the median wall time of one observation (the mover's, once per
decision along a replay, as the referee asks) and the CPU time per call
(time.process_time_ns around each call); the "empty" row is the overhead of the timing
itself (a call doing nothing), to subtract."""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from observation_reference import observation_reference

from arena.games.ra.game import RaGame
from arena.games.ra.state import RaState

Build = Callable[[RaState, int], Any]


def record_games(count: int) -> list[tuple[int, int, str, list[int]]]:
    game, rng, games = RaGame(), random.Random(7), []
    for seed in range(count):
        players, edition = rng.choice([2, 3, 4, 5]), rng.choice(["classic", "2023"])
        state = game.new_game(players, seed, {"edition": edition})
        actions = []
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            actions.append(action)
            state.apply_action(action)
        games.append((players, seed, edition, actions))
    return games


def replay(games: list[tuple[int, int, str, list[int]]], build: Build) -> tuple[float, float]:
    game, wall, cpu = RaGame(), [], 0
    clock, cpu_clock = time.perf_counter_ns, time.process_time_ns
    for players, seed, edition, actions in games:
        state = game.new_game(players, seed, {"edition": edition})
        for action in actions:
            seat = state.cur
            c0 = cpu_clock()
            t0 = clock()
            build(state, seat)
            t1 = clock()
            c1 = cpu_clock()
            wall.append(t1 - t0)
            cpu += c1 - c0
            state.apply_action(action)
    return statistics.median(wall) / 1000, cpu / len(wall) / 1000


def main() -> None:
    games = record_games(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    versions: dict[str, Build] = {
        "reference": observation_reference,
        "cached": lambda state, seat: state.observation(seat),
        "empty": lambda state, seat: None,  # the timing's own overhead
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in versions}
    for number in range(rounds):
        order = list(versions.items())
        for name, build in order if number % 2 == 0 else reversed(order):
            median, cpu = replay(games, build)
            results[name].append((median, cpu))
            print(f"round {number} {name:9s} median {median:6.2f} µs, CPU/call {cpu:6.2f} µs")
    decisions = sum(len(actions) for *_, actions in games)
    print(f"{decisions} decisions per round")
    for name, rows in results.items():
        print(f"{name:9s} median of medians {statistics.median(m for m, _ in rows):6.2f} µs, "
              f"median CPU/call {statistics.median(c for _, c in rows):6.2f} µs")


if __name__ == "__main__":
    main()
