"""A pool of warm bots (processes, connections), reused across games.

    async with open_bot_pool(limits, log_dir) as pool:
        async with pool.seated([spec_a, spec_b]) as players:
            outcome = await play_game(game, players, seed=7, limits=limits)

A player is checked out for one game at a time; two seats of the same bot get two
processes.  No process plays two games of one deal (``deal=``, the game's seed): a
table's seat rotations share their deal (duplicate format), and a bot that remembered
the draws of its last game would know those of its next one (docs/security.md).
Leaving the pool sends every process "quit" and kills what is left.

Under sandbox "trusted" :meth:`BotPool.players` hands out in-process players instead
(:mod:`arena.runner.trusted`), kept warm the same way, one game at a time each.
"""

from __future__ import annotations

import tempfile
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.runner.botspec import BotSpec
from arena.runner.connection import BotConnection
from arena.runner.players import Player
from arena.runner.sandbox import choose_level
from arena.runner.trusted import Factory, TrustedPlayer, load_factory
from arena.settings import TRUSTED, Limits

PoolKey = tuple[str, str, tuple[str, ...], str]
# the deals a process remembers having played: a table's rotations are played one after
# the other, so a process meets a deal again, if ever, within its next few games
DEALS_REMEMBERED = 256


class _Deals:
    """The last deals one process played (a set for the question, a queue for the age)."""

    def __init__(self) -> None:
        self.order: deque[int] = deque()
        self.seen: set[int] = set()

    def add(self, deal: int) -> None:
        if deal in self.seen:
            return
        self.order.append(deal)
        self.seen.add(deal)
        if len(self.order) > DEALS_REMEMBERED:
            self.seen.discard(self.order.popleft())


def _key(spec: BotSpec) -> PoolKey:
    return (spec.name, spec.version, spec.command, f"{spec.folder}|{spec.connect}")


class BotPool:
    def __init__(self, nursery: trio.Nursery, limits: Limits, log_dir: Path) -> None:
        self.limits = limits
        self.log_dir = log_dir
        self._nursery = nursery
        self._idle: dict[PoolKey, list[BotConnection]] = {}
        self._all: list[BotConnection] = []
        self._deals: dict[BotConnection, _Deals] = {}  # what each process was dealt
        # sandbox "trusted": in-process players, and each bot's factory imported once
        self._idle_trusted: dict[PoolKey, list[TrustedPlayer]] = {}
        self._factories: dict[PoolKey, Factory] = {}

    def checkout(self, spec: BotSpec, deal: int | None = None) -> BotConnection:
        """A player for ``spec`` that no game is using (a warm one when there is one),
        whose process has not played ``deal`` (a fresh process when every warm one has)."""
        idle = self._idle.get(_key(spec))
        if idle:
            for index in range(len(idle) - 1, -1, -1):  # the most recently used first
                if deal is None or deal not in self._deals[idle[index]].seen:
                    return idle.pop(index)
        player = BotConnection(spec, self.limits, self._nursery, self.log_dir)
        self._all.append(player)
        self._deals[player] = _Deals()
        return player

    def checkin(self, player: BotConnection) -> None:
        self._idle.setdefault(_key(player.spec), []).append(player)

    @asynccontextmanager
    async def seated(self, specs: Sequence[BotSpec], deal: int | None = None
                     ) -> AsyncIterator[list[BotConnection]]:
        players = [self.checkout(spec, deal) for spec in specs]
        if deal is not None:
            for player in players:
                self._deals[player].add(deal)
        try:
            yield players
        finally:
            for player in players:
                self.checkin(player)

    @asynccontextmanager
    async def players(self, specs: Sequence[BotSpec], deal: int | None = None
                      ) -> AsyncIterator[list[Player]]:
        """The players of one game: bots reached over channels (:meth:`seated`, none of
        whose processes has played ``deal``), or under sandbox "trusted" in-process
        players made by the bots' entry points (trusted code: any may remember)."""
        if self.limits.sandbox != TRUSTED:
            async with self.seated(specs, deal) as bots:
                yield list(bots)
            return
        players = [self._checkout_trusted(spec) for spec in specs]
        try:
            yield list(players)
        finally:
            for player in players:
                self._idle_trusted.setdefault(_key(player.spec), []).append(player)

    def _checkout_trusted(self, spec: BotSpec) -> TrustedPlayer:
        key = _key(spec)
        idle = self._idle_trusted.get(key)
        if idle:
            return idle.pop()
        if key not in self._factories:
            self._factories[key] = load_factory(spec)  # imported here, in this process
        return TrustedPlayer(spec, self._factories[key])

    async def close(self) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for player in self._all:
                    nursery.start_soon(player.close)
        self._idle.clear()
        self._all.clear()
        self._deals.clear()
        self._idle_trusted.clear()


@asynccontextmanager
async def open_bot_pool(limits: Limits | None = None, log_dir: Path | str | None = None
                        ) -> AsyncIterator[BotPool]:
    """A pool whose processes all end when the block ends (also on error or cancel).

    ``log_dir`` receives one stderr log per process start (default: a temporary
    directory removed at the end)."""
    limits = limits or Limits()
    if limits.sandbox != TRUSTED:  # (trusted: no bot process to contain)
        choose_level(limits.sandbox)  # a level this machine lacks fails now, not per bot
    with tempfile.TemporaryDirectory(prefix="arena-logs-") as default_dir:
        directory = Path(log_dir) if log_dir is not None else Path(default_dir)
        try:
            # the owner's only: what bots wrote is nobody else's to read (docs/security.md)
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise ArenaError(f"cannot create the bot log directory {directory}: {error}") \
                from None
        try:
            async with trio.open_nursery() as nursery:
                pool = BotPool(nursery, limits, directory)
                try:
                    yield pool
                finally:
                    await pool.close()
                    # stderr drainers end when the processes die; a descendant that
                    # escaped the process group could keep a pipe open: do not wait for it
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            # the nursery only runs stderr drainers, which do not fail: an error here
            # comes from the caller's block, so give it back as it was raised
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
