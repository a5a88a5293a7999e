"""arena init and arena new-bot: what they make works as it is (a league that plays, bots
that pass arena validate), and nothing that exists is ever overwritten."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.config import load_league
from arena.plugins import discover
from arena.plugins.manifest import load_manifest
from arena.scaffold import league_name_for

# Under CI a missing Node.js is a broken machine, not a reason to skip.
needs_node = pytest.mark.skipif(
    shutil.which("node") is None and os.environ.get("CI") != "true",
    reason="Node.js is not installed",
)


def test_init_makes_a_workspace_whose_league_plays_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "my arena"
    assert main(["init", str(workspace)]) == 0
    assert "next: cd " in capsys.readouterr().out
    readme = (workspace / "README.md").read_text().splitlines()
    assert len(readme) == 3 and "arena run league.toml" in readme[1]
    config = load_league(workspace / "league.toml")
    assert config.name == "my-arena"
    assert config.roster is not None and "my-bot" in config.roster
    assert config.bot_paths == (workspace / "bots",)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["run", str(workspace / "league.toml"), "--rounds", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "my-bot" in out  # the example bot was found and ranked
    assert (workspace / "results" / "my-arena").is_dir()
    assert not any(elsewhere.iterdir())  # nothing written where the user stands


def test_init_in_the_current_folder_and_its_example_bot_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert "next: arena run league.toml" in capsys.readouterr().out
    assert main(["validate", "bots/my-bot", "--games", "1"]) == 0
    assert "PASSED: my-bot" in capsys.readouterr().out


def test_init_refuses_to_overwrite_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "README.md").write_text("mine\n")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "README.md already exists; nothing was written" in err
    assert err.count("\n") == 1
    assert (tmp_path / "README.md").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]


def test_init_into_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file"
    target.write_text("")
    assert main(["init", str(target)]) == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("folder, league", [
    ("my arena", "my-arena"), ("Spring.2026", "Spring.2026"), ("---", "my-league"),
    ("échecs", "checs"),
])
def test_league_name_comes_from_the_folder(tmp_path: Path, folder: str, league: str) -> None:
    assert league_name_for(tmp_path / folder) == league


@pytest.mark.parametrize("language", ["python", pytest.param("javascript", marks=needs_node)])
def test_new_bot_passes_validate_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    language: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "fresh", "--lang", language]) == 0
    assert "next: arena validate bots/fresh" in capsys.readouterr().out
    registry = discover(None)
    spec = load_manifest(tmp_path / "bots" / "fresh", registry.games, None)
    assert spec.name == "fresh" and set(spec.games) == {"ra", "ra_dice"}
    assert registry.bot("fresh").source.startswith("folder bots/fresh")
    assert main(["validate", "fresh", "--games", "1"]) == 0
    assert "PASSED: fresh 0.1.0" in capsys.readouterr().out


def test_new_bot_refusals_are_one_line_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = tmp_path / "bots"
    for name in ["Upper", "_under", "x" * 41, "a/b", ""]:
        assert main(["new-bot", name, "--to", str(bots)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("arena: error: bot name") and err.count("\n") == 1
    assert not bots.exists()
    assert main(["new-bot", "twice", "--to", str(bots)]) == 0
    (bots / "twice" / "bot.py").write_text("# mine\n")
    assert main(["new-bot", "twice", "--to", str(bots), "--lang", "javascript"]) == 2
    assert "already exists; nothing was written" in capsys.readouterr().err
    assert (bots / "twice" / "bot.py").read_text() == "# mine\n"
    assert not (bots / "twice" / "bot.js").exists()


def test_new_files_follow_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert main(["new-bot", "masked", "--to", str(tmp_path)]) == 0
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "masked" / "bot.toml").stat().st_mode)
    assert mode == 0o640
