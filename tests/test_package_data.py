"""The bundled bots and leagues are found through importlib.resources, as real folders."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from arena import package_data
from arena.errors import ArenaError
from arena.package_data import package_folder


def test_the_bundled_folders_are_real_folders_of_the_package() -> None:
    assert (package_folder("bots") / "random" / "bot.toml").is_file()
    assert (package_folder("leagues") / "bundled.toml").is_file()
    assert package_folder("bots").parent == Path(package_data.__file__).resolve().parent


def test_a_zipped_package_says_it_needs_an_unpacked_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "arena.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("arena/bots/README.md", "")
    monkeypatch.setattr(package_data.resources, "files",
                        lambda package: zipfile.Path(archive, "arena/"))
    with pytest.raises(ArenaError, match="unpacked install"):
        package_folder("bots")
