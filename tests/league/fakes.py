"""A fake "play one game" for league tests: no bot processes, deterministic results.

Each bot has a fixed strength (from its name); a game's scores come from the seed, so
duplicate seatings of the same table see the same luck.  ``FAKE_SLEEP`` (seconds, max)
and ``FAKE_CHILD`` (start a real `sleep` child per game) make games take time, for the
crash and Ctrl-C tests.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from pathlib import Path

import trio

from arena.league.schedule import ScheduledGame
from arena.records import Failure, GameRecord, PlayerEntry
from arena.runner.botspec import BotSpec


def fake_bot(name: str, version: str = "1.0.0", content_hash: str | None = None) -> BotSpec:
    return BotSpec(
        name=name,
        version=version,
        command=("true",),
        folder=None,
        games={"ra": (2, 3, 4, 5)},
        source="test",
        content_hash=content_hash or hashlib.sha256(name.encode()).hexdigest(),
    )


def strength(bot: str) -> int:
    return int(hashlib.sha256(bot.encode()).hexdigest(), 16) % 20


def fake_record(game: ScheduledGame) -> GameRecord:
    luck = random.Random(game.seed)
    scores = [strength(bot) + luck.randrange(10) for bot in game.seats]
    engine_placements = [1 + sum(other > mine for other in scores) for mine in scores]
    failed = [seat for seat, bot in enumerate(game.seats) if bot.startswith("crashy")]
    placements = [len(game.seats) if seat in failed else place
                  for seat, place in enumerate(engine_placements)]
    return GameRecord(
        game="ra",
        options={},
        seed=game.seed,
        players=tuple(PlayerEntry(seat=seat, name=bot, version="1.0.0", kind="fake")
                      for seat, bot in enumerate(game.seats)),
        scores=tuple(float(s) for s in scores),
        engine_placements=tuple(engine_placements),
        placements=tuple(placements),
        failures=tuple(Failure(seat=seat, bot=game.seats[seat], reason="crash", detail="",
                               phase="decision", decision=1, stderr_tail="")
                       for seat in failed),
        engine={"seed": game.seed, "actions": [{"seat": 0, "action": {"type": "pass"}}]},
    ).in_league(game.game_id, game.table, game.round)


class FakePlay:
    """Counts games in flight; optionally sleeps and runs a child process per game."""

    def __init__(self, sleep: float = 0.0, child: bool = False,
                 pid_dir: Path | None = None) -> None:
        self.sleep = sleep
        self.child = child
        self.pid_dir = pid_dir
        self.in_flight = 0
        self.max_in_flight = 0
        self.started: list[str] = []

    async def __call__(self, game: ScheduledGame) -> GameRecord:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.started.append(game.game_id)
        try:
            if self.child:
                await trio.run_process(["sleep", str(self.sleep)])
            elif self.sleep:
                await trio.sleep(random.Random(game.seed).uniform(0, self.sleep))
            else:
                await trio.sleep(0)
            return fake_record(game)
        finally:
            self.in_flight -= 1


def bots(names: Sequence[str]) -> list[BotSpec]:
    return [fake_bot(name) for name in names]
