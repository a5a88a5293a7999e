"""The workers' half of playing on a Dask cluster (see :mod:`arena.league.cluster`).

A worker needs only ``pip install 'ra-arena[cluster]'`` and ``dask worker ADDRESS``: the
coordinator installs :class:`ArenaWorkerPlugin` on every worker when a league starts, once:
a later league finds it installed and keeps it (registering it again would tear the old
one down, and with it every warm bot).  The plugin keeps one trio event loop in a thread
of the worker, with warm bot pools in it, so bot processes live on between chunks and
between leagues of the same bots, as they do in a local league's workers; a pool no chunk
has used for :data:`IDLE_POOL_SECONDS` is closed (its bots quit).

Bots arrive as :class:`BotPack` (their folder packed, named by its content hash: a bot
with a build step is built on the coordinator and its built copy is shipped); a worker
unpacks each into its cache once, hashes the unpacked files again with the same function
the coordinator used, and refuses a bot whose hash differs.  The sandbox level and every
limit come with the league's settings, so they apply on the worker exactly as at home.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from arena import __version__
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.league.play import GameSettings
    from arena.league.store import PackedRecord
    from arena.runner.botspec import BotSpec

try:  # the worker plugin's base class, when Dask is installed
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - the cluster extra is not installed
    WorkerPlugin = object  # type: ignore[misc,assignment]

# a pool of bots no chunk has used for this long is closed: a long-lived worker serving
# leagues of other bots keeps no processes for bots nobody plays any more
IDLE_POOL_SECONDS = 120.0
# Dask's periodic callbacks the plugin stops while it is installed: the statistical
# profiler (100 wake-ups a second) would only see the task's thread waiting for the
# arena's loop, and the loop-latency tick (50 a second) measures nothing of ours; each
# wake-up takes the GIL from the thread playing the games.  An idle worker used 30 ms of
# CPU a second with them, 14 without (2 cores, loaded).  Dask's memory monitors stay.
QUIET_CALLBACKS = ("profile", "profile-cycle", "tick")


@dataclass(frozen=True)
class BotPack:
    name: str
    content_hash: str | None  # None: a bot without a folder (installed with the arena)
    data: bytes  # an uncompressed tar of the bot's files ("" without a folder)


def pack_bot(spec: BotSpec) -> BotPack:
    """A bot's folder as bytes, in a stable order, with no owner or time in it.  The folder
    is read as every bot folder is (``scan_bot_folder``: never blocking, regular files and
    symbolic links only, within the caps of ``arena.settings.FolderLimits``)."""
    from arena.plugins.manifest import FolderRefused, content_hash, open_bot_file, scan_bot_folder

    if spec.folder is None:
        return BotPack(spec.name, None, b"")
    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for entry in scan_bot_folder(spec.folder):
                info = tarfile.TarInfo(entry.relative.as_posix())
                info.mode = entry.mode
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mtime = 0
                if entry.link is None:
                    info.size = entry.size
                    with open_bot_file(spec.folder, entry) as file:
                        tar.addfile(info, file)
                else:
                    info.type = tarfile.SYMTYPE
                    info.linkname = entry.link
                    tar.addfile(info)
        # a built copy is named by its own files' hash (its sources' names the bot)
        packed_hash = spec.built_hash or spec.content_hash or content_hash(spec.folder)
    except FolderRefused as refused:
        raise ArenaError(f"bot {spec.name!r}: bot folder refused: {refused}") from None
    return BotPack(spec.name, packed_hash, buffer.getvalue())


def unpack_bot(pack: BotPack, cache: Path) -> Path:
    """The bot's folder in ``cache`` (unpacked once per content hash), checked against
    the coordinator's hash."""
    from arena.plugins.manifest import content_hash

    assert pack.content_hash is not None
    folder = cache / pack.content_hash
    if folder.is_dir():
        return folder
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache))
    try:
        with tarfile.open(fileobj=io.BytesIO(pack.data), mode="r:") as tar:
            tar.extractall(staging, filter="data")  # no absolute paths, no escapes
        found = content_hash(staging)
        if found != pack.content_hash:
            raise ArenaError(
                f"bot {pack.name!r}: the files that reached this worker hash to {found[:12]}, "
                f"not {pack.content_hash[:12]} as on the coordinator; refusing to run it"
            )
        staging.chmod(0o755)  # (mkdtemp's 0700) bots run under uids of their own
        try:
            os.rename(staging, folder)
        except OSError:  # another thread of this worker unpacked it first
            if not folder.is_dir():
                raise
        return folder
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@dataclass
class _KeptPool:
    pool: Any  # arena.runner.pool.BotPool
    scope: trio.CancelScope  # cancelled: the pool closes, its bots quit
    chunks: int = 0  # chunks playing in it now
    used: float = 0.0  # trio.current_time() of its last chunk's end


