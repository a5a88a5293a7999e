"""``arena run``: from a league file to a stored, rated league (resuming if interrupted)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

import trio

from arena.league.bots import find_bots
from arena.league.config import LeagueConfig
from arena.league.plan import prepare
from arena.league.progress import Progress
from arena.league.results import GameResult
from arena.league.scheduler import PlayerFactory, RunSummary, play_games
from arena.league.store import Store, create_store
from arena.runner.botspec import BotSpec

EXIT_INTERRUPTED = 130


def run_league(
    config: LeagueConfig,
    *,
    quiet: bool = False,
    player: PlayerFactory | None = None,
    bots: Sequence[BotSpec] | None = None,
    concurrency: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Play what is missing of ``config``'s league; 0 when complete, 130 if interrupted.

    ``player`` defaults to real bot processes through the runner; ``bots`` to discovery."""
    out = out or sys.stdout
    err = err or sys.stderr
    roster = list(bots) if bots is not None else find_bots(config)
    if player is None:
        from arena.league.play import process_player

        player = process_player(config, roster)
    store = create_store(config.results_dir)
    try:
        plan = prepare(config, roster, store)
        if not quiet:
            for k, balance in sorted(plan.balances.items()):
                print(f"{config.name}: {k} players: {balance.describe()}", file=err)
            print(
                f"{config.name}: {len(plan.schedule)} games, {plan.done} already played, "
                f"{len(plan.to_play)} to play, results in {config.results_dir}",
                file=err,
            )
        progress = Progress(len(plan.schedule), plan.done, quiet=quiet, stream=err)
        progress.seed_leaderboard(store.results())
        summary: RunSummary = trio.run(
            play_games,
            plan.to_play,
            player,
            store,
            concurrency or config.concurrency,
            progress,
        )
        progress.finish()
        if summary.interrupted:
            print(
                f"{config.name}: interrupted after {summary.played} new games; "
                f"{store.count()}/{len(plan.schedule)} stored. Run the same command to resume.",
                file=err,
            )
            return EXIT_INTERRUPTED
        print_leaderboard(config, store, out)
        return 0
    finally:
        store.close()


def print_leaderboard(config: LeagueConfig, store: Store, out: TextIO) -> None:
    results = store.results()
    if not results:
        print(f"{config.name}: no games played", file=out)
        return
    print(f"{config.name}: {len(results)} games of {config.game}", file=out)
    print(leaderboard_text(results, config), file=out)


def leaderboard_text(results: list[GameResult], config: LeagueConfig) -> str:
    """The report package's leaderboard when it is there; a plain table otherwise."""
    try:
        from arena.report.leaderboard import leaderboard_table  # type: ignore[import-not-found]
    except ImportError:
        return _plain_leaderboard(results, config)
    text: str = leaderboard_table(
        results,
        anchor=config.rating.anchor,
        bootstrap=config.rating.bootstrap,
        prior_draws=config.rating.prior_games,
    )
    return text


def _plain_leaderboard(results: list[GameResult], config: LeagueConfig) -> str:
    from tabulate import tabulate

    from arena.rating import rate

    ratings = rate(
        results,
        anchor=config.rating.anchor,
        bootstrap=config.rating.bootstrap,
        prior_draws=config.rating.prior_games,
        seed=config.seed,
    )
    games: dict[str, int] = {}
    firsts: dict[str, int] = {}
    failures: dict[str, int] = {}
    for result in results:
        for seat, bot in enumerate(result.bots):
            games[bot] = games.get(bot, 0) + 1
            firsts[bot] = firsts.get(bot, 0) + (result.placements[seat] == 1)
            failures[bot] = failures.get(bot, 0) + (seat in result.failures)
    rows = [
        {
            "rank": rank,
            "bot": bot,
            "Elo": round(float(ratings.elo[ratings.index(bot)])),
            "95%": f"{ratings.low[ratings.index(bot)]:.0f}..{ratings.high[ratings.index(bot)]:.0f}",
            "games": games[bot],
            "wins": firsts[bot],
            "failures": failures[bot],
        }
        for rank, bot in enumerate(ratings.ranked(), start=1)
    ]
    note = "" if ratings.comparable else "\n(bots in separate groups never met: not comparable)"
    return tabulate(rows, headers="keys") + note
