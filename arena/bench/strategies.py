"""``arena bench ra-bots``: how fast the bundled Ra strategies think, in-process, one core,
on each Ra engine (the compiled core where it is built, and the pure-Python one).

* greedy: every decision of greedy-only games, through the observation path a bot uses
  (observation -> determinized state -> choice): ms per decision (mean, 99th percentile,
  max).  Target: < 5 ms.
* mcts: search iterations per second from positions of those games (the figure that
  decides its strength at a given time per decision), the same positions on each engine.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from arena.errors import ArenaError
from arena.games.ra import RaGame, engines
from arena.games.ra.state import RaStateViews
from arena.strategies.greedy import GreedyStrategy, greedy_action
from arena.strategies.mcts import DEFAULT, PURE_ENGINE_DEFAULT, STEPS, search, step_of

MCTS_SLICE = 0.05  # seconds of search per sampled position
BUNDLED_STEP, PURE_STEP = step_of(DEFAULT), step_of(PURE_ENGINE_DEFAULT)
MCTS_STEPS = (str(PURE_STEP), str(BUNDLED_STEP))


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    counts = args.players or [2, 3, 4, 5]
    for count in counts:
        if not 2 <= count <= 5:
            raise ArenaError(f"Ra is for 2-5 players, not {count}")
    kinds = [engines.COMPILED, engines.PYTHON] if engines.compiled_available() else \
        [engines.PYTHON]
    share = args.seconds / 2 / len(kinds)
    rows = []
    for count in counts:
        for engine in kinds:
            rows.append(_greedy_row(count, share, args.seed, engine))
        for step in MCTS_STEPS:
            for engine in kinds:
                rows.append(_mcts_row(count, share / len(MCTS_STEPS), args.seed, engine,
                                      step))
    return {
        "title": "Ra strategies, in-process on one core, on each Ra engine",
        "rows": rows,
        "notes": [
            "greedy: every decision of greedy-only games via the observation a bot gets; "
            "target < 5 ms per decision",
            f"mcts: iterations per second, searching {MCTS_SLICE} s from positions of "
            "greedy games (the same positions on each engine), with the search of "
            f"each of the versions {', '.join(MCTS_STEPS)} (the bundled bot plays "
            f"{BUNDLED_STEP} on the compiled core, {PURE_STEP} on the pure engine)",
            f"engines: {engines.describe(engines.AUTO)}",
        ],
    }


def _greedy_row(players: int, seconds: float, seed: int, engine: str) -> dict[str, Any]:
    strategy = GreedyStrategy(engine=engine)
    game = RaGame(engine)
    times: list[float] = []
    games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or not games:
        state = game.new_game(players, seed + games)
        while not state.is_terminal():
            legal = state.legal_actions()
            observation = state.observation(state.current_player())
            legal_json = [state.action_to_json(a) for a in legal]
            started = time.perf_counter()
            index = strategy.choose(observation, legal_json)
            times.append(time.perf_counter() - started)
            state.apply_action(legal[index])
        games += 1
    times.sort()
    return {
        "bot": "greedy", "engine": engine, "players": players, "games": games,
        "decisions": len(times),
        "mean ms": 1000 * sum(times) / len(times),
        "p99 ms": 1000 * times[int(0.99 * (len(times) - 1))],
        "max ms": 1000 * times[-1],
    }


def _positions(players: int, seed: int, count: int) -> list[RaStateViews]:
    """Positions spread over greedy games (every 7th decision with a real choice)."""
    positions: list[RaStateViews] = []
    game = 0
    while len(positions) < count:
        state = RaGame(engines.PYTHON).new_game(players, seed + game)
        step = 0
        while not state.is_terminal() and len(positions) < count:
            if len(state.legal_actions()) > 1:
                step += 1
                if step % 7 == 0:
                    positions.append(state.clone())
            state.apply_action(greedy_action(state))
        game += 1
    return positions


def _mcts_row(players: int, seconds: float, seed: int, engine: str, step: str
              ) -> dict[str, Any]:
    positions = _positions(players, seed, max(1, int(seconds / MCTS_SLICE)))
    rng = random.Random(seed)
    iterations = 0
    spent = 0.0
    for position in positions:
        position = engines.as_engine(position, engine)
        started = time.perf_counter()
        _, tree = search(position, rng, seconds=MCTS_SLICE, settings=STEPS[step])
        spent += time.perf_counter() - started
        iterations += tree.visits
    return {"bot": f"mcts@{step}", "engine": engine, "players": players,
            "positions": len(positions),
            "iterations/s": iterations / spent}

