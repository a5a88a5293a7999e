"""Game workers: child processes that play games, so a league uses every core.

Why: per decision the arena does more work than a trivial bot (engine, observation,
JSON, one pipe write per seat), so one arena process saturates one core and a league
with more games in flight gets no faster.  With ``workers`` processes, each with its own
warm bot pool and event loop, the arena's share is spread over the cores.

The parent keeps the scheduler, the store and the progress line; a worker only turns
(seating, seed) into a record with :mod:`arena.league.play`, so it holds no league state.
Frames both ways are a 4-byte length + pickle (both ends are this program):

    parent -> worker   setup: (GameSettings, {name: BotSpec}, games at once)
    parent -> worker   (game_id, seats, seed, parameters, dictionary or None)
    worker -> parent   (game_id, PackedRecord, None) or (game_id, None, error message)

The worker packs each record as the store keeps it (:func:`~arena.league.store.pack_record`:
JSON, and compressed once the store has its game's dictionary, which the parent sends
with the first game after the store made it), so the parent, the league's one writer,
only inserts rows.

A worker stops, killing its bots, when its input closes (the parent is done, or was
killed: then PR_SET_PDEATHSIG also sends it SIGTERM) or on SIGTERM.
"""

from __future__ import annotations

import ctypes
import math
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any

import trio

from arena.errors import ArenaError
from arena.league.play import PlayFunction
from arena.league.schedule import ScheduledGame
from arena.league.store import PackedRecord

if TYPE_CHECKING:
    from arena.league.play import GameSettings
    from arena.runner.botspec import BotSpec

_HEADER = struct.Struct(">I")
Dictionary = tuple[str, int, bytes]  # a game's compression dictionary: game, id, bytes
STOP_SECONDS = 5.0  # a worker's time to stop its bots before it is killed


async def _send(stream: trio.abc.SendStream, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    await stream.send_all(_HEADER.pack(len(data)) + data)


class _FrameReader:
    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def _exactly(self, size: int) -> bytes | None:
        while len(self.buffer) < size:
            chunk = await self.stream.receive_some(1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    async def next(self) -> Any:
        """The next value, or None at the end of the stream."""
        header = await self._exactly(_HEADER.size)
        if header is None:
            return None
        data = await self._exactly(_HEADER.unpack(header)[0])
        return None if data is None else pickle.loads(data)


# ---------------------------------------------------------------------------- parent


class _Worker:
    """One worker process.  Started with a plain fork from this thread, not through
    ``trio.open_process`` (which forks from a helper thread): the worker's parent-death
    signal is tied to the forking thread."""

    def __init__(self, nice: int = 0) -> None:
        to_child, from_child = os.pipe2(os.O_CLOEXEC), os.pipe2(os.O_CLOEXEC)
        try:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "arena.league.workers", *(
                    ["--nice", str(nice)] if nice else [])],
                stdin=to_child[0],
                stdout=from_child[1],
                start_new_session=True,  # Ctrl-C reaches the parent only
                close_fds=True,
            )
        except OSError as problem:
            for fd in (*to_child, *from_child):
                os.close(fd)
            raise ArenaError(f"cannot start a game worker process: {problem}") from None
        os.close(to_child[0])
        os.close(from_child[1])
        self.pidfd = os.pidfd_open(self.popen.pid)
        self.stdin = trio.lowlevel.FdStream(to_child[1])
        self.stdout = trio.lowlevel.FdStream(from_child[0])
        self.in_flight = 0
        self.has_dictionary = False  # the store's dictionary has been sent to it
        self.waiting: dict[str, trio.MemorySendChannel[tuple[Any, str | None]]] = {}
        self.send_lock = trio.Lock()

    async def read_replies(self) -> None:
        """Hand each reply to the game waiting for it (runs for the worker's life)."""
        reader = _FrameReader(self.stdout)
        try:
            while (reply := await reader.next()) is not None:
                game_id, record, error = reply
                waiting = self.waiting.pop(game_id, None)
                if waiting is not None:  # else: abandoned by a cancellation meanwhile
                    waiting.send_nowait((record, error))
        finally:
            await self.stdout.aclose()
        if not self.waiting:
            return  # a normal end: stop() closed its input
        # The worker ended while games were waiting: they cannot finish.
        status = await self._exit_status()
        for channel in self.waiting.values():
            channel.send_nowait((
                None,
                f"the game worker process (pid {self.popen.pid}) ended unexpectedly "
                f"({status}); the games already stored are kept: run the same command "
                "to resume",
            ))
        self.waiting.clear()

    async def _exit_status(self) -> str:
        with trio.move_on_after(1):
            await trio.lowlevel.wait_readable(self.pidfd)
        code = self.popen.poll()
        if code is None:
            return "it closed its output"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    async def play(self, game: ScheduledGame, dictionary: Dictionary | None) -> PackedRecord:
        """``game`` played by this worker; ``dictionary``: the store's for its game, until
        the worker has it."""
        send, receive = trio.open_memory_channel[tuple[Any, str | None]](1)
        self.waiting[game.game_id] = send
        self.in_flight += 1
        try:
            async with self.send_lock:
                await _send(self.stdin, (game.game_id, game.seats, game.seed,
                                         game.parameters, dictionary))
                self.has_dictionary = self.has_dictionary or dictionary is not None
            record, error = await receive.receive()
        finally:
            self.in_flight -= 1
            self.waiting.pop(game.game_id, None)
        if error is not None:
            raise ArenaError(f"game {game.game_id}: {error}")
        assert isinstance(record, PackedRecord)
        return record

    async def stop(self) -> None:
        """Close its input (it then stops its bots and exits); kill it if it lingers."""
        with trio.CancelScope(shield=True):
            await self.stdin.aclose()
            with trio.move_on_after(STOP_SECONDS):
                await trio.lowlevel.wait_readable(self.pidfd)
            if self.popen.poll() is None:
                self.popen.kill()
            await trio.lowlevel.wait_readable(self.pidfd)
            self.popen.wait()
            os.close(self.pidfd)


