"""``arena bench protocol``: the cost of one decision through the whole bot stack.

A decision is timed in the referee from the moment it asks the seat to move until the
others have been told what was chosen: building the request (observation and legal list),
encoding it, the pipe both ways, the bot, reading, decoding and checking the reply,
applying it to the engine and queueing the notifications.  Every row is measured in the
same run, interleaved game by game (so that load on a shared machine hits every row
alike), on the same games (those of real Ra games, every seat the same bot):

* raw pipe echo: two Python processes, blocking I/O; the parent writes exactly the bytes
  the arena wrote to the trivial bot for each decision (request plus queued
  notifications, as one line), the child answers each line with a reply-sized line: the
  floor of any design that talks to a process with these messages; for full requests
  and for lean ones (protocol feature ``wants``);
* the same over one child per seat, asked in the game's order (as in a real game, every
  decision wakes a different process), and driven from trio (write, ``wait_readable``,
  read: what the event loop alone adds);
* JSON echo: the parent encodes the request and decodes the reply, the child decodes the
  request and encodes a reply: the floor of any JSON-lines design;
* the arena's pipe layer alone: the lean request lines already encoded, sent and read
  back through the runner's process, line reader and decoder, to a trivial bot per seat;
* full stack with a trivial bot (it cuts the id out of the line, no JSON parsing), with
  full and with lean requests: what the arena adds on top of the pipes; and lean again
  with the quick wait for replies turned off (``Limits.quick_reply_wait_seconds = 0``,
  the arena sleeps in the event loop at once): what the quick wait saves, in the same run;
* full stack with the SDK bot ``first`` (arena.sdk, lean requests, as bots/first) and with
  an SDK bot that asks for the observation;
* referee + in-process player, with and without the observation: the referee's own share,
  no process at all; and one trio cancel scope with a deadline, which the referee enters
  per decision for the time limit.

Beside wall-clock percentiles each row has the arena process's CPU time per decision
(``time.process_time`` over that row's games, so it includes starting and ending games).

The target is a full-stack median (trivial bot) within 2x of the raw echo carrying the
same bytes; the notes give it against both echoes, and the lean decision stage by stage.

Why the stages add up to less than the whole (measured on a 2-vCPU virtual machine):
where a process wakes matters more than any code here.  Waking a process on an idle
vCPU costs tens of microseconds (the host must run the vCPU again), on the busy one
almost nothing; so each row depends on where the scheduler put the processes (an echo
row can show 15 or 65 µs from one run to the next).  In the stage rows the next
message follows the reply at once; in a game the arena works between decisions and the
bot's vCPU has gone idle by the time the request comes (about 18 µs more per round
trip, measured by adding 20 µs of work between the pipe layer's round trips).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

import trio

from arena.errors import ArenaError
from arena.games.base import Game, GameState
from arena.runner.botspec import BotSpec
from arena.runner.players import Player, PythonPlayer, WrappedPlayer
from arena.runner.pool import BotPool, open_bot_pool
from arena.runner.protocol import (
    ActionNotice,
    DecisionRequest,
    Reply,
    decode_bot_message,
    encode,
)
from arena.runner.referee import Referee
from arena.settings import Limits

GAME = "ra"
REPLY_LINE = b'{"type":"reply","id":100,"index":0}\n'  # the size of a trivial bot's reply
RAW_ECHO_CHILD = (
    "import sys\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    f"reply = {REPLY_LINE!r}\n"
    "for line in iter(read, b''):\n"
    "    write.write(reply)\n"
    "    write.flush()\n"
)
TRIVIAL_BOT = (
    "import sys\n"
    "ready = sys.argv[1].encode()\n"
    "read, write = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "def answer(line):\n"
    "    write.write(line)\n"
    "    write.flush()\n"
    "for line in iter(read, b''):\n"
    "    if line.startswith(b'{\"type\":\"request\"'):\n"
    "        request_id = line.split(b'\"id\":', 1)[1].split(b',', 1)[0]\n"
    "        answer(b'{\"type\":\"reply\",\"id\":' + request_id + b',\"index\":0}\\n')\n"
    "    elif line.startswith(b'{\"type\":\"hello\"'):\n"
    "        answer(ready + b'\\n')\n"
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

# the bundled "first" bot, inline (bots/ is not part of an installed package), and the
# same SDK bot asking for the observation
SDK_BOT = ("from arena.sdk import run\n"
           "run(lambda observation, legal: 0, name='first', observation={observation})\n")
SDK_SPEC = BotSpec(name="first", version="1.0.0",
                   command=("{python}", "-c", SDK_BOT.format(observation=False)),
                   folder=None, games={}, source="bench")
SDK_FULL_SPEC = BotSpec(name="first-observing", version="1.0.0",
                        command=("{python}", "-c", SDK_BOT.format(observation=True)),
                        folder=None, games={}, source="bench")
READY = {"type": "ready", "name": "trivial", "version": "1", "protocol": "ra-arena/1"}
LEAN = {"observation": False, "notifications": False}


def _trivial_spec(name: str, ready: dict[str, Any]) -> BotSpec:
    command = ("{python}", "-c", TRIVIAL_BOT, json.dumps(ready, separators=(",", ":")))
    return BotSpec(name=name, version="1", command=command, folder=None, games={},
                   source="bench")


TRIVIAL_SPEC = _trivial_spec("trivial", READY)  # gets everything
TRIVIAL_LEAN_SPEC = _trivial_spec("trivial-lean", {**READY, "wants": LEAN})


class RecordingPlayer(WrappedPlayer):
    """Wraps a player; remembers what it was sent, to replay the same bytes elsewhere.
    Only appends to a list on the timed path; encoding happens after the game."""

    def __init__(self, inner: Player, seat: int, log: list[tuple[int, Any]]) -> None:
        super().__init__(inner)
        self.seat = seat
        self.log = log

    async def choose(self, request: DecisionRequest) -> Reply | None:
        self.log.append((self.seat, request))
        return await self.inner.choose(request)

    async def notify(self, notice: ActionNotice) -> None:
        self.log.append((self.seat, notice))
        await self.inner.notify(notice)


def sent_lines(log: Sequence[tuple[int, Any]]) -> list[tuple[int, bytes]]:
    """The bytes written per decision, as the process player writes them: the queued
    notifications, then the request, in one write."""
    pending: dict[int, list[bytes]] = {}
    lines = []
    for seat, message in log:
        if isinstance(message, ActionNotice):
            pending.setdefault(seat, []).append(encode(message.to_json()))
        else:
            data = b"".join(pending.pop(seat, [])) + encode(message.to_json())
            lines.append((seat, data))
    return lines


class TimedReferee(Referee):
    """The referee, timing each whole decision (see the module docstring)."""

    samples: list[float]

    async def _play_decision(self, state: GameState, decision: int) -> None:
        started = time.perf_counter()
        await super()._play_decision(state, decision)
        self.samples.append(time.perf_counter() - started)


@dataclass
class Row:
    samples: list[float] = field(default_factory=list)
    cpu: float = 0.0  # arena process CPU seconds over this row's work


class EchoChild:
    """A Python child process answering one line per line, driven with blocking I/O."""

    def __init__(self, code: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", code],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.writer: IO[bytes] = self.process.stdin
        self.reader: IO[bytes] = self.process.stdout

    def raw_round_trip(self, data: bytes) -> float:
        started = time.perf_counter()
        self.writer.write(data)
        self.writer.flush()
        answer = self.reader.readline()
        elapsed = time.perf_counter() - started
        if answer != REPLY_LINE:
            raise ArenaError("the echo child answered something else")
        return elapsed

    def json_round_trips(self, requests: list[tuple[int, DecisionRequest]]) -> list[float]:
        samples = []
        for _, request in requests:
            started = time.perf_counter()
            self.writer.write(encode(request.to_json()))
            self.writer.flush()
            reply = json.loads(self.reader.readline())
            samples.append(time.perf_counter() - started)
            if reply["id"] != request.id:
                raise ArenaError("the JSON echo child answered something else")
        return samples

    def close(self) -> None:
        self.writer.close()
        self.process.wait(timeout=10)


def _raw_round_trips(children: list[EchoChild], lines: list[tuple[int, bytes]],
                     row: Row) -> None:
    """Each decision's bytes, to the child of its seat (modulo the children)."""
    cpu = time.process_time()
    row.samples += [children[seat % len(children)].raw_round_trip(data)
                    for seat, data in lines]
    row.cpu += time.process_time() - cpu


