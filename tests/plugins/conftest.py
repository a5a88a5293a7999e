"""Helpers for the plugin tests: toy games, bot folders and fake installed distributions."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from arena.games.base import Game, GameState
from arena.plugins.manager import loaded_plugins


class ToyGame(Game):
    """A game known only by its name and player range: enough for discovery and manifests
    (nothing here plays it)."""

    def __init__(self, name: str = "toy", min_players: int = 2, max_players: int = 4) -> None:
        self.name = name
        self.title = name.title()
        self.min_players = min_players
        self.max_players = max_players

    def new_game(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> GameState:
        raise NotImplementedError("ToyGame is never played")

    def state_from_json(self, data: Mapping[str, Any]) -> GameState:
        raise NotImplementedError("ToyGame is never played")

    def replay(self, record: Mapping[str, Any]) -> GameState:
        raise NotImplementedError("ToyGame is never played")


TOY_GAMES: dict[str, Game] = {"toy": ToyGame(), "duel": ToyGame("duel", 2, 2)}

GOOD_MANIFEST = """\
name = "{name}"
version = "1.0.0"
authors = ["Test Author"]
description = "A test bot."
command = ["{{python}}", "bot.py"]
[games]
toy = [2, 3, 4]
[resources]
memory_mb = 256
"""


def write_bot(folder: Path, name: str = "tester", manifest: str | None = None) -> Path:
    """A bot folder with a bot.toml (the good one unless ``manifest`` is given) and bot.py."""
    folder.mkdir(parents=True, exist_ok=True)
    text = GOOD_MANIFEST.format(name=name) if manifest is None else manifest
    (folder / "bot.toml").write_text(text)
    (folder / "bot.py").write_text("print('I am a bot')\n")
    return folder


@pytest.fixture
def fake_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Path]]:
    """Install a distribution on sys.path for this test only: a dist-info folder with
    ``entry_points`` in the group "arena" plus the given modules (name -> source).  The
    plugin manager, built once per process, is built again after each install and after
    the test, as if the process had started with (then without) the distribution."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    modules: list[str] = []

    def install(name: str, entry_points: dict[str, str], sources: dict[str, str]) -> Path:
        dist_info = site / f"{name.replace('-', '_')}-1.0.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
        )
        lines = ["[arena]", *(f"{key} = {value}" for key, value in entry_points.items())]
        (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, source in sources.items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            modules.append(module)
        loaded_plugins.cache_clear()
        return site

    yield install
    for module in modules:
        sys.modules.pop(module, None)
    loaded_plugins.cache_clear()
