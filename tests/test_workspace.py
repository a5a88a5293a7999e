"""``arena init`` and ``arena new-bot``: what they make plays as it is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.cli import main


def test_init_makes_a_workspace_whose_league_and_bot_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "ws")]) == 0
    made = sorted(str(p.relative_to(tmp_path / "ws")) for p in (tmp_path / "ws").rglob("*"))
    assert made == ["README.md", "bots", "bots/my-bot", "bots/my-bot/README.md",
                    "bots/my-bot/bot.py", "bots/my-bot/bot.toml", "league.toml"]
    assert len((tmp_path / "ws" / "README.md").read_text().splitlines()) == 3
    monkeypatch.chdir(tmp_path / "ws")
    assert main(["validate", "bots/my-bot", "--games", "2"]) == 0
    assert main(["run", "--quiet", "--rounds", "1"]) == 0  # ./league.toml, no argument
    assert "my-bot" in capsys.readouterr().out
    # a second init never overwrites
    assert main(["init"]) == 2
    assert "never overwrites" in capsys.readouterr().err


def test_new_bot_in_python_passes_validate_as_it_is(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "clever"]) == 0
    assert main(["validate", "bots/clever", "--games", "2"]) == 0
    assert main(["new-bot", "clever"]) == 2  # exists already


def test_new_bot_in_javascript_passes_validate_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("node") is None and not os.environ.get("CI"):
        pytest.skip("Node.js is not installed (CI installs it: there this test must run)")
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "clever-js", "--lang", "javascript"]) == 0
    assert main(["validate", "bots/clever-js", "--games", "2"]) == 0


@pytest.mark.parametrize("name", ["Clever", "9lives", "a" * 41, "../escape", ""])
def test_a_bad_bot_name_is_one_line(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", name]) == 2
    err = capsys.readouterr().err
    assert "use 1-40 lowercase letters" in err and err.count("\n") == 1
    assert not any(tmp_path.rglob("bot.toml"))


def test_the_workspace_league_plays_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """bot_paths and the results are relative to the league file, not to where you stand."""
    assert main(["init", str(tmp_path / "ws")]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["run", str(tmp_path / "ws" / "league.toml"), "--rounds", "1", "--quiet"]) == 0
    assert "my-bot" in capsys.readouterr().out
    assert (tmp_path / "ws" / "results" / "ws").is_dir()
    assert not any(elsewhere.iterdir())  # nothing written where the user stands


def test_made_files_follow_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert main(["init", str(tmp_path / "ws")]) == 0
    finally:
        os.umask(old)
    for made in ["league.toml", "README.md", "bots/my-bot/bot.toml", "bots/my-bot/bot.py",
                 "bots/my-bot/README.md"]:
        assert (tmp_path / "ws" / made).stat().st_mode & 0o777 == 0o640, made
