"""What every game of a league is played under (:class:`GameSettings`, from the league
file), and :func:`play_one_game`: one game with fresh bots and no shared state, for a
caller without a pool.  How many games are played at once, and where, is a backend's
business (:mod:`arena.league.backends`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.games.base import Game
from arena.league.config import LeagueConfig
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.settings import Limits


@dataclass(frozen=True)
class GameSettings:
    """Everything a game of the league is played under (picklable, for remote workers)."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    log_dir: Path | None = None  # one stderr log per bot process start (None: discarded)


def league_settings(config: LeagueConfig) -> GameSettings:
    return GameSettings(
        config.game, dict(config.options), config.limits,
        Path(config.results_dir) / "logs",
    )


def _game(name: str) -> Game:
    from arena.plugins import discover

    game: Game = discover().game(name)
    return game


async def play_one_game(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int, game: Game | None = None
) -> GameRecord:
    """One game with fresh bot processes; returns the referee's record."""
    from arena.league.backends import play_seating
    from arena.runner.pool import open_bot_pool

    engine = game or _game(settings.game)
    async with open_bot_pool(settings.limits, settings.log_dir) as pool:
        return await play_seating(pool, engine, settings, seating, seed)


def play_one_game_sync(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int
) -> GameRecord:
    """:func:`play_one_game` for a worker without an event loop."""
    return trio.run(play_one_game, settings, seating, seed)
