"""``arena run``: a thin shell over the league engine (:func:`arena.league.engine.play_league`).

The engine plays and stores; this shell owns what a person at a terminal sees: the
description of the league, the live progress line, the sequential test's verdict, the
final table (all listeners of the engine), the exit code, and Ctrl-C or SIGTERM, which
cancel the league (every stored game stays; running the same command resumes).
"""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO, TypeVar

import trio

from arena.errors import ArenaError
from arena.league.backends import Backend
from arena.league.config import ClusterSettings, LeagueConfig
from arena.league.engine import (
    League,
    LeagueListener,
    LeagueSummary,
    StoredGame,
    check_league,
    play_league,
)
from arena.league.formats import FeedFormat, Stage, Tournament
from arena.league.plan import Plan, Shard, prepare
from arena.league.progress import Progress
from arena.league.stop import SequentialStop, build_stop
from arena.league.store import LeagueStore, open_store
from arena.records import GameResult
from arena.runner.botspec import BotSpec
from arena.runner.trusted import WARNING as TRUSTED_WARNING
from arena.settings import TRUSTED

EXIT_INTERRUPTED = 130
T = TypeVar("T")


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
    deal_key: str | None = None,
    terminal: LeagueListener | None = None,
) -> int:
    """Play what is missing of ``config``'s league; 0 when complete, 130 if interrupted.
    ``terminal``: what the person sees (default: :class:`Terminal`; ``arena match`` has
    its own).

    ``backend`` defaults to real bots: in this process, in worker processes, or on the
    Dask cluster of ``cluster``; ``bots`` defaults to discovery.
    ``dry_run``: check everything and say what would be played, then stop.  ``shard``:
    play only that slice of the league (into the store of ``config.results_dir``).
    ``cluster``: play the games on that Dask cluster (this process still stores them).
    ``deal_key``: the key the games are dealt from (default: the store's own)."""
    out = out or sys.stdout
    err = err or sys.stderr
    if dry_run:
        return _dry_run(config, bots, backend, err, shard)
    terminal = terminal or Terminal(quiet=quiet, out=out, err=err, cluster=cluster is not None)

    summary = run_interruptible(lambda: play_league(
        config, backend=backend, bots=bots, listeners=[terminal], concurrency=concurrency,
        shard=shard, cluster=cluster, deal_key=deal_key))
    return EXIT_INTERRUPTED if summary is None else 0


def run_interruptible(work: Callable[[], Awaitable[T]]) -> T | None:
    """``work()`` in its own trio run, cancelled by Ctrl-C or SIGTERM: its result, or
    None when a signal interrupted it (every stored game stays); a failure of several
    tasks is raised as its one error worth showing (:func:`_single`)."""

    async def main() -> T | None:
        with trio.CancelScope() as interrupted:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_cancel_on_signals, interrupted)
                result = await work()
                nursery.cancel_scope.cancel()  # the signal watcher
            return result
        return None

    try:
        return trio.run(main)
    except BaseExceptionGroup as group:
        raise _single(group) from None



def played_here(config: LeagueConfig, cluster: ClusterSettings | None = None
                ) -> LeagueConfig:
    """The league played in this process (no worker processes), where ``--trace`` sees
    the bots' lines: worker processes and cluster workers would have to write the trace
    themselves.  An ArenaError for a league that cannot be (on a cluster, or trusted)."""
    from dataclasses import replace

    if cluster is not None:
        raise ArenaError("--trace traces the games played in this process: not with "
                         "--cluster (trace a bot with `arena validate BOT --trace`)")
    if config.limits.sandbox == TRUSTED:
        raise ArenaError("--trace: under sandbox \"trusted\" the bots are played in-process, "
                         "with no lines to trace; use --sandbox auto")
    return replace(config, workers=1, nice=0)

