"""``arena bench protocol``: the cost of one decision through the whole bot stack.

Measured in the same run, interleaved game by game (so that load on a shared machine hits
every row alike), on the same requests (those of real Ra games):

* full stack: referee -> process player -> pipe -> the bundled ``first`` bot (arena.sdk)
  -> pipe -> decoder -> referee, timed around each decision (request encoding included);
* raw pipe echo: two Python processes, blocking I/O, the child echoes each request line:
  the floor of any design that talks to a process;
* JSON echo: the same, but both sides do the protocol's JSON work (the parent encodes the
  request and decodes the reply, the child decodes the request and encodes a reply):
  the floor of any JSON-lines design;
* referee + in-process player: the referee's own share, no process at all.

The target is a full-stack median within 2x of the raw echo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import trio

from arena.errors import ArenaError
from arena.games import builtin_game
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.runner.limits import Limits
from arena.runner.players import Player, first_player
from arena.runner.pool import BotPool, open_bot_pool
from arena.runner.protocol import (
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Reply,
    encode,
)
from arena.runner.referee import play_game

GAME = "ra"
FIRST_BOT = Path(__file__).resolve().parents[2] / "bots" / "first"
RAW_ECHO_CHILD = (
    "import sys\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "for line in iter(read, b''):\n"
    "    write.write(line)\n"
    "    write.flush()\n"
)
JSON_ECHO_CHILD = (
    "import json, sys\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "for line in iter(read, b''):\n"
    "    request = json.loads(line)\n"
    "    reply = {'type': 'reply', 'id': request['id'], 'index': 0}\n"
    "    write.write(json.dumps(reply).encode() + b'\\n')\n"
    "    write.flush()\n"
)


class TimedPlayer:
    """Wraps a player; remembers how long each ``choose`` took and what it was asked."""

    def __init__(self, inner: Player, requests: list[dict[str, Any]] | None) -> None:
        self.inner = inner
        self.name, self.version, self.kind = inner.name, inner.version, inner.kind
        self.samples: list[float] = []
        self.requests = requests

    async def start_game(self, info: GameInfo) -> None:
        await self.inner.start_game(info)

    async def choose(self, request: DecisionRequest) -> Reply:
        started = time.perf_counter()
        reply = await self.inner.choose(request)
        self.samples.append(time.perf_counter() - started)
        if self.requests is not None:
            self.requests.append(request.to_json())
        return reply

    async def notify(self, notice: ActionNotice) -> None:
        await self.inner.notify(notice)

    async def game_over(self, result: GameOverInfo) -> None:
        await self.inner.game_over(result)

    async def abandon(self, failure: BotFailure) -> str:
        return await self.inner.abandon(failure)

    def take_incidents(self) -> list[dict[str, Any]]:
        return self.inner.take_incidents()


class EchoChild:
    """A Python child process answering one line per line, driven with blocking I/O."""

    def __init__(self, code: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", code],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.writer: IO[bytes] = self.process.stdin
        self.reader: IO[bytes] = self.process.stdout

    def raw_round_trips(self, requests: list[dict[str, Any]]) -> list[float]:
        lines = [encode(request) for request in requests]  # encoded outside the timing
        samples = []
        for line in lines:
            started = time.perf_counter()
            self.writer.write(line)
            self.writer.flush()
            answer = self.reader.readline()
            samples.append(time.perf_counter() - started)
            if answer != line:
                raise ArenaError("the echo child answered something else")
        return samples

    def json_round_trips(self, requests: list[dict[str, Any]]) -> list[float]:
        samples = []
        for request in requests:
            started = time.perf_counter()
            self.writer.write(encode(request))
            self.writer.flush()
            reply = json.loads(self.reader.readline())
            samples.append(time.perf_counter() - started)
            if reply["id"] != request["id"]:
                raise ArenaError("the JSON echo child answered something else")
        return samples

    def close(self) -> None:
        self.writer.close()
        self.process.wait(timeout=10)


async def _timed_game(pool: BotPool, num_players: int, seed: int, processes: bool,
                      requests: list[dict[str, Any]] | None) -> list[float]:
    spec = BotSpec(name="first", version="1.0.0", command=("{python}", "bot.py"),
                   folder=FIRST_BOT, games={GAME: (num_players,)}, source="bench")
    async with pool.seated([spec] * num_players) as bots:
        inner: list[Player] = list(bots) if processes else \
            [first_player() for _ in range(num_players)]
        players = [TimedPlayer(p, requests) for p in inner]
        outcome = await play_game(builtin_game(GAME), players, seed, limits=pool.limits)
    if outcome.record["failures"]:
        raise ArenaError(f"the benchmark bot failed: {outcome.record['failures']}")
    return [s for p in players for s in p.samples]


async def _measure(num_players: int, seconds: float, seed: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"stack": [], "raw": [], "json": [], "inproc": []}
    sizes: list[int] = []
    raw, json_echo = EchoChild(RAW_ECHO_CHILD), EchoChild(JSON_ECHO_CHILD)
    games = 0
    try:
        async with open_bot_pool(Limits(move_seconds=10.0)) as pool:
            await _timed_game(pool, num_players, seed, True, None)  # start the processes
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline or games == 0:
                requests: list[dict[str, Any]] = []
                samples["stack"] += await _timed_game(pool, num_players, seed + games,
                                                      True, requests)
                samples["raw"] += raw.raw_round_trips(requests)
                samples["json"] += json_echo.json_round_trips(requests)
                samples["inproc"] += await _timed_game(pool, num_players, seed + games,
                                                       False, None)
                sizes += [len(encode(request)) for request in requests]
                games += 1
    finally:
        raw.close()
        json_echo.close()
    return {"samples": samples, "sizes": sizes, "games": games}


def _row(path: str, samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "path": path,
        "decisions": len(ordered),
        "median µs": 1e6 * statistics.median(ordered),
        "p99 µs": 1e6 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
    }


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    game = builtin_game(GAME)
    num_players = (args.players or [4])[0]
    if not game.min_players <= num_players <= game.max_players:
        raise ArenaError(f"{game.title} is for {game.min_players}-{game.max_players} "
                         f"players, not {num_players}")
    if args.seconds <= 0:
        raise ArenaError("--seconds must be positive")
    measured = trio.run(_measure, num_players, args.seconds, args.seed)
    samples, sizes = measured["samples"], sorted(measured["sizes"])
    rows = [
        _row("raw pipe echo (2 Python processes)", samples["raw"]),
        _row("JSON echo (same JSON work, no framework)", samples["json"]),
        _row("full stack: referee + bot process (SDK)", samples["stack"]),
        _row("referee + in-process player", samples["inproc"]),
    ]
    raw_ratio = rows[2]["median µs"] / rows[0]["median µs"]
    json_ratio = rows[2]["median µs"] / rows[1]["median µs"]
    return {
        "title": f"Protocol round trip per decision: {game.title}, {num_players} players, "
                 f"{measured['games']} games",
        "benchmark": "protocol",
        "rows": rows,
        "stack_vs_raw_echo": raw_ratio,
        "stack_vs_json_echo": json_ratio,
        "notes": [
            f"full-stack median = {raw_ratio:.2f}x the raw echo (target: within 2x), "
            f"{json_ratio:.2f}x the JSON echo",
            f"request lines: median {statistics.median(sizes):.0f} bytes, max {sizes[-1]}",
            "interleaved game by game; the processes' start-up game is not counted",
        ],
    }
