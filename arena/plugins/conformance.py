"""``arena validate``: does a bot follow protocol "ra-arena/1" for every game it claims?

The check, under the league's default limits (``arena.settings.Limits``):

1. handshake: a fresh process answers hello with ready (right protocol) in time;
2. ping: it answers a ping with the matching pong in time;
3. games: for each game and player count in its manifest, ``games`` games (default 20)
   against the bundled bots ("random" and "first"), the bot taking every seat in turn,
   seeds derived from ``seed``.  Every failure the referee records for the bot (crash,
   timeout, stall, malformed, illegal, oversize, protocol) is a violation.

It stops early after ``max_violations`` violations: a broken bot is reported in seconds,
not after hundreds of timeouts.  Latency is the time from sending a request to reading
the reply, as the referee sees it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
from arena.settings import Limits

JSON = Any
OPPONENT_NAMES = ("random", "first")


@dataclass(frozen=True)
class Violation:
    check: str  # "handshake", "ping" or "<game> <n>p game <i>"
    reason: str  # one of arena.runner.failures.REASONS
    detail: str
    seed: int | None = None
    phase: str | None = None
    decision: int | None = None
    stderr_tail: str = ""


@dataclass
class SettingResult:
    """The games of one game and player count."""

    game: str
    num_players: int
    games_played: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, one per decision
    violations: int = 0


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

    @property
    def passed(self) -> bool:
        return not self.violations and not self.stopped_early

    def to_json(self) -> dict[str, JSON]:
        return {
            "bot": self.bot,
            "version": self.version,
            "passed": self.passed,
            "handshake_ms": _ms(self.handshake_seconds),
            "ping_ms": _ms(self.ping_seconds),
            "opponents": self.opponents,
            "stopped_early": self.stopped_early,
            "settings": [
                {
                    "game": s.game,
                    "num_players": s.num_players,
                    "games": s.games_played,
                    "decisions": len(s.latencies),
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
    """Wraps the bot under test to measure each decision, otherwise transparent."""

    def __init__(self, inner: Player, latencies: list[float]) -> None:
        super().__init__(inner)
        self.latencies = latencies

    async def choose(self, request: DecisionRequest) -> Reply | None:
        started = time.perf_counter()
        reply = await self.inner.choose(request)
        self.latencies.append(time.perf_counter() - started)
        return reply


Progress = Callable[[str], None]


async def check_bot(
    spec: BotSpec,
    games: Mapping[str, Game],
    opponents: Sequence[BotSpec],
    *,
    games_per_setting: int = 20,
    seed: int = 1,
    limits: Limits | None = None,
    max_violations: int = 3,
    progress: Progress | None = None,
) -> ConformanceReport:
    """Run the whole check (see the module docstring).  ``opponents`` are bot specs to
    seat against the bot; without any, in-process random/first players stand in."""
    limits = limits or Limits()
    report = ConformanceReport(spec.name, spec.version)
    names = [o.name for o in opponents] or ["in-process random", "in-process first"]
    report.opponents = ", ".join(names)
    say = progress or (lambda line: None)
    async with open_bot_pool(limits) as pool:
        if not await _check_handshake_and_ping(pool, spec, report):
            return report
        say(f"handshake ok ({_ms(report.handshake_seconds)} ms), "
            f"ping ok ({_ms(report.ping_seconds)} ms)")
        for game_name, counts in spec.games.items():
            for num_players in counts:
                setting = SettingResult(game_name, num_players)
                report.settings.append(setting)
                for index in range(games_per_setting):
                    if len(report.violations) >= max_violations:
                        report.stopped_early = True
                        return report
                    await _play_one(pool, spec, games[game_name], opponents, setting,
                                    index, seed, limits, report)
                say(_setting_line(setting))
    return report


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
    spec: BotSpec,
    game: Game,
    opponents: Sequence[BotSpec],
    setting: SettingResult,
    index: int,
    seed: int,
    limits: Limits,
    report: ConformanceReport,
) -> None:
    count = setting.num_players
    seat = index % count  # the bot takes every seat in turn
    bot = pool.checkout(spec)
    others = _opponent_players(pool, opponents, game.name, count - 1, index)
    seating: list[Player] = [*others[:seat], TimedPlayer(bot, setting.latencies), *others[seat:]]
    this_seed = game_seed(seed, game.name, count, index)
    try:
        record = await play_game(game, seating, this_seed, limits=limits)
    finally:
        pool.checkin(bot)
        for other in others:
            if hasattr(other, "spec"):  # process players go back to the pool
                pool.checkin(other)  # type: ignore[arg-type]
    setting.games_played += 1
    check = f"{game.name} {count}p game {index + 1}"
    entries: list[Mapping[str, Any]] = [*record.failures, *record.incidents]
    for entry in entries:
        if entry["seat"] != seat:
            continue  # an opponent's trouble is not this bot's violation
        setting.violations += 1
        report.violations.append(Violation(
            check, entry["reason"], entry["detail"], this_seed, entry.get("phase"),
            entry.get("decision"), entry.get("stderr_tail") or ""))


def _setting_line(setting: SettingResult) -> str:
    summary = latency_summary(setting.latencies)
    latency = "no decisions" if summary is None else (
        f"p50 {summary['p50']} ms, p90 {summary['p90']} ms, p99 {summary['p99']} ms, "
        f"max {summary['max']} ms")
    return (f"{setting.game} {setting.num_players}p: {setting.games_played} games, "
            f"{len(setting.latencies)} decisions, {setting.violations} violations, {latency}")


def run_check(spec: BotSpec, games: Mapping[str, Game], opponents: Sequence[BotSpec],
              **options: Any) -> ConformanceReport:
    """``check_bot`` from synchronous code."""
    async def main() -> ConformanceReport:
        return await check_bot(spec, games, opponents, **options)

    return trio.run(main)
