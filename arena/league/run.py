"""``arena run``: from a league file to a stored, rated league (resuming if interrupted)."""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

import trio

from arena.errors import ArenaError
from arena.games.base import Game
from arena.league.backends import Backend
from arena.league.bots import find_bots, find_game
from arena.league.config import LeagueConfig
from arena.league.plan import Plan, Shard, prepare
from arena.league.progress import Progress
from arena.league.scheduler import RunSummary, play_games
from arena.league.stop import SequentialStop, build_stop
from arena.league.store import Store, create_store, open_store
from arena.records import GameResult
from arena.runner.sandbox import choose_level
from arena.runner.trusted import WARNING as TRUSTED_WARNING
from arena.runner.trusted import check_trusted
from arena.settings import TRUSTED

if TYPE_CHECKING:
    from arena.league.cluster import ClusterSettings
from arena.runner.botspec import BotSpec

EXIT_INTERRUPTED = 130


def run_league(
    config: LeagueConfig,
    *,
    quiet: bool = False,
    backend: Backend | None = None,
    bots: Sequence[BotSpec] | None = None,
    concurrency: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    dry_run: bool = False,
    shard: Shard | None = None,
    cluster: ClusterSettings | None = None,
) -> int:
    """Play what is missing of ``config``'s league; 0 when complete, 130 if interrupted.

    ``backend`` defaults to real bots: in this process, in worker processes, or on the
    Dask cluster of ``cluster``; ``bots`` defaults to discovery.
    ``dry_run``: check everything and say what would be played, then stop.  ``shard``:
    play only that slice of the league (into the store of ``config.results_dir``).
    ``cluster``: play the games on that Dask cluster (this process still stores them)."""
    out = out or sys.stdout
    err = err or sys.stderr
    concurrency = concurrency or config.concurrency
    # the game first: player counts and options are checked before anything starts
    game = find_game(config) if backend is None else None
    roster = list(bots) if bots is not None else find_bots(config)
    if shard is not None and config.stop is not None:
        raise ArenaError(
            f"{config.path}: a league with a [stop] test cannot be split into shards: the "
            "test takes its games in schedule order as they finish; run it whole"
        )
    # sandbox "trusted" (no bot process): every bot needs an in-process entry point that
    # loads, checked before anything is stored
    trusted = backend is None and config.limits.sandbox == TRUSTED
    if trusted:
        check_trusted(roster)
    # the sandbox level, before the first game: a level this machine lacks stops here
    sandbox = None if backend is not None or trusted else choose_level(config.limits.sandbox)
    _check_anchor(config, roster)
    if dry_run:
        return _dry_run(config, roster, err, shard)
    if trusted:  # loudly, even with --quiet: nothing contains these bots
        print(f"{config.name}: {TRUSTED_WARNING}", file=err)
    if sandbox is not None and not quiet:
        where = " (on this machine; each cluster worker chooses its own)" if cluster else ""
        print(f"{config.name}: {sandbox.announcement()}{where}", file=err)
    if backend is None:
        assert game is not None
        backend = _real_bots(config, roster, concurrency, game, cluster)
    store = create_store(config.results_dir)
    try:
        plan = prepare(config, roster, store, shard=shard)
        stop = build_stop(config, [bot.name for bot in roster], plan.schedule)
        stored = store.results()
        to_play = plan.to_play
        if stop is not None:
            stop.seed(stored)
            to_play = [] if stop.decided else stop.order(to_play)
        if not quiet:
            _describe(config, roster, plan, err, shard, stop)
        progress = Progress(
            len(plan.schedule),
            plan.done,
            quiet=quiet,
            stream=err,
            status=stop.status if stop is not None else None,
        )
        progress.seed_leaderboard(stored)
        summary = RunSummary(0, False, 0.0)
        try:
            if to_play:  # (no worker or bot process for a finished league)
                summary = trio.run(
                    functools.partial(play_games, stop=stop),
                    to_play, backend, store, concurrency, progress,
                )
        except BaseExceptionGroup as group:
            raise _single(group) from None
        finally:
            progress.finish()
            if stop is not None:
                store.save_stop(stop.summary())
        if summary.interrupted:
            print(
                f"{config.name}: interrupted after {summary.played} new games; "
                f"{store.count()}/{len(plan.schedule)} stored. Run the same command to resume.",
                file=err,
            )
            return EXIT_INTERRUPTED
        store.check()  # never a clean exit over a damaged store
        if stop is not None:
            print(f"{config.name}: {stop.verdict()}", file=out)
        print_leaderboard(config, store, out)
        if not quiet:
            where = shlex.quote(str(config.results_dir))
            print(f"next: arena report {where} -o report.html   (or: arena leaderboard {where} "
                  "--matrix; arena replay GAME_ID)", file=err)
        return 0
    finally:
        store.close()


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


