"""A league's games at a lower priority (``LeagueConfig.nice``): worker processes whose
bots inherit their niceness, so that the process that started them keeps its own."""

from __future__ import annotations

import os
from pathlib import Path

import trio

from arena.league.backends import LocalBackend, WorkerBackend
from arena.league.config import LeagueConfig
from arena.league.engine import _real_bots
from arena.league.play import GameSettings
from arena.league.schedule import table_games
from arena.league.workers import open_workers
from arena.plugins import discover
from arena.settings import Limits


def _descendants(root: int) -> list[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_workers_and_their_bots_run_at_the_niceness_asked_and_this_process_keeps_its_own(
) -> None:
    registry = discover()
    roster = [registry.bot("random"), registry.bot("first")]
    settings = GameSettings("ra", limits=Limits(sandbox="none"))
    own = os.getpriority(os.PRIO_PROCESS, 0)
    seen: dict[str, list[int]] = {}

    async def main() -> None:
        async with open_workers(settings, roster, 1, 1, nice=5) as play:
            game = table_games("ra", ["random", "first"], seed=3)[0]
            record = await play(game)
            assert record.game_id == game.game_id
            # the worker's warm pool keeps the bots alive until the workers stop
            for pid in _descendants(os.getpid()):
                command = _command(pid)
                kind = ("worker" if b"arena.league.workers" in command
                        else "bot" if b"bot.py" in command else None)
                if kind is not None:
                    seen.setdefault(kind, []).append(os.getpriority(os.PRIO_PROCESS, pid))

    trio.run(main)
    expected = min(19, own + 5)
    assert seen["worker"] == [expected]
    assert len(seen["bot"]) == 2 and set(seen["bot"]) == {expected}
    assert os.getpriority(os.PRIO_PROCESS, 0) == own


def test_a_niced_league_plays_in_worker_processes_even_with_one_worker() -> None:
    config = LeagueConfig(path=Path("league.toml"), name="x", game="ra", players=(2,),
                          roster=None, concurrency=1, workers=1)
    roster = [discover().bot("random")]
    assert isinstance(_real_bots(config, roster, 1, None, ""), LocalBackend)
    niced = _real_bots(LeagueConfig(**{**vars(config), "nice": 7}), roster, 1, None, "")
    assert isinstance(niced, WorkerBackend) and niced.nice == 7 and niced.workers == 1
