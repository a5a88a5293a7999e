"""Playing a league on a Dask cluster (``arena run LEAGUE --cluster tcp://HOST:8786``).

The machine running ``arena run`` stays the coordinator: it plans, is the store's only
writer, shows progress and ranks, exactly as for a local league; only the playing moves.
This module is the coordinator's half, used by :class:`~arena.league.backends.DaskBackend`:
it gathers the games into chunks and sends each chunk to the cluster as one task.
:mod:`arena.league.cluster_worker` is the workers' half.

* **Chunks**: a chunk is sized to fill about ``chunk_seconds`` of a worker's slots (its
  games at once), from the time each game took in its slot so far (the first chunks fill
  the slots once), so Dask's per-task overhead (milliseconds) stays a small share of the
  work; the last games are shared out in shrinking chunks.  A worker is sent a chunk
  while it holds fewer than two per thread (one playing, the next already there) or fewer
  games than fill its slots and then its slots again for a round trip to the worker
  (short chunks: slow games, the league's last games), so a lost worker costs little,
  sizing can adapt, and a worker's slots neither wait for a chunk's slowest game nor for
  the next chunk.
* **Warm workers**: the worker plugin is installed once per worker (registering it
  again is a no-op), so a league finds the bots of the last one warm if they are the same.
* **Bots by content**: every bot folder is packed, named by its content hash, and sent
  once per worker (``Client.scatter``); a worker unpacks it into its cache, hashes it
  again and refuses to run a bot whose hash differs from the coordinator's.
* **Finish times**: a chunk comes back whole, so each record carries when its game ended
  on the worker, moved onto this machine's clock (the worker's clock against this one's,
  at the reply): the store's times are the games', not the chunks'.
* **Nothing lost or doubled**: a chunk whose worker dies is run again by Dask on another
  worker; a game is stored under its id, so a repeat stores nothing; a game that fails on
  the worker fails the league as it would locally (the stored games are kept).
* **Never a silent wait**: the coordinator looks at the cluster every second; with no
  running worker left, or no answer from the scheduler, for :data:`LOST_SECONDS`, the
  league ends with one line naming the workers it lost (the stored games are kept, the
  same command resumes); a chunk Dask gives up on ends it likewise.
* **Security**: a Dask scheduler runs whatever code it is sent.  A non-loopback address is
  refused without TLS (``tls://`` and the ``[cluster]`` certificate settings) unless the
  user says ``--insecure``.  See docs/cluster.md.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import trio

from arena import __version__
from arena.errors import ArenaError
from arena.league.config import ClusterSettings
from arena.league.play import Finished, PlayFunction
from arena.league.schedule import ScheduledGame
from arena.runner.botspec import is_loopback

if TYPE_CHECKING:
    from arena.league.play import GameSettings
    from arena.runner.botspec import BotSpec

CONNECT_SECONDS = 20.0
FIRST_CHUNK_GAMES = 2
MAX_CHUNK_GAMES = 256
CHUNKS_PER_THREAD = 2
# a chunk's way from here to a worker and back, about (Dask on a busy machine: tens of
# ms): a worker holds at least its slots' games of that long waiting to start
ROUND_TRIP_SECONDS = 0.1
# games a worker thread plays at once, at least (the local backend's workers: two per
# core; one game at a time leaves the core idle while its bots think)
AT_ONCE_PER_THREAD = 2
# games handed to the dispatcher at once: enough for every worker's chunks to be full
GAMES_IN_FLIGHT = 4096
# the coordinator looks at the cluster this often; with no running worker, or no answer
# from the scheduler, for LOST_SECONDS, the league ends with one line (never a silent wait)
WATCH_SECONDS = 1.0
LOST_SECONDS = 20.0
CLOSE_SECONDS = 10.0  # closing the connection to a scheduler that is gone
# what Dask raises for a chunk it gave up on (its worker lost, the task forgotten)
LOST_CHUNK = ("KilledWorker", "FutureCancelledError", "CancelledError", "CommClosedError")


def check_address(settings: ClusterSettings) -> None:
    """Refuse what would hand a network code execution: a plain-TCP scheduler that is not
    on this machine, unless the user said ``--insecure``."""
    parts = urlsplit(settings.address if "://" in settings.address
                     else f"tcp://{settings.address}")
    if parts.scheme not in ("tcp", "tls", "inproc", "ucx", "ws", "wss"):
        raise ArenaError(f"--cluster: {settings.address[:80]!r} is not a Dask scheduler "
                         "address; use tcp://HOST:PORT or tls://HOST:PORT")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise ArenaError(f"--cluster: {settings.address[:80]!r} needs a host and a port, "
                         "e.g. tcp://127.0.0.1:8786")
    encrypted = parts.scheme in ("tls", "wss")
    if encrypted or settings.insecure or is_loopback(host):
        return
    raise ArenaError(
        f"--cluster {settings.address}: a Dask scheduler runs any code it is sent, and this "
        "address is not on this machine and not encrypted. Use tls:// with certificates "
        "(docs/cluster.md), or pass --insecure on a network you trust"
    )



@dataclass
class _Chunk:
    games: list[ScheduledGame]
    waiting: dict[str, trio.MemorySendChannel[tuple[Finished | None, str | None]]]


class _ChunkSizer:
    """Games per chunk so that a chunk fills about ``target`` seconds of a worker's slots,
    and, when few games are left, so that they are shared among the ``chunks`` in flight
    (a last chunk of ``target`` seconds on one worker while the others idle would cost up
    to ``target`` seconds of every other worker)."""

    def __init__(self, target: float, chunks: int = 1) -> None:
        self.target = target
        self.chunks = max(1, chunks)
        self.games = 0
        self.seconds = 0.0

    def observe(self, slot_seconds: float, games: int = 1) -> None:
        """``games`` took ``slot_seconds`` together, each timed in its slot of a worker."""
        self.games += games
        self.seconds += slot_seconds

    def size(self, slots: int = 1, waiting: int | None = None) -> int:
        """Games for the next chunk of a worker playing ``slots`` games at once;
        ``waiting``: the games waiting to be sent, if known."""
        if self.games == 0 or self.seconds <= 0:
            size = max(FIRST_CHUNK_GAMES, slots)  # its slots filled once
        else:
            per_game = self.seconds / self.games
            size = max(1, min(MAX_CHUNK_GAMES, math.floor(self.target * slots / per_game)))
        if waiting is not None:  # a fair share of what is left
            size = min(size, math.ceil(waiting / self.chunks))
        return size

    def covering(self, seconds: float, slots: int) -> int:
        """Games that keep ``slots`` busy for ``seconds`` (at least ``slots``)."""
        if self.games == 0 or self.seconds <= 0:
            return slots
        return max(slots, math.ceil(seconds * slots * self.games / self.seconds))


@asynccontextmanager
async def open_cluster(
    settings: GameSettings,
    roster: Sequence[BotSpec],
    cluster: ClusterSettings,
    concurrency: int = 0,
    dictionary: Callable[[str], tuple[int, bytes] | None] = lambda game: None,
) -> AsyncIterator[tuple[PlayFunction, int]]:
    """Connected to the Dask cluster at ``cluster.address``: yields a function playing
    one game there (the record comes back to this process packed, and is stored here) and
    how many games to keep in flight so that the chunks can fill every worker.
    ``concurrency``: the league's games at once, shared among the worker threads (each
    plays at least :data:`AT_ONCE_PER_THREAD` at once); ``dictionary``: the store's
    compression dictionary of a game, once it has one (records are compressed with it
    where they are played)."""
    check_address(cluster)
    from arena.league.cluster_worker import pack_bot

    packs = {spec.name: pack_bot(spec) for spec in roster}
    specs = {spec.name: spec for spec in roster}
    # Dask's client logs a lost scheduler or worker in tracebacks; the league says what
    # the cluster lost in one line of its own (below)
    with _quiet_dask_logs():
        async with _connected(settings, roster, cluster, concurrency, dictionary, packs,
                              specs) as connected:
            yield connected


@contextmanager
def _quiet_dask_logs() -> Iterator[None]:
    """Dask's loggers (several with handlers of their own) at CRITICAL for the block."""
    with suppress(ImportError):  # (without it, _connect says how to install it)
        import distributed  # noqa: F401  (its loggers exist once it is imported)

    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name == "distributed" or name.startswith("distributed.")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