class _Runtime:
    """One trio loop in a thread, holding a warm bot pool per league setting and roster
    (across leagues: the same bots in the same settings find their processes warm)."""

    def __init__(self, log_root: Path) -> None:
        self.log_root = log_root
        self.token: trio.lowlevel.TrioToken | None = None
        self.pools: dict[Any, _KeptPool] = {}
        self.stop_event: trio.Event | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=trio.run, args=(self._main,),
                                       name="arena-runtime", daemon=True)
        self.thread.start()
        self.ready.wait()

    async def _main(self) -> None:
        self.token = trio.lowlevel.current_trio_token()
        self.stop_event = trio.Event()
        self.slots = trio.CapacityLimiter(1)  # games at once on this worker, all chunks
        self.opening = trio.Lock()
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            nursery.start_soon(self._close_idle_pools)
            self.ready.set()
            await self.stop_event.wait()
            nursery.cancel_scope.cancel()

    async def _keep_pool(self, settings: GameSettings, *,
                         task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        from arena.runner.pool import open_bot_pool

        log_dir = self.log_root / settings.game
        with trio.CancelScope() as scope:
            async with open_bot_pool(settings.limits, log_dir) as pool:
                task_status.started(_KeptPool(pool, scope, used=trio.current_time()))
                await trio.sleep_forever()

    async def _close_idle_pools(self) -> None:
        while True:
            await trio.sleep(IDLE_POOL_SECONDS / 4)
            now = trio.current_time()
            for key, kept in list(self.pools.items()):
                if kept.chunks == 0 and now - kept.used > IDLE_POOL_SECONDS:
                    del self.pools[key]
                    kept.scope.cancel()

    async def _play_chunk(self, settings: GameSettings, roster: frozenset[Any],
                          seatings: Sequence[Sequence[BotSpec]], seeds: Sequence[int],
                          slots: int, dictionary: tuple[int, bytes] | None
                          ) -> tuple[list[Any], float]:
        key = (settings.game, repr(settings.limits), roster)
        async with self.opening:  # one pool per key when two chunks arrive at once
            kept = self.pools.get(key)
            if kept is None:
                kept = self.pools[key] = await self.nursery.start(self._keep_pool, settings)
            kept.chunks += 1
        try:
            return await self._play_in(kept.pool, settings, seatings, seeds, slots,
                                       dictionary)
        finally:
            kept.chunks -= 1
            kept.used = trio.current_time()

    async def _play_in(self, pool: Any, settings: GameSettings,
                       seatings: Sequence[Sequence[BotSpec]], seeds: Sequence[int],
                       slots: int, dictionary: tuple[int, bytes] | None
                       ) -> tuple[list[Any], float]:
        from arena.league.play import engine, play_seating
        from arena.league.store import pack_record

        game = engine(settings.game)
        if self.slots.total_tokens != slots:
            self.slots.total_tokens = max(1, slots)
        replies: list[Any] = [None] * len(seeds)
        slot_seconds = 0.0  # each game's time in its slot, summed (the coordinator's sizing)

        async def play(i: int) -> None:
            nonlocal slot_seconds
            async with self.slots:  # first come, first served: this chunk's, then the next's
                start = trio.current_time()
                try:
                    record = await play_seating(pool, game, settings, seatings[i], seeds[i])
                    # when it ended, by this worker's clock (the coordinator shifts it to
                    # its own): the chunk comes back whole, later
                    replies[i] = (replace(pack_record(record, dictionary),
                                          finished_at=time.time()), None)
                except ArenaError as error:
                    replies[i] = (None, str(error))
                slot_seconds += trio.current_time() - start

        async with trio.open_nursery() as nursery:
            for i in range(len(seeds)):
                nursery.start_soon(play, i)
        return replies, slot_seconds

    def play_chunk(self, settings: GameSettings, roster: frozenset[Any],
                   seatings: Sequence[Sequence[BotSpec]], seeds: Sequence[int], slots: int,
                   dictionary: tuple[int, bytes] | None) -> tuple[list[Any], float]:
        """A chunk's games, from a worker thread (Dask runs tasks in threads): one hop into
        the loop per chunk, into the pool of the league's ``roster`` (its bots by
        content).  They share ``slots`` games at once with the other chunks this worker is
        playing, so a chunk's last games and the next chunk's first ones play side by
        side (no slot idles at a chunk's end).  Per game (PackedRecord, None) or (None,
        error message), in the chunk's order, and the seconds the games took in their
        slots, summed."""
        played: tuple[list[Any], float] = trio.from_thread.run(
            self._play_chunk, settings, roster, seatings, seeds, slots, dictionary,
            trio_token=self.token)
        return played

    def close(self) -> None:
        if self.token is not None and self.stop_event is not None:
            with suppress(trio.RunFinishedError):  # already stopped
                trio.from_thread.run_sync(self.stop_event.set, trio_token=self.token)
        self.thread.join(timeout=10)


class ArenaWorkerPlugin(WorkerPlugin):  # type: ignore[misc,valid-type]
    """Installed on every worker by the coordinator (``Client.register_plugin``), once:
    ``idempotent`` makes the scheduler keep an installed one (and its warm bots) when the
    next league registers it again.  The code that runs is always the worker's own arena
    (the plugin travels by reference to its class), whose version it reports."""

    name = "ra-arena"
    idempotent = True

    # (nothing is set in __init__: the plugin is pickled on its way to the workers)
    runtime: _Runtime | None = None
    folder: Path | None = None
    address = ""
    version = __version__

    def setup(self, worker: Any) -> None:
        self.folder = Path(worker.local_directory) / "ra-arena"
        self.address = str(worker.address)
        self.lock = threading.Lock()
        self.quieted = []
        for name in QUIET_CALLBACKS:
            callback = worker.periodic_callbacks.get(name)
            if callback is not None and callback.is_running():
                callback.stop()
                self.quieted.append(callback)

    def teardown(self, worker: Any) -> None:
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None
        for callback in self.quieted:  # the worker as it was
            callback.start()

    def runtime_for(self) -> _Runtime:
        with self.lock:
            if self.runtime is None or not self.runtime.thread.is_alive():
                assert self.folder is not None
                self.runtime = _Runtime(self.folder / "logs")
            return self.runtime

    def bots_folder(self) -> Path:
        assert self.folder is not None
        return self.folder / "bots"


def play_chunk(
    settings: GameSettings,
    specs: dict[str, BotSpec],
    packs: dict[str, BotPack],
    games: Sequence[tuple[str, Sequence[str], int]],
    at_once: int = 1,
    dictionary: tuple[int, bytes] | None = None,
    version: str = __version__,
) -> tuple[list[tuple[str, PackedRecord | None, str | None, str]], float, float]:
    """A Dask task: play ``games`` (id, seats, seed) on this worker, ``at_once`` at a
    time per worker thread (with the other chunks it plays), each record packed here as
    the store keeps it (compressed with ``dictionary``, the store's for the game, once it
    has one), so the coordinator only inserts rows.  ``version``: the coordinator's
    arena version, which must be this worker's.  Returns (game id, packed record,
    error, worker address) per game, the seconds the games took in their slots (summed:
    the coordinator sizes chunks by it) and this worker's time.time() as it returns (each
    record's ``finished_at`` is by this worker's clock)."""
    from distributed import get_worker, secede

    worker = get_worker()
    plugin = worker.plugins.get(ArenaWorkerPlugin.name)
    if not isinstance(plugin, ArenaWorkerPlugin):
        raise ArenaError("the ra-arena worker plugin is not installed on this worker")
    if plugin.version != version:
        raise ArenaError(f"worker {plugin.address} runs ra-arena {plugin.version}, the "
                         f"coordinator {version}: install the same version on both")
    local: dict[str, BotSpec] = {}
    for name, spec in specs.items():
        pack = packs[name]
        if pack.content_hash is None:
            local[name] = spec
        else:
            local[name] = replace(spec, folder=unpack_bot(pack, plugin.bots_folder()))
    runtime = plugin.runtime_for()
    # the pool of this league's bots, by content (a bot's folder is named by its hash)
    roster = frozenset((spec.name, spec.version, spec.command, str(spec.folder))
                       for spec in local.values())
    slots = at_once * max(1, int(worker.state.nthreads))
    # Leave Dask's thread pool: the worker may start the next chunk (the coordinator keeps
    # two per thread in flight) while this one plays, and the next chunk's games take the
    # slots this one's frees; Dask still reruns the chunk elsewhere if this worker dies.
    secede()
    played, slot_seconds = runtime.play_chunk(
        settings, roster, [[local[name] for name in seats] for _, seats, _ in games],
        [seed for _, _, seed in games], slots, dictionary)
    return [(game_id, record, error, plugin.address)
            for (game_id, _, _), (record, error) in zip(games, played, strict=True)], \
        slot_seconds, time.time()
