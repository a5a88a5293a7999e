"""The bundled strategies as in-process players for the referee (tests, benchmarks)."""

from __future__ import annotations

from arena.runner.players import PythonPlayer
from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import MctsSettings, MctsStrategy


def greedy_player(name: str = "greedy", engine: str | None = None) -> PythonPlayer:
    """The greedy bot on the Ra engine ``engine`` (None: the process's choice)."""
    strategy = GreedyStrategy(engine=engine)
    return PythonPlayer(name, strategy.choose, version=strategy.version)


def mcts_player(name: str = "mcts", *, seconds: float | None = None,
                iterations: int | None = None,
                settings: MctsSettings | None = None, engine: str | None = None
                ) -> PythonPlayer:
    """ISMCTS thinking within the game's time per decision (capped at ``seconds``), or
    for a fixed number of ``iterations`` (deterministic), on the Ra engine ``engine``
    (None: the process's choice), with ``settings`` (None: the bundled ones for that
    engine, mcts.bundled_settings)."""
    strategy = MctsStrategy(seconds=seconds, iterations=iterations, settings=settings,
                            engine=engine)
    return PythonPlayer(name, strategy.choose, version=strategy.version,
                        on_new_game=strategy.new_game)
