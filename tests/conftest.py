from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def league_file(tmp_path: Path):
    """Write a league file in tmp_path; extra lines are appended verbatim."""

    def write(*lines: str, name: str = "test", players: str = "3") -> Path:
        path = tmp_path / "league.toml"
        text = [f'name = "{name}"', 'game = "ra"', f"players = {players}",
                'results_dir = "out"', *lines]
        path.write_text("\n".join(text) + "\n")
        return path

    return write
