"""An arena that starts one bot (folder and level from argv), says "ready" and its pid
(in its own PID namespace) and waits to be killed with -9 (for test_hostile)."""

import dataclasses
import os
import sys
from pathlib import Path

import trio

from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from tests.runner.helpers import FAST


async def main(folder: Path, level: str) -> None:
    spec = BotSpec(name="lingering", version="1",
                   command=("{python}", str(folder / "lingering.py")),
                   folder=folder, games={"nim": (2,)}, source="test")
    # a generous handshake: on a loaded machine a slow start is not what is tested
    limits = dataclasses.replace(FAST, sandbox=level, handshake_seconds=30.0)
    async with open_bot_pool(limits) as pool:
        player = pool.checkout(spec)
        await player.handshake()
        print(f"ready {os.getpid()}", flush=True)  # its pid as it names its things
        await trio.sleep(600)


trio.run(main, Path(sys.argv[1]), sys.argv[2])
