"""Playing a league on Dask distributed: the same games and leaderboard as a local run,
nothing lost or doubled when a worker dies, bots only by content, no plaintext off-host.

The cluster tests start a real ``dask scheduler`` and ``dask worker`` processes on
loopback, as a user would.  Dask distributed is a test dependency (never skipped)."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.deals import deal_key_file
from arena.errors import ArenaError
from arena.league.cluster import ClusterSettings, _ChunkSizer, check_address
from arena.league.cluster_worker import BotPack, pack_bot, unpack_bot
from arena.league.config import load_league
from arena.league.run import leaderboard_text, run_league
from arena.league.store import open_store
from arena.runner.botspec import BotSpec

BOTS = Path(__file__).resolve().parents[2] / "arena" / "bots"
DASK = Path(sys.executable).with_name("dask")


# -- the address check: no plaintext scheduler off this machine ----------------------------
@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tcp://localhost:8786",
                                     "tcp://[::1]:8786", "tls://203.0.113.5:8786",
                                     "127.0.0.1:8786"])
def test_loopback_or_tls_addresses_pass(address: str) -> None:
    check_address(ClusterSettings(address))


@pytest.mark.parametrize(("address", "message"), [
    ("tcp://203.0.113.5:8786", "not on this machine and not encrypted"),
    ("tcp://scheduler.example:8786", "not on this machine and not encrypted"),
    ("http://127.0.0.1:8786", "is not a Dask scheduler address"),
    ("tcp://127.0.0.1", "needs a host and a port"),
    ("tcp://127.0.0.1:notaport", "needs a host and a port"),
])
def test_unsafe_or_malformed_addresses_are_refused(address: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        check_address(ClusterSettings(address))
    check_address(ClusterSettings("tcp://203.0.113.5:8786", insecure=True))  # told so


def test_the_command_line_refuses_before_opening_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "l.toml"
    league.write_text('name = "c"\ngame = "ra"\nplayers = 2\nroster = ["first", "random"]\n'
                      'results_dir = "out"\n')
    assert main(["run", str(league), "--cluster", "tcp://203.0.113.5:8786"]) == 2
    err = capsys.readouterr().err
    assert "--insecure" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_cluster_table_in_the_league_file(tmp_path: Path) -> None:
    league = tmp_path / "l.toml"
    league.write_text('name = "c"\ngame = "ra"\nplayers = 2\n[cluster]\n'
                      'address = "tls://10.0.0.5:8786"\ntls_ca_file = "ca.pem"\n')
    cluster = load_league(league).cluster
    assert cluster is not None and cluster.tls_ca_file == tmp_path / "ca.pem"
    league.write_text('name = "c"\ngame = "ra"\nplayers = 2\n[cluster]\nadress = "x"\n')
    with pytest.raises(ArenaError, match="cluster.adress': unknown key"):
        load_league(league)


def test_chunks_grow_to_the_target_time() -> None:
    sizer = _ChunkSizer(target=2.0)
    assert sizer.size() == 2  # nothing measured yet
    for _ in range(10):
        sizer.observe(0.05)
    assert sizer.size() == 40
    sizer.observe(0.5, games=10)  # ten games took 0.5 s in their slots: 0.05 s a game
    assert sizer.size() == 40
    assert sizer.size(slots=2) == 80  # two at once: twice the games in the same time
    for _ in range(1000):
        sizer.observe(0.0001)
    assert sizer.size() == 256  # capped: a lost worker must not cost too much


def test_the_first_chunk_fills_a_workers_slots_once() -> None:
    assert _ChunkSizer(target=2.0).size(slots=8) == 8


def test_the_last_games_are_shared_among_the_chunks_in_flight() -> None:
    sizer = _ChunkSizer(target=2.0, chunks=4)  # 2 threads x 2 chunks
    sizer.observe(1.0, games=50)  # 0.02 s a game in its slot
    assert sizer.size(slots=2) == 200
    assert sizer.size(slots=2, waiting=10_000) == 200
    assert sizer.size(slots=2, waiting=400) == 100  # a quarter of what is left
    assert sizer.size(slots=2, waiting=9) == 3
    assert sizer.size(slots=2, waiting=1) == 1


def test_games_of_bots_that_think_go_in_short_chunks() -> None:
    """Games of seconds: a chunk of a few games (Dask's milliseconds per task do not
    matter), so a worker's slots never wait for a long chunk's slowest game and the last
    games spread over the workers."""
    slow = _ChunkSizer(target=2.0, chunks=4)
    slow.observe(64 * 8.0, games=64)  # 8 s a game in its slot
    assert slow.size(slots=8) == 2
    assert slow.size(slots=1) == 1


# -- the dispatcher, on a fake Dask client -------------------------------------------------
class _FakeFuture:
    def __init__(self, client: _FakeClient, worker: str, replies: Any) -> None:
        self.client, self.worker, self.replies = client, worker, replies

    def result(self) -> Any:
        time.sleep(self.client.delay)
        with self.client.lock:
            self.client.held[self.worker] -= 1
        return self.replies


class _FakeClient:
    """Plays each chunk in ``delay`` seconds (a record per game, each game
    ``slot_seconds`` in its slot) and remembers what was sent where, and the most chunks
    each worker held at once."""

    def __init__(self, workers: dict[str, int], slot_seconds: float = 0.01,
                 delay: float = 0.0) -> None:
        import threading

        self.workers = workers
        self.slot_seconds = slot_seconds
        self.delay = delay
        self.sent: list[tuple[str, int]] = []
        self.lock = threading.Lock()
        self.held = dict.fromkeys(workers, 0)
        self.most_held = dict.fromkeys(workers, 0)

    def nthreads(self) -> dict[str, int]:
        return self.workers

    def close(self) -> None:
        pass

    def submit(self, function: Any, settings: Any, specs: Any, packed: Any,
               request: list[tuple[Any, ...]], *args: Any, **options: Any
               ) -> _FakeFuture:
        (worker,) = options["workers"]
        self.sent.append((worker, len(request)))
        with self.lock:
            self.held[worker] += 1
            self.most_held[worker] = max(self.most_held[worker], self.held[worker])
        replies = [(game_id, _FakeRecord(game_id, time.time()), None, worker)
                   for game_id, *_ in request]  # (id, seats, seed, parameters)
        return _FakeFuture(self, worker, (replies, self.slot_seconds * len(request),
                                          time.time()))


@dataclass(frozen=True)
class _FakeRecord:
    game_id: str
    finished_at: float | None
    worker: str | None = None

    def in_league(self, game_id: str, table: str, round: int) -> _FakeRecord:
        return self


def _play_on_fake_cluster(client: _FakeClient, games: int, concurrency: int,
                          monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from arena.league import cluster as cluster_module
    from arena.league.play import GameSettings
    from arena.league.schedule import ScheduledGame

    monkeypatch.setattr(cluster_module, "_connect", lambda settings: client)
    monkeypatch.setattr(cluster_module, "_register", lambda client, packs: client.workers)
    monkeypatch.setattr(cluster_module, "_scatter", lambda client, packs: {})
    scheduled = [ScheduledGame(game_id=f"g{i:03d}", table="t", round=1, seats=("x", "y"),
                               seed=i) for i in range(games)]
    finished: list[str] = []

    async def main() -> None:
        async with cluster_module.open_cluster(
            GameSettings(game="ra"), [], ClusterSettings("tcp://127.0.0.1:1"), concurrency
        ) as (play, _), trio.open_nursery() as nursery:
            for game in scheduled:
                async def one(game: ScheduledGame = game) -> None:
                    record = await play(game)
                    finished.append(record.game_id or "")
                nursery.start_soon(one)

    trio.run(main)
    return finished


def test_the_dispatcher_fills_every_worker_and_shares_the_last_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = _FakeClient({"tcp://a:1": 1, "tcp://b:1": 1})
    finished = _play_on_fake_cluster(client, 300, 4, monkeypatch)
    assert sorted(finished) == [f"g{i:03d}" for i in range(300)]  # every game once
    sizes = [n for _, n in client.sent]
    assert sizes[:2] == [2, 2]  # the first chunks fill a worker's two slots once
    assert max(sizes) > 20 and sizes[-1] <= 3  # grown to the target, shrinking at the end
    per_worker = {w: sum(n for a, n in client.sent if a == w) for w in client.workers}
    assert min(per_worker.values()) >= 100  # both workers played a fair part


def test_a_worker_holds_enough_short_chunks_to_fill_its_slots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bots that think: games of 8 s, 8 at once per worker (concurrency 16 on two
    workers): chunks of 2 games, and each worker holds enough of them for its 8 slots and
    as many games waiting, not two chunks (4 games: half its slots idle)."""
    client = _FakeClient({"tcp://a:1": 1, "tcp://b:1": 1}, slot_seconds=8.0, delay=0.02)
    finished = _play_on_fake_cluster(client, 200, 16, monkeypatch)
    assert len(finished) == 200
    sizes = [n for _, n in client.sent]
    assert sizes[:2] == [8, 8] and set(sizes[4:-8]) == {2}
    assert min(client.most_held.values()) >= 6  # (16 - a first chunk of 8 + ...) / 2


