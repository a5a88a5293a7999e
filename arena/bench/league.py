"""``arena bench league``: how fast a league of trivial subprocess bots runs here.

1. The work of one game: games played one at a time (warm processes, the whole stack:
   engine, referee, protocol, pipes, the bots; the arena waits for replies in the kernel,
   which costs no CPU): the CPU seconds the arena process and the bot processes use per
   game (the bots' from their control groups, or /proc); measured just before the league
   and just after it, and averaged, since a shared machine's speed drifts.
2. The bound: ``cores / CPU seconds per game`` games/s, what the machine gives if every
   core does nothing but that work.  (Until issue 16 the bound was ``cores / (round trip
   x decisions per game)``, which assumed a game keeps one core busy; with the reply
   busy-wait of the time it kept two, so no league could reach it.)
3. A real league (store, progress, scheduler, worker processes, pools) with concurrency
   = 2 x cores (what docs/leagues.md advises for bots that answer at once), in a
   temporary folder: games/s, CPU use, and the share of the bound it reaches (target:
   80%), all over its steady window (from the game finished at the 10th percentile to
   the last), the CPU counted with the bots in it (:class:`_LeagueCpu`).
4. The same league under sandbox "trusted" (the bots in-process, no pipe): games/s.

The bots are copies of the bundled ``first`` bot (always the first legal choice) under
different names, so tables have distinct bots.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import functools
import io
import math
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.league.config import ClusterSettings, LeagueConfig
from arena.league.run import run_league
from arena.league.store import DB_NAME, open_store
from arena.runner.botspec import BotSpec
from arena.runner.cgroups import CGROUP_ROOT, GROUP_PREFIX, _own_path, _writable_dir
from arena.runner.sandbox import probe_again
from arena.settings import Limits, usable_cores

BOTS = 5  # enough for every player count of Ra


def _trivial_bots() -> list[BotSpec]:
    from arena.plugins import discover

    first = discover().bot("first")
    return [replace(first, name=f"first-{i}") for i in range(1, BOTS + 1)]


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the CPUs this process may use (all of them unless pinned
    with taskset), all processes on them (Linux /proc/stat)."""
    try:
        mine = {f"cpu{n}" for n in os.sched_getaffinity(0)}
        lines = Path("/proc/stat").read_text().splitlines()
        rows = [[float(x) for x in line.split()[1:]] for line in lines
                if line.split(maxsplit=1)[0] in mine]
    except (AttributeError, OSError, ValueError, IndexError):
        return 0.0, 0.0
    busy = total = 0.0
    for fields in rows:
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
        busy += sum(fields) - idle
        total += sum(fields)
    return busy, total


@contextlib.contextmanager
def pinned_cpus(wanted: int | None) -> Iterator[int]:
    """Every thread of this process, and so every process it starts meanwhile, on the
    first ``wanted`` of the CPUs it may use (None: all of them); yields how many it has.
    The affinity masks are restored afterwards (Linux; elsewhere only "all" works)."""
    try:
        mask = sorted(os.sched_getaffinity(0))
    except AttributeError:  # no affinity masks here (macOS)
        if wanted is not None and wanted != usable_cores():
            raise ArenaError("--cores needs CPU affinity masks (Linux)") from None
        yield usable_cores()
        return
    if wanted is None or wanted == len(mask):
        yield len(mask)
        return
    if wanted > len(mask):
        raise ArenaError(f"--cores {wanted}: this process may use {len(mask)} CPU"
                         f"{'s' if len(mask) != 1 else ''} ({_cpu_list(mask)})")
    _set_affinity(set(mask[:wanted]))
    try:
        yield wanted
    finally:
        _set_affinity(set(mask))


def _set_affinity(cpus: set[int]) -> None:
    # (a thread's mask is its own: set every thread's, new threads and children inherit it)
    for thread in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):  # a thread that just ended
            os.sched_setaffinity(int(thread), cpus)


