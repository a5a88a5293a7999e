"""``arena tune BOT --against BOT...``: a bot's declared parameters tuned by SPSA
(docs/tuning.md), resumable, with live progress, a verification match and the tuned
manifest at the end."""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from arena.errors import ArenaError
from arena.league.config import ClusterSettings
from arena.league.engine import League, LeagueSummary, StoredGame
from arena.league.progress import Progress
from arena.runner.botspec import BotSpec, Parameter
from arena.settings import SANDBOX_LEVELS, TRUSTED, Limits, seed_option, usable_cores
from arena.tune.tuner import (
    START,
    TUNED,
    TuneListener,
    TuneOutcome,
    Tuner,
    TuneSetup,
    default_verify_games,
    tune,
)

DEFAULT_GAMES = 10_000
DEFAULT_PLAYERS = 2
MAX_GAMES = 10_000_000
PROGRESS_LINES = 20  # the values are printed this many times over a tune


def tune_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot", metavar="BOT",
                        help="the bot to tune (a name `arena bots` lists, or its folder); its "
                             "bot.toml declares the parameters ([parameters], docs/manifest.md)")
    parser.add_argument("--against", nargs="+", metavar="BOT", required=True,
                        help="the opponents (the field); a bot named twice, or fewer bots "
                             "than seats to fill, plays as several copies (NAME#2 ...); the "
                             "tuned bot itself may be one (it then plays at its defaults)")
    parser.add_argument("--games", metavar="N",
                        help=f"games of the tuning, two per SPSA iteration (default "
                             f"{DEFAULT_GAMES})")
    parser.add_argument("--players", metavar="K",
                        help=f"players per game (default {DEFAULT_PLAYERS})")
    parser.add_argument("--seconds", metavar="S", help="seconds per decision (default 1)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play on the Dask cluster whose scheduler is at ADDRESS, e.g. "
                             "tcp://127.0.0.1:8786 (docs/cluster.md)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a --cluster address off this machine without TLS")
    parser.add_argument("--start", nargs="+", metavar="NAME=VALUE", default=[],
                        help="start from these values instead of the defaults (e.g. "
                             "--start denial=1.5 gold=0.2, or one NAME=VALUE,NAME=VALUE)")
    parser.add_argument("--in-flight", metavar="PAIRS",
                        help="iterations played at once (default: half the games at once, at "
                             "least 1; on a cluster, give half the games it plays at once); "
                             "fixed for the tune's life, a resumed tune keeps its own: the "
                             "trajectory depends on it, never on the machine's speed")
    parser.add_argument("--verify-games", metavar="N",
                        help="games of the verification match, tuned against starting values, "
                             "a multiple of --players (default: a quarter of --games, 50 to "
                             "2000 tables)")
    parser.add_argument("--seed", type=seed_option,
                        help="seed of the games and of SPSA's signs (default 1)")
    parser.add_argument("--game", help="the game (default: the bot's only game)")
    parser.add_argument("--sandbox", choices=SANDBOX_LEVELS,
                        help="how the bots are contained (default auto; trusted plays bots with "
                             "an entry point in-process, several times faster: your own code "
                             "only)")
    parser.add_argument("--concurrency", metavar="N",
                        help="games at once (default: the CPUs this process may use)")
    parser.add_argument("--results-dir", metavar="DIR",
                        help="where the tune is stored (default results/tune-BOT-GAME-Kp...)")
    parser.add_argument("--new-version", metavar="VERSION",
                        help="the tuned bot's version (default: the bot's, its last number "
                             "one up)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress")


