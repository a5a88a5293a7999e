"""The live progress line of a league on stderr: done/total, games/s, ETA, failures, the
state of the league's sequential test if it has one, and the current top of the
leaderboard (sequential Elo, updated game by game); on a cluster, the games per second of
each worker, in the line and in a summary at the end."""

from __future__ import annotations

import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

from arena.rating import EloTicker
from arena.records import GameResult

BAR_WIDTH = 20  # characters of the progress bar


class Progress:
    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        top: int = 3,
        clock: Any = time.monotonic,
        status: Callable[[], str] | None = None,
    ) -> None:
        self.total = total
        self.already = done  # finished before this run (resume)
        self.played = 0
        self.failures: Counter[str] = Counter()
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.top = top
        self.clock = clock
        self.start = clock()
        self.last_draw = -1e9
        self.ticker = EloTicker()
        self.status = status  # e.g. the sequential test's running LLR
        self.by_worker: Counter[str] = Counter()  # games of this run per cluster worker

    def seed_leaderboard(self, results: list[GameResult]) -> None:
        """Feed the games stored before this run, so the ticker covers the whole league."""
        for result in results:
            self.ticker.update(result)

    def game_done(self, result: GameResult, worker: str | None = None) -> None:
        self.played += 1
        if worker is not None:
            self.by_worker[worker] += 1
        for reason in result.failures.values():
            self.failures[reason] += 1
        self.ticker.update(result)
        self.draw()

    def line(self) -> str:
        done = self.already + self.played
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = self.played / elapsed
        left = self.total - done
        eta = _duration(left / rate) if rate > 0 else "?"
        percent = 100 * done / self.total if self.total else 100
        failed = sum(self.failures.values())
        filled = round(BAR_WIDTH * done / self.total) if self.total else BAR_WIDTH
        bar = "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "]"
        parts = [
            f"{bar} {done}/{self.total} games ({percent:.0f}%)",
            f"{rate:.1f} games/s",
            f"ETA {eta}",
            f"failures {failed}",
        ]
        if self.status is not None:
            parts.append(self.status())
        if self.by_worker:
            rates = ", ".join(f"{n / elapsed:.1f}" for _, n in sorted(self.by_worker.items()))
            parts.append(f"{len(self.by_worker)} workers: {rates} games/s")
        board = self.ticker.leaderboard()[: self.top]
        if board:
            # an Elo updated game by game; the leaderboard at the end is the batch fit
            parts.append("top: " + ", ".join(f"{bot} {elo:.0f}" for bot, elo in board)
                         + " (live Elo)")
        return " | ".join(parts)

    def say(self, text: str) -> None:
        """A line of its own above the live line (a Swiss round starting)."""
        if self.quiet:
            return
        if self.live:
            self.stream.write("\r\x1b[2K" + text + "\n")
            self.draw(force=True)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def draw(self, force: bool = False) -> None:
        if self.quiet:
            return
        now = self.clock()
        interval = 0.2 if self.live else 10.0
        if not force and now - self.last_draw < interval:
            return
        self.last_draw = now
        if self.live:  # one line, rewritten: cut to the terminal's width so it never wraps
            width = shutil.get_terminal_size().columns - 1
            self.stream.write("\r\x1b[2K" + self.line()[:width])
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.quiet:
            return
        self.draw(force=True)
        if self.live:
            self.stream.write("\n")
        if self.by_worker:
            elapsed = max(self.clock() - self.start, 1e-9)
            self.stream.write("games per cluster worker this run:\n")
            for worker, count in sorted(self.by_worker.items()):
                self.stream.write(f"  {worker}: {count} games, {count / elapsed:.1f} games/s\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
