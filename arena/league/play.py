"""Playing one league game with real bot processes, through the runner's referee.

Two ways in:

* :func:`play_one_game` is a plain function of (settings, seating, seed) -> record, with
  no shared state: it starts its own processes and ends them.  This is what a cluster
  worker (e.g. Dask) would run; the store stays with the league.
* :func:`process_player` is what ``arena run`` uses: the same referee call, with bot
  processes kept warm in a pool across games (a bot gets a second process only while it
  is in two games at once, so a pool never holds more than the games it can be in).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.games.base import Game
from arena.league.config import LeagueConfig
from arena.league.schedule import ScheduledGame
from arena.league.scheduler import PlayerFactory, PlayFunction
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.limits import Limits


@dataclass(frozen=True)
class GameSettings:
    """Everything a game of the league is played under (picklable, for remote workers)."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    log_dir: Path | None = None  # one stderr log per bot process start (None: discarded)


def runner_limits(config: LeagueConfig) -> Limits:
    """The league file's time control and resource limits as the runner's Limits."""
    limits = config.limits
    return Limits(
        handshake_seconds=config.time.handshake,
        move_seconds=config.time.per_decision,
        bank_seconds=config.time.overage or None,
        game_seconds=config.time.per_game,
        max_line_bytes=limits.max_message_kb * 1024,
        memory_mb=limits.memory_mb,
        cpu_seconds=limits.cpu_seconds,
        max_processes=limits.max_processes,
        max_file_mb=limits.max_file_mb,
        max_open_files=limits.max_open_files,
        sandbox=limits.sandbox,
    )


def league_settings(config: LeagueConfig) -> GameSettings:
    return GameSettings(
        config.game, dict(config.options), runner_limits(config),
        Path(config.results_dir) / "logs",
    )


def _game(name: str) -> Game:
    from arena.plugins import discover

    game: Game = discover().game(name)
    return game


def scheduled_record(game: ScheduledGame, record: GameRecord) -> GameRecord:
    """The referee's record of ``game``, placed in the league's schedule."""
    return record.in_league(game.game_id, game.table, game.round)


async def play_one_game(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int, game: Game | None = None
) -> GameRecord:
    """One game with fresh bot processes; returns the referee's record."""
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game

    engine = game or _game(settings.game)
    async with (
        open_bot_pool(settings.limits, settings.log_dir) as pool,
        pool.seated(seating) as players,
    ):
        return await play_game(
            engine, players, seed, options=dict(settings.options) or None,
            limits=settings.limits,
        )


def play_one_game_sync(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int
) -> GameRecord:
    """:func:`play_one_game` for a worker without an event loop."""
    return trio.run(play_one_game, settings, seating, seed)


def process_player(
    config: LeagueConfig, roster: Sequence[BotSpec], game: Game | None = None
) -> PlayerFactory:
    """Real bots in warm pools; per-process stderr logs go to ``results_dir/logs``."""
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game

    settings = league_settings(config)
    specs = {spec.name: spec for spec in roster}
    engine = game or _game(config.game)
    @asynccontextmanager
    async def factory(_nursery: trio.Nursery) -> AsyncIterator[PlayFunction]:
        async with open_bot_pool(settings.limits, settings.log_dir) as pool:

            async def play(scheduled: ScheduledGame) -> GameRecord:
                seating = [specs[name] for name in scheduled.seats]
                async with pool.seated(seating) as players:
                    record = await play_game(
                        engine, players, scheduled.seed,
                        options=dict(settings.options) or None, limits=settings.limits,
                    )
                return scheduled_record(scheduled, record)

            yield play

    return factory
