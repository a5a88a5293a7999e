"""arena completion: the bash script completes commands, options, choices, the bots found
from the current folder and league files; the zsh and tcsh scripts are generated whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import COMMANDS, main
from arena.completion import completion_script
from arena.settings import SANDBOX_LEVELS


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("completion") / "arena.bash"
    path.write_text(completion_script("bash"))
    return path


def complete(script: Path, line: str, cwd: Path) -> list[str]:
    """What bash offers for ``line`` (the cursor at its end), as a user's TAB would."""
    program = (
        f'source {script}\n'
        'read -ra COMP_WORDS <<< "$LINE"\n'
        '[[ "$LINE" == *" " ]] && COMP_WORDS+=("")\n'
        'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$LINE"; COMP_POINT=${#LINE}\n'
        '_shtab_arena\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    # `arena` itself must be on PATH: the script asks it for the bot names
    env = {**os.environ, "LINE": line,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(["bash", "-c", program], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=60, check=True)
    return sorted(filter(None, result.stdout.splitlines()))


def test_commands_options_and_choices(bash_script: Path, tmp_path: Path) -> None:
    assert complete(bash_script, "arena ", tmp_path) == sorted(COMMANDS)
    assert complete(bash_script, "arena val", tmp_path) == ["validate"]
    assert "--rounds" in complete(bash_script, "arena run --", tmp_path)
    assert complete(bash_script, "arena run --sandbox ", tmp_path) == sorted(SANDBOX_LEVELS)
    assert complete(bash_script, "arena new-bot x --lang ", tmp_path) == [
        "c", "cpp", "go", "java", "javascript", "python", "rust"]
    assert complete(bash_script, "arena leaderboard --game ", tmp_path) == ["ra", "ra_dice"]


def test_bot_names_are_those_found_from_the_current_folder(
    bash_script: Path, tmp_path: Path
) -> None:
    if shutil.which("arena", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("the arena command is not installed beside this Python")
    assert main(["new-bot", "mine", "--dir", str(tmp_path / "bots")]) == 0
    offered = complete(bash_script, "arena validate ", tmp_path)
    assert {"mine", "random", "first", "bots"} <= set(offered)
    assert complete(bash_script, "arena validate mi", tmp_path) == ["mine"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "mine" not in complete(bash_script, "arena validate ", elsewhere)


def test_league_files_and_bundled_leagues(bash_script: Path, tmp_path: Path) -> None:
    (tmp_path / "spring.toml").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "results").mkdir()
    offered = complete(bash_script, "arena run ", tmp_path)
    assert {"bundled", "dice", "ladder", "spring.toml", "results"} <= set(offered)
    assert "notes.txt" not in offered
    assert complete(bash_script, "arena leaderboard sp", tmp_path) == ["spring.toml"]


@pytest.mark.parametrize("shell", ["zsh", "fish", "tcsh"])
def test_other_shells_name_every_command(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert all(name in script for name in COMMANDS)
    assert "arena bots --names" in script


def test_zsh_script_parses(tmp_path: Path) -> None:
    if shutil.which("zsh") is None and os.environ.get("CI") != "true":
        pytest.skip("zsh is not installed (CI installs it: there this test must run)")
    path = tmp_path / "_arena"
    path.write_text(completion_script("zsh"))
    subprocess.run(["zsh", "-n", str(path)], check=True, timeout=30)


def test_bots_names_lists_the_bots_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "random"]) == 0  # hides the bundled random, like PATH
    (tmp_path / "bots" / "broken").mkdir()
    (tmp_path / "bots" / "broken" / "bot.toml").write_text("name = [\n")
    capsys.readouterr()
    assert main(["bots", "--names"]) == 0
    names = capsys.readouterr().out.split()
    assert names.count("random") == 1 and "first" in names and "broken" not in names
    assert main(["bots", "--names", "--game", "ra_dice"]) == 0
    dice = capsys.readouterr().out.split()
    assert "dice-greedy" in dice and "greedy" not in dice
