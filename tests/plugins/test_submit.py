"""arena submit: installs a checked bot under its name, refuses clashes, never half-copies."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.plugins import discover, install
from arena.plugins.install import install_bot
from arena.plugins.manifest import ManifestError, content_hash

from .conftest import TOY_GAMES, write_bot


def listing(folder: Path) -> list[str]:
    """Every entry under ``folder``, hidden ones included (leftovers would show here)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_install_copies_the_folder_and_records_the_hash(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "work" / "my-bot-src", "mybot")
    (source / "lib").mkdir()
    (source / "lib" / "helper.py").write_text("X = 1\n")
    (source / "run.sh").write_text("#!/bin/sh\n")
    (source / "run.sh").chmod(0o700)
    (source / "lib" / "helper.py").chmod(0o600)  # private to its owner
    (source / "__pycache__").mkdir()
    (source / "__pycache__" / "bot.pyc").write_bytes(b"cache")
    bots = tmp_path / "bots"
    result = install_bot(source, bots, TOY_GAMES)
    target = bots / "mybot"
    assert result.action == "installed" and result.folder == target
    assert listing(bots) == [
        "mybot", "mybot/.arena-install.json", "mybot/bot.py", "mybot/bot.toml",
        "mybot/lib", "mybot/lib/helper.py", "mybot/run.sh",
    ]
    assert os.access(target / "run.sh", os.X_OK)
    # bots never run as the folder's owner: everything installed is readable by all
    assert (target / "lib" / "helper.py").stat().st_mode & 0o777 == 0o644
    assert (target / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (target / "lib").stat().st_mode & 0o777 == 0o755
    record = json.loads((target / ".arena-install.json").read_text())
    assert record["name"] == "mybot" and record["version"] == "1.0.0"
    assert record["content_hash"] == content_hash(source) == content_hash(target)
    assert result.spec.folder == target.resolve()
    assert result.spec.content_hash == record["content_hash"]


def test_same_content_again_is_unchanged(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    install_bot(source, tmp_path / "bots", TOY_GAMES)
    before = (tmp_path / "bots" / "mybot" / ".arena-install.json").read_text()
    assert install_bot(source, tmp_path / "bots", TOY_GAMES).action == "unchanged"
    assert (tmp_path / "bots" / "mybot" / ".arena-install.json").read_text() == before


def test_different_content_is_refused_unless_replace(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    bots = tmp_path / "bots"
    install_bot(source, bots, TOY_GAMES)
    (source / "bot.py").write_text("print('version two')\n")
    with pytest.raises(ArenaError, match="already installed .* use --replace"):
        install_bot(source, bots, TOY_GAMES)
    assert (bots / "mybot" / "bot.py").read_text() == "print('I am a bot')\n"
    result = install_bot(source, bots, TOY_GAMES, replace=True)
    assert result.action == "replaced"
    assert (bots / "mybot" / "bot.py").read_text() == "print('version two')\n"
    assert listing(bots) == [
        "mybot", "mybot/.arena-install.json", "mybot/bot.py", "mybot/bot.toml"
    ]


def test_invalid_bot_is_not_installed(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "mybot", manifest='name = "mybot"\n')
    with pytest.raises(ManifestError, match="key 'version': missing"):
        install_bot(source, tmp_path / "bots", TOY_GAMES)
    assert not (tmp_path / "bots").exists()


def test_symlinks_are_refused(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    (source / "secrets").symlink_to("/etc/passwd")
    with pytest.raises(ArenaError, match="symbolic links cannot be submitted: secrets"):
        install_bot(source, tmp_path / "bots", TOY_GAMES)


def test_installing_a_folder_into_itself_is_refused(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    with pytest.raises(ArenaError, match="inside itself"):
        install_bot(source, source / "bots", TOY_GAMES)


class InjectedFailure(RuntimeError):
    pass


def fail_on_second_file(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[Path] = []

    def copy_then_fail(source: Path, destination: Path, *_limits: object) -> None:
        if copied:
            raise InjectedFailure("disk full")
        copied.append(source)
        shutil.copy2(source, destination)

    monkeypatch.setattr(install, "_copy_file", copy_then_fail)


def test_failure_mid_copy_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    bots = tmp_path / "bots"
    bots.mkdir()
    fail_on_second_file(monkeypatch)
    with pytest.raises(InjectedFailure):
        install_bot(source, bots, TOY_GAMES)
    assert listing(bots) == []


def test_failure_mid_copy_keeps_the_old_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_bot(tmp_path / "src", "mybot")
    bots = tmp_path / "bots"
    install_bot(source, bots, TOY_GAMES)
    old_listing, old_hash = listing(bots), content_hash(bots / "mybot")
    (source / "bot.py").write_text("print('version two')\n")
    fail_on_second_file(monkeypatch)
    with pytest.raises(InjectedFailure):
        install_bot(source, bots, TOY_GAMES, replace=True)
    assert listing(bots) == old_listing
    assert content_hash(bots / "mybot") == old_hash


def test_replace_without_atomic_exchange_still_swaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(install, "_exchange", lambda first, second: False)
    source = write_bot(tmp_path / "src", "mybot")
    bots = tmp_path / "bots"
    install_bot(source, bots, TOY_GAMES)
    (source / "bot.py").write_text("print('version two')\n")
    install_bot(source, bots, TOY_GAMES, replace=True)
    assert (bots / "mybot" / "bot.py").read_text() == "print('version two')\n"
    assert [p for p in listing(bots) if p.startswith(".")] == []


# --- through the command line (the real games: the bundled engines) -------------------------

RA_MANIFEST = """\
name = "{name}"
version = "1.0.0"
command = ["{{python}}", "bot.py"]
[games]
ra = [2, 3]
"""


WORKING_BOT = """\
from arena.sdk import run

run(lambda observation, legal: len(legal) - 1, name="last", version="1.0.0")
"""


def test_submit_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    source = write_bot(tmp_path / "src", manifest=RA_MANIFEST.format(name="cli-bot"))
    (source / "bot.py").write_text(WORKING_BOT)
    assert main(["submit", str(source)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("installed cli-bot 1.0.0 in bots/cli-bot (content sha256 ")
    assert (tmp_path / "bots" / "cli-bot" / "bot.toml").is_file()
    second_version = WORKING_BOT.replace("len(legal) - 1", "0")
    (source / "bot.py").write_text(second_version)
    assert main(["submit", str(source)]) == 2
    assert "use --replace" in capsys.readouterr().err
    assert main(["submit", str(source), "--replace"]) == 0
    assert capsys.readouterr().out.startswith("replaced the previous bot with cli-bot 1.0.0")
    assert main(["submit", str(source), "--to", str(tmp_path / "elsewhere")]) == 0
    assert (tmp_path / "elsewhere" / "cli-bot" / "bot.py").read_text() == second_version


def test_submit_refuses_a_bot_that_breaks_the_protocol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    source = write_bot(tmp_path / "src", manifest=RA_MANIFEST.format(name="liar"))
    (source / "bot.py").write_text(WORKING_BOT.replace("len(legal) - 1", "len(legal)"))
    assert main(["submit", str(source)]) == 2
    err = capsys.readouterr().err
    assert "liar failed the conformance check (ra 2p game 1: illegal: index" in err
    assert "nothing was installed" in err
    assert not (tmp_path / "bots").exists()
    assert main(["submit", str(source), "--no-check"]) == 0  # the author insists
    assert (tmp_path / "bots" / "liar" / "bot.py").is_file()
    capsys.readouterr()
    # a refusal comes before the check: no waiting for games that cannot change the answer
    (source / "bot.py").write_text(WORKING_BOT.replace("len(legal) - 1", "len(legal) + 1"))
    assert main(["submit", str(source)]) == 2
    err = capsys.readouterr().err
    assert "use --replace" in err and "conformance" not in err


def test_submit_refuses_a_name_used_by_a_bundled_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    source = write_bot(tmp_path / "src", manifest=RA_MANIFEST.format(name="random"))
    assert main(["submit", str(source), "--replace"]) == 2
    err = capsys.readouterr().err
    assert "the name 'random' is already used by folder" in err and "rename the bot" in err
    assert not (tmp_path / "bots").exists()


def test_submit_of_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["submit", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


KILLED_INSTALL = """
import sys, time
from pathlib import Path
from arena.plugins import install
from tests.plugins.conftest import TOY_GAMES

real_copy = install._copy_file

def slow_copy(source, destination):
    time.sleep(0.002)  # stretch the copy so that the kill lands in the middle of it
    real_copy(source, destination)

install._copy_file = slow_copy
print("started", flush=True)
install.install_bot(Path(sys.argv[1]), Path(sys.argv[2]), TOY_GAMES, replace=True)
print("done", flush=True)
"""


@pytest.mark.parametrize("kill_after", [0.05, 0.25, 0.6])
def test_killed_install_leaves_the_old_bot_or_the_new_one(
    tmp_path: Path, kill_after: float
) -> None:
    """kill -9 at different moments (before, during, after the copy)."""
    source = write_bot(tmp_path / "src", "mybot")
    for index in range(150):
        (source / f"part{index:03}.py").write_text(f"VALUE = {index}\n")
    bots = tmp_path / "bots"
    old = write_bot(tmp_path / "old", "mybot")
    install_bot(old, bots, TOY_GAMES)  # the version being replaced
    old_hash = content_hash(bots / "mybot")
    repo = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_INSTALL, str(source), str(bots)],
        cwd=repo, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "started\n"
    time.sleep(kill_after)
    process.kill()
    process.wait()
    final_hash = content_hash(bots / "mybot")
    assert final_hash in (old_hash, content_hash(source))
    found = discover([bots], include_bundled=False, entry_points=False)
    assert [entry.name for entry in found.entries] == ["mybot"]  # leftovers are hidden
