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
from arena.league.store import PlayedGame
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


def engine_record(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The engine's own record inside a stored game record (what narrate/replay read)."""
    engine = record.get("engine")
    return engine if isinstance(engine, Mapping) else record


def _game(name: str) -> Game:
    from arena.plugins import discover

    game: Game = discover().game(name)
    return game


def to_played(game: ScheduledGame, record: Mapping[str, Any]) -> PlayedGame:
    failures = {int(f["seat"]): str(f["reason"]) for f in record.get("failures", [])}
    return PlayedGame(
        game_id=game.game_id,
        game=str(record.get("game", "")),
        table=game.table,
        round=game.round,
        seats=game.seats,
        seed=game.seed,
        status="failed" if failures else "ok",
        scores=tuple(float(s) for s in record["scores"]),
        placements=tuple(int(p) for p in record["placements"]),
        failures=failures,
        timings=dict(record.get("timings", {})),
        record=dict(record),
    )


async def play_one_game(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int, game: Game | None = None
) -> dict[str, Any]:
    """One game with fresh bot processes; returns the referee's record (plain JSON)."""
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game

    engine = game or _game(settings.game)
    async with (
        open_bot_pool(settings.limits, settings.log_dir) as pool,
        pool.seated(seating) as players,
    ):
        outcome = await play_game(
            engine, players, seed, options=dict(settings.options) or None,
            limits=settings.limits,
        )
    return outcome.record


def play_one_game_sync(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int
) -> dict[str, Any]:
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

            async def play(scheduled: ScheduledGame) -> PlayedGame:
                seating = [specs[name] for name in scheduled.seats]
                async with pool.seated(seating) as players:
                    outcome = await play_game(
                        engine, players, scheduled.seed,
                        options=dict(settings.options) or None, limits=settings.limits,
                    )
                return to_played(scheduled, outcome.record)

            yield play

    return factory