def _describe(
    config: LeagueConfig,
    roster: Sequence[BotSpec],
    plan: Plan,
    err: TextIO,
    shard: Shard | None = None,
    stop: SequentialStop | None = None,
) -> None:
    names = ", ".join(bot.name for bot in roster if bot.name != config.challenger)
    kind = f"gauntlet of {config.challenger} against" if config.challenger else "bots"
    print(f"{config.name}: {config.game}, {kind} {names}", file=err)
    for k, balance in sorted(plan.balances.items()):
        print(f"{config.name}: {k} players: {balance.describe()}", file=err)
    if shard is not None:
        print(f"{config.name}: shard {shard}: the tables of this slice only; join the "
              f"shards' stores with `arena merge`", file=err)
    print(
        f"{config.name}: {len(plan.schedule)} games, {plan.done} already played, "
        f"{len(plan.to_play)} to play, results in {config.results_dir}",
        file=err,
    )
    if stop is not None:
        h0, h1 = stop.hypotheses()
        state = "decided already" if stop.decided else "stops as soon as it decides"
        print(
            f"{config.name}: sequential test of H0 ({h0}) against H1 ({h1}), "
            f"alpha {stop.design.alpha:g}, beta {stop.design.beta:g}, in "
            f"{stop.unit_name}: {state} (at most {len(plan.schedule)} games)",
            file=err,
        )


def _dry_run(
    config: LeagueConfig, roster: Sequence[BotSpec], err: TextIO, shard: Shard | None
) -> int:
    """Everything a run checks (file, game, bots, changes against the store), no game."""
    try:
        store: Store | None = open_store(config.results_dir)
    except ArenaError:
        store = None  # a new league
    try:
        plan = prepare(config, roster, store, save=False, shard=shard)
        stop = build_stop(config, [bot.name for bot in roster], plan.schedule)
        if stop is not None and store is not None:
            stop.seed(store.results())
    finally:
        if store is not None:
            store.close()
    _describe(config, roster, plan, err, shard, stop)
    return 0


def _real_bots(config: LeagueConfig, roster: Sequence[BotSpec], concurrency: int, game: Game,
               cluster: ClusterSettings | None) -> Backend:
    """Real bots: on a Dask cluster, in this process, or spread over worker processes
    (one per core)."""
    from arena.league.backends import DaskBackend, LocalBackend, WorkerBackend
    from arena.league.play import league_settings

    settings = league_settings(config)
    if cluster is not None:
        return DaskBackend(settings, roster, cluster)
    workers = config.worker_count(concurrency)
    if workers == 1:
        return LocalBackend(settings, roster, game)
    return WorkerBackend(settings, roster, workers)


def _single(group: BaseExceptionGroup) -> BaseException:
    """The error to show for a failed nursery: a user's problem (ArenaError) first."""
    arena_errors = group.subgroup(ArenaError)
    leaves = _leaves(arena_errors if arena_errors is not None else group)
    return leaves[0]


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        found += _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return found


def print_leaderboard(config: LeagueConfig, store: Store, out: TextIO) -> None:
    results = store.results()
    if not results:
        print(f"{config.name}: no games played", file=out)
        return
    print(f"{config.name}: {len(results)} games of {config.game}", file=out)
    print(leaderboard_text(results, config), file=out)


def leaderboard_text(results: list[GameResult], config: LeagueConfig) -> str:
    from arena.report.leaderboard import leaderboard_table

    return leaderboard_table(
        results,
        anchor=config.rating.anchor,
        bootstrap=config.rating.bootstrap,
        prior_draws=config.rating.prior_games,
        seed=config.seed,  # as `arena leaderboard` does, so both show the same intervals
    )
