"""The league engine as a library: ``summary = await play_league(config, ...)``.

It runs inside the caller's trio program and prints nothing.  It checks the league
(game, bots, sandbox, the file against the games already stored), plays what is missing
of the schedule, or whatever the caller feeds it (open-ended play), stores each game as
it finishes and tells the **listeners**: the terminal's progress line, the sequential
test that may end the league early, a web server's live leaderboard, the final table.
Two leagues can be awaited at once in one program (each has its own store).

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play_league, load_league("configs/league.toml"))
        nursery.start_soon(play_league, load_league("configs/dice.toml"))

A league's format (:mod:`arena.league.formats`) decides its games: a schedule made in
advance (round robin, gauntlet), or stages chosen from the stored results (Swiss rounds,
a knockout's rounds, the ladder's batches: :mod:`arena.league.stages`), which the engine
plays one after the other, each once the one before is stored.

Open-ended play: pass ``games=``, an async iterable of :class:`ScheduledGame` (a trio
receive channel, say), made with :func:`arena.league.schedule.table_games` so that ids
stay deterministic from the games' contents; the league takes a game when a table is
free and ends when the iterable does (the caller closes its channel).

Cancelling the caller's scope abandons the games in flight (every game already stored
stays); the listeners then get ``league_ended`` with ``interrupted`` set, and the
cancellation goes on up.  ``arena run`` (:mod:`arena.league.run`) is a thin shell over
this: printing, exit codes and Ctrl-C.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from arena.deals import PUBLIC
from arena.errors import ArenaError
from arena.league import formats
from arena.league.backends import Backend, Games
from arena.league.bots import find_bots, find_game
from arena.league.config import ClusterSettings, LeagueConfig
from arena.league.formats import FeedFormat, LeagueFormat, Stage, Tournament
from arena.league.plan import Plan, Shard, check_setup, prepare
from arena.league.play import Finished
from arena.league.schedule import ScheduledGame
from arena.league.scheduler import store_games
from arena.league.stages import StageFeed, open_stages
from arena.league.stop import SequentialStop, build_stop
from arena.league.store import LeagueStore, create_store
from arena.records import GameResult
from arena.runner.botspec import BotSpec
from arena.runner.sandbox import SandboxChoice, choose_level
from arena.runner.trusted import check_trusted
from arena.settings import TRUSTED, Limits


@dataclass(frozen=True)
class StoredGame:
    """A game the league has just stored, as its listeners see it."""

    result: GameResult
    worker: str | None  # the cluster worker that played it; None: this machine


@dataclass(frozen=True)
class LeagueSummary:
    """What :func:`play_league` returns (and its listeners get at the end)."""

    name: str
    played: int  # games stored by this call
    stored: int  # games in the store at the end
    scheduled: int | None  # the schedule's length; None for open-ended play
    elapsed: float  # seconds
    stopped: bool = False  # a listener (the sequential test) ended the league early
    interrupted: bool = False  # the caller cancelled it
    failed: bool = False  # it ended on an error (which :func:`play_league` raises)


@dataclass(frozen=True)
class Checked:
    """A league checked before anything is played or stored (:func:`check_league`)."""

    config: LeagueConfig
    roster: list[BotSpec]
    sandbox: SandboxChoice | None  # the level bot processes get; None: not this machine's
    trusted: bool  # sandbox "trusted": the bots play inside the arena, uncontained
    # the game's full options (engine defaults filled in) new games get; None: the
    # engine is not this process's business (a caller's backend)
    rules: dict[str, Any] | None = None
    format: LeagueFormat | None = None  # the league's format, its keys checked
    format_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class League:
    """One league being played, handed to each listener when it starts."""

    checked: Checked
    store: LeagueStore
    plan: Plan | None  # None: open-ended play
    stored_before: list[GameResult]  # the games stored before this call, in order
    shard: Shard | None = None
    stop_test: SequentialStop | None = None
    tournament: Tournament | None = None  # a feed format's state (Swiss, knockout ...)
    played: int = 0
    stopped: bool = False
    _scope: trio.CancelScope = field(default_factory=trio.CancelScope)

    @property
    def config(self) -> LeagueConfig:
        return self.checked.config

    def stop(self) -> None:
        """End the league now (a listener's answer is in): the games in flight are
        abandoned and :func:`play_league` returns with ``stopped`` set."""
        self.stopped = True
        self._scope.cancel()


class LeagueListener:
    """Receives a league's events.  Every method is optional: override what you need.
    They are called in the league's storing loop and must not block; a listener that
    wants to do async work (a web server pushing events) puts the events on a channel of
    its own with ``send_nowait``."""

    def notice(self, text: str) -> None:
        """One line worth telling a person (a bot left out of ``roster = "all"``...)."""

    def league_started(self, league: League) -> None:
        """Before the first game: the checked league, its plan and its store."""

    def game_stored(self, league: League, game: StoredGame) -> None:
        """After each newly stored game (a game is reported once)."""

    def stage_started(self, league: League, stage: Stage) -> None:
        """A feed format's stage (a Swiss round, a knockout's tie-breaks) starts: its
        games come next."""

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        """At the end, also when interrupted (then the store holds every game reported
        so far); still before :func:`play_league` closes a store it opened."""


class _Notices(LeagueListener):
    """Forwards notices to the other listeners (the only kind sent before the start)."""

    def __init__(self, listeners: Sequence[LeagueListener]) -> None:
        self.listeners = listeners

    def notice(self, text: str) -> None:
        for listener in self.listeners:
            listener.notice(text)


class _Stages(LeagueListener):
    """Tells a feed format's stages each stored game, so the next stage starts once
    every game of this one is stored."""

    def __init__(self, feed: StageFeed) -> None:
        self.feed = feed

    def game_stored(self, league: League, game: StoredGame) -> None:
        self.feed.game_stored(game.result)


class _SequentialTest(LeagueListener):
    """The league file's ``[stop]`` test: stops the league once it decides, and keeps its
    state in the store."""

    def __init__(self, test: SequentialStop) -> None:
        self.test = test

    def game_stored(self, league: League, game: StoredGame) -> None:
        if not league.stopped and self.test.game_done(game.result):
            league.stop()

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        league.store.save_stop(self.test.summary())


def check_league(
    config: LeagueConfig,
    *,
    bots: Sequence[BotSpec] | None = None,
    backend: Backend | None = None,
    shard: Shard | None = None,
    open_ended: bool = False,
    notice: Callable[[str], None] = lambda text: None,
) -> Checked:
    """Everything that can be checked before a game is played or a store opened: the
    game with its player counts and options, the bots, the sandbox level this machine
    can give, the rating anchor.  ArenaError names the first problem."""
    rules = None
    if backend is None:  # player counts and options, before anything starts
        rules = dict(find_game(config).full_options(dict(config.options) or None))
    roster = list(bots) if bots is not None else find_bots(config, notice=notice)
    if shard is not None and config.stop is not None:
        raise ArenaError(
            f"{config.path}: a league with a [stop] test cannot be split into shards: the "
            "test takes its games in schedule order as they finish; run it whole"
        )
    if open_ended and (shard is not None or config.stop is not None):
        raise ArenaError(
            f"{config.path}: open-ended play takes the games its caller chooses; a "
            "[stop] test or a shard needs the league's own schedule"
        )
    # sandbox "trusted" (no bot process): every bot needs an in-process entry point that
    # loads, checked before anything is stored
    trusted = backend is None and config.limits.sandbox == TRUSTED
    if trusted:
        check_trusted(roster)
    # the sandbox level, before the first game: a level this machine lacks stops here
    sandbox = None if backend is not None or trusted else choose_level(config.limits.sandbox)
    _check_anchor(config, roster)
    league_format = formats.league_format(config)
    options = formats.checked_options(config, league_format)
    if isinstance(league_format, FeedFormat) and shard is not None:
        raise ArenaError(f"{config.path}: a {config.format} league chooses each stage from "
                         "the results of the one before; it cannot be split into shards")
    if sandbox is not None:  # bots with a build step play their built copies (last: slow)
        roster = build_roster(roster, config.limits, notice)
    return Checked(config, roster, sandbox, trusted, rules, league_format, options)


def build_roster(roster: Sequence[BotSpec], limits: Limits, notice: Callable[[str], None]
                 ) -> list[BotSpec]:
    """The roster with every bot that has a build step replaced by its built copy,
    built now (in the command line's cache, at the league's sandbox level) where the
    cache has no build of its sources: its progress and, if it fails, the end of its log
    as notices; BuildFailed (one line) stops the league before anything is stored."""
    from arena.plugins.builds import NoticeReporter, ensure_built

    reporter = NoticeReporter(notice)
    return [ensure_built(spec, sandbox=limits.sandbox, bot_uid=limits.bot_uid,
                         reporter=reporter) if spec.needs_build else spec
            for spec in roster]


async def play_league(
    config: LeagueConfig,
    *,
    store: LeagueStore | None = None,
    backend: Backend | None = None,
    bots: Sequence[BotSpec] | None = None,
    listeners: Sequence[LeagueListener] = (),
    games: AsyncIterable[ScheduledGame] | None = None,
    concurrency: int | None = None,
    shard: Shard | None = None,
    cluster: ClusterSettings | None = None,
    deal_key: str | None = None,
) -> LeagueSummary:
    """Play ``config``'s league and return its summary; print nothing.

    ``store``: where the games go (default: the SQLite store of ``config.results_dir``,
    opened and closed here).  ``backend``: who plays (default: real bots, in this
    process, in worker processes, or on the Dask cluster ``cluster``).  ``bots``: the
    roster (default: discovery).  ``games``: open-ended play, the games the caller feeds
    (default: what is missing of the league's schedule).  ``shard``: play only that
    slice of the schedule.  ``listeners`` receive every event (:class:`LeagueListener`).
    ``deal_key``: what the hidden order of its games is dealt from (arena/deals.py; the
    shards of a league share one); default: the store's own, made at random on first
    use.  A league of public deals (``public_deals = true``) deals from the seeds."""
    notices = _Notices(listeners)
    checked = check_league(config, bots=bots, backend=backend, shard=shard,
                           open_ended=games is not None, notice=notices.notice)
    concurrency = concurrency or config.concurrency
    owned = store is None
    league_store = create_store(config.results_dir) if store is None else store
    try:
        if backend is None:
            key = PUBLIC if config.public_deals else league_store.deal_key(deal_key)
            backend = _real_bots(config, checked.roster, concurrency, cluster, key)
        return await _play(checked, league_store, backend, listeners, games,
                           concurrency, shard)
    finally:
        if owned:
            league_store.close()


async def _play(
    checked: Checked, store: LeagueStore, backend: Backend,
    listeners: Sequence[LeagueListener], feed: AsyncIterable[ScheduledGame] | None,
    concurrency: int, shard: Shard | None,
) -> LeagueSummary:
    config = checked.config
    names = [bot.name for bot in checked.roster]
    to_play: Games
    plan: Plan | None = None
    test: SequentialStop | None = None
    stages: StageFeed | None = None
    if feed is None and isinstance(checked.format, FeedFormat):
        stages = open_stages(config, checked.format, checked.format_options, checked.roster,
                             store, rules=checked.rules)
        to_play = feed = stages
    elif feed is None:
        plan = prepare(config, checked.roster, store, shard=shard, rules=checked.rules)
        test = build_stop(config, names, plan.schedule)
        to_play = plan.to_play
    else:
        check_setup(config, checked.roster, store, rules=checked.rules)
        to_play = feed
    stored_before = store.results()
    if test is not None:
        test.seed(stored_before)
        to_play = [] if test.decided else test.order(plan.to_play if plan else [])
    league = League(checked, store, plan, stored_before, shard, test,
                    stages.tournament if stages is not None else None)
    everyone: list[LeagueListener] = list(listeners)
    if test is not None:
        everyone.insert(0, _SequentialTest(test))
    if stages is not None:
        everyone.insert(0, _Stages(stages))

        def stage_started(stage: Stage) -> None:
            for listener in everyone:
                listener.stage_started(league, stage)

        stages.on_stage = stage_started
    for listener in everyone:
        listener.league_started(league)

    def stored(record: Finished) -> None:
        league.played += 1
        game = StoredGame(record.result(), record.worker)
        for listener in everyone:
            listener.game_stored(league, game)

    start = trio.current_time()
    interrupted = failed = False
    try:
        with league._scope:
            if to_play or feed is not None:  # (no process at all for a finished league)
                await store_games(to_play, backend, store, concurrency, stored)
        store.check()  # never a clean end over a damaged store
    except BaseException as error:
        interrupted = _cancelled(error)
        failed = not interrupted
        raise
    finally:
        summary = LeagueSummary(
            name=config.name, played=league.played, stored=store.count(),
            scheduled=len(plan.schedule) if plan is not None else None,
            elapsed=trio.current_time() - start, stopped=league.stopped,
            interrupted=interrupted, failed=failed,
        )
        for listener in everyone:
            listener.league_ended(league, summary)
    return summary


def _cancelled(error: BaseException) -> bool:
    """Whether ``error`` is a cancellation from outside (alone or in groups)."""
    if isinstance(error, BaseExceptionGroup):
        return all(_cancelled(inner) for inner in error.exceptions)
    return isinstance(error, trio.Cancelled)


def _check_anchor(config: LeagueConfig, roster: Sequence[BotSpec]) -> None:
    """The rating anchor must be a bot of the league: found before any game is played,
    not after every game when the leaderboard is computed."""
    anchor = config.rating.anchor
    names = [bot.name for bot in roster]
    if anchor is not None and anchor not in names:
        raise ArenaError(
            f"{config.path}: key 'rating.anchor': {anchor!r} plays no game in this league; "
            f"anchor one of its bots ({', '.join(names)}) or remove the key"
        )


def _real_bots(config: LeagueConfig, roster: Sequence[BotSpec], concurrency: int,
               cluster: ClusterSettings | None, deal_key: str) -> Backend:
    """Real bots: on a Dask cluster, in this process, or spread over worker processes
    (one per core), dealing from ``deal_key``."""
    from arena.league.backends import DaskBackend, LocalBackend, WorkerBackend
    from arena.league.play import league_settings

    settings = league_settings(config, deal_key)
    if cluster is not None:
        return DaskBackend(settings, roster, cluster)
    workers = config.worker_count(concurrency)
    if workers == 1 and not config.nice:  # a lower priority needs processes of its own
        return LocalBackend(settings, roster)
    return WorkerBackend(settings, roster, workers, nice=config.nice)
