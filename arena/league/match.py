"""``arena match A B [C ...]``: a match on one line, no league file (as ``cutechess-cli
-engine ... -engine ... -games N`` is for chess engines).

The match is a league made from the command line: the bots' round robin at ``--players``
per table, each table playing ``--games`` games (whole deals: a deal is played once from
every seat, so its luck cancels), stored in ``results/match-...`` (named after the game,
the bots and any setting that changes the games), so ``arena report``, ``replay`` and
``leaderboard`` work on it and the same command again resumes it.  A line per game as
it finishes; at the end, for two bots, the score with its 95% interval (over deals: the
games of one deal share their luck, so they are not independent) and the Elo difference
with its interval, and with ``--sprt ELO0 ELO1`` the sequential test that ends the match
as soon as it decides; for more bots, the leaderboard.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from arena.errors import ArenaError
from arena.league.config import NAME_PATTERN, LeagueConfig, StopSettings
from arena.league.engine import League, LeagueListener, LeagueSummary, StoredGame
from arena.rating import Z95
from arena.records import GameResult
from arena.settings import SANDBOX_LEVELS, Limits, seed_option, usable_cores

DEFAULT_DEALS = 5  # games by default: this many deals (2 players: 10 games)
SPRT_GAMES = 20_000  # the most a --sprt match plays unless --games says otherwise
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


def match_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="two or more bots (names as `arena bots` lists them)")
    parser.add_argument("--game", default="ra", help="the game (default ra)")
    parser.add_argument("--games", metavar="N",
                        help="games per table, a multiple of --players (every deal is played "
                             "once from each seat); default "
                             f"{DEFAULT_DEALS} deals, with --sprt at most {SPRT_GAMES}")
    parser.add_argument("--players", metavar="K", default="2",
                        help="players per table (default 2); with more bots than K, every "
                             "table of K of them plays")
    parser.add_argument("--concurrency", metavar="N",
                        help="games at once (default: the CPUs this process may use)")
    parser.add_argument("--seconds", metavar="S",
                        help="seconds per decision (default 1)")
    parser.add_argument("--sprt", nargs="+", metavar="ELO",
                        help="stop as soon as a sequential test decides between ELO0 and "
                             "ELO1, the first bot's Elo over the second (two bots, two "
                             "players): --sprt 0 10, or as cutechess writes it, --sprt "
                             "elo0=0 elo1=10 alpha=0.05 beta=0.05")
    parser.add_argument("--seed", type=seed_option, help="master seed (default 1)")
    parser.add_argument("--sandbox", choices=SANDBOX_LEVELS,
                        help="how the bots are contained (default auto)")
    parser.add_argument("--results-dir", metavar="DIR",
                        help="where the match is stored (default results/match-GAME-BOTS)")
    from arena.runner.trace import add_trace_argument

    add_trace_argument(parser)  # the games are then played in this process


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05


def match_command(args: argparse.Namespace) -> int:
    from arena.league.run import played_here, run_league
    from arena.runner.trace import traces

    config, names = match_config(args)
    terminal = MatchTerminal(names, out=sys.stdout, err=sys.stderr)
    if args.trace:
        config = played_here(config)
    with traces(args.trace):  # --trace: every line to and from a bot, timed
        return run_league(config, concurrency=config.concurrency, terminal=terminal)


def match_config(args: argparse.Namespace) -> tuple[LeagueConfig, list[str]]:
    """The match as a league, every argument checked (one line per problem)."""
    from arena.plugins import discover

    names = list(args.bots)
    if len(names) < 2:
        raise ArenaError("a match needs at least two bots, e.g. arena match random first")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ArenaError(f"bot {twice[0]!r} is named twice; a bot plays another bot")
    players = _whole("--players", args.players, 2, 8)
    if len(names) < players:
        raise ArenaError(f"too few bots for --players {players}: a table seats {players} "
                         f"different bots, and {len(names)} were named")
    sprt = _sprt(args.sprt) if args.sprt else None
    if sprt is not None and (players != 2 or len(names) != 2):
        raise ArenaError("--sprt tests one bot against another: name two bots, with "
                         "--players 2")
    if args.games is None:
        games = SPRT_GAMES if sprt is not None else DEFAULT_DEALS * players
    else:
        games = _whole("--games", args.games, 1, 100_000 * players)
        if games % players:
            raise ArenaError(
                f"--games {games}: must be a multiple of {players} (each deal is played once "
                f"from every seat, so its luck cancels); e.g. --games "
                f"{games + players - games % players}")
    concurrency = usable_cores() if args.concurrency is None else \
        _whole("--concurrency", args.concurrency, 1, 1024)
    seconds = None if args.seconds is None else _seconds(args.seconds)
    registry = discover()
    game = registry.game(args.game)  # unknown game: one line, with the known ones
    if not game.min_players <= players <= game.max_players:
        raise ArenaError(f"--players {players}: {game.title} is for {game.min_players}-"
                         f"{game.max_players} players")
    for name in names:
        spec = registry.bot(name)  # unknown or broken: one line saying why
        if not spec.plays(args.game, players):
            plays = spec.games.get(args.game)
            can = (f"plays it with {', '.join(map(str, plays))} players" if plays
                   else "does not play it")
            raise ArenaError(f"bot {name!r} cannot play {args.game} with {players} players "
                             f"(it {can})")
    limits = Limits(sandbox=args.sandbox or "auto")
    if seconds is not None:
        limits = replace(limits, move_seconds=seconds)
    name = match_name(args.game, players, names, seconds, args.seed)
    results = Path(args.results_dir) if args.results_dir else Path("results") / name
    config = LeagueConfig(
        path=Path("arena match"), name=name, game=args.game, players=(players,),
        roster=tuple(names), rounds=games // players, rounds_given=True,
        seed=1 if args.seed is None else args.seed, concurrency=concurrency,
        results_dir=results, limits=limits,
        stop=None if sprt is None else StopSettings(
            test="sprt", measure="elo", h0=sprt.elo0, h1=sprt.elo1, alpha=sprt.alpha,
            beta=sprt.beta),
    )
    return config, names


def match_name(game: str, players: int, bots: Sequence[str], seconds: float | None,
               seed: int | None) -> str:
    """The match's name and folder: the game, the bots (sorted: the same match whatever
    order they are named in) and each setting that changes the games, so the same
    command resumes it and another starts another."""
    parts = [game, *([f"{players}p"] if players != 2 else []), "-vs-".join(sorted(bots))]
    if seconds is not None:
        parts.append(f"{seconds:g}s")
    if seed is not None:
        parts.append(f"seed{seed}")
    name = "match-" + "-".join(parts)
    if len(name) > 64 or not NAME_PATTERN.match(name):
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name[:55])}-{digest}"
    return name


def _whole(option: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ArenaError(f"{option} wants a whole number, not {text[:40]!r}") from None
    if not low <= value <= high:
        raise ArenaError(f"{option} must be between {low} and {high}, not {value}")
    return value


def _number(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ArenaError(f"{option} wants a number, not {text[:40]!r}") from None
    if not math.isfinite(value):
        raise ArenaError(f"{option} wants a finite number, not {text[:40]!r}")
    return value


def _seconds(text: str) -> float:
    value = _number("--seconds", text)
    if not 0 < value <= 86400:
        raise ArenaError(f"--seconds must be more than 0 and at most 86400, not {text}")
    return value


def _sprt(words: Sequence[str]) -> Sprt:
    """``ELO0 ELO1`` or cutechess's ``elo0=0 elo1=10 alpha=0.05 beta=0.05``."""
    given: dict[str, float] = {}
    if all("=" not in word for word in words):
        if len(words) != 2:
            raise ArenaError("--sprt wants two Elo values, ELO0 and ELO1 (e.g. --sprt 0 10)")
        given = {"elo0": _number("--sprt", words[0]), "elo1": _number("--sprt", words[1])}
    else:
        for word in words:
            key, _, value = word.partition("=")
            if key not in SPRT_KEYS:
                raise ArenaError(f"--sprt: unknown {key[:20]!r}; the keys are "
                                 f"{', '.join(SPRT_KEYS)} (e.g. elo0=0 elo1=10)")
            given[key] = _number(f"--sprt {key}", value)
        if "elo0" not in given or "elo1" not in given:
            raise ArenaError("--sprt needs both elo0 and elo1 (e.g. elo0=0 elo1=10)")
    sprt = Sprt(**given)
    if not -1000 <= sprt.elo0 < sprt.elo1 <= 1000:
        raise ArenaError(f"--sprt: ELO0 must be below ELO1, both between -1000 and 1000 "
                         f"(got {sprt.elo0:g} and {sprt.elo1:g})")
    for name, rate in (("alpha", sprt.alpha), ("beta", sprt.beta)):
        if not 0 < rate < 0.5:
            raise ArenaError(f"--sprt {name} must be between 0 and 0.5, not {rate:g}")
    return sprt


