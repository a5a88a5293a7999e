"""The bundled bots' in-process entry points (``entry_point`` in their bot.toml), for
sandbox "trusted" (arena/runner/trusted.py).

Each factory is called with the bot program's arguments (``sys.argv[1:]``) and builds
what the bot's ``bot.py`` hands to :func:`arena.sdk.run`: the same ``choose``, the same
hooks, the same lean requests, so a game with the same seed makes the same decisions in
both modes.  The bots' versions in game records come from their manifests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.runner.players import PythonPlayer, first_player, random_player

if TYPE_CHECKING:
    from arena.runner.botspec import BotSpec

# The bundled bots whose strategy plays on the arena's Ra engine (arena/games/ra/engines.py):
# they search with the compiled core where it is built.
RA_ENGINE_ENTRY_POINTS = frozenset({"arena.strategies.entry_points:greedy",
                                    "arena.strategies.entry_points:mcts"})


def random(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/random: uniform, seeded by each new game's bot seed."""
    return random_player("random")


def first(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/first: always the first legal choice."""
    return first_player("first")


def greedy(args: Sequence[str], parameters: Mapping[str, float] | None = None
           ) -> PythonPlayer:
    """arena/bots/greedy, weighing as its ``parameters`` say (bot.toml's [parameters]),
    with its ``--engine``."""
    from arena.strategies.greedy import GreedyStrategy, greedy_options

    strategy = GreedyStrategy(**greedy_options(list(args)))
    strategy.configure(parameters)
    return PythonPlayer(strategy.name, strategy.choose, version=strategy.version)


def dice_greedy(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/dice-greedy."""
    from arena.strategies.dice_greedy import VERSION, choose

    return PythonPlayer("dice-greedy", choose, version=VERSION)


def mcts(args: Sequence[str]) -> PythonPlayer:
    """arena/bots/mcts, with its ``--seconds``/``--iterations``/``--engine``."""
    from arena.strategies.mcts import MctsStrategy
    from arena.strategies.search import search_options

    return _search_player(MctsStrategy(**search_options(list(args), ra_engine=True)))


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


def ra_engine_of(spec: BotSpec, in_process: bool) -> str | None:
    """The Ra engine a bot plays on (arena/games/ra/engines.py: "compiled" or "python"),
    None for a bot that uses none (or not one of ours).  A bot process starts with a clean
    environment, so only its ``--engine`` chooses there; in-process (sandbox "trusted")
    this process's ARENA_RA_ENGINE counts too."""
    if spec.entry_point not in RA_ENGINE_ENTRY_POINTS:
        return None
    from arena.games.base import GameOptionError
    from arena.games.ra import engines

    args = list(spec.command)
    choice = None if in_process else engines.AUTO
    for index, arg in enumerate(args):
        if arg == "--engine" and index + 1 < len(args):
            choice = args[index + 1]
        elif arg.startswith("--engine="):
            choice = arg.partition("=")[2]
    try:
        return engines.resolve(choice)
    except GameOptionError:
        return None  # the bot itself refuses to start, saying why


def describe_ra_engines(specs: Iterable[BotSpec], in_process: bool) -> str | None:
    """One line naming the Ra engine each bot of ``specs`` plays on (None: no such bot),
    and why the pure-Python one where the compiled core is not built."""
    from arena.games.ra import engines

    by_engine: dict[str, list[str]] = {}
    for spec in specs:
        engine = ra_engine_of(spec, in_process)
        if engine is not None:
            by_engine.setdefault(engine, []).append(spec.name)
    if not by_engine:
        return None
    parts = []
    for engine, names in sorted(by_engine.items()):
        where = engines.NAMES[engine]
        if engine == engines.PYTHON and not engines.compiled_available():
            where = engines.describe(engines.PYTHON)
        parts.append(f"{', '.join(sorted(names))} on {where}")
    line = "; ".join(parts)
    if not in_process and engines.ENGINE_VARIABLE in os.environ:
        line += (f" ({engines.ENGINE_VARIABLE} does not reach bot processes: give a bot "
                 "--engine in its command)")
    return line

