"""What the server's background work (the ladder, the validation queue) uses of the
server: a protocol that :class:`arena.server.core.Server` satisfies, so that those
modules need not import the core that starts them (no import circle)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from arena.games.base import Game
from arena.league.config import ClusterSettings
from arena.league.store import LeagueStore
from arena.records import GameResult
from arena.runner.botspec import BotSpec
from arena.server.settings import ServerSettings
from arena.server.store import ServerStore, Version


class RosterWatcher(Protocol):
    def roster_changed(self) -> None:
        """The set of valid versions changed: the ladder takes the new roster."""


class StaleMarker(Protocol):
    def stale(self) -> None:
        """The games changed: the leaderboards are computed again soon."""

    def game_stored(self, result: GameResult) -> None:
        """The ladder stored this game: the leaderboards take it in soon."""


class ServerContext(Protocol):
    # read-only here: the ladder and the queue use these, they never replace them
    @property
    def settings(self) -> ServerSettings: ...
    @property
    def store(self) -> ServerStore: ...
    @property
    def league_store(self) -> LeagueStore: ...
    def announce(self, kind: str, data: dict[str, Any]) -> None:
        """An event for the watchers of every web process (arena/server/bus.py)."""
    def share(self, kind: str, value: dict[str, Any]) -> None:
        """The coordinator's latest ``kind`` (its roster) for every web process."""
    @property
    def games(self) -> Mapping[str, Game]: ...
    @property
    def opponents(self) -> Sequence[BotSpec]: ...
    @property
    def house_bots(self) -> Sequence[BotSpec]: ...
    @property
    def cluster(self) -> ClusterSettings | None: ...
    @property
    def deal_key(self) -> str:
        """What every game's hidden order is dealt from (arena/deals.py), derived from
        the server's own secret: never in a page, a record or a bot's message."""
    @property
    def ladder(self) -> RosterWatcher: ...
    @property
    def leaderboards(self) -> StaleMarker: ...
    @property
    def sandbox(self) -> str: ...  # the level uploaded bots get ("bwrap" or "none")
    def log(self, line: str) -> None: ...
    def build_cache(self) -> Path: ...
    def folder_of(self, version: Version) -> Path: ...
    def load_spec(self, folder: Path) -> BotSpec: ...
    def built_spec(self, spec: BotSpec) -> BotSpec: ...


def ladder_spec(spec: BotSpec, ladder_name: str, game: str,
                players: Sequence[int]) -> BotSpec:
    """The bot as the ladder knows it: named OWNER/NAME@N, its games cut to the ladder's
    game and player counts."""
    counts = tuple(n for n in spec.games.get(game, ()) if n in players)
    return dataclasses.replace(spec, name=ladder_name, games={game: counts},
                               entry_point=None, source=f"upload {ladder_name}")