@asynccontextmanager
async def _connected(
    settings: GameSettings, roster: Sequence[BotSpec], cluster: ClusterSettings,
    concurrency: int, dictionary: Callable[[str], tuple[int, bytes] | None],
    packs: dict[str, Any], specs: dict[str, BotSpec],
) -> AsyncIterator[tuple[PlayFunction, int]]:
    async with trio.open_nursery() as nursery:
        client = await trio.to_thread.run_sync(_connect, cluster)
        try:
            workers = await trio.to_thread.run_sync(_register, client, packs)
            threads = sum(workers.values())
            # games and chunks sent to each worker and not back yet: a chunk goes to the
            # least busy worker with room (a worker plays its chunks side by side, out of
            # Dask's thread count, so Dask's own balancing sees every worker free)
            busy = dict.fromkeys(workers, 0)
            held = dict.fromkeys(workers, 0)
            returned = trio.lowlevel.ParkingLot()  # the dispatcher, waiting for room
            packed = await trio.to_thread.run_sync(_scatter, client, packs)
            send_games, receive_games = trio.open_memory_channel[
                tuple[ScheduledGame,
                      trio.MemorySendChannel[tuple[Finished | None, str | None]]]
            ](math.inf)
            at_once = max(AT_ONCE_PER_THREAD, math.ceil(concurrency / max(1, threads)))
            slots = {address: at_once * n for address, n in workers.items()}
            sizer = _ChunkSizer(cluster.chunk_seconds, threads * CHUNKS_PER_THREAD)
            remote_settings = replace(settings, log_dir=None)

            def has_room(address: str) -> bool:
                return held[address] < CHUNKS_PER_THREAD * workers[address] \
                    or busy[address] < slots[address] + sizer.covering(ROUND_TRIP_SECONDS,
                                                                        slots[address])

            lost: list[str] = []  # why the cluster can play no more (said once)
            waiting_plays: set[trio.CancelScope] = set()

            def give_up(reason: str) -> None:
                if not lost:
                    lost.append(f"{reason}; the stored games are kept: run the same "
                                "command to resume")
                for scope in waiting_plays:
                    scope.cancel()

            async def watch() -> None:
                gone: dict[str, str] = {}  # workers that left, and when
                unusable_since: float | None = None
                while True:
                    await trio.sleep(WATCH_SECONDS)
                    running: set[str] | None = None  # None: no answer
                    with trio.move_on_after(LOST_SECONDS / 2):
                        try:
                            running = await trio.to_thread.run_sync(
                                _running_workers, client, abandon_on_cancel=True)
                        except Exception:  # (the scheduler gone: Dask's errors vary)
                            running = None
                    if running is not None:
                        for address in set(workers) - running - set(gone):
                            gone[address] = time.strftime("%H:%M:%S")
                        if running:
                            unusable_since = None
                            continue
                    now = time.monotonic()
                    unusable_since = unusable_since or now
                    if now - unusable_since >= LOST_SECONDS:
                        left = ", ".join(f"{a} at {t}" for a, t in gone.items())
                        give_up(f"the Dask cluster at {cluster.address} has had no running "
                                f"worker (or no scheduler answering) for {LOST_SECONDS:g} s"
                                + (f"; lost: {left}" if left else ""))
                        return

            nursery.start_soon(watch)

            async def run_chunk(target: str, chunk: _Chunk) -> None:
                try:
                    from arena.league.cluster_worker import play_chunk

                    request = [(g.game_id, g.seats, g.seed) for g in chunk.games]
                    future = client.submit(
                        play_chunk, remote_settings, specs, packed, request, at_once,
                        dictionary(settings.game), __version__,
                        pure=False, key=f"arena-chunk-{chunk.games[0].game_id}-{len(request)}",
                        # elsewhere if that worker is gone (Dask reruns a lost chunk)
                        workers=[target], allow_other_workers=True,
                    )
                    try:
                        replies, slot_seconds, sent_at = await trio.to_thread.run_sync(
                            future.result, abandon_on_cancel=True
                        )
                    except Exception as problem:  # the task raised on the worker
                        kind = type(problem).__name__
                        if kind in LOST_CHUNK:  # not the game's fault: the cluster's
                            text = " ".join(str(problem).split())[:200]
                            give_up(f"the Dask cluster at {cluster.address} gave up on a "
                                    f"chunk of games: a worker or the scheduler lost "
                                    f"({kind}: {text})")
                        for channel in chunk.waiting.values():
                            channel.send_nowait((None, f"{kind}: {problem}"))
                        return
                    sizer.observe(slot_seconds, len(replies))
                    # a game's finish time on this clock: the worker's, moved by the
                    # worker's clock against this one's (and the reply's transit, so
                    # never after now), not the time the whole chunk came back
                    shift = time.time() - sent_at
                    for game_id, record, error, worker in replies:
                        channel = chunk.waiting.pop(game_id)
                        if record is not None:
                            finished = None if record.finished_at is None \
                                else record.finished_at + shift
                            record = replace(record, worker=worker, finished_at=finished)
                        channel.send_nowait((record, error))
                finally:
                    busy[target] -= len(chunk.games)
                    held[target] -= 1
                    returned.unpark_all()

            async def dispatch() -> None:
                async for first in receive_games:
                    while not (ready := [a for a in workers if has_room(a)]):
                        await returned.park()
                    target = min(ready, key=lambda a: busy[a] / slots[a])
                    games, waiting = [first[0]], {first[0].game_id: first[1]}
                    size = sizer.size(slots[target],
                                      1 + receive_games.statistics().current_buffer_used)
                    while len(games) < size:  # what is waiting already, then a moment
                        try:
                            game, channel = receive_games.receive_nowait()
                        except trio.WouldBlock:
                            break
                        games.append(game)
                        waiting[game.game_id] = channel
                    if len(games) < size:
                        with trio.move_on_after(0.02):  # for the scheduler's next games
                            while len(games) < size:
                                game, channel = await receive_games.receive()
                                games.append(game)
                                waiting[game.game_id] = channel
                    busy[target] += len(games)
                    held[target] += 1
                    nursery.start_soon(run_chunk, target, _Chunk(games, waiting))

            nursery.start_soon(dispatch)

            async def play(game: ScheduledGame) -> Finished:
                send, receive = trio.open_memory_channel[
                    tuple[Finished | None, str | None]](1)
                if lost:
                    raise ArenaError(lost[0])
                send_games.send_nowait((game, send))
                with trio.CancelScope() as waiting:
                    waiting_plays.add(waiting)
                    try:
                        record, error = await receive.receive()
                    finally:
                        waiting_plays.discard(waiting)
                if lost:
                    raise ArenaError(lost[0])
                if error is not None or record is None:
                    raise ArenaError(f"game {game.game_id} on the cluster: {error}")
                return record.in_league(game.game_id, game.table, game.round)

            yield play, GAMES_IN_FLIGHT
            send_games.close()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_SECONDS):
                await trio.to_thread.run_sync(client.close, abandon_on_cancel=True)
            nursery.cancel_scope.cancel()  # the dispatcher and the watch


