"""The bundled bots' in-process entry points (``entry_point`` in their bot.toml), for
sandbox "trusted" (arena/runner/trusted.py).

Each factory is called with the bot program's arguments (``sys.argv[1:]``) and builds
what the bot's ``bot.py`` hands to :func:`arena.sdk.run`: the same ``choose``, the same
hooks, the same lean requests, so a game with the same seed makes the same decisions in
both modes.  The bots' versions in game records come from their manifests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.runner.players import PythonPlayer, first_player, random_player


def random(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/random: uniform, seeded by each new game's bot seed."""
    return random_player("random")


def first(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/first: always the first legal choice."""
    return first_player("first")


def greedy(args: Sequence[str], parameters: Mapping[str, float] | None = None
           ) -> PythonPlayer:
    """arena/bots/greedy, weighing as its ``parameters`` say (bot.toml's [parameters])."""
    from arena.strategies.greedy import GreedyStrategy

    strategy = GreedyStrategy()
    strategy.configure(parameters)
    return PythonPlayer(strategy.name, strategy.choose, version=strategy.version)


def dice_greedy(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/dice-greedy."""
    from arena.strategies.dice_greedy import VERSION, choose

    return PythonPlayer("dice-greedy", choose, version=VERSION)


def mcts(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/mcts, with its ``--seconds``/``--iterations``."""
    from arena.strategies.mcts import MctsStrategy

    return _search_player(MctsStrategy(**_search_options(args)))


def dice_mcts(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/dice-mcts, with its ``--seconds``/``--iterations``."""
    from arena.strategies.dice_mcts import DiceMctsStrategy

    return _search_player(DiceMctsStrategy(**_search_options(args)))


def _search_options(args: Sequence[str]) -> dict[str, Any]:
    from arena.strategies.search import search_options

    return search_options(list(args))


def _search_player(strategy: object) -> PythonPlayer:
    # as serve_search_bot (arena/strategies/search.py) runs it
    from arena.strategies.search import TimedSearch

    assert isinstance(strategy, TimedSearch)
    return PythonPlayer(strategy.name, strategy.choose, version=strategy.version,
                        on_new_game=strategy.new_game, on_request=strategy.on_request)
