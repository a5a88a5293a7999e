"""``arena bench serve``: the server under a class watching, while its ladder plays.

A fresh server folder in a temporary directory (house bots ``random`` and ``first`` and
one uploaded copy of ``random``, two-player tables as fast as they go), served by
``arena serve`` in its own process on a free loopback port.  Then, in one run:

* **ladder alone** and **ladder + N clients**, alternated ABBA (alone, clients;
  clients, alone; ... ``--seconds`` each, so that the store growing along the run
  favours neither): the ladder's games per second in each (counted in the database),
  and, with the clients, each request's latency, overall, by route, and apart for the
  class arriving (its first 2 s: connections and event streams opened) and steady.  A
  client arrives within the phase's first second, opens the event stream and holds
  it, and reads, about once a second (jittered), the leaderboard page, a bot page, the
  leaderboard API or the bot API in turn: a class of N watching.
* **saturation**: a few clients requesting with no pause (the same four routes), while
  the ladder plays: requests per second and their latency.

With ``--database postgresql://...`` (an empty database the benchmark may use: its
tables are removed at the end) the same phases run, at the default pace, on SQLite, on
PostgreSQL with one web process and on PostgreSQL with two (``arena serve --workers 2``),
and a store call is timed on the event loop and through a worker thread (why the server
calls psycopg's synchronous API from its loop: docs/server.md, *Past one machine*).

Everything is on 127.0.0.1, bounded in time (each phase stops at its end, the whole at
``phases * seconds`` plus set-up) and in requests (a client makes at most two a second
when paced); the server and its folder are removed at the end.  The goals (issues 33
and 42): with 50 clients, p99 at most 100 ms and the ladder losing at most 10% of its
games per second, on a 2-core machine, for both stores; two web processes saturating
at 1.3 times one at least.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError

ROUTES = ("/", "/bots/bench/watched", "/api/v1/leaderboard", "/api/v1/bots/bench/watched")
SATURATION_CLIENTS = 8
PASSWORD = "bench password 1234"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _make_folder(folder: Path, pace: float, database: str = "") -> None:
    from arena.server.commands import init_server

    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
        init_server(folder, "root", database)
    path = folder / "settings.toml"
    text = path.read_text()
    for old, new in {"players = [3]": "players = [2]",
                     "tables_per_minute = 60": f"tables_per_minute = {pace:g}",
                     "games = 2 ": "games = 1 ",
                     "register_per_hour = 5": "register_per_hour = 100",
                     "login_per_minute = 10": "login_per_minute = 100"}.items():
        if old not in text:
            raise ArenaError(f"arena bench serve: the default settings changed ({old!r})")
        text = text.replace(old, new)
    path.write_text(text)


def _games(folder: Path) -> int:
    """The ladder games stored by the server of ``folder`` (SQLite or PostgreSQL)."""
    from arena.server.settings import load_settings
    from arena.server.store import open_league_store

    store = open_league_store(load_settings(folder))
    try:
        return store.count()
    finally:
        store.close()


def _cpu_seconds(pid: int) -> float:
    """The CPU time of the server ``pid`` so far: its own (all its threads; not its
    children: ladder workers, bots, the rating process), or with several web processes,
    theirs (``pid`` is then the first process, which only waits)."""
    def cpu(process: int) -> float:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    web = [int(child) for child in _children(pid)]
    return sum(cpu(child) for child in web) if web and _supervises(pid) else cpu(pid)


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def _supervises(pid: int) -> bool:
    """Whether ``pid`` is the first process of ``arena serve --workers N``, N > 1."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(word == b"--workers" and following.isdigit() and int(following) > 1
               for word, following in zip(words, words[1:], strict=False))


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def _setup(url: str) -> None:
    """An account and one uploaded bot, valid (so that the bot pages exist)."""
    import httpx

    from arena.package_data import package_folder
    from arena.server.archives import pack_folder

    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        answer = await client.post("/api/v1/register", json={"name": "bench",
                                                             "password": PASSWORD})
        if answer.status_code != 201:
            raise ArenaError(f"arena bench serve: registering: {answer.text}")
        token = (await client.post("/api/v1/tokens", json={
            "name": "bench", "password": PASSWORD})).json()["token"]
        with tempfile.TemporaryDirectory() as scratch:
            bot = Path(scratch) / "watched"
            shutil.copytree(package_folder("bots") / "random", bot)
            manifest = bot / "bot.toml"
            text = manifest.read_text().replace('name = "random"', 'name = "watched"')
            manifest.write_text("\n".join(line for line in text.splitlines()
                                          if not line.startswith("entry_point")) + "\n")
            data = pack_folder(bot)
        auth = {"Authorization": f"Bearer {token}"}
        answer = await client.post("/api/v1/bots/bench/watched/versions", content=data,
                                   headers={**auth, "Content-Type": "application/gzip"})
        if answer.status_code != 202:
            raise ArenaError(f"arena bench serve: uploading: {answer.text}")
        with trio.fail_after(300):
            while True:
                version = (await client.get(f"/api/v1/versions/{answer.json()['id']}",
                                            headers=auth)).json()
                if version["state"] != "pending":
                    break
                await trio.sleep(0.5)
        if version["state"] != "valid":
            raise ArenaError(f"arena bench serve: the bot was rejected: {version['message']}")


