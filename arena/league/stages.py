"""A feed format's stages, played by the league engine (:mod:`arena.league.formats`).

:func:`open_stages` checks the league against its store, fixes the field (in seed order,
or as the store keeps it once the league has games) and replays the stored results
through a new tournament; what it returns is the engine's feed of games
(``play_league(games=...)`` takes the same): each game of the current stage that the
store lacks, then, once every game of the stage is stored (:meth:`StageFeed.game_stored`,
called by the engine as it stores them), the next stage's, until the format says the
league is over.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import trio

from arena.errors import ArenaError
from arena.league.formats import Entrants, FeedFormat, Stage, Tournament, entrants_of
from arena.league.schedule import ScheduledGame
from arena.records import GameResult

if TYPE_CHECKING:
    from arena.league.config import LeagueConfig
    from arena.league.store import LeagueStore
    from arena.runner.botspec import BotSpec


class StageFeed:
    """The games of a feed format, stage by stage, as an async iterator of
    :class:`ScheduledGame` (a stage is handed out only once the one before is stored).

    Made, it has replayed ``stored`` through ``tournament`` (as
    :func:`arena.league.formats.replay` does) and knows every game of the stages it went
    through (``replayed``), so a store holding games of another league is found."""

    def __init__(self, tournament: Tournament, stored: Sequence[GameResult]) -> None:
        self.tournament = tournament
        self.results = {result.game_id: result for result in stored}
        self.replayed: set[str] = set()
        while (stage := tournament.next_stage()) is not None:
            self.replayed.update(game.game_id for game in stage.games)
            if not all(game.game_id in self.results for game in stage.games):
                break
            tournament.record([self.results[game.game_id] for game in stage.games])
        self.stage = stage
        self.on_stage: Callable[[Stage], None] = lambda stage: None  # as each starts
        self._pending: deque[ScheduledGame] = deque()
        self._waiting: set[str] = set()
        self._stored = trio.Event()
        self._started = False

    def __aiter__(self) -> StageFeed:
        return self

    async def __anext__(self) -> ScheduledGame:
        while True:
            if self._pending:
                return self._pending.popleft()
            if self.stage is None:
                raise StopAsyncIteration
            if not self._started:
                self._begin(self.stage)
                continue
            if self._waiting:
                await self._stored.wait()
            self.tournament.record([self.results[game.game_id] for game in self.stage.games])
            self.stage = self.tournament.next_stage()
            self._started = False

    def _begin(self, stage: Stage) -> None:
        missing = [game for game in stage.games if game.game_id not in self.results]
        self._waiting = {game.game_id for game in missing}
        self._pending.extend(missing)
        self._stored = trio.Event()
        if not self._waiting:
            self._stored.set()
        self._started = True
        self.on_stage(stage)

    def game_stored(self, result: GameResult) -> None:
        """A game the engine has just stored (of this stage: none other is handed out)."""
        self.results[result.game_id] = result
        self._waiting.discard(result.game_id)
        if not self._waiting:
            self._stored.set()


def league_entrants(config: LeagueConfig, league_format: FeedFormat, options: dict[str, object],
                    roster: Sequence[BotSpec], store: LeagueStore | None) -> Entrants:
    """The entrants in seed order: as the store keeps them once the league has games
    (the seeding is not drawn again: a rating that moved would redraw a bracket), else
    as the format seeds them now."""
    names = [bot.name for bot in roster]
    entrants = entrants_of(config, names, options)
    stored = (store.config_snapshot or {}).get("field") if store is not None and \
        store.count() else None
    if isinstance(stored, list) and stored:
        added = sorted(set(names) - set(stored))
        removed = sorted(set(stored) - set(names))
        if added or removed:
            change = "; ".join(part for part in (
                f"added {', '.join(added)}" if added else "",
                f"removed {', '.join(removed)}" if removed else "") if part)
            back = ("list the bots it started with in roster (roster = \"all\" took the "
                    "bots found now)") if config.roster is None else "put the roster back"
            raise ArenaError(
                f"{config.path}: the field changed since this {config.format} league "
                f"started in {config.results_dir} ({change}); its rounds were paired from "
                f"its field: {back}, or start a new league with another results_dir")
        return replace(entrants, bots=tuple(stored))
    try:
        return replace(entrants, bots=league_format.seed_order(entrants))
    except ArenaError as problem:  # e.g. seeding = "rating" from a league with no games
        raise ArenaError(f"{config.path}: seeding the field: {problem}") from None


def preview(config: LeagueConfig, league_format: FeedFormat, options: dict[str, object],
            roster: Sequence[BotSpec], store: LeagueStore | None, *,
            rules: dict[str, object] | None = None) -> tuple[Tournament, int]:
    """What ``arena run --dry-run`` says: the tournament caught up with ``store`` (None:
    a new league) and how many games it holds, everything checked, nothing saved."""
    if store is None:
        entrants = league_entrants(config, league_format, options, roster, None)
        try:
            return league_format.start(entrants), 0
        except ArenaError as problem:
            raise ArenaError(f"{config.path}: {problem}") from None
    feed = open_stages(config, league_format, options, roster, store, save=False,
                       rules=rules)
    return feed.tournament, store.count()


def open_stages(config: LeagueConfig, league_format: FeedFormat, options: dict[str, object],
                roster: Sequence[BotSpec], store: LeagueStore, *, save: bool = True,
                rules: dict[str, object] | None = None) -> StageFeed:
    """Check ``config`` against ``store`` (as a schedule is checked), record the setup
    with the field in seed order (unless ``save`` is false), and replay the stored games:
    the feed plays on from the first stage the store lacks games of."""
    from arena.league.plan import check_setup, record_setup

    entrants = league_entrants(config, league_format, options, roster, store)
    try:
        tournament = league_format.start(entrants)
    except ArenaError as problem:
        raise ArenaError(f"{config.path}: {problem}") from None
    check_setup(config, roster, store, save=False, rules=rules)
    stored = store.results() if store.count() else []
    feed = StageFeed(tournament, stored)
    foreign = sorted({result.game_id for result in stored} - feed.replayed)
    if foreign:
        example = store.find_game(foreign[0])
        raise ArenaError(
            f"{config.path}: {len(foreign)} game(s) stored in {config.results_dir} are not "
            f"games this {config.format} league plays (for example game {foreign[0]}: "
            f"{' vs '.join(example.seats)}, round {example.round + 1}): its format's keys, "
            "roster or seed changed since. Put them back, or start a new league with "
            "another results_dir")
    if save:
        record_setup(config, roster, store, field=entrants.bots)
    return feed
