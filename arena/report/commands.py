"""``arena leaderboard`` and ``arena report``: fetch a league's games, hand them on, print.

SOURCE is a league's results folder or its league file; left out, the one league under
``./results`` is used.  Rating settings default to those the league was configured with
(its ``[rating]`` table and seed); flags override them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.outputs import output_target, write_output
from arena.rating import DEFAULT_BOOTSTRAP, DEFAULT_PRIOR_DRAWS
from arena.records import GameResult

if TYPE_CHECKING:
    from arena.report.html import StartFailure
from arena.settings import seed_option

if TYPE_CHECKING:
    from arena.league.formats import Standings
    from arena.league.store import LeagueStore

STORE_FILE = "league.sqlite"  # arena.league.store.DB_NAME, kept here for the search below


@dataclass(frozen=True)
class LeagueData:
    name: str
    results_dir: Path
    results: list[GameResult]
    anchor: str | None
    bootstrap: int
    prior_draws: float
    seed: int
    stop: dict[str, Any] | None = None  # the league's sequential test, if it has one
    rules: str = ""  # the game's options the games were played with, e.g. "2023 edition"
    standings: Standings | None = None  # a feed format's (Swiss, knockout), rebuilt


# --------------------------------------------------------------------------- arguments


# a replay page per game costs ~0.05 s and ~60 KB: automatic only for leagues this small
AUTO_REPLAY_GAMES = 2000


def _whole_number(minimum: int, too_small: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(too_small)
        return value

    return parse


_player_count = _whole_number(2, "a game has at least 2 players")
_non_negative = _whole_number(0, "must be 0 or more")


def _common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="RESULTS_DIR_OR_LEAGUE_FILE",
        help="a league's results folder or its league file (default: the one league in ./results)",
    )
    parser.add_argument("--game", metavar="NAME", help="only games of this engine, e.g. ra")
    parser.add_argument(
        "--players", type=_player_count, metavar="N", help="only games with N players"
    )
    parser.add_argument(
        "--anchor", metavar="BOT", help="fix this bot at 1500 (default: the mean is 1500)"
    )
    parser.add_argument(
        "--bootstrap",
        type=_non_negative,
        metavar="N",
        help="bootstrap resamples for the 95%% intervals; 0 for intervals from the "
        f"likelihood's curvature only (default: the league's, or {DEFAULT_BOOTSTRAP})",
    )
    parser.add_argument(
        "--seed", type=seed_option, help="seed of the bootstrap (default: the league's seed)"
    )


def leaderboard_arguments(parser: argparse.ArgumentParser) -> None:
    _common_arguments(parser)
    parser.add_argument(
        "--format",
        default="simple",
        metavar="FMT",
        help="any tabulate format: simple, github, plain, grid, html, latex, tsv, ... "
        "(default simple)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="also show pairwise win rates and the likelihood of superiority",
    )
    parser.add_argument(
        "--plackett-luce",
        action="store_true",
        help="add ratings from a Plackett–Luce fit on full placements (slower, for comparison)",
    )
    parser.add_argument(
        "--alpha-rank",
        action="store_true",
        help="add α-Rank: each bot's share of the evolutionary meta-game's stationary "
        "distribution (docs/ratings.md says when to use it)",
    )
    parser.add_argument(
        "--nash",
        action="store_true",
        help="add Nash averaging: each bot's margin against the maximum-entropy Nash mix",
    )
    parser.add_argument(
        "--fairness",
        action="store_true",
        help="also show seat advantage per player count with 95%% intervals",
    )
    parser.add_argument(
        "--payoffs",
        nargs="?",
        const="json",
        choices=("json", "csv"),
        help="print the payoff tensor instead: mean score, place and finish-ahead share per "
        "bot for each table composition, as JSON (default) or CSV",
    )


def report_arguments(parser: argparse.ArgumentParser) -> None:
    _common_arguments(parser)
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write the HTML file (default: report.html in the results folder; "
        "-: standard output, without replay pages)",
    )
    replays = parser.add_mutually_exclusive_group()
    replays.add_argument(
        "--no-replays",
        action="store_true",
        help="do not write a replay page per game (by default they go in a folder beside "
        f"the report, REPORT-games/, linked from its list of games, for leagues of up to "
        f"{AUTO_REPLAY_GAMES} games)",
    )
    replays.add_argument(
        "--replays",
        action="store_true",
        help=f"write a replay page for every game even in a league of more than "
        f"{AUTO_REPLAY_GAMES} (about 0.05 s and 60 KB each)",
    )


# --------------------------------------------------------------------------- commands


def leaderboard_command(args: argparse.Namespace) -> int:
    from arena.report.leaderboard import (
        build_leaderboard,
        check_format,
        leaderboard_json,
        only_columns,
        render_matrix,
        render_seats,
        render_standings,
        render_table,
        seats_json,
        standings_json,
    )

    if not args.json:
        check_format(args.format)  # before the work, so a typo fails fast
    league = load_data(args)
    if args.payoffs is not None:
        from arena.stats.metagame import payoff_tensor, payoffs_csv, payoffs_json

        entries = payoff_tensor(league.results)
        if args.payoffs == "csv":
            print(payoffs_csv(entries), end="")
        else:
            data = {"league": league.name, **payoffs_json(entries)}
            print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    board = build_leaderboard(
        league.results,
        anchor=league.anchor,
        bootstrap=league.bootstrap,
        prior_draws=league.prior_draws,
        seed=league.seed,
        with_plackett_luce=args.plackett_luce,
        with_metagame=args.alpha_rank or args.nash,
    )
    board = only_columns(board, alpha_rank=args.alpha_rank, nash=args.nash)
    if args.json:
        data = {"league": league.name, "rules": league.rules,
                **leaderboard_json(board, matrix=args.matrix)}
        if args.fairness:
            data["seats"] = seats_json(league.results, board)
        if league.stop is not None:
            data["sequential_test"] = league.stop
        if league.standings is not None:
            data["standings"] = standings_json(league.standings, board)
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    rules = f" ({league.rules})" if league.rules else ""
    print(f"{league.name}: {_describe(league.results)}{rules}")
    if league.stop is not None:
        print(league.stop.get("verdict", ""))
    print(render_table(board, args.format))
    if league.standings is not None:
        print()
        print(render_standings(league.standings, board, args.format))
    if args.matrix:
        print()
        print(render_matrix(board, args.format))
    if args.fairness:
        print()
        print(render_seats(league.results, board, args.format))
    return 0


def report_command(args: argparse.Namespace) -> int:
    from arena.report.html import render_report

    league = load_data(args)
    # before the work: a folder, or a file in a missing folder, is said at once
    target = output_target(args.output or league.results_dir / "report.html")
    output = target.path  # a link followed: the replay pages go beside the real file
    games, replays = "", ""
    many = len(league.results) > AUTO_REPLAY_GAMES and not args.replays
    if many and not args.no_replays:  # minutes and gigabytes for a big league: on request
        print(f"note: {len(league.results)} games: no replay pages (more than "
              f"{AUTO_REPLAY_GAMES}); --replays writes them all, `arena replay GAME_ID "
              "--html` one", file=sys.stderr)
    if not target.is_file and args.replays:
        print(f"note: no replay pages: they go in a folder beside the report, and "
              f"{target} is not a file", file=sys.stderr)
    if not args.no_replays and not many and target.is_file:
        from arena.league.store import open_store
        from arena.viewer.index import games_section, replay_folder, write_replays

        wanted = {result.game_id for result in league.results}
        store = open_store(league.results_dir)
        try:
            records = (r for r in store.games(args.game, args.players) if r.game_id in wanted)
            written, problems = write_replays(records, replay_folder(output))
        finally:
            store.close()
        if problems:
            print(f"warning: {len(problems)} game(s) have no replay page, e.g. {problems[0]}",
                  file=sys.stderr)
        if written:
            replays = f"wrote {len(written)} replay page(s) in {replay_folder(output)}"
            games = games_section(league.results, replay_folder(output).name, written)
    page = render_report(
        league.results,
        failed_at_start=_start_failures(league.results_dir, league.results),
        title=f"{league.name}: {league.rules}" if league.rules else league.name,
        anchor=league.anchor,
        bootstrap=league.bootstrap,
        prior_draws=league.prior_draws,
        seed=league.seed,
        stop=league.stop,
        games=games,
        standings=league.standings,
        tuning=_tuning(league.results_dir),
    )
    write_output(target, page)
    print(f"wrote {target} ({_describe(league.results)})", file=target.notes)
    if replays:
        print(replays, file=target.notes)
    return 0


def _start_failures(results_dir: Path, results: list[GameResult]) -> list[StartFailure]:
    """Why bots died before their handshake in these games (read from the records of the
    games with a failure)."""
    from arena.league.store import open_store
    from arena.report.html import start_failures

    failed = [result.game_id for result in results if result.failures]
    if not failed:
        return []
    store = open_store(results_dir)
    try:
        return start_failures(store.records_of(failed))
    finally:
        store.close()


def _tuning(results_dir: Path) -> str:
    """The section on the tune a store holds (``arena tune``), "" for a league."""
    from arena.league.store import open_store
    from arena.tune.report import tuning_section

    store = open_store(results_dir)
    try:
        return tuning_section(store)
    finally:
        store.close()


def _describe(results: list[GameResult]) -> str:
    engines = ", ".join(sorted({r.game for r in results}))
    return f"{len(results)} games of {engines}"


# --------------------------------------------------------------------------- data


def find_results_dir(source: str | None) -> tuple[Path, dict[str, Any] | None]:
    """The results folder for SOURCE, and the league file's settings if one was given."""
    if source is None:
        found = sorted(
            {p.parent for p in Path("results").glob(f"*/{STORE_FILE}")}
            | {p.parent for p in Path(".").glob(STORE_FILE)}
            | {p.parent for p in Path("results").glob(STORE_FILE)}
        )
        if not found:
            raise ArenaError(
                "no league results found here or under ./results; "
                "give a results folder or a league file"
            )
        if len(found) > 1:
            names = ", ".join(str(p) for p in found)
            raise ArenaError(f"several leagues found ({names}); say which one")
        return found[0], None
    try:
        if Path(source).is_dir():  # what results_of says for a folder, without importing
            return Path(source), None  # the league machinery (trio and all: ~0.2 s)
    except OSError:
        pass  # results_of words it
    from arena.league.config import results_of

    return results_of(source)


