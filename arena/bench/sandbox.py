"""``arena bench sandbox``: what each sandbox level costs, against ``none`` in the same run.

Two figures per level, for the trivial bot of ``arena bench protocol`` (it answers from
the raw line, no JSON parsing, so the sandbox's share is as large as it can be):

* start-up: from asking for a fresh bot process until its ``ready`` has been read (the
  uid lease, the control group, bubblewrap's mounts, the interpreter's start), then the
  process is closed (not timed);
* one decision: the median over whole Ra games (every seat the trivial bot, lean
  requests), timed in the referee as ``arena bench protocol`` does.

Levels are measured interleaved, start by start and game by game, so load on a shared
machine hits every level alike.  The goal (issue 13): the untrusted level adds at most
20 ms to a start and at most 10% to a decision, compared with ``none``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from dataclasses import replace
from typing import Any

import trio

from arena.bench.protocol import TRIVIAL_LEAN_SPEC, Row, _timed_game
from arena.errors import ArenaError
from arena.runner.pool import BotPool, open_bot_pool
from arena.runner.sandbox import choose_level
from arena.settings import Limits

GAME = "ra"


async def _start_once(pool: BotPool) -> float:
    player = pool.checkout(TRIVIAL_LEAN_SPEC)
    await player.close()  # a warm one from a game: a fresh process is what is timed
    started = time.perf_counter()
    await player.handshake()
    elapsed = time.perf_counter() - started
    await player.close()
    pool.checkin(player)
    return elapsed


async def _measure(levels: list[str], num_players: int, seconds: float, seed: int
                   ) -> dict[str, dict[str, Any]]:
    from arena.plugins import load_game

    game = load_game(GAME)
    base = Limits(move_seconds=10.0)
    starts: dict[str, list[float]] = {level: [] for level in levels}
    decisions = {level: Row() for level in levels}
    async with contextlib.AsyncExitStack() as stack:
        pools = {level: await stack.enter_async_context(
                     open_bot_pool(replace(base, sandbox=level)))
                 for level in levels}
        for level in levels:  # warm: the first start probes the machine
            await _start_once(pools[level])
            await _timed_game(game, pools[level], num_players, seed, TRIVIAL_LEAN_SPEC, None)
        deadline = time.perf_counter() + seconds / 2
        while time.perf_counter() < deadline or not starts[levels[0]]:
            for level in levels:
                starts[level].append(await _start_once(pools[level]))
        deadline = time.perf_counter() + seconds / 2
        games = 0
        while time.perf_counter() < deadline or games == 0:
            for level in levels:
                await _timed_game(game, pools[level], num_players, seed + games,
                                  TRIVIAL_LEAN_SPEC, decisions[level])
            games += 1
    return {level: {"starts": starts[level], "decisions": decisions[level].samples}
            for level in levels}


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    num_players = (args.players or [4])[0]
    strongest = choose_level("auto")
    if strongest.level == "none":
        raise ArenaError(f"nothing to compare: this machine has only the level none "
                         f"({strongest.why})")
    levels = ["none", strongest.level]
    measured = trio.run(_measure, levels, num_players, args.seconds, args.seed)
    base_start = statistics.median(measured["none"]["starts"])
    base_decision = statistics.median(measured["none"]["decisions"])
    rows = []
    for level in levels:
        start = statistics.median(measured[level]["starts"])
        decision = statistics.median(measured[level]["decisions"])
        rows.append({
            "level": level,
            "starts": len(measured[level]["starts"]),
            "start ms (median)": 1e3 * start,
            "start + ms vs none": 1e3 * (start - base_start),
            "decisions": len(measured[level]["decisions"]),
            "decision µs (median)": 1e6 * decision,
            "decision vs none": f"{100 * (decision / base_decision - 1):+.1f}%",
        })
    added_start = rows[-1]["start + ms vs none"]
    added_decision = 100 * (statistics.median(measured[levels[-1]]["decisions"])
                            / base_decision - 1)
    return {
        "title": f"sandbox cost, trivial bot, Ra with {num_players} players, against level "
                 f"none in the same run ({strongest.announcement()})",
        "rows": rows,
        "notes": [
            f"goal: at most +20 ms per start (measured {added_start:+.1f} ms) and at most "
            f"+10% per decision (measured {added_decision:+.1f}%) for {levels[-1]}",
        ],
    }
