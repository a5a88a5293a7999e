"""The bundled bots and leagues are found through importlib.resources, as real folders;
the leagues are the files of configs/ at the top of the checkout, which the package
carries as arena/leagues (a link to configs/, followed when the wheel is built)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arena import package_data
from arena.cli import main
from arena.errors import ArenaError
from arena.league.config import DEFAULT_LEAGUE, bundled_leagues, find_league, load_league
from arena.package_data import package_folder
from arena.workspace import LANGUAGES, template_files

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
LEAGUE_FILES = ["dice-ladder.toml", "dice.toml", "ladder.toml", "league.toml"]


def test_the_bundled_folders_are_real_folders_of_the_package() -> None:
    assert (package_folder("bots") / "random" / "bot.toml").is_file()
    assert (package_folder("leagues") / "league.toml").is_file()
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


def test_the_league_files_are_in_configs_once() -> None:
    assert sorted(path.name for path in CONFIGS.glob("*.toml")) == LEAGUE_FILES
    # the package's leagues folder is a link to configs/, not a second copy
    assert os.readlink(ROOT / "arena" / "leagues") == "../configs"
    assert sorted(path.name for path in package_folder("leagues").glob("*.toml")) == LEAGUE_FILES


def test_the_bundled_leagues_keep_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    leagues = bundled_leagues()
    assert list(leagues) == ["bundled", "dice", "dice-ladder", "ladder"]
    assert leagues[DEFAULT_LEAGUE].name == "league.toml"
    assert all(load_league(path).name == name for name, path in leagues.items())
    monkeypatch.chdir(tmp_path)  # no ./league.toml here: `arena run` plays the default
    assert find_league(None) == leagues["bundled"] == find_league("bundled")
    assert find_league("dice") == leagues["dice"]
    # as before the move: results and bots relative to the current folder
    assert load_league(find_league(None)).results_dir == Path("results/bundled")


def test_arena_run_configs_league_toml_from_the_checkout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    before = sorted((ROOT / "results").iterdir())
    assert main(["run", "configs/league.toml", "--dry-run"]) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "bundled: ra, bots random, first, greedy" in out
    assert "results in results/bundled" in out  # the top-level results/ of the checkout
    assert sorted((ROOT / "results").iterdir()) == before  # a dry run stores nothing


def test_building_the_package_copies_the_league_files_and_the_templates(tmp_path: Path
                                                                      ) -> None:
    """The step of a wheel build that gathers package data, on this checkout: the link
    arena/leagues is followed, and the package gets the files of configs/ themselves; and
    every file of new-bot's templates (dotfiles and subfolders too)."""
    pytest.importorskip("setuptools")
    (tmp_path / "egg").mkdir()
    subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q",
         "egg_info", "--egg-base", str(tmp_path / "egg"),
         "build_py", "--build-lib", str(tmp_path / "lib")],
        cwd=ROOT, check=True, capture_output=True, timeout=120,
    )
    built = tmp_path / "lib" / "arena" / "leagues"
    assert not built.is_symlink()
    assert sorted(path.name for path in built.iterdir()) == LEAGUE_FILES
    for name in LEAGUE_FILES:
        assert (built / name).read_bytes() == (CONFIGS / name).read_bytes()
    for language in LANGUAGES:
        files = template_files(language)
        shipped = tmp_path / "lib" / "arena" / "bot_templates" / language
        assert sorted(path.relative_to(shipped) for path in shipped.rglob("*")
                      if path.is_file()) == files