class _Closed(Exception):
    pass


class _Client:
    """A lean HTTP/1.1 client over one kept-alive loopback connection (and another for
    the event stream).  The load generator shares the cores with the server: an httpx
    client costs about a millisecond of CPU per request, and on a busy machine its own
    waiting for CPU was measured as the server's latency (the class's request rate fell
    below its pace while the server used an eighth of a core)."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.stream: trio.SocketStream | None = None
        self.buffer = bytearray()

    async def get(self, route: str) -> int:
        """The status of GET ``route``, its body read whole; a kept-alive connection the
        server closed meanwhile is opened again once."""
        for attempt in (1, 2):
            if self.stream is None:
                self.stream = await trio.open_tcp_stream(self.host, self.port)
                self.buffer.clear()
            try:
                await self.stream.send_all(f"GET {route} HTTP/1.1\r\nHost: {self.host}:"
                                           f"{self.port}\r\n\r\n".encode())
                return await self._response()
            except (_Closed, trio.BrokenResourceError, OSError):
                await self.aclose()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _fill(self) -> None:
        assert self.stream is not None
        data = await self.stream.receive_some(1 << 16)
        if not data:
            raise _Closed()
        self.buffer += data

    async def _response(self) -> int:
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            await self._fill()
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        del self.buffer[:end + 4]
        status = int(head[0].split(" ", 2)[1])
        fields = {name.strip().lower(): value.strip()
                  for name, _, value in (line.partition(":") for line in head[1:])}
        if "content-length" not in fields:
            raise ArenaError(f"arena bench serve: an answer without a length: {head[0]}")
        length = int(fields["content-length"])
        while len(self.buffer) < length:
            await self._fill()
        del self.buffer[:length]
        if fields.get("connection", "").lower() == "close":
            await self.aclose()
        return status

    async def events(self) -> None:
        """The event stream, read and dropped until cancelled (or the server ends it)."""
        stream = await trio.open_tcp_stream(self.host, self.port)
        try:
            await stream.send_all(f"GET /api/v1/events HTTP/1.1\r\nHost: {self.host}:"
                                  f"{self.port}\r\n\r\n".encode())
            while await stream.receive_some(1 << 16):
                pass
        finally:
            await stream.aclose()

    async def aclose(self) -> None:
        if self.stream is not None:
            stream, self.stream = self.stream, None
            await stream.aclose()


def _clients(url: str, count: int) -> list[_Client]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return [_Client(host, int(port)) for _ in range(count)]


ARRIVAL = 2.0  # seconds: the class arriving (connections, event streams) is told apart
LAG_PROBE = 0.01  # seconds: the load generator's own loop is checked this often


async def _watcher(client: _Client, until: float,
                   latencies: list[tuple[float, str, float]], errors: list[str],
                   paced: bool, seed: int) -> None:
    """One client: the event stream held open (read in the background) and a page or
    an API answer about once a second (``paced``) or back to back, until ``until``."""
    rng = random.Random(seed)
    async with trio.open_nursery() as nursery:
        async def events() -> None:
            with contextlib.suppress(OSError, trio.BrokenResourceError):
                await client.events()

        if paced:  # the class arrives over a second, each opening its events first
            await trio.sleep(rng.random())
            nursery.start_soon(events)
        turn = rng.randrange(len(ROUTES))
        while trio.current_time() < until:
            route = ROUTES[turn % len(ROUTES)]
            turn += 1
            began = time.perf_counter()
            try:
                status = await client.get(route)
                if status != 200:
                    errors.append(f"{route}: {status}")
            except (_Closed, OSError, trio.BrokenResourceError, ArenaError) as problem:
                errors.append(f"{route}: {problem!r}")
            latencies.append((began, route, time.perf_counter() - began))
            if paced:
                await trio.sleep(max(0.0, rng.uniform(0.8, 1.2)
                                     - (time.perf_counter() - began)))
        nursery.cancel_scope.cancel()


async def _lag_probe(until: float, lags: list[float]) -> None:
    """How late this process's own loop wakes up: when it is late, the latencies
    measured include the load generator's delays, not only the server's."""
    while trio.current_time() < until:
        began = time.perf_counter()
        await trio.sleep(LAG_PROBE)
        lags.append(time.perf_counter() - began - LAG_PROBE)


async def _phase(clients: list[Any], folder: Path, seconds: float, paced: bool,
                 seed: int, server: int) -> dict[str, Any]:
    latencies: list[tuple[float, str, float]] = []
    errors: list[str] = []
    lags: list[float] = []
    before = _games(folder)
    cpu = _cpu_seconds(server)
    own = time.process_time()
    began = time.perf_counter()
    until = trio.current_time() + seconds
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_lag_probe, until, lags)
        for number, client in enumerate(clients):
            nursery.start_soon(_watcher, client, until, latencies, errors, paced,
                               seed * 1000 + number)
        if not clients:
            await trio.sleep(seconds)
    elapsed = time.perf_counter() - began
    return {"games_per_second": (_games(folder) - before) / elapsed,
            "server_cpu": (_cpu_seconds(server) - cpu) / elapsed,
            "load_cpu": (time.process_time() - own) / elapsed,
            "latencies": [latency for _, _, latency in latencies],
            "steady": [latency for at, _, latency in latencies if at - began >= ARRIVAL],
            "arrival": [latency for at, _, latency in latencies if at - began < ARRIVAL],
            "by_route": {route: [latency for _, of, latency in latencies if of == route]
                         for route in ROUTES},
            "errors": errors, "seconds": elapsed, "lags": lags}


async def _measure(url: str, folder: Path, clients: int, seconds: float, rounds: int,
                   seed: int, server: int) -> dict[str, Any]:
    await _setup(url)
    await trio.sleep(min(seconds, 5.0))  # the ladder's new roster gets going
    alone: list[float] = []
    loaded: list[float] = []
    latencies: list[float] = []
    steady: list[float] = []
    arrival: list[float] = []
    errors: list[str] = []
    by_route: dict[str, list[float]] = {route: [] for route in ROUTES}
    cpu_alone: list[float] = []
    cpu_loaded: list[float] = []
    lags: list[float] = []
    class_clients = _clients(url, clients)
    try:
        for number in range(rounds):
            # alone, class; class, alone; ...: the ladder's store grows all along (a
            # flat-out ladder's bookkeeping grows with it), so each kind of phase gets
            # as many early places as late ones and a trend favours neither
            for with_class in (False, True) if number % 2 == 0 else (True, False):
                if not with_class:
                    phase = await _phase([], folder, seconds, True, seed, server)
                    alone.append(phase["games_per_second"])
                    cpu_alone.append(phase["server_cpu"])
                    continue
                phase = await _phase(class_clients, folder, seconds, True, seed + number,
                                     server)
                loaded.append(phase["games_per_second"])
                cpu_loaded.append(phase["server_cpu"])
                lags += phase["lags"]
                latencies += phase["latencies"]
                steady += phase["steady"]
                arrival += phase["arrival"]
                errors += phase["errors"]
                for route, values in phase["by_route"].items():
                    by_route[route] += values
        saturated = await _phase(class_clients[:SATURATION_CLIENTS], folder, seconds,
                                 False, seed, server)
    finally:
        for client in class_clients:
            await client.aclose()
    return {"alone": alone, "loaded": loaded, "latencies": latencies, "steady": steady,
            "arrival": arrival, "errors": errors, "saturated": saturated,
            "by_route": by_route, "cpu_alone": cpu_alone, "cpu_loaded": cpu_loaded,
            "lags": lags}


PACES = (60.0, 0.0)  # the default settings' pace, and as fast as the machine goes
DEFAULT_PACE = 60.0
STORE_CALLS = 2000  # store calls timed on the loop and through a worker thread


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    clients = int(getattr(args, "clients", None) or 50)
    if not 1 <= clients <= 500:
        raise ArenaError(f"--clients must be 1 to 500, not {clients}")
    seconds = float(args.seconds)
    rounds = 2
    seed = int(getattr(args, "seed", 1))
    database = getattr(args, "database", None) or ""
    # (what, pace, database, web processes)
    runs = [("", pace, "", 1) for pace in PACES]
    if database:
        from arena.league.pg_store import describe, is_postgres

        if not is_postgres(database):
            raise ArenaError(f"--database is a postgresql:// address, not "
                             f"{database.split('@')[-1]!r}")
        runs = [("SQLite", DEFAULT_PACE, "", 1),
                ("PostgreSQL", DEFAULT_PACE, database, 1),
                ("PostgreSQL, 2 web processes", DEFAULT_PACE, database, 2)]
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    saturation: dict[int, float] = {}
    for store, pace, url, workers in runs:
        result = _run_one(pace, clients, seconds, rounds, seed, url, workers)
        more_rows, more_notes = _summary(pace, clients, seconds, rounds, result, store)
        rows += more_rows
        notes += more_notes
        if url:
            saturated = result["saturated"]
            saturation[workers] = len(saturated["latencies"]) / saturated["seconds"]
            notes.append(f"{store}: saturated at {saturation[workers]:.0f} requests/s, the "
                         f"web processes using {100 * saturated['server_cpu']:.0f}% of a "
                         f"core, the load clients {100 * saturated.get('load_cpu', 0):.0f}%"
                         f" (the machine has {os.cpu_count()} cores; the database and the "
                         "ladder share them too): what is near 100% limits it")
    if database:
        ratio = saturation[2] / saturation[1] if saturation.get(1) else float("nan")
        notes.append(f"two web processes on PostgreSQL saturate at {ratio:.2f} times one "
                     "(goal: at least 1.3)")
        notes += _store_calls(database)
    return {
        "title": f"arena serve: {clients} clients watching while the ladder plays "
                 f"(alone and with the class alternated, ABBA..., {rounds} phases of each, "
                 f"{seconds:g} s; loopback; {os.cpu_count()} cores"
                 + (f"; PostgreSQL at {describe(database)}" if database else "") + ")",
        "benchmark": "serve",
        "rows": rows,
        "notes": [*notes,
                  "the load clients run in this process (one trio loop), the server in its "
                  "own, the bots in the sandbox: all on the same cores; latency is from "
                  "sending the request to the last byte of the answer"],
    }


def _store_calls(database: str) -> list[str]:
    """A store call (an account by its name, as every login asks) timed on the event
    loop and through a worker thread, on PostgreSQL: what a thread would add."""
    from arena.server.pg_store import PgServerStore

    store = PgServerStore(database, name="arena bench serve")
    try:
        store.add_user("bench-probe", "x", "user", True)

        async def measure() -> tuple[list[float], list[float]]:
            on_loop, in_thread = [], []
            for _ in range(STORE_CALLS):
                began = time.perf_counter()
                store.user("bench-probe")
                on_loop.append(time.perf_counter() - began)
                began = time.perf_counter()
                await trio.to_thread.run_sync(store.user, "bench-probe")
                in_thread.append(time.perf_counter() - began)
            return on_loop, in_thread

        on_loop, in_thread = trio.run(measure)
    finally:
        store.close()
        _empty_database(database)
    ms = 1000.0
    return [f"a PostgreSQL store call (an account by name), p50/p99: "
            f"{_percentile(on_loop, 0.5) * ms:.2f}/{_percentile(on_loop, 0.99) * ms:.2f} ms "
            f"on the event loop, {_percentile(in_thread, 0.5) * ms:.2f}/"
            f"{_percentile(in_thread, 0.99) * ms:.2f} ms through a worker thread "
            f"({STORE_CALLS} of each)"]


def _empty_database(database: str) -> None:
    """The arena's tables removed from the benchmark's database (made by its runs)."""
    from arena.league.pg_store import PgConnection
    from arena.server.pg_store import FRIENDLY_SCHEMA, LADDER_SCHEMA, SERVER_SCHEMA

    connection = PgConnection(database, "public", name="arena bench serve")
    try:
        connection.run(f"DROP SCHEMA IF EXISTS {SERVER_SCHEMA}, {LADDER_SCHEMA}, "
                       f"{FRIENDLY_SCHEMA} CASCADE")
    finally:
        connection.close()


def _run_one(pace: float, clients: int, seconds: float, rounds: int, seed: int,
             database: str = "", workers: int = 1) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="arena-bench-serve-") as scratch:
        folder = Path(scratch) / "server"
        _make_folder(folder, pace, database)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        log = open(Path(scratch) / "server.log", "w")  # noqa: SIM115 (closed below)
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder),
                                   "--host", "127.0.0.1", "--port", str(port),
                                   "--workers", str(workers)],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                if server.poll() is not None:
                    raise ArenaError("arena bench serve: the server stopped: "
                                     + (Path(scratch) / "server.log").read_text()[-500:])
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                if time.monotonic() > deadline:
                    raise ArenaError("arena bench serve: the server did not start in 60 s")
                time.sleep(0.2)
            return trio.run(_measure, url, folder, clients, seconds,  # type: ignore[no-any-return]
                            rounds, seed, server.pid)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()
            if database:
                _empty_database(database)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _summary(pace: float, clients: int, seconds: float, rounds: int, result: dict[str, Any],
             store: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    alone = _mean(result["alone"])
    loaded = _mean(result["loaded"])
    latencies = result["latencies"]
    saturated = result["saturated"]
    ms = 1000.0
    ladder = (f"{pace:g} tables/min" if pace else "flat out") + (f", {store}" if store
                                                                   else "")
    nan = float("nan")

    def phase_row(phase: str, clients: int, times: list[float], rate: float, games: float,
            per_round: list[float] | None = None) -> dict[str, Any]:
        return {"ladder": ladder, "phase": phase, "clients": clients, "requests": len(times),
                "requests/s": rate, "p50 (ms)": _percentile(times, 0.5) * ms,
                "p99 (ms)": _percentile(times, 0.99) * ms,
                "max (ms)": max(times, default=nan) * ms, "ladder games/s": games,
                "per round": " ".join(f"{v:.2f}" for v in per_round or [])}

    rows = [
        phase_row("ladder alone", 0, [], 0.0, alone, result["alone"]),
        phase_row("+ class (1 request/s each, events open)", clients, latencies,
                  len(latencies) / (seconds * rounds), loaded, result["loaded"]),
        phase_row(f"  of which steady (after {ARRIVAL:g} s)", clients, result["steady"],
                  nan, nan),
        phase_row(f"  of which arriving (first {ARRIVAL:g} s)", clients, result["arrival"],
                  nan, nan),
        phase_row("saturation (no pause)", SATURATION_CLIENTS, saturated["latencies"],
                  len(saturated["latencies"]) / saturated["seconds"],
                  saturated["games_per_second"]),
    ]
    # the server process's own CPU (web app, store, feed; not its ladder workers, their
    # bots or the rating process), in % of one core: what the class costs it
    cpu = [_mean(result["cpu_alone"]), _mean(result["cpu_loaded"]), float("nan"),
           float("nan"), saturated["server_cpu"]]
    for row, share in zip(rows, cpu, strict=True):
        row["server CPU %"] = 100 * share
    loss = 1 - loaded / alone if alone else float("nan")
    p99 = _percentile(latencies, 0.99) * ms
    steady_p99 = _percentile(result["steady"], 0.99) * ms
    errors = result["errors"] + saturated["errors"]
    notes = [f"{ladder}: ladder {loaded:.2f} games/s with the class against {alone:.2f} "
             f"alone ({loss:+.1%} lost; goal at most 10%); p99 {p99:.0f} ms, {steady_p99:.0f} "
             f"ms once the class has arrived (goal at most 100 ms with 50 clients); "
             f"errors: {len(errors)}"
             + (f" (first: {errors[0]})" if errors else ""),
             f"{ladder}: with the class, p50/p99 by route: " + "; ".join(
                 f"{route} {_percentile(values, 0.5) * ms:.0f}/"
                 f"{_percentile(values, 0.99) * ms:.0f} ms"
                 for route, values in result["by_route"].items()),
             f"{ladder}: the load generator's own loop woke late by "
             f"{_percentile(result['lags'], 0.5) * ms:.1f}/"
             f"{_percentile(result['lags'], 0.99) * ms:.0f} ms (p50/p99 of a "
             f"{LAG_PROBE * ms:.0f} ms timer, with the class): that much of the latencies "
             "is this process's, not the server's"]
    return rows, notes