def tune_command(args: argparse.Namespace) -> int:
    from arena.league.run import EXIT_INTERRUPTED, run_interruptible
    from arena.tune.tuned import write_tuned_bot

    setup, cluster = tune_setup(args)
    out, err = sys.stdout, sys.stderr
    terminal = TuneTerminal(setup, quiet=args.quiet, err=err)
    outcome = run_interruptible(lambda: tune(setup, listeners=[terminal], cluster=cluster))
    if outcome is None:
        return EXIT_INTERRUPTED
    print_outcome(outcome, out)
    tuned = write_tuned_bot(setup.bot, outcome.final, setup.results_dir, args.new_version)
    where = shlex.quote(str(setup.results_dir))
    print(f"wrote {tuned}: {setup.bot.name} with the tuned values as its defaults "
          f"(arena validate {shlex.quote(str(tuned))}; arena submit "
          f"{shlex.quote(str(tuned))} --replace)", file=out)
    if not args.quiet:
        print(f"next: arena report {where} -o report.html   (the trajectories, the "
              "verification match)", file=err)
    return 0


# --------------------------------------------------------------------------- the setup


def tune_setup(args: argparse.Namespace) -> tuple[TuneSetup, ClusterSettings | None]:
    """The tune the command line asks for, every argument checked (one line each)."""
    from arena.plugins import discover
    from arena.plugins.commands import _named_bot

    registry = discover()
    bot = _named_bot(args.bot, registry)
    if not bot.parameters:
        raise ArenaError(f"bot {bot.name} declares no parameters: nothing to tune (a bot "
                         "declares them in its bot.toml, [parameters]: docs/manifest.md)")
    games = _whole_or(DEFAULT_GAMES, "--games", args.games, 2, MAX_GAMES)
    if games % 2:
        raise ArenaError(f"--games {games}: SPSA plays pairs, give an even number, e.g. "
                         f"{games + 1}")
    players = _whole_or(DEFAULT_PLAYERS, "--players", args.players, 2, 16)
    game_name = args.game or _only_game(bot)
    game = registry.game(game_name)
    if not game.min_players <= players <= game.max_players:
        raise ArenaError(f"--players {players}: {game.title} is for {game.min_players}-"
                         f"{game.max_players} players")
    for spec in [bot, *(registry.bot(name) for name in args.against)]:
        if not spec.plays(game_name, players):
            raise ArenaError(f"bot {spec.name!r} cannot play {game_name} with {players} "
                             f"players (its bot.toml: {_games_text(spec, game_name)})")
    opponents = field_of([registry.bot(name) for name in args.against], players)
    seconds = None
    if args.seconds is not None:
        from arena.league.match import _seconds

        seconds = _seconds(args.seconds)
    start = start_values(bot.parameters, args.start)
    concurrency = _whole_or(usable_cores(), "--concurrency", args.concurrency, 1, 4096)
    name = tune_name(bot.name, game_name, players, seconds, args.seed)
    results = Path(args.results_dir) if args.results_dir else Path("results") / name
    # not given: the stored tune's own (another machine resumes it as it was started)
    in_flight = _whole_or(_stored_in_flight(results) or max(1, min(games // 2, concurrency // 2)),
                          "--in-flight", args.in_flight, 1, games // 2)
    verify_games = _whole_or(default_verify_games(games, players), "--verify-games",
                             args.verify_games, players, MAX_GAMES)
    if verify_games % players:
        raise ArenaError(f"--verify-games {verify_games}: must be a multiple of {players} "
                         "(each deal is played once from every seat)")
    limits = Limits(sandbox=args.sandbox or "auto")
    if seconds is not None:
        limits = replace(limits, move_seconds=seconds)
    cluster = None
    if args.cluster is not None:
        from arena.league.cluster import check_address

        cluster = ClusterSettings(args.cluster, insecure=args.insecure)
        check_address(cluster)
    setup = TuneSetup(
        bot=bot, opponents=tuple(opponents), game=game_name, players=players, games=games,
        start=start, results_dir=results, verify_games=verify_games,
        seed=1 if args.seed is None else args.seed, in_flight=in_flight, limits=limits,
        concurrency=concurrency, name=name)
    return setup, cluster


def _stored_in_flight(results: Path) -> int | None:
    """The pairs in flight of the tune stored in ``results``, if there is one."""
    from arena.league.store import DB_NAME, open_store

    if not (results / DB_NAME).is_file():
        return None
    store = open_store(results)
    try:
        stored = store.tune_setup
    finally:
        store.close()
    value = None if stored is None else stored.get("in_flight")
    return value if isinstance(value, int) and value >= 1 else None


def tune_name(bot: str, game: str, players: int, seconds: float | None,
              seed: int | None) -> str:
    """The tune's name and default folder: the bot, the game and each setting that
    changes its games, so the same command resumes it and another starts another."""
    parts = ["tune", bot, game, f"{players}p"]
    if seconds is not None:
        parts.append(f"{seconds:g}s")
    if seed is not None:
        parts.append(f"seed{seed}")
    return "-".join(parts)


def field_of(specs: Sequence[BotSpec], players: int) -> list[BotSpec]:
    """The opponents: every bot named, a bot named again as another copy (NAME#2 ...),
    and copies of the list until it fills a table's other seats."""
    wanted = list(specs)
    while len(wanted) < players - 1:
        wanted.append(specs[len(wanted) % len(specs)])
    field: list[BotSpec] = []
    copies: dict[str, int] = {}
    for spec in wanted:
        copies[spec.name] = copies.get(spec.name, 0) + 1
        count = copies[spec.name]
        field.append(spec if count == 1 else replace(spec, name=f"{spec.name}#{count}"))
    return field


def start_values(parameters: Sequence[Parameter], given: Sequence[str]) -> tuple[float, ...]:
    """The starting values: the defaults, with ``given`` (NAME=VALUE, or several joined
    by commas) instead; ArenaError naming the first one that is wrong."""
    from arena.league.match import _number

    values = {p.name: p.default for p in parameters}
    declared = {p.name: p for p in parameters}
    for text in (part for item in given for part in item.split(",") if part.strip()):
        name, equals, number = text.partition("=")
        name = name.strip()
        if not equals:
            raise ArenaError(f"--start {text[:60]!r}: write NAME=VALUE, e.g. "
                             f"{parameters[0].name}={parameters[0].default:g}")
        parameter = declared.get(name)
        if parameter is None:
            raise ArenaError(f"--start: the bot has no parameter {name[:40]!r}; its parameters: "
                             + ", ".join(declared))
        value = _number(f"--start {name}", number.strip())
        if not parameter.minimum <= value <= parameter.maximum:
            raise ArenaError(f"--start {name} {value:g}: must be between "
                             f"{parameter.minimum:g} and {parameter.maximum:g}")
        if parameter.integer and value != math.floor(value):
            raise ArenaError(f"--start {name}: an integer parameter, not {value:g}")
        values[name] = value
    return tuple(values[p.name] for p in parameters)


def _only_game(bot: BotSpec) -> str:
    if len(bot.games) == 1:
        return next(iter(bot.games))
    raise ArenaError(f"bot {bot.name} plays {', '.join(sorted(bot.games))}: say which with "
                     "--game")


def _games_text(spec: BotSpec, game: str) -> str:
    counts = spec.games.get(game)
    return f"{game} = {list(counts)}" if counts else f"no {game}"


def _whole_or(default: int, option: str, text: str | None, low: int, high: int) -> int:
    """``option``'s whole number (as ``arena match`` checks it), ``default`` if not given."""
    from arena.league.match import _whole

    return default if text is None else _whole(option, text, low, high)


# --------------------------------------------------------------------------- the terminal


def values_text(parameters: Sequence[Parameter], values: Sequence[float]) -> str:
    return ", ".join(f"{p.name} {v:.4g}" for p, v in zip(parameters, values, strict=True))


class TuneTerminal(TuneListener):
    """What ``arena tune`` shows on stderr: the plan, the progress line, and the values
    every twentieth of the tune."""

    def __init__(self, setup: TuneSetup, *, quiet: bool, err: TextIO) -> None:
        self.setup, self.quiet, self.err = setup, quiet, err
        self.progress: Progress | None = None
        self.tuner: Tuner | None = None
        self.shown = -1  # the last milestone printed

    def notice(self, text: str) -> None:
        print(text, file=self.err)

    def league_started(self, league: League) -> None:
        from arena.runner.trusted import WARNING

        setup = self.setup
        if league.checked.trusted:
            print(f"{league.config.name}: {WARNING}", file=self.err)
        elif not self.quiet and setup.bot.entry_point is not None:
            print(f"{league.config.name}: hint: --sandbox {TRUSTED} plays {setup.bot.name} "
                  "in-process, several times faster (your own code only)", file=self.err)
        if league.checked.sandbox is not None and not self.quiet:
            print(f"{league.config.name}: {league.checked.sandbox.announcement()}",
                  file=self.err)
        stored = len(league.stored_before)
        if not self.quiet:
            design = setup.design
            print(f"{league.config.name}: SPSA on {len(setup.parameters)} parameters of "
                  f"{setup.bot.name} {setup.bot.version}: {setup.games} games "
                  f"({design.iterations} pairs, {setup.in_flight} at once) against "
                  f"{', '.join(spec.name for spec in setup.opponents)} at {setup.players} "
                  f"players, then {setup.verify_games} games of {setup.role(TUNED)} against "
                  f"{setup.role(START)}; {stored} already played, results in "
                  f"{setup.results_dir}", file=self.err)
        self.progress = Progress(setup.games + setup.verify_games, stored, quiet=self.quiet,
                                 stream=self.err, top=0, status=self.status)

    def tune_started(self, tuner: Tuner) -> None:
        self.tuner = tuner

    def status(self) -> str:
        if self.tuner is None:
            return ""
        return f"pair {self.tuner.spsa.applied}/{self.setup.design.iterations}"

    def game_stored(self, league: League, game: StoredGame) -> None:
        assert self.progress is not None
        self.progress.game_done(game.result, game.worker)
        if self.tuner is None or self.quiet:
            return
        iterations = self.setup.design.iterations
        milestone = self.tuner.spsa.applied * PROGRESS_LINES // iterations
        if milestone > self.shown:
            self.shown = milestone
            if self.progress.live:
                self.err.write("\r\x1b[2K")
            spsa = self.tuner.spsa
            print(f"pair {spsa.applied}/{iterations}: "
                  f"{values_text(self.setup.parameters, spsa.theta)}", file=self.err)
            self.progress.draw(force=True)

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        if self.progress is not None:
            self.progress.finish()
        if summary.interrupted:
            print(f"{league.config.name}: interrupted after {summary.played} new games; "
                  f"{summary.stored} stored. Run the same command to resume.", file=self.err)


def print_outcome(outcome: TuneOutcome, out: TextIO) -> None:
    """The tuned values beside the starting ones and the defaults, and the verification."""
    from tabulate import tabulate

    setup = outcome.setup
    rows = [{"parameter": p.name, "start": f"{s:.4g}", "tuned": f"{t:.4g}",
             "default": f"{p.default:.4g}", "range": f"{p.minimum:g}..{p.maximum:g}"}
            for p, s, t in zip(setup.parameters, setup.start, outcome.final, strict=True)]
    pairs = len(outcome.trajectory) - 1
    print(f"{setup.name}: {pairs} SPSA pairs ({2 * pairs} games) of {setup.bot.name}", file=out)
    print(tabulate(rows, headers="keys"), file=out)
    if outcome.failures:
        print(f"warning: {setup.bot.name} forfeited {outcome.failures} of its tuning games "
              f"(arena games {shlex.quote(str(setup.results_dir))} --failed)", file=out)
    verification = outcome.verification
    if verification.ratings is None:
        print("verification: no game played", file=out)
        return
    print(f"verification: {verification.games} games at {setup.players} players, Elo over "
          f"{verification.start_name} (95% interval):", file=out)
    for name in verification.ratings.ranked():
        elo = verification.elo(name)
        if elo is None or name == verification.start_name:
            continue
        print(f"  {name:<24} {elo[0]:+7.1f}  ({elo[1]:+.1f} to {elo[2]:+.1f})", file=out)
    tuned = verification.elo(verification.tuned_name)
    if tuned is not None:
        verdict = ("better than the starting values" if tuned[1] > 0 else
                   "worse than the starting values" if tuned[2] < 0 else
                   "not shown better or worse than the starting values (more --verify-games "
                   "narrow the interval)")
        print(f"verification: the tuned values are {verdict}", file=out)
