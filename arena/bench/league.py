"""``arena bench league``: how fast a league of trivial subprocess bots runs here.

1. The per-decision round trip: games played one at a time (warm processes, the whole
   stack: engine, referee, protocol, pipes, the bot) -> seconds per decision.  One game at
   a time keeps about one core busy (the arena and the bot take turns), so
2. the bound for a league is ``cores / (round trip x decisions per game)`` games/s.
3. A real league (store, progress, scheduler, pools) with concurrency = 2 x cores, in a
   temporary folder: games/s, CPU use, and the share of the bound it reaches (target 70%).
4. The same league under sandbox "trusted" (the bots in-process, no pipe): games/s.

The bots are copies of the bundled ``first`` bot (always the first legal choice) under
different names, so tables have distinct bots.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.league.config import LeagueConfig
from arena.league.run import run_league
from arena.runner.botspec import BotSpec
from arena.settings import Limits

BOTS = 4


def _trivial_bots() -> list[BotSpec]:
    from arena.plugins import discover

    first = discover().bot("first")
    return [replace(first, name=f"first-{i}") for i in range(1, BOTS + 1)]


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, all processes (Linux /proc/stat)."""
    try:
        first_line = Path("/proc/stat").read_text().splitlines()[0]
        fields = [float(x) for x in first_line.split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _round_trip(bots: list[BotSpec], players: int, seconds: float, seed: int
                      ) -> tuple[float, float]:
    """(seconds per decision, decisions per game), one game at a time, warm processes."""
    from arena.plugins import discover
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game
    from arena.settings import Limits

    game = discover().game("ra")
    decisions = games = 0
    async with open_bot_pool(Limits()) as pool:
        async with pool.seated(bots[:players]) as seated:  # warm-up: start the processes
            await play_game(game, seated, seed)
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or games < 3:
            async with pool.seated(bots[:players]) as seated:
                record = await play_game(game, seated, seed + games)
            decisions += sum(s["decisions"] for s in record.timings["seats"])
            games += 1
        elapsed = time.perf_counter() - start
    return elapsed / decisions, decisions / games


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "cluster", False):
        return run_cluster_benchmark(args)
    players = args.players or [3]
    if any(not 2 <= k <= BOTS for k in players):
        raise ArenaError(f"arena bench league plays 2-{BOTS} players")
    cores = os.cpu_count() or 1
    bots = _trivial_bots()
    rows = []
    for k in players:
        round_trip, per_game = trio.run(_round_trip, bots, k, args.seconds / 2, args.seed)
        bound = cores / (round_trip * per_game)
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
                concurrency=2 * cores,
                results_dir=Path(folder) / "results",
                limits=Limits(move_seconds=5.0),
            )
            cpu_before, start = _cpu_seconds(), time.perf_counter()
            busy_before, total_before = _machine_busy()
            code = run_league(config, quiet=True, bots=bots, out=io.StringIO())
            elapsed = time.perf_counter() - start
            cpu = _cpu_seconds() - cpu_before
            busy_after, total_after = _machine_busy()
            machine = (busy_after - busy_before) / max(total_after - total_before, 1.0)
            if code != 0:
                raise ArenaError("the benchmark league was interrupted")
        games = rounds * tables * k
        rate = games / elapsed
        ours = cpu / (elapsed * cores)
        others = max(0.0, machine - ours)
        rows.append(
            {
                "players": k,
                "games": games,
                "decisions/game": per_game,
                "round trip µs": round_trip * 1e6,
                "bound games/s": bound,
                "games/s": rate,
                "% of bound": 100 * rate / bound,
                "CPU ms/game": 1000 * cpu / games,
                "CPU use %": 100 * ours,
                "others' CPU %": 100 * others,
                "% of bound, free CPU": 100 * rate / bound / max(1.0 - others, 0.05),
            }
        )
        rows[-1].update(_trusted_columns(bots, k, rounds, args.seed, cores, rate))
    return {
        "title": f"League of trivial subprocess bots (Ra), {cores} cores, "
        f"concurrency {2 * cores}",
        "benchmark": "league",
        "rows": rows,
        "notes": [
            "round trip: one game at a time through the whole stack, per decision",
            "bound = cores / (round trip x decisions per game); target: >= 70% of it",
            "CPU use: arena + bot processes, as a share of all cores over the league; "
            "CPU ms/game: the same per game (cores x 1000 / it = games/s with every core)",
            "others' CPU: the rest of the machine's CPU use meanwhile (a shared machine "
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
    rate = rounds * len(_tables(k)) * k / elapsed
    return {"trusted games/s": rate, "x process": rate / process_rate}


def run_cluster_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """``arena bench league --cluster``: the same league on the local backend and on a
    Dask cluster of one and of two worker processes on loopback, in one run."""
    from distributed import LocalCluster

    from arena.league.cluster import ClusterSettings

    players = args.players or [3]
    cores = os.cpu_count() or 1
    bots = _trivial_bots()
    rows = []
    for k in players:
        tables = len(_tables(k))
        # sized from a first local measurement so every variant plays about args.seconds
        probe = _timed_league(bots, k, 1, args.seed, cores, None)
        rounds = max(2, round(probe * args.seconds / (tables * k)))
        games = rounds * tables * k
        local = _timed_league(bots, k, rounds, args.seed, cores, None)
        row: dict[str, Any] = {"players": k, "games": games, "local games/s": local}
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              host="127.0.0.1", dashboard_address=None) as cluster:
                address = cluster.scheduler_address
                # warm-up: the plugin, the bot packs and the bots' first start
                _timed_league(bots, k, 1, args.seed + 1, cores, ClusterSettings(address))
                rate = _timed_league(bots, k, rounds, args.seed, cores,
                                     ClusterSettings(address))
            row[f"cluster {workers}w games/s"] = rate
        row["cluster 2w / local %"] = 100 * row["cluster 2w games/s"] / local
        rows.append(row)
    return {
        "title": f"League of trivial subprocess bots (Ra) on Dask vs the local backend, "
        f"{cores} cores",
        "benchmark": "league-cluster",
        "rows": rows,
        "notes": [
            "baseline: the local backend (worker processes = cores) on the same league, "
            "same run",
            "cluster: LocalCluster worker processes on loopback, 1 thread each; the "
            "coordinator (store, progress) is this process; one warm-up league first",
            f"goal (issue 14): cluster with {cores} workers >= 95% of local",
        ],
    }


def _timed_league(bots: list[BotSpec], k: int, rounds: int, seed: int, cores: int,
                  cluster: Any) -> float:
    """Games per second of one league in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        config = LeagueConfig(
            path=Path(folder) / "bench.toml", name="bench", game="ra", players=(k,),
            roster=tuple(b.name for b in bots), rounds=rounds, seed=seed,
            concurrency=2 * cores, results_dir=Path(folder) / "results",
            limits=Limits(move_seconds=5.0),
        )
        start = time.perf_counter()
        code = run_league(config, quiet=True, bots=bots, out=io.StringIO(),
                          err=io.StringIO(), cluster=cluster)
        elapsed = time.perf_counter() - start
        if code != 0:
            raise ArenaError("the benchmark league was interrupted")
    return rounds * len(_tables(k)) * k / elapsed


def _tables(k: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.combinations(range(BOTS), k))
