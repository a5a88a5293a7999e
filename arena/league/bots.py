"""Finding the league's game and bots: the one place that asks plugin discovery.

``find_bots(config)`` returns the roster as :class:`BotSpec` objects (the gauntlet's
challenger first), each checked to play the league's game at every player count.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from arena.errors import ArenaError
from arena.games.base import Game, GameError
from arena.league.config import LeagueConfig
from arena.runner.botspec import BotSpec


def _registry(config: LeagueConfig):  # type: ignore[no-untyped-def]
    from arena.plugins import discover

    try:
        return discover(list(config.bot_paths) or None)
    except ArenaError as problem:  # a bot path that is not a folder
        raise ArenaError(f"{config.path}: key 'bot_paths': {problem}") from None


def find_game(config: LeagueConfig) -> Game:
    """The league's game, with its player counts and options checked by the engine."""
    try:
        game: Game = _registry(config).game(config.game)
    except ArenaError as problem:
        raise ArenaError(f"{config.path}: key 'game': {problem}") from None
    for count in config.players:
        if not game.min_players <= count <= game.max_players:
            raise ArenaError(
                f"{config.path}: key 'players': {game.title} is for "
                f"{game.min_players}-{game.max_players} players, not {count}"
            )
        try:
            game.new_game(count, config.seed, dict(config.options) or None)
        except GameError as problem:
            raise ArenaError(f"{config.path}: key 'options': {problem}") from None
    return game


def _print(text: str) -> None:
    print(text, file=sys.stderr)


def find_bots(
    config: LeagueConfig, available: Mapping[str, BotSpec] | None = None,
    notice: Callable[[str], None] = _print,
) -> list[BotSpec]:
    """The bots of the league; ``available`` (name -> spec) replaces discovery in tests.
    ``notice`` receives a line about each bot left out or shadowed (default: stderr)."""
    registry = None if available is not None else _registry(config)
    bots: Mapping[str, BotSpec] = (
        registry.bots if registry is not None else available if available is not None else {}
    )

    def key(name: str) -> str:
        return "challenger" if name == config.challenger else "roster"

    def lookup(name: str) -> BotSpec:
        if registry is not None:
            try:
                spec: BotSpec = registry.bot(name)  # says why a bot is unknown or broken
            except ArenaError as problem:
                raise ArenaError(f"{config.path}: key '{key(name)}': {problem}") from None
            hidden = [entry.source for entry in registry.entries
                      if entry.name == name and entry.shadowed_by is not None]
            if hidden:  # one line, as PATH would not say it: the user should know
                notice(f"{config.name}: bot {name!r} is {spec.source}, used instead of "
                       f"{', '.join(hidden)}")
        elif name in bots:
            spec = bots[name]
        else:
            raise ArenaError(
                f"{config.path}: key '{key(name)}': unknown bot {name!r}; "
                f"known bots: {', '.join(sorted(bots))}"
            )
        missing = [k for k in config.players if not spec.plays(config.game, k)]
        if missing:
            plays = spec.games.get(config.game)
            can = f"plays it with {_counts(plays)} players" if plays else "does not play it"
            raise ArenaError(
                f"{config.path}: key '{key(name)}': bot {name!r} cannot play {config.game} with "
                f"{_counts(missing)} players (it {can}); remove it from the roster or "
                "change players"
            )
        return spec

    if config.roster is None:
        if registry is not None:
            _say_who_is_left_out(config, registry, notice)
        chosen = [
            spec
            for name, spec in sorted(bots.items())
            if name != config.challenger
            and all(spec.plays(config.game, k) for k in config.players)
        ]
        if not chosen:
            raise ArenaError(
                f"{config.path}: roster = \"all\" but no bot found plays {config.game} "
                f"with {_counts(config.players)} players"
            )
    else:
        chosen = [lookup(name) for name in config.roster]
    if config.challenger is not None:
        chosen.insert(0, lookup(config.challenger))
    return chosen


def _say_who_is_left_out(  # type: ignore[no-untyped-def]
    config: LeagueConfig, registry, notice: Callable[[str], None]
) -> None:
    """roster = "all" takes the bots that can play; one line for each that cannot (its
    runtime is missing, its manifest is broken), so nobody wonders where a bot went."""
    for entry in registry.entries:
        if entry.ready or entry.shadowed_by is not None or entry.name == config.challenger:
            continue
        if entry.spec is not None and config.game not in entry.spec.games:
            continue  # a bot for another game is not missing from this league
        notice(f"{config.name}: bot {entry.name!r} left out: {entry.source}: {entry.status}")


def _counts(counts: Sequence[int] | None) -> str:
    return ", ".join(str(c) for c in counts or ())
