"""The bundled strategies as in-process players for the referee (tests, benchmarks)."""

from __future__ import annotations

from arena.runner.players import PythonPlayer
from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import DEFAULT, MctsSettings, MctsStrategy


def greedy_player(name: str = "greedy") -> PythonPlayer:
    strategy = GreedyStrategy()
    return PythonPlayer(name, strategy.choose, version=strategy.version)


def mcts_player(name: str = "mcts", *, seconds: float | None = None,
                iterations: int | None = None,
                settings: MctsSettings = DEFAULT) -> PythonPlayer:
    """ISMCTS thinking within the game's time per decision (capped at ``seconds``), or
    for a fixed number of ``iterations`` (deterministic)."""
    strategy = MctsStrategy(seconds=seconds, iterations=iterations, settings=settings)
    return PythonPlayer(name, strategy.choose, version=strategy.version,
                        on_new_game=strategy.new_game)