# -- bots by content -------------------------------------------------------------------------
def _spec(folder: Path) -> BotSpec:
    return BotSpec(name="first", version="1", command=("{python}", "bot.py"), folder=folder,
                   games={"ra": (2,)}, source=f"folder {folder}")


def test_a_bot_travels_by_content_and_a_changed_one_is_refused(tmp_path: Path) -> None:
    pack = pack_bot(_spec(BOTS / "first"))
    assert pack.content_hash and pack.data
    assert pack_bot(_spec(BOTS / "first")) == pack  # stable bytes: no times, no owners
    folder = unpack_bot(pack, tmp_path / "cache")
    assert folder.name == pack.content_hash
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        p.name for p in (BOTS / "first").iterdir() if p.name != "__pycache__")
    assert unpack_bot(pack, tmp_path / "cache") == folder  # cached

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = b"print('not the same bot')\n"
        info = tarfile.TarInfo("bot.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    forged = BotPack("first", pack.content_hash[::-1], buffer.getvalue())
    with pytest.raises(ArenaError, match="refusing to run it"):
        unpack_bot(forged, tmp_path / "cache")
    assert not (tmp_path / "cache" / pack.content_hash[::-1]).exists()


def test_a_pack_cannot_write_outside_the_cache(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("../../escaped.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(tarfile.TarError):
        unpack_bot(BotPack("evil", "0" * 64, buffer.getvalue()), tmp_path / "cache")
    assert not (tmp_path / "escaped.txt").exists()


# -- a real scheduler and two workers on loopback -----------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    address = f"tcp://127.0.0.1:{_free_port()}"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    logs = tmp_path / "dask-logs"
    logs.mkdir()
    processes = [subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
         "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=(logs / "scheduler.log").open("wb"), env=env,
        start_new_session=True,
    )]
    for n in range(2):
        processes.append(subprocess.Popen(
            [str(DASK), "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
             "--host", "127.0.0.1", "--name", f"w{n}",
             "--local-directory", str(tmp_path / f"w{n}")],
            stdout=subprocess.DEVNULL, stderr=(logs / f"worker{n}.log").open("wb"), env=env,
            start_new_session=True,
        ))
    try:
        yield address, processes
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _league(tmp_path: Path, name: str, rounds: int) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "ra"\nplayers = [2, 3]\nroster = ["first", "random", '
        f'"greedy"]\nrounds = {rounds}\nseed = 77\nresults_dir = "{name}"\n'
        f'bot_paths = ["{BOTS}"]\nconcurrency = 2\n'
    )
    return path


def _games(results: Path) -> dict[str, tuple[object, ...]]:
    store = open_store(results)
    try:
        return {r.game_id: (r.seats, r.scores, r.placements, json.dumps(r.engine))
                for r in store.games()}
    finally:
        store.close()


def test_a_league_on_the_cluster_equals_the_local_league_even_when_a_worker_dies(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, processes = dask_cluster
    rounds = 8  # 144 games: a few seconds, so a worker can die in the middle
    local = _league(tmp_path, "local", rounds)
    key = tmp_path / "deal.key"  # both leagues deal from one secret key
    assert run_league(load_league(local), quiet=True, out=io.StringIO(),
                      deal_key=deal_key_file(key)) == 0

    remote = _league(tmp_path, "remote", rounds)
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(remote), "--cluster", address,
         "--deal-key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    store_dir = tmp_path / "remote"
    deadline = time.monotonic() + 60
    killed = False
    while run.poll() is None and time.monotonic() < deadline:
        if not killed and (store_dir / "league.sqlite").exists():
            try:
                stored = open_store(store_dir)
                count = stored.count()
                stored.close()
            except ArenaError:
                count = 0
            if count >= 20:
                os.killpg(processes[1].pid, signal.SIGKILL)  # a worker dies mid-league
                killed = True
        time.sleep(0.05)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err.decode()[-2000:]
    assert killed, "the league ended before a worker could be killed"

    local_games, remote_games = _games(tmp_path / "local"), _games(store_dir)
    assert len(remote_games) == len(local_games) == 3 * 2 * rounds + 3 * rounds
    assert remote_games == local_games  # the same records, none lost, none twice
    config = load_league(local)
    stored = open_store(store_dir)
    workers = {r.worker for r in stored.games()}
    assert all(w and re.match(r"tcp://127\.0\.0\.1:\d+$", w) for w in workers)
    text = err.decode()
    assert "games per cluster worker" in text
    assert leaderboard_text(stored.results(), config) == leaderboard_text(
        open_store(tmp_path / "local").results(), config)
    assert "Elo" in out.decode()


def _bot_starts(tmp_path: Path) -> int:
    """Bot processes the two workers of ``dask_cluster`` have started (one stderr log each,
    in ``ra-arena/logs`` of the worker's directory, which Dask makes in --local-directory)."""
    return sum(1 for n in range(2) for log in (tmp_path / f"w{n}").rglob("*.stderr.log")
               if "ra-arena" in log.parts)


def test_the_next_league_of_the_same_bots_finds_them_warm_on_the_workers(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    import psutil  # (Dask's own dependency)

    address, workers = dask_cluster
    cluster = ClusterSettings(address)

    def processes_under_the_workers() -> set[tuple[int, float]]:
        found = set()
        for worker in workers:
            for child in psutil.Process(worker.pid).children(recursive=True):
                with suppress(psutil.Error):
                    found.add((child.pid, child.create_time()))
        return found

    first = load_league(_league(tmp_path, "first", 2))
    assert run_league(first, quiet=True, out=io.StringIO(), err=io.StringIO(),
                      cluster=cluster) == 0
    started = _bot_starts(tmp_path)
    warm = processes_under_the_workers()
    assert started > 0 and warm
    # the same bots again, other games: the plugin stays installed, its bots stay warm
    again = load_league(_league(tmp_path, "again", 2))
    again = replace(again, seed=78)
    start = time.time()
    assert run_league(again, quiet=True, out=io.StringIO(), err=io.StringIO(),
                      cluster=cluster) == 0
    end = time.time()
    # every bot process of the first league still runs (none restarted); other games may
    # seat a bot in two games at once on a worker where the first league never did, which
    # starts its second process there, and no process plays a deal twice, so the k seat
    # rotations of a table played one after the other on a worker take k processes of
    # each of its bots: at most 2 slots + 3 - 1 per bot and worker (3 bots, 2 workers),
    # where restarting them all would start as many as before
    assert warm <= processes_under_the_workers()
    assert _bot_starts(tmp_path) <= 3 * 2 * (2 + 3 - 1)
    stored = open_store(tmp_path / "again")
    assert stored.count() == open_store(tmp_path / "first").count()
    # each game's finish time is when it ended on the worker, moved onto this clock
    times = stored.finish_times()
    assert start < times[0] and times[-1] <= end

    from distributed import Client

    from arena.league.cluster_worker import play_chunk
    from arena.league.play import GameSettings

    with Client(address, set_as_default=False) as client:
        future = client.submit(play_chunk, GameSettings(game="ra"), {}, {}, [], 1, None,
                               "0.0.0-other", pure=False)
        with pytest.raises(ArenaError, match="runs ra-arena .* the coordinator 0.0.0-other"):
            future.result(timeout=30)


def test_a_workers_pool_of_bots_nobody_plays_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.league import cluster_worker
    from arena.league.play import GameSettings
    from arena.plugins import discover

    monkeypatch.setattr(cluster_worker, "IDLE_POOL_SECONDS", 0.4)
    first = discover().bot("first")
    bots = [replace(first, name=f"first-{i}") for i in (1, 2)]
    roster = frozenset((b.name, b.version, b.command, str(b.folder)) for b in bots)
    runtime = cluster_worker._Runtime(tmp_path / "logs")
    try:
        settings = GameSettings(game="ra")
        played, slot_seconds = runtime.play_chunk(settings, roster, [bots, bots[::-1]],
                                                  [1, 2], 2, None)
        assert [error for _, error in played] == [None, None]
        assert slot_seconds > 0
        assert len(runtime.pools) == 1
        runtime.play_chunk(settings, roster, [bots], [3], 2, None)
        assert len(runtime.pools) == 1  # the same bots: the same pool
        deadline = time.monotonic() + 10
        while runtime.pools and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not runtime.pools  # unused for IDLE_POOL_SECONDS: closed
    finally:
        runtime.close()


def _stored(store_dir: Path) -> int:
    if not (store_dir / "league.sqlite").exists():
        return 0
    try:
        stored = open_store(store_dir)
        try:
            return stored.count()
        finally:
            stored.close()
    except ArenaError:
        return 0


@pytest.mark.parametrize("lost", ["workers", "scheduler"])
def test_a_cluster_that_loses_its_workers_or_scheduler_ends_the_league_in_one_line(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]], lost: str
) -> None:
    """Issue 43 item 8: never a silent wait. Every worker killed, or the scheduler, in
    the middle of a league: it ends within a bounded time (LOST_SECONDS and a margin)
    with one line saying what the cluster lost, and the games stored so far are kept."""
    from arena.league.cluster import LOST_SECONDS

    address, processes = dask_cluster
    league = _league(tmp_path, "lost", 300)  # minutes of games: it cannot end by itself
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(league), "--cluster", address, "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    store_dir = tmp_path / "lost"
    try:
        deadline = time.monotonic() + 90
        while _stored(store_dir) < 10:
            assert run.poll() is None and time.monotonic() < deadline, run.stderr
            time.sleep(0.1)
        for process in processes[1:] if lost == "workers" else processes[:1]:
            os.killpg(process.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        out, err = run.communicate(timeout=LOST_SECONDS + 60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    took = time.monotonic() - killed_at
    assert run.returncode == 2 and took < LOST_SECONDS + 30, (run.returncode, took)
    errors = [line for line in err.decode().splitlines() if line.startswith("arena: error")]
    assert len(errors) == 1, err.decode()
    assert f"the Dask cluster at {address}" in errors[0], errors
    assert "the stored games are kept: run the same command to resume" in errors[0]
    assert "Traceback" not in err.decode()
    assert _stored(store_dir) >= 10


def test_a_swiss_league_on_the_cluster_pairs_and_plays_as_the_local_one(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    """Each round's pairing is chosen by this process from the stored results only, so a
    Swiss played on the cluster has the same rounds, games and records as at home."""
    address, _processes = dask_cluster

    def league(name: str) -> Path:
        path = tmp_path / f"{name}.toml"
        path.write_text(
            f'name = "{name}"\ngame = "ra"\nplayers = 2\nroster = ["first", "random", '
            f'"greedy"]\nformat = "swiss"\nrounds = 3\nseed = 5\nresults_dir = "{name}"\n'
            f'bot_paths = ["{BOTS}"]\nconcurrency = 2\n')
        return path

    key = tmp_path / "deal.key"  # both dealt from one key: the same games
    assert run_league(load_league(league("home")), quiet=True, out=io.StringIO(),
                      deal_key=deal_key_file(key)) == 0
    away = league("away")
    assert main(["run", str(away), "--cluster", address, "--quiet",
                 "--deal-key", str(key)]) == 0
    home_games, away_games = _games(tmp_path / "home"), _games(tmp_path / "away")
    assert len(home_games) == 3 * 2  # 3 rounds, one table of 2 games, a bye each round
    assert away_games == home_games
    stored = open_store(tmp_path / "away")
    try:
        assert {r.worker for r in stored.games()} - {None}
    finally:
        stored.close()


def test_a_tune_on_the_cluster_equals_the_local_tune(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    """The parameter values of a tune's players reach the bots on the workers (in their
    hello): the same pairs, the same games, the same trajectory as on this machine."""
    from arena.league.store import create_store
    from arena.tune.tuner import Tuner

    address, _processes = dask_cluster

    def tune_argv(folder: Path, *more: str) -> list[str]:
        return [sys.executable, "-m", "arena", "tune", "greedy", "--against", "first",
                "--games", "16", "--verify-games", "4", "--sandbox", "none", "--start",
                "gold=0.2,monuments=2.5", "--in-flight", "2", "--concurrency", "4",
                "--results-dir", str(folder), "--quiet", *more]

    local, remote = tmp_path / "local-tune", tmp_path / "remote-tune"
    done = subprocess.run(tune_argv(local), capture_output=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    stored = open_store(local)
    key = stored.stored_deal_key()
    stored.close()
    seeded = create_store(remote)  # the same secret deals on both
    seeded.deal_key(key)
    seeded.close()
    done = subprocess.run(tune_argv(remote, "--cluster", address), capture_output=True,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert _games(remote) == _games(local)
    trajectories = []
    for folder in (local, remote):
        stored = open_store(folder)
        tuner = Tuner.of_store(stored)
        assert tuner is not None
        trajectories.append(tuner.spsa.trajectory)
        if folder == remote:
            assert all(r.worker for r in stored.games())  # played on the workers
        stored.close()
    assert len(trajectories[0]) == 9 and trajectories[0] == trajectories[1]