@asynccontextmanager
async def open_workers(
    settings: GameSettings, roster: Sequence[BotSpec], workers: int, concurrency: int,
    dictionary: Callable[[str], tuple[int, bytes] | None] = lambda game: None,
    *, nice: int = 0,
) -> AsyncIterator[PlayFunction]:
    """``workers`` child processes; yields a function playing one game on the least busy
    (the record packed and placed in the league).  ``dictionary``: the store's
    compression dictionary of a game, if it has one yet.  ``nice``: the workers' niceness
    (their bots inherit it).  Leaving stops them, killing their bots."""
    specs = {spec.name: spec for spec in roster}
    per_worker = math.ceil(concurrency / workers)
    async with trio.open_nursery() as nursery:
        pool: list[_Worker] = []
        try:
            for _ in range(workers):
                worker = _Worker(nice)
                pool.append(worker)
                await _send(worker.stdin, (settings, specs, per_worker))
                nursery.start_soon(worker.read_replies)

            async def play(game: ScheduledGame) -> PackedRecord:
                worker = min(pool, key=lambda w: w.in_flight)
                known = None if worker.has_dictionary else dictionary(settings.game)
                record = await worker.play(
                    game, None if known is None else (settings.game, *known))
                return record.in_league(game.game_id, game.table, game.round)

            yield play
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as stopping:
                    for worker in pool:
                        stopping.start_soon(worker.stop)
        nursery.cancel_scope.cancel()  # the reply readers


# ---------------------------------------------------------------------------- worker


async def _serve() -> None:
    from arena.league.play import GameSettings, engine, play_seating
    from arena.league.store import pack_record
    from arena.runner.botspec import seat_specs
    from arena.runner.pool import open_bot_pool

    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    reader = _FrameReader(stdin)
    setup = await reader.next()
    if setup is None:
        return
    settings, specs, at_once = setup
    assert isinstance(settings, GameSettings)
    game = engine(settings.game)
    limiter = trio.CapacityLimiter(at_once)
    write_lock = trio.Lock()
    known: dict[str, tuple[int, bytes]] = {}  # game -> the store's dictionary

    async def play_one(pool: Any, game_id: str, seats: Sequence[str], seed: int,
                       parameters: Sequence[Any], dictionary: Dictionary | None) -> None:
        if dictionary is not None:
            known[dictionary[0]] = dictionary[1:]
        async with limiter:
            reply: tuple[str, Any, str | None]
            try:
                record = await play_seating(pool, game, settings,
                                            seat_specs(specs, seats, parameters), seed)
                reply = (game_id, pack_record(record, known.get(record.game)), None)
            except ArenaError as error:
                reply = (game_id, None, str(error))
        async with write_lock:
            try:
                await _send(stdout, reply)
            except trio.BrokenResourceError:  # the parent closed its end: done or gone
                scope.cancel()  # stop quietly (it replays what it still wants)

    async def stop_on_sigterm(scope: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                scope.cancel()

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_on_sigterm, scope)
            async with (
                open_bot_pool(settings.limits, settings.log_dir) as pool,
                trio.open_nursery() as games,
            ):
                while (request := await reader.next()) is not None:
                    games.start_soon(play_one, pool, *request)
                games.cancel_scope.cancel()  # input closed: the parent is done or gone
            scope.cancel()


def die_with_parent(signal_number: int = signal.SIGTERM) -> None:
    """``signal_number`` when the parent process ends (Linux: PR_SET_PDEATHSIG), also
    after a ``kill -9`` of the parent; for a worker, or a child started by a benchmark."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal_number, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: closing stdin still stops the worker
        pass


def lower_priority(nice: int) -> None:
    """This process, and every process it starts from now on, ``nice`` steps less
    favoured by the scheduler (0: unchanged): ``arena serve``'s ladder plays at a lower
    priority than its web app, which then answers first while the games get the idle CPU."""
    if nice:
        os.nice(nice)


def main() -> None:
    die_with_parent()
    if sys.argv[1:2] == ["--nice"]:
        lower_priority(int(sys.argv[2]))
    with suppress(KeyboardInterrupt):
        trio.run(_serve)


if __name__ == "__main__":
    main()
