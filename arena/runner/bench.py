"""``arena bench protocol``: the cost of one decision through the whole bot stack.

Measured in the same run, interleaved game by game (so that load on a shared machine hits
every row alike), on the same requests (those of real Ra games):

* full stack: referee -> process player -> pipe -> the bundled ``first`` bot (arena.sdk)
  -> pipe -> decoder -> referee, timed around each decision (request encoding included);
* the same with a trivial bot that answers without parsing the request's JSON (it cuts
  the id out of the line): what the arena itself adds on top of the pipes;
* the arena's pipe layer alone: one trivial bot process, the request lines already
  encoded, sent and read back through the runner's process, line reader and decoder;
* raw pipe echo: two Python processes, blocking I/O, the child echoes each request line:
  the floor of any design that talks to a process;
* raw pipe echo over one child per seat, asked in the game's order: the same floor when,
  as in a real game, every decision wakes a different process;
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
Asked = tuple[int, dict[str, Any]]  # (seat, request message)
RAW_ECHO_CHILD = (
    "import sys\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "for line in iter(read, b''):\n"
    "    write.write(line)\n"
    "    write.flush()\n"
)
TRIVIAL_BOT = (
    "import sys\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "def answer(line):\n"
    "    write.write(line)\n"
    "    write.flush()\n"
    "for line in iter(read, b''):\n"
    "    if line.startswith(b'{\"type\":\"request\"'):\n"
    "        request_id = line.split(b'\"id\":', 1)[1].split(b',', 1)[0]\n"
    "        answer(b'{\"type\":\"reply\",\"id\":' + request_id + b',\"index\":0}\\n')\n"
    "    elif line.startswith(b'{\"type\":\"hello\"'):\n"
    "        answer(b'{\"type\":\"ready\",\"name\":\"trivial\",\"version\":\"1\",'\n"
    "               b'\"protocol\":\"ra-arena/1\"}\\n')\n"
    "    elif line.startswith(b'{\"type\":\"ping\"'):\n"
    "        ping_id = line.split(b'\"id\":', 1)[1].split(b'}', 1)[0]\n"
    "        answer(b'{\"type\":\"pong\",\"id\":' + ping_id + b'}\\n')\n"
    "    elif line.startswith(b'{\"type\":\"quit\"'):\n"
    "        break\n"
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

    def __init__(self, inner: Player, requests: list[Asked] | None) -> None:
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
            self.requests.append((request.seat, request.to_json()))
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

    def raw_round_trip(self, line: bytes) -> float:
        started = time.perf_counter()
        self.writer.write(line)
        self.writer.flush()
        answer = self.reader.readline()
        elapsed = time.perf_counter() - started
        if answer != line:
            raise ArenaError("the echo child answered something else")
        return elapsed

    def json_round_trips(self, requests: list[Asked]) -> list[float]:
        samples = []
        for _, request in requests:
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


# the bundled "first" bot, inline: bots/ is not part of an installed package
SDK_BOT = "from arena.sdk import run\nrun(lambda observation, legal: 0, name='first')\n"
SDK_SPEC = BotSpec(name="first", version="1.0.0", command=("{python}", "-c", SDK_BOT),
                   folder=None, games={}, source="bench")
TRIVIAL_SPEC = BotSpec(name="trivial", version="1", command=("{python}", "-c", TRIVIAL_BOT),
                       folder=None, games={}, source="bench")


def _raw_round_trips(children: list[EchoChild], requests: list[Asked]) -> list[float]:
    """Each request line echoed by the child of its seat (modulo the children)."""
    lines = [(seat, encode(request)) for seat, request in requests]  # encoded beforehand
    return [children[seat % len(children)].raw_round_trip(line) for seat, line in lines]


async def _timed_game(pool: BotPool, num_players: int, seed: int, spec: BotSpec | None,
                      requests: list[Asked] | None) -> list[float]:
    """One game, every seat the bot ``spec`` (None: in-process players); the time of
    each decision."""
    async with pool.seated([] if spec is None else [spec] * num_players) as bots:
        inner: list[Player] = list(bots) if spec is not None else \
            [first_player() for _ in range(num_players)]
        players = [TimedPlayer(p, requests) for p in inner]
        outcome = await play_game(builtin_game(GAME), players, seed, limits=pool.limits)
    if outcome.record["failures"]:
        raise ArenaError(f"the benchmark bot failed: {outcome.record['failures']}")
    return [s for p in players for s in p.samples]


async def _pipe_layer(pool: BotPool, requests: list[Asked]) -> list[float]:
    """Round trips of pre-encoded request lines through one trivial bot's process."""
    player = pool.checkout(TRIVIAL_SPEC)
    try:
        if not player.alive:
            await player.handshake()
        process = player._running()
        samples = []
        for _, request in requests:
            line = encode(request)
            started = time.perf_counter()
            await process.send_raw(line)
            await process.receive()
            samples.append(time.perf_counter() - started)
        return samples
    finally:
        pool.checkin(player)


