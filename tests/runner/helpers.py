"""Shared helpers for the runner tests: zoo bots, fast limits, process checks."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from arena.runner.botspec import BotSpec
from arena.settings import Limits

ZOO = Path(__file__).parent / "zoo"
BOTS = Path(__file__).resolve().parents[2] / "arena" / "bots"

# short limits keep the zoo fast; the handshake is generous because Python start-up
# on a loaded two-core CI machine can take a while
FAST = Limits(handshake_seconds=5.0, move_seconds=0.3, ping_seconds=0.5,
              quit_grace_seconds=0.2)

SANDBOXES = [
    "none",
    pytest.param("bwrap", marks=pytest.mark.skipif(
        shutil.which("bwrap") is None, reason="bubblewrap is not installed")),
]


def zoo_spec(script: str) -> BotSpec:
    return BotSpec(name=script, version="1", command=("{python}", f"{script}.py"),
                   folder=ZOO, games={"nim": (2, 3, 4)}, source="test")


def bundled_spec(folder: str, command: tuple[str, ...]) -> BotSpec:
    return BotSpec(name=folder, version="1.0.0", command=command, folder=BOTS / folder,
                   games={"nim": (2, 3, 4)}, source="test",
                   resources={"memory_mb": 2048})


def live_group_members(pgid: int) -> list[int]:
    """Processes of process group ``pgid`` that are not zombies."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # the command name may hold spaces: fields start after the last ")"
        fields = stat[stat.rindex(")") + 2:].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            members.append(int(entry))
    return members


def assert_no_survivors(pids: list[int], patience: float = 2.0) -> None:
    """Every process of these groups is gone (SIGKILL is delivered at once, but a dying
    process can take a moment to leave, so allow ``patience`` seconds)."""
    deadline = time.monotonic() + patience
    for pid in pids:
        while live_group_members(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live_group_members(pid) == [], f"process group {pid} still has members"


def the_failure(record: dict[str, Any]) -> dict[str, Any]:
    assert len(record["failures"]) == 1, record["failures"]
    failure: dict[str, Any] = record["failures"][0]
    return failure
