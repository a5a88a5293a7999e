"""``arena completion``: the generated bash script completes commands and bot names, as a
shell would run it (bash is on every CI machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main


def _complete(script: Path, words: list[str]) -> list[str]:
    """COMPREPLY for the command line ``words`` (the last one being completed)."""
    line = " ".join(words)
    program = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
               f"COMP_LINE='{line}'; COMP_POINT={len(line)}; "
               f"_shtab_arena arena {words[-1]} {words[-2]}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, env=env,
                          check=True)
    return [word for word in done.stdout.split() if word]


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert shutil.which("bash"), "bash is needed to test its completion"
    script = tmp_path_factory.mktemp("completion") / "arena.bash"
    done = subprocess.run([sys.executable, "-m", "arena", "completion", "bash"],
                          capture_output=True, text=True, check=True)
    script.write_text(done.stdout)
    return script


def test_commands_complete(bash_script: Path) -> None:
    assert _complete(bash_script, ["arena", "val"]) == ["validate"]
    assert set(_complete(bash_script, ["arena", "re"])) == {"report", "replay"}


def test_bot_names_complete_from_arena_bots(bash_script: Path) -> None:
    assert "first" in _complete(bash_script, ["arena", "validate", "fi"])


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_shell_gets_a_script(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert "arena" in out and "validate" in out and len(out) > 1000
