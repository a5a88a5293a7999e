"""``arena validate``: does a bot follow protocol "ra-arena/1" for every game it claims?

The check, under the limits it is given (``arena.settings.Limits``; ``arena validate``
passes the league's defaults with a short time per decision, 0.1 s and a 2 s overage
bank per game unless told: it checks the protocol, not strength, and a bot reads its time
from the hello and each request, so a search bot thinks briefly, and a bot that ignores
the time still times out):

1. handshake: a fresh process answers hello with ready (right protocol) in time;
2. ping: it answers a ping with the matching pong in time;
3. games: for each game and player count in its manifest, ``games`` games (default one
   per seat) against the bundled bots ("random" and "first"), the bot taking every seat in
   turn, seeds derived from ``seed``.  Every failure the referee records for the bot
   (crash, timeout, stall, malformed, illegal, oversize, protocol) is a violation.

The games run ``concurrency`` at once (default: every usable core), in pairs of
consecutive games on one bot process, so that a bot that leaves after a game is still
caught at the next game's ping.  It stops early after ``max_violations`` violations: a
broken bot is reported in seconds, not after hundreds of timeouts (the games in flight
finish; the report keeps the first violations in the order of the check).  Latency is
the time from sending a request to reading the reply, as the referee sees it.  Ctrl-C
ends the check with a report of what was checked until then (``interrupted``).
"""

from __future__ import annotations

import hashlib
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import trio

from arena.games.base import Game
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.runner.players import Player, WrappedPlayer, first_player, random_player
from arena.runner.pool import BotPool, open_bot_pool
from arena.runner.protocol import (
    DecisionRequest,
    Reply,
)
from arena.runner.referee import play_game
from arena.settings import Limits, usable_cores

JSON = Any
OPPONENT_NAMES = ("random", "first")
# arena validate's time per decision: short, it checks the protocol (module docstring)
DEFAULT_MOVE_SECONDS = 0.1
# ... and an overage bank per game: a loaded machine delays the odd reply by 0.1 s or
# more (up to 0.5 s at load 11 on 2 cores), which must not fail a bot that keeps to its
# time; one that ignores it (a second a decision) has spent the bank by its third decision
DEFAULT_OVERAGE_SECONDS = 2.0


@dataclass(frozen=True)
class Violation:
    check: str  # "handshake", "ping" or "<game> <n>p game <i>"
    reason: str  # one of arena.runner.failures.REASONS
    detail: str
    seed: int | None = None
    phase: str | None = None
    decision: int | None = None  # the game's decision number, as in its record
    stderr_tail: str = ""
    own_decision: int | None = None  # which of the bot's own decisions that was (1 = its first)

    def where(self) -> str:
        """The check, its seed and the decision, in words."""
        where = self.check
        if self.seed is not None:
            where += f" (seed {self.seed})"
        if self.decision is not None:
            where += f" at decision {self.decision}"
            if self.own_decision is not None:
                where += f" of the game (its {_ordinal(self.own_decision)})"
        return where


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


@dataclass
class SettingResult:
    """The games of one game and player count."""

    game: str
    num_players: int
    games_played: int = 0
    decisions: int = 0  # requests the bot was sent, answered or not
    latencies: list[float] = field(default_factory=list)  # seconds, one per answer
    violations: int = 0  # every one found (the report keeps at most max_violations)