# --------------------------------------------------------------------------- output


@dataclass(frozen=True)
class Score:
    """The first bot's score against the second over a match of two bots."""

    wins: int
    losses: int
    draws: int
    score: float  # points per game, 0 to 1
    low: float  # the 95% interval of the score, over deals
    high: float
    deals: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws


def match_score(results: Sequence[GameResult], first: str, second: str,
                deal_of: Mapping[str, object]) -> Score:
    """Wins, losses and draws of ``first``, its mean score and the 95% interval of that
    mean from the spread of its score per deal (``deal_of``: game id -> its deal, the
    games of one table and round, which share a seed; its games are not independent, the
    deals are)."""
    deals: dict[object, list[float]] = {}
    for result in results:
        mine = result.placements[result.bots.index(first)]
        theirs = result.placements[result.bots.index(second)]
        points = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        deals.setdefault(deal_of.get(result.game_id, result.game_id), []).append(points)
    every = [points for deal in deals.values() for points in deal]
    wins, draws = every.count(1.0), every.count(0.5)
    score = sum(every) / len(every) if every else 0.5
    units = [sum(deal) / len(deal) for deal in deals.values()]
    if len(units) > 1:
        mean = sum(units) / len(units)
        variance = sum((unit - mean) ** 2 for unit in units) / (len(units) - 1)
        half = Z95 * math.sqrt(variance / len(units))
    else:
        half = 0.5  # one deal says nothing of the spread
    return Score(wins, len(every) - wins - draws, draws, score, max(0.0, score - half),
                 min(1.0, score + half), len(units))


