"""Folders of package data (the bundled bots and leagues), found with importlib.resources.

Bots run as processes with their folder as working directory, so these must be real
folders: pip installs a wheel unpacked, and a checkout is one already.  A package imported
from a zip archive has no such folders, and says so instead of listing nothing.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from arena.errors import ArenaError


def package_folder(name: str) -> Path:
    """The folder ``arena/NAME`` of the installed package, on the file system."""
    folder = resources.files("arena").joinpath(name)
    if not isinstance(folder, Path):
        raise ArenaError(f"Ra Arena is installed as an archive ({folder}); its bundled "
                         "bots and leagues need an unpacked install: pip install ra-arena")
    return folder.resolve()