async def _cancel_on_signals(scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _signal in signals:
            scope.cancel()
            return


class Terminal(LeagueListener):
    """What ``arena run`` prints: on stderr the league's description, the progress line
    and the end of an interrupted run; on stdout the test's verdict and the final table."""

    def __init__(self, *, quiet: bool, out: TextIO, err: TextIO, cluster: bool = False
                 ) -> None:
        self.quiet, self.out, self.err, self.cluster = quiet, out, err, cluster
        self.progress: Progress | None = None
        self.stage = ""  # a feed format's stage under way, for the progress line
        self.stored_before: set[str] = set()  # game ids stored before this run

    def notice(self, text: str) -> None:
        print(text, file=self.err)

    def league_started(self, league: League) -> None:
        config, checked = league.config, league.checked
        if checked.trusted:  # loudly, even with --quiet: nothing contains these bots
            print(f"{config.name}: {TRUSTED_WARNING}", file=self.err)
        if checked.sandbox is not None and not self.quiet:
            where = (" (on this machine; each cluster worker chooses its own)"
                     if self.cluster else "")
            print(f"{config.name}: {checked.sandbox.announcement()}{where}", file=self.err)
        if not self.quiet and league.plan is not None:
            _describe(config, checked.roster, league.plan, self.err, league.shard,
                      league.stop_test)
        if not self.quiet:
            print(f"{config.name}: deals: {_deals_line(config)}", file=self.err)
        if not self.quiet and config.game == "ra":
            from arena.strategies.entry_points import describe_ra_engines

            engines = describe_ra_engines(checked.roster, in_process=checked.trusted)
            if engines:
                print(f"{config.name}: Ra engine: {engines}", file=self.err)
        tournament = league.tournament
        self.stored_before = {result.game_id for result in league.stored_before}
        if not self.quiet and tournament is not None:
            _describe_stages(config, tournament, len(league.stored_before), self.err)
        test = league.stop_test
        total = len(league.plan.schedule) if league.plan is not None else (
            tournament.expected_games() or 0 if tournament is not None else 0)
        self.progress = Progress(
            total,
            league.plan.done if league.plan is not None else len(league.stored_before),
            quiet=self.quiet,
            stream=self.err,
            status=test.status if test is not None else (
                (lambda: self.stage) if tournament is not None else None),
        )
        self.progress.seed_leaderboard(league.stored_before)

    def stage_started(self, league: League, stage: Stage) -> None:
        assert self.progress is not None
        progress = self.progress
        self.stage = stage.label
        # games stored during this run belong to earlier stages: only those stored before
        # it may be of this one (a resumed league)
        left = sum(game.game_id not in self.stored_before for game in stage.games)
        progress.total = max(progress.total, progress.already + progress.played + left)
        if stage.announced:
            notes = "".join(f"; {note}" for note in stage.notes)
            progress.say(f"{league.config.name}: {stage.label}: {len(stage.games)} games"
                         f"{notes}")

    def game_stored(self, league: League, game: StoredGame) -> None:
        assert self.progress is not None
        self.progress.game_done(game.result, game.worker)

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        if self.progress is not None:
            self.progress.finish()
        config = league.config
        if summary.interrupted:
            total = f"/{summary.scheduled}" if summary.scheduled is not None else ""
            print(
                f"{config.name}: interrupted after {summary.played} new games; "
                f"{summary.stored}{total} stored. Run the same command to resume.",
                file=self.err,
            )
            return
        if summary.failed:
            return
        if league.stop_test is not None:
            print(f"{config.name}: {league.stop_test.verdict()}", file=self.out)
        print_leaderboard(config, league.store, self.out, league.tournament)
        failed = sum(self.progress.failures.values()) if self.progress is not None else 0
        if failed and not self.quiet:
            logs = shlex.quote(str(config.results_dir / "logs"))
            print(f"{config.name}: {failed} bot failure(s) this run; each bot process's "
                  f"stderr is in {logs}/ (arena replay GAME_ID shows a game's failures)",
                  file=self.err)
        if not self.quiet:
            where = shlex.quote(str(config.results_dir))
            print(f"next: arena report {where} -o report.html   (or: arena leaderboard {where} "
                  "--matrix; arena replay GAME_ID)", file=self.err)


def _deals_line(config: LeagueConfig) -> str:
    """Where the hidden order of the league's games comes from (arena/deals.py)."""
    if config.public_deals:
        return ("public (public_deals = true): every tile and die follows from the file's "
                "seed, which any bot that knows it can compute; never for a contest")
    return ("secret: from the league's seeds and a key kept in its store, which bots never "
            "see (docs/security.md)")


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


def _describe_stages(config: LeagueConfig, tournament: Tournament, stored: int,
                     err: TextIO) -> None:
    print(f"{config.name}: {config.game}, {tournament.description()}", file=err)
    stage = tournament.next_stage()
    where = f"next: {stage.label}" if stage is not None else "it is over"
    print(f"{config.name}: {stored} games stored, {where}; results in {config.results_dir}",
          file=err)


def _dry_run(
    config: LeagueConfig, bots: Sequence[BotSpec] | None, backend: Backend | None,
    err: TextIO, shard: Shard | None,
) -> int:
    """Everything a run checks (file, game, bots, changes against the store), no game."""
    checked = check_league(config, bots=bots, backend=backend, shard=shard,
                           notice=lambda text: print(text, file=err))
    roster = checked.roster
    try:
        store: LeagueStore | None = open_store(config.results_dir)
    except ArenaError:
        store = None  # a new league
    if isinstance(checked.format, FeedFormat):
        from arena.league.stages import preview

        try:
            tournament, stored = preview(config, checked.format, checked.format_options,
                                         roster, store, rules=checked.rules)
        finally:
            if store is not None:
                store.close()
        _describe_stages(config, tournament, stored, err)
        return 0
    try:
        plan = prepare(config, roster, store, save=False, shard=shard, rules=checked.rules)
        stop = build_stop(config, [bot.name for bot in roster], plan.schedule)
        if stop is not None and store is not None:
            stop.seed(store.results())
    finally:
        if store is not None:
            store.close()
    _describe(config, roster, plan, err, shard, stop)
    return 0


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


def print_leaderboard(config: LeagueConfig, store: LeagueStore, out: TextIO,
                      tournament: Tournament | None = None) -> None:
    """The final table; with a feed format's ``tournament``, its standings (and bracket)
    after it, each bot's Elo beside its place."""
    results = store.results()
    if not results:
        print(f"{config.name}: no games played", file=out)
        return
    print(f"{config.name}: {len(results)} games of {config.game}", file=out)
    print(leaderboard_text(results, config, tournament), file=out)


def leaderboard_text(results: list[GameResult], config: LeagueConfig,
                     tournament: Tournament | None = None) -> str:
    from arena.report.leaderboard import build_leaderboard, render_standings, render_table

    board = build_leaderboard(
        results,
        anchor=config.rating.anchor,
        bootstrap=config.rating.bootstrap,
        prior_draws=config.rating.prior_games,
        seed=config.seed,  # as `arena leaderboard` does, so both show the same intervals
    )
    text = render_table(board)
    standings = tournament.standings() if tournament is not None else None
    if standings is not None:
        text += "\n\n" + render_standings(standings, board)
    return text