def _json_libraries(requests: list[tuple[int, DecisionRequest]], rows: dict[str, Row]
                    ) -> None:
    """The JSON work of each decision (encode the request, decode a reply) with the
    standard library, orjson (what the arena uses) and msgspec (when installed)."""
    import orjson

    stdlib = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    messages = [request.to_json() for _, request in requests]
    coders: dict[str, tuple[Any, Any]] = {
        "json_stdlib": (lambda m: (stdlib.encode(m) + "\n").encode(), json.loads),
        "json_orjson": (lambda m: orjson.dumps(m, option=orjson.OPT_APPEND_NEWLINE),
                        orjson.loads),
    }
    try:
        import msgspec
    except ImportError:
        pass
    else:
        encoder, decoder = msgspec.json.Encoder(), msgspec.json.Decoder()
        coders["json_msgspec"] = (lambda m: encoder.encode(m) + b"\n", decoder.decode)
    for key, (dumps, loads) in coders.items():
        row = rows.setdefault(key, Row())
        cpu = time.process_time()
        for message in messages:
            started = time.perf_counter()
            dumps(message)
            loads(REPLY_LINE)
            row.samples.append(time.perf_counter() - started)
        row.cpu += time.process_time() - cpu


async def _cancel_scopes(count: int, row: Row) -> None:
    """What the referee's per-decision time limit costs: entering and leaving one trio
    cancel scope with a deadline (no I/O), once per decision of the game."""
    cpu = time.process_time()
    for _ in range(count):
        started = time.perf_counter()
        with trio.move_on_after(10.0):
            pass
        row.samples.append(time.perf_counter() - started)
    row.cpu += time.process_time() - cpu