def _connect(cluster: ClusterSettings) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise ArenaError(
            "playing on a cluster needs Dask distributed: pip install 'ra-arena[cluster]'"
        ) from None
    try:
        return Client(cluster.address, security=cluster.security(),
                      timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError) as problem:
        raise ArenaError(
            f"cannot reach the Dask scheduler at {cluster.address}: {problem}"
        ) from None


def _register(client: Any, packs: dict[str, Any]) -> dict[str, int]:
    """Install the arena's worker plugin on every worker; their threads by address."""
    from arena.league.cluster_worker import ArenaWorkerPlugin

    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
    except TimeoutError:
        raise ArenaError(
            f"the Dask scheduler at {client.scheduler.address} has no workers after "
            f"{CONNECT_SECONDS:g} s; start some with `dask worker {client.scheduler.address}`"
        ) from None
    # (idempotent: a worker that has it keeps it, with its warm bots, from league to league)
    client.register_plugin(ArenaWorkerPlugin(), name=ArenaWorkerPlugin.name)
    return {str(address): int(n) for address, n in client.nthreads().items()}


def _running_workers(client: Any) -> set[str]:
    """The addresses of the workers that can take work now (not paused, not closing)."""
    info = client.scheduler_info(n_workers=-1)
    return {str(address) for address, worker in info.get("workers", {}).items()
            if worker.get("status", "running") == "running"}


def _scatter(client: Any, packs: dict[str, Any]) -> Any:
    """Send every bot once to every worker, rather than with every chunk."""
    try:
        return client.scatter(packs, broadcast=True, hash=False)
    except (OSError, ValueError) as problem:  # (Dask: "No valid workers found")
        raise ArenaError(f"cannot send the bots to the Dask cluster at "
                         f"{client.scheduler.address}: {problem} (its workers gone?)"
                         ) from None