def _cores_in_use(cores: int) -> str:
    """For a title: "2 cores (CPUs 0-1)"."""
    try:
        cpus = _cpu_list(sorted(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity masks here (macOS)
        cpus = "all CPUs"
    return f"{cores} {'core' if cores == 1 else 'cores'} ({cpus})"


def _cpu_list(cpus: list[int]) -> str:
    if len(cpus) == 1:
        return f"CPU {cpus[0]}"
    return f"CPUs {cpus[0]}-{cpus[-1]}" if cpus == list(range(cpus[0], cpus[-1] + 1)) \
        else "CPUs " + ",".join(map(str, cpus))


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class _LeagueCpu:
    """The CPU time of everything a league runs: this process, its worker processes and
    their bots.  rusage misses the bots: a sandboxed bot is a grandchild that bubblewrap,
    not the arena, reaps, so its time never reaches RUSAGE_CHILDREN.  Where the cgroup v1
    ``cpuacct`` hierarchy is writable (root on this machine type), this process moves
    into a group of its own for the league: workers start in it, their bots' groups are
    made inside it, and a removed group's time stays counted in it.  Elsewhere rusage,
    and ``how`` says so.  (Not with cgroup v2: a group with processes in it cannot hold
    the bots' groups, so the arena's own accounting would change under measurement.)"""

    def __init__(self) -> None:
        own = _own_path("cpuacct")
        parent = CGROUP_ROOT / "cpuacct" / (own or "/").lstrip("/")
        self.group: Path | None = None
        self.home = parent
        if own is not None and _writable_dir(parent) and \
                (parent / "cpuacct.usage").exists():
            group = parent / f"{GROUP_PREFIX}{os.getpid()}-bench"  # swept if left
            try:
                group.mkdir(exist_ok=True)
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self.group = group
                # bots this process starts itself (a league of one worker plays in
                # process) must have their groups made in here too, not where this
                # process was when it first looked
                probe_again()
            except OSError:
                with contextlib.suppress(OSError):
                    group.rmdir()
        self.how = ("cgroup v1 cpuacct (this process, workers and bots)" if self.group
                    else "rusage (this process and the workers; not sandboxed bots)")
        self.started = self._now()

    def _now(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        return _cpu_seconds()

    def seconds(self) -> float:
        """CPU seconds since this was made."""
        return self._now() - self.started

    def close(self) -> None:
        if self.group is not None:
            with contextlib.suppress(OSError):
                (self.home / "cgroup.procs").write_text(str(os.getpid()))
                self.group.rmdir()
            self.group = None
            probe_again()


def _steady_window(store: Path) -> tuple[float, float, int] | None:
    """(start, end, games): from the game that finished at the 10th percentile to the
    last one, by the store's finish times (time.time()): the league at work, without
    starting its processes and without the leaderboard at its end.  None for too few
    games."""
    league = open_store(store.parent)
    try:
        times = league.finish_times()
    finally:
        league.close()
    first = len(times) // 10
    if len(times) - first < 20 or times[-1] <= times[first]:
        return None
    return times[first], times[-1], len(times) - 1 - first


def _steady_rate(store: Path) -> float | None:
    """Games per second over :func:`_steady_window`."""
    window = _steady_window(store)
    return None if window is None else window[2] / (window[1] - window[0])


class _Samples:
    """(time.time(), league CPU seconds, machine busy and total jiffies) every 20 ms, in
    a thread while the league runs: the CPU of its steady window, start-up left out."""

    EVERY = 0.02

    def __init__(self, counter: _LeagueCpu) -> None:
        self.counter = counter
        self.rows: list[tuple[float, float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _take(self) -> None:
        self.rows.append((time.time(), self.counter.seconds(), *_machine_busy()))

    def _run(self) -> None:
        while not self._stop.wait(self.EVERY):
            self._take()

    def __enter__(self) -> _Samples:
        self._take()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._take()

    def at(self, when: float) -> tuple[float, float, float]:
        """(CPU, busy, total) at ``when``, interpolated between the samples around it."""
        rows = self.rows
        times = [row[0] for row in rows]
        i = min(max(bisect.bisect_left(times, when), 1), len(rows) - 1)
        (t0, *a), (t1, *b) = rows[i - 1], rows[i]
        share = 0.0 if t1 <= t0 else min(max((when - t0) / (t1 - t0), 0.0), 1.0)
        cpu, busy, total = (x + share * (y - x) for x, y in zip(a, b, strict=True))
        return cpu, busy, total


def _bots_cpu(players: list[Any]) -> float:
    """CPU seconds the bot processes behind ``players`` have used (their whole trees
    where a control group counts them)."""
    from arena.runner.process import ProcessChannel, bot_cpu_seconds

    total = 0.0
    for player in players:
        channel = player._running()
        assert isinstance(channel, ProcessChannel)
        total += bot_cpu_seconds(channel.process.pid, channel.launch.group)
    return total


async def _work_per_game(bots: list[BotSpec], players: int, seconds: float, seed: int
                         ) -> tuple[float, float, float, float]:
    """(CPU seconds per game: arena, bots; decisions per game; wall seconds per
    decision), one game at a time, warm processes (the quick wait for replies is in the
    kernel: it costs no CPU, so the CPU is the work)."""
    from arena.plugins import discover
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game

    game = discover().game("ra")
    decisions = games = 0
    async with open_bot_pool(Limits()) as pool, \
            pool.seated(bots[:players]) as seated:
        await play_game(game, seated, seed)  # warm-up: start the processes
        bots_before, arena_before = _bots_cpu(seated), time.process_time()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or games < 3:
            record = await play_game(game, seated, seed + 1 + games)
            decisions += sum(s["decisions"] for s in record.timings["seats"])
            games += 1
        elapsed = time.perf_counter() - start
        arena = time.process_time() - arena_before
        bots_cpu = _bots_cpu(seated) - bots_before
    return arena / games, bots_cpu / games, decisions / games, elapsed / decisions


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "cluster", False):
        return run_cluster_benchmark(args)
    with pinned_cpus(getattr(args, "cores", None)) as cores:
        return _run_league_benchmark(args, cores)


def _run_league_benchmark(args: argparse.Namespace, cores: int) -> dict[str, Any]:
    players = args.players or [2, 3, 4, 5]
    if any(not 2 <= k <= BOTS for k in players):
        raise ArenaError(f"arena bench league plays 2-{BOTS} players")
    bots = _trivial_bots()
    rows = []
    for k in players:
        # the work is measured before and after the league and averaged: the speed of a
        # shared virtual machine drifts, and the bound must be the league's own moment's
        before = trio.run(_work_per_game, bots, k, args.seconds / 4, args.seed)
        bound = cores / (before[0] + before[1])
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
            # enough rounds for about args.seconds at the bound
            tables = len(_tables(k))
            rounds = max(1, round(bound * args.seconds / (tables * k)))
            config = LeagueConfig(
                path=Path(folder) / "bench.toml",
                name="bench",
                game="ra",
                players=(k,),
                roster=tuple(b.name for b in bots),
                rounds=rounds,
                seed=args.seed,
                concurrency=2 * cores,  # for bots that answer at once (docs/leagues.md)
                results_dir=Path(folder) / "results",
                limits=Limits(move_seconds=5.0),
            )
            counter, start = _LeagueCpu(), time.perf_counter()
            try:
                with _Samples(counter) as samples:
                    code = run_league(config, quiet=True, bots=bots, out=io.StringIO())
                elapsed = time.perf_counter() - start
            finally:
                counter.close()
            cpu_how = counter.how
            if code != 0:
                raise ArenaError("the benchmark league was interrupted")
            window = _steady_window(config.results_dir / DB_NAME)
        after = trio.run(_work_per_game, bots, k, args.seconds / 4, args.seed)
        arena_cpu, bots_cpu, per_game, round_trip = (
            (x + y) / 2 for x, y in zip(before, after, strict=True))
        bound = cores / (arena_cpu + bots_cpu)
        drift = (after[0] + after[1]) / (before[0] + before[1]) - 1
        games = rounds * tables * k
        whole = games / elapsed
        if window is None:  # too few games: the whole run
            window = (samples.rows[0][0], samples.rows[-1][0], games)
        begin, end, counted = window
        rate = counted / (end - begin)
        (cpu0, busy0, total0), (cpu1, busy1, total1) = samples.at(begin), samples.at(end)
        cpu = cpu1 - cpu0
        machine = (busy1 - busy0) / max(total1 - total0, 1.0)
        ours = cpu / ((end - begin) * cores)
        others = max(0.0, machine - ours)
        rows.append(
            {
                "players": k,
                "games": games,
                "decisions/game": per_game,
                "round trip µs": round_trip * 1e6,
                "work ms/game (arena+bots)": f"{1000 * arena_cpu:.1f}+{1000 * bots_cpu:.1f}",
                "work drift %": 100 * drift,
                "bound games/s": bound,
                "games/s": rate,
                "% of bound": 100 * rate / bound,
                "games/s, whole run": whole,
                "CPU ms/game": 1000 * cpu / counted,
                "CPU use %": 100 * ours,
                "others' CPU %": 100 * others,
                "% of bound, free CPU": 100 * rate / bound / max(1.0 - others, 0.05),
            }
        )
        rows[-1].update(_trusted_columns(bots, k, rounds, args.seed, cores, rate))
    return {
        "title": f"League of trivial subprocess bots (Ra), {_cores_in_use(cores)}, "
        f"concurrency {2 * cores}",
        "benchmark": "league",
        "rows": rows,
        "notes": [
            "work: CPU per game of the arena process and the bot processes, measured in "
            "this run with one game at a time, warm processes, the arena waiting for "
            "replies in the kernel, just before the league and just after it (the mean); "
            "work drift: after against before (how much the machine's speed moved: a "
            "league figure is no steadier than that); round trip: the wall time per "
            "decision meanwhile",
            f"bound = cores / work per game ({cores} cores): the games/s if every core did "
            "nothing but that work; the league adds its own (store, progress, scheduling, "
            "worker processes) within it; target: >= 80% of the bound",
            "games/s: the league at work, from the game finished at the 10th percentile to "
            "the last (the store's finish times); games/s, whole run: from the command's "
            "start to its end (starting worker and bot processes, the final leaderboard)",
            "CPU use: arena + bot processes, as a share of all cores over the same window "
            "as games/s; CPU ms/game: the same per game (cores x 1000 / it = games/s "
            f"with every core); counted by {cpu_how}, sampled every 20 ms",
            "others' CPU: the rest of the machine's CPU use in that window (a shared machine "
            "slows the league down)",
            "% of bound, free CPU: % of bound divided by the share of the machine other "
            "processes left free (equal to % of bound on an idle machine)",
            TRUSTED_NOTE,
        ],
    }


# ---- sandbox "trusted" (issue 16): the same league with the bots in-process
TRUSTED_NOTE = ("trusted games/s: the same league (same bots, rounds, seed, concurrency) "
                "under sandbox \"trusted\": the first bot's entry point played inside the "
                "workers, no bot process, no pipe; x process: trusted games/s / games/s")


def _trusted_columns(bots: list[BotSpec], k: int, rounds: int, seed: int, cores: int,
                     process_rate: float) -> dict[str, float]:
    from arena.settings import TRUSTED

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        config = LeagueConfig(
            path=Path(folder) / "bench.toml", name="bench", game="ra", players=(k,),
            roster=tuple(b.name for b in bots), rounds=rounds, seed=seed,
            concurrency=2 * cores, results_dir=Path(folder) / "results",
            limits=Limits(move_seconds=5.0, sandbox=TRUSTED),
        )
        start = time.perf_counter()
        code = run_league(config, quiet=True, bots=bots, out=io.StringIO(),
                          err=io.StringIO())  # (its warning: these are the arena's own bots)
        elapsed = time.perf_counter() - start
        if code != 0:
            raise ArenaError("the benchmark league was interrupted")
        steady = _steady_rate(config.results_dir / DB_NAME)
    rate = steady if steady is not None else rounds * len(_tables(k)) * k / elapsed
    return {"trusted games/s": rate, "x process": rate / process_rate}


# ---- on Dask (issue 14; issue 34: sized by games, not by a one-round probe; interleaved)
# --cluster: games per league = this x --seconds (5 s: 1,000 games, 5-20 s of a league
# here, where start and end weigh little)
GAMES_PER_SECOND_ASKED = 200
THINK_SECONDS = 0.05  # the thinking bots' time per decision
THINK_CONCURRENCY_PER_CORE = 8  # games in flight for bots that think (docs/leagues.md)
# cluster leagues per row of trivial bots (--repetitions), each between two local ones:
# a shared machine's speed drifts by tens of percent within minutes, so one local league
# before and one after (the first design) compared the cluster with a moving baseline
CLUSTER_PAIRS = 7
# CPUs of the cluster benchmark by default (--cores): issue 34's two workers on the same
# two cores as the local backend, whatever the machine has
CLUSTER_CORES = 2
# player counts of the cluster benchmark by default (--players): issue 34's
CLUSTER_PLAYERS = (2, 3, 4)
THINK_PAIRS = 1  # bots that sleep are not slowed by the machine's drift (and take minutes)


def run_cluster_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """``arena bench league --cluster``: the same league on the local backend and on a
    Dask cluster of one worker process and of one per core on loopback (a ``dask
    scheduler`` process and ``dask worker`` processes, as a user starts them), in one
    run; then the same with bots that think :data:`THINK_SECONDS` per decision.  All of
    it on ``--cores`` CPUs (default :data:`CLUSTER_CORES`, pinned: the local backend and
    the cluster on the same cores, however many the machine has).  The larger cluster's
    leagues alternate with local ones (local, cluster, local, ...): each
    cluster league is compared with the mean of the local leagues just before and just
    after it, and the row gives the median of those ratios."""
    wanted = getattr(args, "cores", None) or min(CLUSTER_CORES, usable_cores())
    with pinned_cpus(wanted) as cores:
        return _run_cluster_benchmark(args, cores)


def _run_cluster_benchmark(args: argparse.Namespace, cores: int) -> dict[str, Any]:
    players = args.players or list(CLUSTER_PLAYERS)
    if any(not 2 <= k <= BOTS for k in players):
        raise ArenaError(f"arena bench league plays 2-{BOTS} players")
    bots = _trivial_bots()
    wanted = args.games or max(1, round(GAMES_PER_SECOND_ASKED * args.seconds))
    pairs = getattr(args, "repetitions", None) or CLUSTER_PAIRS
    rows = []
    with _DaskProcesses() as dask, dask.lost_ends_the_run():
        for k in players:
            per_round = len(_tables(k)) * k
            rounds = max(2, math.ceil(wanted / per_round))
            concurrency = 2 * cores  # for bots that answer at once (docs/leagues.md)
            row: dict[str, Any] = {"players": k, "bots": "trivial",
                                   "games": rounds * per_round}
            row.update(_compare(dask, bots, k, rounds, args.seed, concurrency,
                                workers=tuple(sorted({1, cores})), pairs=pairs,
                                what=f"{k} players, {row['games']} games"))
            rows.append(row)
        k = players[0]
        think_folder = tempfile.TemporaryDirectory(prefix="arena-bench-think-")
        thinking = _thinking_bots(bots, Path(think_folder.name))
        concurrency = THINK_CONCURRENCY_PER_CORE * cores
        per_round = len(_tables(k)) * k
        # a Ra game of thinking bots takes seconds: fewer games (about a minute each)
        think_games = args.games or max(2 * concurrency,
                                        round(GAMES_PER_SECOND_ASKED * args.seconds / 10))
        rounds = max(1, math.ceil(think_games / per_round))
        row = {"players": k, "bots": f"think {THINK_SECONDS:g} s", "games": rounds * per_round}
        with think_folder:
            row.update(_compare(dask, thinking, k, rounds, args.seed, concurrency,
                                workers=(cores,), pairs=THINK_PAIRS,
                                what=f"{k} players, {row['games']} games of bots that think"))
        rows.append(row)
    return {
        "title": "League of subprocess bots (Ra) on Dask vs the local backend, "
                 + _cores_in_use(cores),
        "benchmark": "league-cluster",
        "rows": rows,
        "notes": [
            "baseline: the local backend (worker processes = cores) on the same league, in "
            "the same run, interleaved: local, cluster, local, cluster, ..., local "
            f"({pairs} cluster leagues of trivial bots per row, {THINK_PAIRS} of thinking "
            "bots); each cluster league against the mean of the local leagues just before "
            f"and just after it; cluster {cores}w / local %: the median of those ratios, each "
            "pair %: every ratio; local games/s: the median local league; local spread %: "
            "(fastest - slowest local league) / median (how much the machine's speed moved "
            "during the row: a single ratio is no steadier than that)",
            "games/s: over the league's steady window (from the game that finished at the "
            "10th percentile to the last, by the store's finish times: on the cluster when "
            "each game ended on its worker, not when its chunk came back), every league of "
            "'games' games; whole run: from start to end (starting processes included), "
            "the median",
            "cores: this process and every process it starts (the local backend's workers, "
            "the Dask processes, the bots) on the CPUs of the title: --cores, default "
            f"{CLUSTER_CORES} (the local backend's workers and concurrency follow the cores)",
            "cluster: a `dask scheduler` process and `dask worker --nthreads 1 --no-nanny` "
            "processes on loopback, one per core; the coordinator (store, progress) is this "
            "process; one warm-up league first on each cluster, whose bots stay warm on the "
            "workers for the measured leagues (as for a long-lived cluster's next league of "
            "the same bots), where the local backend starts its worker processes and bots in every "
            "league: the steady window leaves both start-ups out, the whole run has the "
            "local one in; cluster 1w: one league on one worker (no baseline)",
            f"trivial: copies of the bundled `first` bot, concurrency {2 * cores}; think: "
            f"the same bot waiting {THINK_SECONDS:g} s before each answer, concurrency "
            f"{THINK_CONCURRENCY_PER_CORE * cores}",
            f"games per league: --games, else {GAMES_PER_SECOND_ASKED} x --seconds "
            "(trivial bots) and a tenth of that, at least twice the concurrency (thinking "
            "bots), whole rounds; cluster leagues per row: --repetitions (default "
            f"{CLUSTER_PAIRS})",
            "load: the 1-minute load average at the row's start and end (other processes "
            "on the machine slow every figure; only same-run ratios compare)",
            f"goal (issue 34): cluster with {cores} workers >= 90% of local with trivial "
            "bots, >= 97% with thinking bots",
        ],
    }


def _compare(dask: _DaskProcesses, bots: list[BotSpec], k: int, rounds: int, seed: int,
             concurrency: int, workers: tuple[int, ...], pairs: int, what: str
             ) -> dict[str, Any]:
    """The columns of one row: a league on each smaller cluster, then local and
    ``pairs`` leagues on the largest cluster in turn.  Each league's rate goes to stderr
    as it ends (``what``: the row, for those lines)."""
    load_before = os.getloadavg()[0]
    row: dict[str, Any] = {}
    most = max(workers)

    def timed(league: str, cluster: ClusterSettings | None) -> tuple[float, float]:
        rate, whole = _timed_league(bots, k, rounds, seed, concurrency, cluster)
        print(f"bench {time.strftime('%H:%M:%S')} {what}, {league}: {rate:.1f} games/s",
              file=sys.stderr, flush=True)
        return rate, whole

    for n in sorted(workers):  # the largest last: it stays up for the pairs
        cluster = ClusterSettings(dask.with_workers(n))
        # warm-up: the plugin, the bot packs and the bots' first start
        _timed_league(bots, k, 1, seed + 1, concurrency, cluster)
        if n != most:
            rate, whole = timed(f"cluster {n}w", cluster)
            row[f"cluster {n}w games/s"] = rate
            row[f"cluster {n}w whole run"] = whole
    local = [timed("local", None)]
    remote: list[tuple[float, float]] = []
    for pair in range(1, pairs + 1):
        remote.append(timed(f"cluster {most}w ({pair} of {pairs})", cluster))
        local.append(timed("local", None))
    ratios = [rate / ((local[i][0] + local[i + 1][0]) / 2)
              for i, (rate, _) in enumerate(remote)]
    local_rates = [rate for rate, _ in local]
    middle = statistics.median(local_rates)
    return {
        "local games/s": middle,
        "local whole run": statistics.median(whole for _, whole in local),
        "local spread %": 100 * (max(local_rates) - min(local_rates)) / middle,
        **row,
        f"cluster {most}w games/s": statistics.median(rate for rate, _ in remote),
        f"cluster {most}w whole run": statistics.median(whole for _, whole in remote),
        f"cluster {most}w / local %": 100 * statistics.median(ratios),
        "each pair %": " ".join(f"{100 * ratio:.1f}" for ratio in ratios),
        "load": f"{load_before:.1f}-{os.getloadavg()[0]:.1f}",
    }


def _thinking_bots(bots: list[BotSpec], folder: Path) -> list[BotSpec]:
    """Copies of ``bots`` that wait :data:`THINK_SECONDS` before each answer, in
    ``folder`` (sent to the workers by content, as any bot)."""
    folder.chmod(0o755)  # bots run under uids of their own
    (folder / "bot.py").write_text(
        "import time\n\nfrom arena.sdk import run\n\n\n"
        "def choose(observation, legal):\n"
        f"    time.sleep({THINK_SECONDS!r})\n    return 0\n\n\n"
        "if __name__ == \"__main__\":\n"
        "    run(choose, name=\"think\", version=\"1.0.0\", observation=False)\n")
    (folder / "bot.py").chmod(0o644)
    return [replace(b, folder=folder, content_hash=None, entry_point=None,
                    source=f"folder {folder}") for b in bots]


class _DaskProcesses:
    """A ``dask scheduler`` and ``dask worker`` processes on loopback, watched: one that
    ends unbidden (killed, crashed) ends the benchmark with one line
    (:meth:`lost_ends_the_run`), since its figures would be wrong, rather than leaving
    it waiting for a worker that is gone."""

    WATCH_SECONDS = 0.5

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.names: dict[int, str] = {}  # pid -> what it is, for the line
        self.stopping: set[int] = set()  # pids being stopped on purpose
        self.lost: str | None = None
        self.address = ""
        self.folder = tempfile.TemporaryDirectory(prefix="arena-bench-dask-")
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True,
                                         name="arena-bench-dask-watch")

    def _watch(self) -> None:
        """In a thread: a process that ends unbidden interrupts the main thread (a
        SIGINT to it: a league stops as at Ctrl-C, a wait raises KeyboardInterrupt)."""
        while not self._done.wait(self.WATCH_SECONDS):
            if self._find_lost():
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
                return

    def _find_lost(self) -> bool:
        """Whether one of the processes ended unbidden (``lost`` then says which)."""
        for process in [*self.processes, *self.workers]:
            code = process.poll()
            if code is None or process.pid in self.stopping:
                continue
            how = (f"killed by {signal.Signals(-code).name}" if code < 0
                   else f"exit status {code}")
            self.lost = self.lost or (
                f"bench league --cluster: the benchmark's Dask "
                f"{self.names.get(process.pid, 'process')} (pid {process.pid}) ended during "
                f"the run ({how}); stopped, since its figures would be wrong")
            return True
        return False

    @contextlib.contextmanager
    def lost_ends_the_run(self) -> Iterator[None]:
        """The block, ended with the lost process's line if one was lost (whatever the
        loss made fail first: a league, Dask, a wait)."""
        try:
            yield
        except (Exception, KeyboardInterrupt):
            if self.lost is not None or self._find_lost():
                raise ArenaError(str(self.lost)) from None
            raise

    def __enter__(self) -> _DaskProcesses:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        self.processes.append(self._start(
            "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
            "--no-dashboard", "--no-show"))
        self.names[self.processes[-1].pid] = "scheduler"
        self._watcher.start()
        return self

    def _start(self, module: str, *argv: str) -> subprocess.Popen[bytes]:
        # its own session (Ctrl-C reaches the bench only), and killed with the bench even
        # when the bench is killed: a stray worker would keep its bots and their uid
        # leases (a Dask worker's own SIGTERM handling waits for its gone scheduler; its
        # bots die with it, bubblewrap's --die-with-parent)
        from arena.league.workers import die_with_parent

        return subprocess.Popen([sys.executable, "-m", module, *argv],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, cwd=self.folder.name,
                                preexec_fn=functools.partial(die_with_parent, signal.SIGKILL))

    def with_workers(self, n: int) -> str:
        """The scheduler's address, with exactly ``n`` workers connected."""
        from distributed import Client

        while len(self.workers) > n:
            self._stop(self.workers.pop())
        while len(self.workers) < n:
            name = f"w{len(self.workers)}"
            self.workers.append(self._start(
                "distributed.cli.dask_worker", self.address, "--nthreads", "1",
                "--no-nanny", "--no-dashboard", "--host", "127.0.0.1", "--name", name,
                "--local-directory", str(Path(self.folder.name) / name)))
            self.names[self.workers[-1].pid] = f"worker {name}"
        with Client(self.address, timeout=60, set_as_default=False) as client:
            deadline = time.monotonic() + 60
            while len(client.scheduler_info(n_workers=-1)["workers"]) != n:
                if time.monotonic() > deadline:
                    raise ArenaError(f"the benchmark's Dask cluster has no {n} workers")
                time.sleep(0.1)
        return self.address

    def _stop(self, process: subprocess.Popen[bytes]) -> None:
        self.stopping.add(process.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._watcher.is_alive():
            self._watcher.join()
        for process in reversed(self.workers + self.processes):
            self._stop(process)
        self.folder.cleanup()


def _timed_league(bots: list[BotSpec], k: int, rounds: int, seed: int, concurrency: int,
                  cluster: Any) -> tuple[float, float]:
    """Games per second of one league in a temporary folder: over its steady window
    (:func:`_steady_rate`; the whole run when it has too few games) and over the whole
    run."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        config = LeagueConfig(
            path=Path(folder) / "bench.toml", name="bench", game="ra", players=(k,),
            roster=tuple(b.name for b in bots), rounds=rounds, seed=seed,
            concurrency=concurrency, results_dir=Path(folder) / "results",
            limits=Limits(move_seconds=5.0),
        )
        start = time.perf_counter()
        code = run_league(config, quiet=True, bots=bots, out=io.StringIO(),
                          err=io.StringIO(), cluster=cluster)
        elapsed = time.perf_counter() - start
        if code != 0:
            raise ArenaError("the benchmark league was interrupted")
        whole = rounds * len(_tables(k)) * k / elapsed
        steady = _steady_rate(config.results_dir / DB_NAME)
    return (whole if steady is None else steady), whole


def _tables(k: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.combinations(range(BOTS), k))