@dataclass
class ConformanceReport:
    bot: str
    version: str
    handshake_seconds: float | None = None
    ping_seconds: float | None = None
    settings: list[SettingResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    stopped_early: bool = False
    opponents: str = ""
    interrupted: bool = False  # Ctrl-C: the report holds what was checked until then
    total_games: int = 0  # the games the check would play
    games_done: int = 0
    violations_found: int = 0  # so far (the report keeps at most max_violations)

    @property
    def passed(self) -> bool:
        return not self.violations and not self.stopped_early and not self.interrupted

    def to_json(self) -> dict[str, JSON]:
        return {
            "bot": self.bot,
            "version": self.version,
            "passed": self.passed,
            "handshake_ms": _ms(self.handshake_seconds),
            "ping_ms": _ms(self.ping_seconds),
            "opponents": self.opponents,
            "stopped_early": self.stopped_early,
            "interrupted": self.interrupted,
            "violations_found": max(self.violations_found, len(self.violations)),
            "settings": [
                {
                    "game": s.game,
                    "num_players": s.num_players,
                    "games": s.games_played,
                    "decisions": s.decisions,
                    "violations": s.violations,
                    "latency_ms": latency_summary(s.latencies),
                }
                for s in self.settings
            ],
            "violations": [vars(v) for v in self.violations],
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values (fraction in 0..1)."""
    rank = max(1, -(-len(sorted_values) * fraction // 1))  # ceil, at least the first
    return sorted_values[int(rank) - 1]


def latency_summary(latencies: Sequence[float]) -> dict[str, float] | None:
    """p50, p90, p99 and max in milliseconds (None without decisions)."""
    if not latencies:
        return None
    ordered = sorted(latencies)
    summary = {f"p{p}": percentile(ordered, p / 100) for p in (50, 90, 99)}
    summary["max"] = ordered[-1]
    return {key: round(value * 1000, 3) for key, value in summary.items()}


def game_seed(seed: int, game: str, num_players: int, index: int) -> int:
    """A stable 63-bit seed per game of the check (never Python's salted hash())."""
    text = f"validate:{seed}:{game}:{num_players}:{index}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


class TimedPlayer(WrappedPlayer):
    """Wraps the bot under test to count its decisions (the game's numbers of those it
    was asked) and measure each answer, otherwise transparent."""

    def __init__(self, inner: Player, latencies: list[float]) -> None:
        super().__init__(inner)
        self.latencies = latencies
        self.asked: list[int] = []

    async def choose(self, request: DecisionRequest) -> Reply | None:
        self.asked.append(request.id)
        started = time.perf_counter()
        reply = await self.inner.choose(request)
        self.latencies.append(time.perf_counter() - started)
        return reply


Progress = Callable[[str], None]


@dataclass(frozen=True)
class Chunk:
    """Games of one setting played one after another by the same bot process (at least
    two, when the setting has two: a bot that leaves after a game is caught at the next
    game's ping, however many games run at once)."""

    setting: SettingResult
    indices: tuple[int, ...]


def chunks_of(settings: Sequence[SettingResult], games_per_setting: int | None
              ) -> list[Chunk]:
    """Every game of the check, in pairs of consecutive games of one setting (the odd
    game out joins the last pair), settings in order."""
    chunks: list[Chunk] = []
    for setting in settings:
        count = games_for(setting.num_players, games_per_setting)
        starts = list(range(0, count, 2))
        if len(starts) > 1 and count % 2:
            starts.pop()  # three games at the end rather than a lone one
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else count
            chunks.append(Chunk(setting, tuple(range(start, end))))
    return chunks


def games_for(num_players: int, games_per_setting: int | None) -> int:
    """The games of a setting: as asked, by default one per seat (the bot takes every
    seat once)."""
    return num_players if games_per_setting is None else games_per_setting


async def check_bot(
    spec: BotSpec,
    games: Mapping[str, Game],
    opponents: Sequence[BotSpec],
    *,
    games_per_setting: int | None = None,
    seed: int = 1,
    limits: Limits | None = None,
    max_violations: int = 3,
    progress: Progress | None = None,
    concurrency: int | None = None,
    game_done: Callable[[ConformanceReport], None] | None = None,
    handle_signals: bool = False,
) -> ConformanceReport:
    """Run the whole check (see the module docstring).  ``opponents`` are bot specs to
    seat against the bot; without any, in-process random/first players stand in.

    ``games_per_setting`` games of each game and player count (None: one per seat), up to
    ``concurrency`` at once (default: the usable cores).  ``progress`` gets a line per
    step (handshake and ping, then each setting, in order, once its games are done);
    ``game_done`` is called after every game.  With ``handle_signals``, Ctrl-C (SIGINT)
    or SIGTERM ends the check early: the report says ``interrupted`` and holds what was
    checked until then."""
    limits = limits or Limits()
    report = ConformanceReport(spec.name, spec.version)
    names = [o.name for o in opponents] or ["in-process random", "in-process first"]
    report.opponents = ", ".join(names)
    planned = [SettingResult(game_name, num_players)
               for game_name, counts in spec.games.items() for num_players in counts]
    report.total_games = sum(games_for(s.num_players, games_per_setting) for s in planned)
    say = progress or (lambda line: None)
    with trio.CancelScope() as scope:
        try:
            async with trio.open_nursery() as nursery:
                if handle_signals:
                    nursery.start_soon(_watch_signals, scope, report)
                async with open_bot_pool(limits) as pool:
                    if await _check_handshake_and_ping(pool, spec, report):
                        say(f"handshake ok ({_ms(report.handshake_seconds)} ms), "
                            f"ping ok ({_ms(report.ping_seconds)} ms)")
                        await _play_all(pool, spec, games, opponents, report, planned, seed,
                                        limits, max_violations, games_per_setting,
                                        concurrency, say, game_done)
                nursery.cancel_scope.cancel()  # done: stop watching for signals
        except BaseExceptionGroup as group:
            raise _single(group) from None
    return report


def _single(group: BaseExceptionGroup) -> BaseException:
    """The one error of a nursery as it was raised (an ArenaError stays one)."""
    return group.exceptions[0] if len(group.exceptions) == 1 else group


async def _watch_signals(scope: trio.CancelScope, report: ConformanceReport) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _signal in signals:
            report.interrupted = True
            scope.cancel()
            return


async def _play_all(
    pool: BotPool,
    spec: BotSpec,
    games: Mapping[str, Game],
    opponents: Sequence[BotSpec],
    report: ConformanceReport,
    planned: Sequence[SettingResult],
    seed: int,
    limits: Limits,
    max_violations: int,
    games_per_setting: int | None,
    concurrency: int | None,
    say: Progress,
    game_done: Callable[[ConformanceReport], None] | None,
) -> None:
    """The games, ``concurrency`` at once, each chunk on one bot process; after
    ``max_violations`` violations no new game starts (those in flight finish) and the
    report keeps the first ``max_violations`` in the order of the check, and the settings
    that were played."""
    todo = chunks_of(planned, games_per_setting)
    lanes = max(1, min(concurrency or usable_cores(), len(todo)))
    pending = iter(todo)
    left = {id(s): games_for(s.num_players, games_per_setting) for s in planned}
    told = 0  # settings whose line was said, in order
    found: list[tuple[int, int, Violation]] = []  # (setting number, game index, violation)
    number = {id(s): n for n, s in enumerate(planned)}

    def stop() -> bool:
        return len(found) >= max_violations

    async def lane() -> None:
        nonlocal told
        for chunk in pending:  # shared: each lane takes the next chunk
            setting = chunk.setting
            bot = pool.checkout(spec)  # one process for the chunk's games
            try:
                for index in chunk.indices:
                    if stop():
                        return
                    violations = await _play_one(pool, bot, games[setting.game], opponents,
                                                 setting, index, seed, limits)
                    found.extend((number[id(setting)], index, v) for v in violations)
                    setting.violations += len(violations)
                    report.violations_found += len(violations)
                    left[id(setting)] -= 1
                    report.games_done += 1
                    if game_done is not None:
                        game_done(report)
                    while told < len(planned) and not left[id(planned[told])]:
                        say(setting_line(planned[told]))
                        told += 1
            finally:
                pool.checkin(bot)

    try:
        async with trio.open_nursery() as nursery:
            for _ in range(lanes):
                nursery.start_soon(lane)
    except BaseExceptionGroup as group:
        raise _single(group) from None
    finally:  # also when interrupted: the report holds what was checked
        found.sort(key=lambda item: (item[0], item[1]))
        report.violations.extend(v for _n, _i, v in found[:max_violations])
        report.settings.extend(s for s in planned if s.games_played)
        report.stopped_early = stop() and report.games_done < report.total_games


async def _check_handshake_and_ping(
    pool: BotPool, spec: BotSpec, report: ConformanceReport
) -> bool:
    player = pool.checkout(spec)  # a fresh process: nothing has started it yet
    for check in ("handshake", "ping"):
        step = player.handshake if check == "handshake" else player.ping
        started = time.perf_counter()
        try:
            await step()
        except BotFailure as failure:
            tail = await player.abandon(failure)
            report.violations.append(Violation(check, failure.reason, failure.detail,
                                               stderr_tail=tail))
            report.violations_found += 1
            pool.checkin(player)
            return False
        elapsed = time.perf_counter() - started
        if check == "handshake":
            report.handshake_seconds = elapsed
        else:
            report.ping_seconds = elapsed
    pool.checkin(player)  # warm for the first game
    return True


def _opponent_players(
    pool: BotPool, opponents: Sequence[BotSpec], game: str, count: int, index: int
) -> list[Player]:
    usable = [o for o in opponents if o.plays(game, count)]
    if not usable:
        stand_ins: list[Player] = [random_player(), first_player()]
        return [stand_ins[(index + i) % 2] for i in range(count)]
    return [pool.checkout(usable[(index + i) % len(usable)]) for i in range(count)]


async def _play_one(
    pool: BotPool,
    bot: Player,
    game: Game,
    opponents: Sequence[BotSpec],
    setting: SettingResult,
    index: int,
    seed: int,
    limits: Limits,
) -> list[Violation]:
    """One game of the check, the bot in seat ``index % players``; its violations."""
    count = setting.num_players
    seat = index % count  # the bot takes every seat in turn
    others = _opponent_players(pool, opponents, game.name, count - 1, index)
    latencies: list[float] = []
    timed = TimedPlayer(bot, latencies)
    seating: list[Player] = [*others[:seat], timed, *others[seat:]]
    this_seed = game_seed(seed, game.name, count, index)
    try:
        record = await play_game(game, seating, this_seed, limits=limits)
    finally:
        for other in others:
            if hasattr(other, "spec"):  # process players go back to the pool
                pool.checkin(other)  # type: ignore[arg-type]
    setting.games_played += 1
    setting.decisions += len(timed.asked)  # a game cut short adds nothing
    setting.latencies.extend(latencies)
    check = f"{game.name} {count}p game {index + 1}"
    entries: list[Mapping[str, Any]] = [*record.failures, *record.incidents]
    return [
        Violation(check, entry["reason"], entry["detail"], this_seed, entry.get("phase"),
                  entry.get("decision"), entry.get("stderr_tail") or "",
                  own_decision=_own(timed.asked, entry.get("decision"), entry.get("phase")))
        for entry in entries
        if entry["seat"] == seat  # an opponent's trouble is not this bot's violation
    ]


def _own(asked: Sequence[int], decision: int | None, phase: str | None) -> int | None:
    """Which of the bot's decisions the game's decision ``decision`` was (None for a
    notice of another seat's decision, or no decision)."""
    if phase != "decision" or decision not in asked:
        return None
    return asked.index(decision) + 1


def setting_line(setting: SettingResult) -> str:
    summary = latency_summary(setting.latencies)
    latency = "no answer to time" if summary is None else (
        f"p50 {summary['p50']} ms, p90 {summary['p90']} ms, p99 {summary['p99']} ms, "
        f"max {summary['max']} ms")
    return (f"{setting.game} {setting.num_players}p: {setting.games_played} games, "
            f"{setting.decisions} decisions, {setting.violations} violations, {latency}")


class ProgressLine:
    """The check's progress on stderr, as ``arena run``'s (arena/league/progress.py): on a
    terminal one line rewritten as games finish, else a line every 10 s; and a last line
    at the end.  Lines of the report said meanwhile (:meth:`say`) go above it."""

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.clock = clock
        self.start = clock()
        self.last_draw = -1e9
        self.shown = False  # a live line is on the screen
        self.report: ConformanceReport | None = None

    def line(self, report: ConformanceReport) -> str:
        done, total = report.games_done, report.total_games
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = done / elapsed
        eta = _duration((total - done) / rate) if rate > 0 else "?"
        filled = round(BAR_WIDTH * done / total) if total else BAR_WIDTH
        bar = "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "]"
        return (f"{bar} {done}/{total} games | {rate:.1f} games/s | ETA {eta} | "
                f"violations {report.violations_found}")

    def game_done(self, report: ConformanceReport) -> None:
        self.report = report
        self.draw(report)

    def draw(self, report: ConformanceReport, force: bool = False) -> None:
        now = self.clock()
        if not force and now - self.last_draw < (0.2 if self.live else 10.0):
            return
        self.last_draw = now
        if self.live:  # cut to the terminal's width so that it never wraps
            width = shutil.get_terminal_size().columns - 1
            self.stream.write("\r\x1b[2K" + self.line(report)[:width])
            self.shown = True
        else:
            self.stream.write(self.line(report) + "\n")
        self.stream.flush()

    def say(self, line: str, out: TextIO) -> None:
        """Print a line of the report to ``out`` above the live line."""
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False
        print(line, file=out, flush=True)
        if self.live and self.report is not None:
            self.draw(self.report, force=True)

    def finish(self) -> None:
        """The last line (none when no game was played)."""
        report = self.report
        if report is not None:
            self.draw(report, force=True)
            if self.live:
                self.stream.write("\n")
                self.shown = False
            self.stream.flush()


BAR_WIDTH = 20


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def run_check(spec: BotSpec, games: Mapping[str, Game], opponents: Sequence[BotSpec],
              **options: Any) -> ConformanceReport:
    """``check_bot`` from synchronous code."""
    async def main() -> ConformanceReport:
        return await check_bot(spec, games, opponents, **options)

    return trio.run(main)