async def _trio_round_trips(children: list[EchoChild], lines: list[tuple[int, bytes]],
                            row: Row) -> None:
    """The raw echo driven from trio the way the runner waits (write, wait until
    readable, read), with none of the arena's code: what the event loop costs."""
    fds = [(child.writer.fileno(), child.reader.fileno()) for child in children]
    for _, read_fd in fds:
        os.set_blocking(read_fd, False)
    cpu = time.process_time()
    try:
        for seat, data in lines:
            write_fd, read_fd = fds[seat % len(fds)]
            started = time.perf_counter()
            os.write(write_fd, data)  # a pipe takes a short line whole
            await trio.lowlevel.wait_readable(read_fd)
            answer = os.read(read_fd, 4096)
            row.samples.append(time.perf_counter() - started)
            if answer != REPLY_LINE:
                raise ArenaError("the echo child answered something else")
    finally:
        row.cpu += time.process_time() - cpu
        for _, read_fd in fds:
            os.set_blocking(read_fd, True)


def _raw_lines(lines: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """The raw echo answers every line: send the queued notifications and the request
    as one line each write, so one reply comes back per decision, of the same size."""
    return [(seat, data.replace(b"\n", b" ")[:-1] + b"\n") for seat, data in lines]


async def _timed_game(game: Game, pool: BotPool, num_players: int, seed: int,
                      spec: BotSpec | None, row: Row | None,
                      log: list[tuple[int, Any]] | None = None, lean: bool = False) -> None:
    """One game, every seat the bot ``spec`` (None: in-process players, ``lean``: that
    ask for no observation)."""
    cpu = time.process_time()
    async with pool.seated([] if spec is None else [spec] * num_players) as bots:
        players: list[Player] = list(bots) if spec is not None else \
            [PythonPlayer("first", lambda _observation, _legal: 0, observation=not lean)
             for _ in range(num_players)]
        if log is not None:
            players = [RecordingPlayer(p, seat, log) for seat, p in enumerate(players)]
        referee = TimedReferee(game, players, seed, None, pool.limits, "")
        referee.samples = []
        record = await referee.play()
    if record.failures:
        raise ArenaError(f"the benchmark bot failed: {list(record.failures)}")
    if row is not None:
        row.cpu += time.process_time() - cpu
        row.samples += referee.samples


async def _pipe_layer(pool: BotPool, num_players: int, lines: list[tuple[int, bytes]],
                      row: Row) -> None:
    """Round trips of pre-encoded request lines through the runner's process, line reader
    and decoder, each to the trivial bot process of its seat (as in the game)."""
    async with pool.seated([TRIVIAL_LEAN_SPEC] * num_players) as players:
        cpu = time.process_time()
        for player in players:
            if not player.alive:
                await player.handshake()
        channels = [player._running() for player in players]
        for seat, data in lines:
            channel = channels[seat]
            started = time.perf_counter()
            answer = await channel.exchange(data, trio.current_time() + 10.0)  # type: ignore[attr-defined]
            if answer is None:
                raise ArenaError("the trivial bot did not answer")
            decode_bot_message(answer)
            row.samples.append(time.perf_counter() - started)
        row.cpu += time.process_time() - cpu


# row key -> (label, bot spec for stack rows, whether the arena waits for quick replies
# outside the event loop)
STACKS: dict[str, tuple[str, BotSpec, bool]] = {
    "trivial": ("full stack, trivial bot (no JSON parsing)", TRIVIAL_SPEC, True),
    "trivial_lean": ("full stack, trivial bot, lean requests", TRIVIAL_LEAN_SPEC, True),
    "trivial_lean_sleep": ("full stack, trivial bot, lean, no quick wait",
                           TRIVIAL_LEAN_SPEC, False),
    "sdk_lean": ("full stack, SDK bot first (lean requests)", SDK_SPEC, True),
    "sdk": ("full stack, SDK bot reading the observation", SDK_FULL_SPEC, True),
}
ECHOES = ("raw", "raw_lean", "rotating", "rotating_lean", "trio_lean", "json", "pipes",
          "inproc", "inproc_lean", "scope")


async def _measure(game: Game, num_players: int, seconds: float, seed: int
                   ) -> dict[str, Any]:
    rows = {name: Row() for name in [*ECHOES, *STACKS]}
    sizes: dict[str, list[int]] = {"full": [], "lean": []}
    raw, json_echo = EchoChild(RAW_ECHO_CHILD), EchoChild(JSON_ECHO_CHILD)
    per_seat = [EchoChild(RAW_ECHO_CHILD) for _ in range(num_players)]
    games = 0
    limits = Limits(move_seconds=10.0)
    try:
        async with open_bot_pool(limits) as pool, \
                open_bot_pool(replace(limits, quick_reply_wait_seconds=0.0)) as sleeping:
            pools = {True: pool, False: sleeping}
            for _, spec, quick in STACKS.values():  # start the processes, not counted
                await _timed_game(game, pools[quick], num_players, seed, spec, None)
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline or games == 0:
                this_seed = seed + games
                log: list[tuple[int, Any]] = []
                lean_log: list[tuple[int, Any]] = []
                for key, (_, spec, quick) in STACKS.items():
                    recorded = {"trivial": log, "trivial_lean": lean_log}.get(key)
                    await _timed_game(game, pools[quick], num_players, this_seed, spec,
                                      rows[key], recorded)
                lines, lean_lines = sent_lines(log), sent_lines(lean_log)
                requests = [(s, m) for s, m in log if isinstance(m, DecisionRequest)]
                _raw_round_trips([raw], _raw_lines(lines), rows["raw"])
                _raw_round_trips([raw], _raw_lines(lean_lines), rows["raw_lean"])
                _raw_round_trips(per_seat, _raw_lines(lines), rows["rotating"])
                _raw_round_trips(per_seat, _raw_lines(lean_lines), rows["rotating_lean"])
                await _trio_round_trips(per_seat, _raw_lines(lean_lines), rows["trio_lean"])
                cpu = time.process_time()
                rows["json"].samples += json_echo.json_round_trips(requests)
                rows["json"].cpu += time.process_time() - cpu
                await _pipe_layer(pool, num_players, lean_lines, rows["pipes"])
                await _timed_game(game, pool, num_players, this_seed, None, rows["inproc"])
                await _timed_game(game, pool, num_players, this_seed, None, rows["inproc_lean"],
                                  lean=True)
                await _cancel_scopes(len(lean_lines), rows["scope"])
                _json_libraries(requests, rows)
                sizes["full"] += [len(data) for _, data in lines]
                sizes["lean"] += [len(data) for _, data in lean_lines]
                games += 1
    finally:
        for child in [raw, json_echo, *per_seat]:
            child.close()
    return {"rows": rows, "sizes": sizes, "games": games}


def _row(path: str, row: Row) -> dict[str, Any]:
    ordered = sorted(row.samples)
    return {
        "path": path,
        "decisions": len(ordered),
        "median µs": 1e6 * statistics.median(ordered),
        "p99 µs": 1e6 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        "arena CPU µs/decision": 1e6 * row.cpu / len(ordered),
    }


def _sizes(sizes: list[int]) -> str:
    return f"median {statistics.median(sizes):.0f} bytes, max {max(sizes)}"


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    from arena.plugins import load_game

    game = load_game(GAME)
    num_players = (args.players or [4])[0]
    if not game.min_players <= num_players <= game.max_players:
        raise ArenaError(f"{game.title} is for {game.min_players}-{game.max_players} "
                         f"players, not {num_players}")
    if args.seconds <= 0:
        raise ArenaError("--seconds must be positive")
    measured = trio.run(_measure, game, num_players, args.seconds, args.seed)
    rows, sizes = measured["rows"], measured["sizes"]
    table = [
        _row("raw pipe echo (2 Python processes)", rows["raw"]),
        _row("raw pipe echo, lean requests' bytes", rows["raw_lean"]),
        _row(f"raw pipe echo, lean, one child per seat ({num_players})",
             rows["rotating_lean"]),
        _row("raw pipe echo, lean, per seat, driven from trio (wait_readable)",
             rows["trio_lean"]),
        _row(f"raw pipe echo, one child per seat ({num_players})", rows["rotating"]),
        _row("JSON echo (same JSON work, no framework)", rows["json"]),
        _row("arena pipe layer, lean lines pre-encoded, bot per seat", rows["pipes"]),
        *[_row(label, rows[key]) for key, (label, _, _) in STACKS.items()],
        _row("referee + in-process player (observation built)", rows["inproc"]),
        _row("referee + in-process player, lean", rows["inproc_lean"]),
        _row("trio: one cancel scope with a deadline (per decision)", rows["scope"]),
        *[_row(f"JSON of a full request and a reply: {label}", rows[key])
          for key, label in (("json_stdlib", "standard library"),
                             ("json_orjson", "orjson (the arena's)"),
                             ("json_msgspec", "msgspec")) if key in rows],
    ]
    median = {name: statistics.median(row.samples) for name, row in rows.items()}
    ratio = median["trivial"] / median["raw"]
    lean_ratio = median["trivial_lean"] / median["raw_lean"]
    rotating_ratio = median["trivial"] / median["rotating"]
    lean_rotating_ratio = median["trivial_lean"] / median["rotating_lean"]
    json_ratio = median["sdk"] / median["json"]
    pipes_ratio = median["pipes"] / median["rotating_lean"]
    stages = {key: 1e6 * median[key] for key in ("inproc_lean", "scope", "pipes",
                                                 "trivial_lean", "rotating_lean",
                                                 "trio_lean")}

    def verdict(value: float, target: float) -> str:
        return f"{value:.2f}x " + ("(met)" if value <= target else f"(MISSED, target {target:g}x)")

    cpu = {key: 1e6 * rows[key].cpu / len(rows[key].samples) for key in ("trivial",
                                                                         "trivial_lean")}
    cpu_verdict = ", ".join(f"{label} {cpu[key]:.1f} µs " + ("(met)" if cpu[key] <= 30
                                                              else "(MISSED)")
                            for key, label in (("trivial", "full"), ("trivial_lean", "lean")))
    inproc_cpu = {key: 1e6 * rows[key].cpu / len(rows[key].samples)
                  for key in ("inproc", "inproc_lean")}
    floor_ratio = (median["inproc"] + median["rotating"]) / median["rotating"]
    lean_floor_ratio = (median["inproc_lean"] + median["rotating_lean"]) / median["rotating_lean"]
    json_rows = {key: 1e6 * statistics.median(rows[key].samples)
                 for key in ("json_stdlib", "json_orjson", "json_msgspec") if key in rows}

    return {
        "title": f"Protocol round trip per decision: {game.title}, {num_players} players, "
                 f"{measured['games']} games",
        "benchmark": "protocol",
        "rows": table,
        "trivial_stack_vs_raw_echo": ratio,
        "lean_trivial_stack_vs_lean_raw_echo": lean_ratio,
        "lean_trivial_stack_vs_lean_rotating_echo": lean_rotating_ratio,
        "target_met": rotating_ratio <= 2.0 and lean_rotating_ratio <= 1.5
        and max(cpu.values()) <= 30,
        "arena_cpu_us_per_decision": cpu,
        "pipe_layer_vs_rotating_echo": pipes_ratio,
        "trivial_stack_vs_rotating_echo": rotating_ratio,
        "sdk_stack_vs_json_echo": json_ratio,
        "floor_vs_rotating_echo": {"full": floor_ratio, "lean": lean_floor_ratio},
        "notes": [
            "targets (issue 16), against the baseline of this run, the raw echo of the same "
            "bytes with one child per seat: full stack (trivial bot), full requests "
            f"{verdict(rotating_ratio, 2.0)} (one echo child: {ratio:.2f}x); lean requests "
            f"{verdict(lean_rotating_ratio, 1.5)} (one echo child: {lean_ratio:.2f}x); "
            f"arena CPU per decision at most 30 µs: {cpu_verdict} (the arena process's CPU "
            "time over the row's games, start and end of games included)",
            "JSON of a full request and a reply, median µs: " + ", ".join(
                f"{key.removeprefix('json_')} {value:.1f}" for key, value in json_rows.items())
            + " (the arena encodes with orjson; the standard library decides only the lines "
            "orjson refuses)",
            f"the raw echo carries the arena's bytes of each decision (request and queued "
            f"notifications; full: {_sizes(sizes['full'])}; lean: {_sizes(sizes['lean'])}), "
            f"answered by {len(REPLY_LINE)} bytes; one echo child can be bimodal on a shared "
            "machine (by where the scheduler puts the two processes); one child per seat "
            "is the steadier floor and matches a game (each decision wakes another "
            "process)",
            f"SDK bot reading the observation: median {json_ratio:.2f}x the JSON echo",
            "lean full stack with the quick wait for replies (in the kernel, outside the "
            "event loop): median "
            f"{1e6 * median['trivial_lean']:.1f} µs, sleeping at once: "
            f"{1e6 * median['trivial_lean_sleep']:.1f} µs in the event loop (registering "
            "the pipe with epoll and scheduling the task, per decision)",
            f"the arena's pipe layer alone: median {pipes_ratio:.2f}x the raw echo per seat",
            "lean decision by stage (medians, µs): referee and engine "
            f"{stages['inproc_lean']:.1f} (no cancel scope per decision any more: one "
            f"costs {stages['scope']:.1f}) + pipe layer and bot {stages['pipes']:.1f} (raw echo, "
            f"one child per seat: {stages['rotating_lean']:.1f}, driven from trio: "
            f"{stages['trio_lean']:.1f}) = "
            f"{stages['inproc_lean'] + stages['pipes']:.1f}; measured whole: "
            f"{stages['trivial_lean']:.1f}",
            "floors in this run (what the targets leave to the referee, engine and pipes): "
            "the arena's CPU per decision with no process and no pipe at all (referee + "
            f"in-process player): {inproc_cpu['inproc']:.1f} µs with the observation, "
            f"{inproc_cpu['inproc_lean']:.1f} µs lean, against the 30 µs target; the "
            "referee and engine in process plus the raw echo per seat, as if the arena's "
            f"pipe layer cost nothing: full {floor_ratio:.2f}x the raw echo (target 2x), "
            f"lean {lean_floor_ratio:.2f}x (target 1.5x)",
            "a decision is timed in the referee: request building, both pipes, the bot, "
            "checking, the engine and notifications; interleaved game by game; the "
            "processes' start-up game is not counted",
        ],
    }