def elo_text(score: float) -> str:
    """The Elo difference a score means (the logistic curve); ±inf at 0 and 1."""
    from arena.stats.sprt import score_elo

    if score <= 0:
        return "-inf"
    if score >= 1:
        return "+inf"
    return f"{score_elo(score):+.0f}"


class MatchTerminal(LeagueListener):
    """What ``arena match`` prints: on stderr what is played and where; on stdout a line
    per game as it is stored, then the score (two bots) or the leaderboard."""

    def __init__(self, bots: Sequence[str], *, out: TextIO, err: TextIO) -> None:
        self.bots = list(bots)
        self.out, self.err = out, err
        self.done = 0
        self.total = 0
        self.tally = [0, 0, 0]  # the first bot's wins, losses, draws against the second

    def notice(self, text: str) -> None:
        print(text, file=self.err)

    def league_started(self, league: League) -> None:
        config, plan = league.config, league.plan
        assert plan is not None  # a round robin: a schedule made in advance
        if len(self.bots) == 2:
            first, second = self.bots
            score = match_score(league.stored_before, first, second, {})
            self.tally = [score.wins, score.losses, score.draws]
        self.done = len(league.stored_before)
        self.total = len(plan.schedule)
        k = config.players[0]
        tables = len({game.table for game in plan.schedule if game.round == 0})
        who = " vs ".join(self.bots)
        per_table = f"{config.rounds * k} games a table" if tables > 1 else \
            f"{config.rounds * k} games"
        test = league.stop_test
        limit = f"at most {self.total} games, stopping when the SPRT decides" if test \
            else f"{self.total} games"
        print(f"{who}: {config.game}, {k} players, {per_table} ({config.rounds} deals, each "
              f"from every seat), {config.limits.move_seconds:g} s a decision: {limit}",
              file=self.err)
        if self.done:
            print(f"resuming: {self.done} games stored already in {config.results_dir}",
                  file=self.err)
        if league.checked.sandbox is not None:
            print(f"{league.checked.sandbox.announcement()}", file=self.err)

    def game_stored(self, league: League, game: StoredGame) -> None:
        result = game.result
        self.done += 1
        order = sorted(range(result.num_players), key=lambda seat: result.placements[seat])
        places = "  ".join(f"{result.placements[seat]}. {result.bots[seat]} "
                           f"{result.scores[seat]:g}" for seat in order)
        failed = "".join(f"  ({result.bots[seat]}: {why})"
                         for seat, why in sorted(result.failures.items()))
        line = f"game {self.done:>{len(str(self.total))}}/{self.total}  {result.game_id[:8]}  " \
            f"seats {', '.join(result.bots)}  {places}{failed}"
        if len(self.bots) == 2:
            first, second = self.bots
            mine = result.placements[result.bots.index(first)]
            theirs = result.placements[result.bots.index(second)]
            self.tally[0 if mine < theirs else 1 if mine > theirs else 2] += 1
            wins, losses, draws = self.tally
            share = (wins + draws / 2) / (wins + losses + draws)
            line += f"  | {first} {wins} - {losses} - {draws} {second} [{share:.3f}]"
        print(line, file=self.out, flush=True)

    def league_ended(self, league: League, summary: LeagueSummary) -> None:
        config = league.config
        where = shlex.quote(str(config.results_dir))
        if summary.interrupted:
            print(f"interrupted after {summary.played} new games; {summary.stored} stored in "
                  f"{config.results_dir}. Run the same command to resume.", file=self.err)
            return
        if summary.failed:
            return
        results = league.store.results()
        if not results:
            print("no games played", file=self.out)
            return
        if len(self.bots) == 2:
            first, second = self.bots
            deals = league.store.tables_of([r.game_id for r in results])
            score = match_score(results, first, second, deals)
            print(f"Score of {first} vs {second}: {score.wins} - {score.losses} - "
                  f"{score.draws}  [{score.score:.3f}]  {score.games} games, {score.deals} "
                  f"deals; 95% interval {score.low:.3f} - {score.high:.3f}", file=self.out)
            print(f"Elo difference: {elo_text(score.score)} (95% interval "
                  f"{elo_text(score.low)} to {elo_text(score.high)})", file=self.out)
            if league.stop_test is not None:
                print(league.stop_test.verdict(), file=self.out)
        else:
            from arena.league.run import leaderboard_text

            print(f"{config.name}: {len(results)} games of {config.game}", file=self.out)
            print(leaderboard_text(results, config), file=self.out)
        print(f"results in {config.results_dir}: arena report {where} -o report.html; "
              f"arena leaderboard {where}; arena replay GAME_ID", file=self.err)
