"""One game of a league, wherever it is played: what every game is played under
(:class:`GameSettings`, from the league file), the engine found once per process
(:func:`engine`), and :func:`play_seating`, the league's one call of the referee.

Every backend (:mod:`arena.league.backends`: this process, the worker processes of
:mod:`arena.league.workers`, the Dask workers of :mod:`arena.league.cluster_worker`)
plays its games through this module and nothing else of the league, so the worker side
never reaches back into the coordinator's code.  How many games are played at once, and
where, is a backend's business."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from arena.deals import PUBLIC
from arena.games.base import Game
from arena.league.config import LeagueConfig
from arena.league.schedule import ScheduledGame
from arena.league.store import PackedRecord
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.settings import Limits

if TYPE_CHECKING:
    from arena.runner.pool import BotPool

Finished = GameRecord | PackedRecord  # what a backend sends: a record, or one packed
PlayFunction = Callable[[ScheduledGame], Awaitable[Finished]]


@dataclass(frozen=True)
class GameSettings:
    """Everything a game of the league is played under (picklable, for remote workers)."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    log_dir: Path | None = None  # one stderr log per bot process start (None: discarded)
    # what the hidden order is dealt from (arena/deals.py): the league's secret, sent to
    # the processes that play its games and to nobody else (kept out of repr: never logged)
    deal_key: str = field(default=PUBLIC, repr=False)


def league_settings(config: LeagueConfig, deal_key: str = PUBLIC) -> GameSettings:
    """The settings of ``config``'s games, dealt from ``deal_key`` (public deals for a
    league that chose them, whatever the key)."""
    return GameSettings(
        config.game, dict(config.options), config.limits,
        Path(config.results_dir) / "logs",
        PUBLIC if config.public_deals else deal_key,
    )


@functools.cache
def engine(name: str) -> Game:
    """The engine of game ``name``, found by plugin discovery once per process (a worker
    plays thousands of games of one engine; discovery imports every plugin)."""
    from arena.plugins import load_game

    game: Game = load_game(name)
    return game


async def play_seating(pool: BotPool, game: Game, settings: GameSettings,
                       seating: Sequence[BotSpec], seed: int) -> GameRecord:
    """One game of real bots from ``pool`` under the league's ``settings``: the league's
    only call of the referee (local, worker processes and cluster workers alike)."""
    from arena.runner.referee import play_game

    # deal=seed: no bot process plays a deal twice (a table's seat rotations share it)
    async with pool.players(seating, deal=seed) as players:
        return await play_game(game, players, seed, options=dict(settings.options) or None,
                               limits=settings.limits, deal_key=settings.deal_key)


async def play_one_game(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int, game: Game | None = None
) -> GameRecord:
    """One game with fresh bot processes; returns the referee's record."""
    from arena.runner.pool import open_bot_pool

    async with open_bot_pool(settings.limits, settings.log_dir) as pool:
        return await play_seating(pool, game or engine(settings.game), settings, seating, seed)


def play_one_game_sync(
    settings: GameSettings, seating: Sequence[BotSpec], seed: int
) -> GameRecord:
    """:func:`play_one_game` for a worker without an event loop."""
    return trio.run(play_one_game, settings, seating, seed)
