"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def enterable(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``folder``, a temporary folder of the tests, enterable by other users when the tests
    run as root: bots never run as root (they get a uid of their own), so a bot folder the
    tests make must be readable by others, as a real bot folder must be
    (docs/security.md)."""
    if os.geteuid() == 0:
        base = tmp_path_factory.getbasetemp().parent
        for parent in [folder, *folder.parents]:
            parent.chmod(0o755)
            if parent == base:
                break
    return folder


@pytest.fixture
def tmp_path(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path``, enterable by other users when the tests run as root."""
    return enterable(tmp_path, tmp_path_factory)


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


@pytest.fixture(scope="session")
def compiled_ra() -> type:
    """The compiled Ra core's state class (arena/games/ra/compiled.py).  Where the core is
    not built the test is skipped, saying how to build it; under CI=true (CI has a C
    compiler) it fails instead."""
    from arena.games.ra import engines

    if not engines.compiled_available():
        message = (f"the compiled Ra core is not built ({engines.why_not_compiled()}): "
                   "install a C compiler, then pip install -e . builds it")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return engines.compiled_class()