async def _measure(num_players: int, seconds: float, seed: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {
        "stack": [], "trivial": [], "raw": [], "rotating": [], "json": [], "inproc": [],
        "pipes": []}
    sizes: list[int] = []
    raw, json_echo = EchoChild(RAW_ECHO_CHILD), EchoChild(JSON_ECHO_CHILD)
    per_seat = [EchoChild(RAW_ECHO_CHILD) for _ in range(num_players)]
    games = 0
    try:
        async with open_bot_pool(Limits(move_seconds=10.0)) as pool:
            for spec in (SDK_SPEC, TRIVIAL_SPEC):  # start the processes, not counted
                await _timed_game(pool, num_players, seed, spec, None)
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline or games == 0:
                this_seed = seed + games
                requests: list[Asked] = []
                samples["stack"] += await _timed_game(pool, num_players, this_seed, SDK_SPEC,
                                                      requests)
                samples["trivial"] += await _timed_game(pool, num_players, this_seed,
                                                        TRIVIAL_SPEC, None)
                samples["raw"] += _raw_round_trips([raw], requests)
                samples["rotating"] += _raw_round_trips(per_seat, requests)
                samples["json"] += json_echo.json_round_trips(requests)
                samples["pipes"] += await _pipe_layer(pool, requests)
                samples["inproc"] += await _timed_game(pool, num_players, this_seed, None,
                                                       None)
                sizes += [len(encode(request)) for _, request in requests]
                games += 1
    finally:
        for child in [raw, json_echo, *per_seat]:
            child.close()
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
        _row(f"raw pipe echo, one child per seat ({num_players})", samples["rotating"]),
        _row("JSON echo (same JSON work, no framework)", samples["json"]),
        _row("arena pipe layer, one trivial bot, pre-encoded", samples["pipes"]),
        _row("full stack, trivial bot (no JSON parsing)", samples["trivial"]),
        _row("full stack, SDK bot (first)", samples["stack"]),
        _row("referee + in-process player", samples["inproc"]),
    ]
    pipes_ratio = rows[3]["median µs"] / rows[0]["median µs"]
    raw_ratio = rows[4]["median µs"] / rows[0]["median µs"]
    rotating_ratio = rows[4]["median µs"] / rows[1]["median µs"]
    json_ratio = rows[5]["median µs"] / rows[2]["median µs"]
    return {
        "title": f"Protocol round trip per decision: {game.title}, {num_players} players, "
                 f"{measured['games']} games",
        "benchmark": "protocol",
        "rows": rows,
        "trivial_stack_vs_raw_echo": raw_ratio,
        "pipe_layer_vs_raw_echo": pipes_ratio,
        "trivial_stack_vs_rotating_echo": rotating_ratio,
        "sdk_stack_vs_json_echo": json_ratio,
        "notes": [
            f"full stack with the trivial bot: median {raw_ratio:.2f}x the raw echo "
            f"(target: within 2x), {rotating_ratio:.2f}x the raw echo over one child per "
            "seat",
            f"full stack with the SDK bot: median {json_ratio:.2f}x the JSON echo",
            f"the arena's pipe layer alone: median {pipes_ratio:.2f}x the raw echo",
            f"request lines: median {statistics.median(sizes):.0f} bytes, max {sizes[-1]}",
            "interleaved game by game; the processes' start-up game is not counted",
        ],
    }
