"""The seven languages' bots, as ``arena new-bot`` made them, in one league: every game
played to the end with no failure and no incident."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.store import open_store
from arena.workspace import LANGUAGES
from tests.bot_templates.conftest import bot_name, require_toolchain

pytestmark = pytest.mark.slow


def test_a_league_of_every_language_plays_without_a_failure(workspace: Path,
                                                            arena_cache: Path) -> None:
    for language in LANGUAGES:
        require_toolchain(language)
    names = [bot_name(language) for language in LANGUAGES]
    league = workspace / "languages.toml"
    league.write_text(f"""name = "languages"
game = "ra"
players = [3]
roster = {json.dumps(names)}
max_games = 21  # a balanced sample: each bot 9 games, 3 in each seat
seed = 1
bot_paths = ["bots"]
""")
    assert main(["run", str(league), "--quiet"]) == 0
    records = list(open_store(workspace / "results" / "languages").games())
    assert len(records) == 21
    assert {player["name"] for record in records for player in record.players} == set(names)
    troubles = [(record.game_id, record.failures, record.incidents) for record in records
                if record.failures or record.incidents]
    assert troubles == []