def load_data(args: argparse.Namespace) -> LeagueData:
    from arena.league.store import open_store

    results_dir, file_config = find_results_dir(args.source)
    store = open_store(results_dir)
    try:
        name = store.league_name
        # the league file as it is now beats the snapshot taken when the games were played
        config = file_config or store.config_snapshot or {}
        stop = store.stop_result
        results = store.results(game=args.game, num_players=args.players)
        # every game only to explain an empty filter (read twice, 100,000 games took seconds)
        everything = results if results or args.game is None and args.players is None \
            else store.results()
        standings = _standings(store, results if args.game is None and args.players is None
                               else None)
    finally:
        store.close()
    if not everything:
        raise ArenaError(f"{name}: no game has finished yet in {results_dir}")
    if not results:
        engines = ", ".join(sorted({r.game for r in everything}))
        counts = ", ".join(str(n) for n in sorted({r.num_players for r in everything}))
        raise ArenaError(
            f"{name}: no game matches the filter (engines here: {engines}; player counts: {counts})"
        )
    rating: dict[str, Any] = config.get("rating") or {}
    return LeagueData(
        name=name,
        results_dir=results_dir,
        results=results,
        anchor=args.anchor if args.anchor is not None else rating.get("anchor"),
        bootstrap=_pick(args.bootstrap, rating.get("bootstrap"), DEFAULT_BOOTSTRAP),
        prior_draws=float(rating.get("prior_games") or DEFAULT_PRIOR_DRAWS),
        seed=_pick(args.seed, config.get("seed"), 0),
        stop=stop,
        rules=_rules(config),
        standings=standings,
    )


def _standings(store: LeagueStore, results: list[GameResult] | None) -> Standings | None:
    """A feed format's standings, its tournament replayed from every stored game (the
    games as stored, whatever the filters: ``results`` when it is all of them); None for
    a schedule format."""
    from arena.league.formats import is_feed, rebuild

    snapshot = store.config_snapshot
    if not is_feed(snapshot):
        return None
    tournament = rebuild(snapshot, results if results is not None else store.results())
    return tournament.standings() if tournament is not None else None


def _rules(config: dict[str, Any]) -> str:
    """The game's plain options (e.g. Ra's edition) with its defaults filled in, as the
    games were played, for the headers; "" when the league's game is not known here."""
    from arena.games.base import GameError
    from arena.plugins import load_game

    name, options = config.get("game"), config.get("options") or {}
    try:
        full = load_game(name).full_options(options) if isinstance(name, str) else {}
    except (ArenaError, GameError):
        return ""
    # in words ("classic edition"), for a title, not as the league file writes it
    return ", ".join(f"{value} {key}" for key, value in full.items()
                     if isinstance(value, str | int | float))


def _pick(flag: int | None, configured: Any, default: int) -> int:
    if flag is not None:
        return flag
    return configured if isinstance(configured, int) else default
