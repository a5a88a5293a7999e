"""Bot names resolve like PATH: the user's bot with a bundled bot's name is used instead
of it, with a notice; two of the user's bots with one name are an error naming both; the
bundled folder is never a submit target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.plugins import discover
from arena.plugins.discovery import BUNDLED_BOTS

MANIFEST = """name = "first"
version = "9.9.9"
command = ["{python}", "bot.py"]
[games]
ra = [2, 3, 4, 5]
"""


def _own_first(folder: Path) -> Path:
    bot = folder / "first"
    bot.mkdir(parents=True)
    (bot / "bot.toml").write_text(MANIFEST)
    (bot / "bot.py").write_text((BUNDLED_BOTS / "first" / "bot.py").read_text())
    return bot


def test_the_users_bot_is_used_instead_of_the_bundled_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _own_first(tmp_path / "bots")
    monkeypatch.chdir(tmp_path)
    registry = discover()
    assert registry.bot("first").version == "9.9.9"
    assert main(["bots", "--json"]) == 0
    listed = [b for b in json.loads(capsys.readouterr().out)["bots"] if b["name"] == "first"]
    used = next(b for b in listed if b["ready"])
    hidden = next(b for b in listed if not b["ready"])
    assert used["version"] == "9.9.9" and "bundled with Ra Arena" in used["shadows"][0]
    assert hidden["shadowed_by"] == used["source"]
    assert main(["bots"]) == 0
    table = capsys.readouterr().out
    assert "used instead of folder" in table and "not used: folder bots/first" in table


def test_a_league_names_the_bot_it_uses_instead(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _own_first(tmp_path / "bots")
    monkeypatch.chdir(tmp_path)
    league = tmp_path / "l.toml"
    league.write_text('name = "l"\ngame = "ra"\nplayers = 2\nroster = ["first", "random"]\n')
    assert main(["run", str(league), "--dry-run"]) == 0
    assert "bot 'first' is folder bots/first, used instead of folder" in capsys.readouterr().err


def test_two_of_the_users_bots_with_one_name_are_an_error_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _own_first(tmp_path / "a"), _own_first(tmp_path / "b")
    registry = discover([tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ArenaError, match="cannot be used") as error:
        registry.bot("first")
    assert str(one) in str(error.value) and str(two) in str(error.value)


def test_submit_never_writes_into_the_bundled_bots(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    mine = _own_first(tmp_path / "src")
    assert main(["submit", str(mine), "--to", str(BUNDLED_BOTS), "--replace"]) == 2
    assert "holds the bots bundled with Ra Arena" in capsys.readouterr().err
    assert "9.9.9" not in (BUNDLED_BOTS / "first" / "bot.toml").read_text()


def test_roster_all_leaves_out_a_bot_without_its_runtime_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the bundled random-js is on a machine without Node.js: listed, not ready, left
    out of roster = "all" with the reason; a league naming it fails before playing."""
    ghost = tmp_path / "bots" / "ghost"
    ghost.mkdir(parents=True)
    (ghost / "bot.toml").write_text('name = "ghost"\nversion = "1"\n'
                                    'command = ["no-such-runtime", "bot.x"]\n[games]\nra = [2]\n')
    (tmp_path / "all.toml").write_text('name = "everyone"\ngame = "ra"\nplayers = [2]\n'
                                       'roster = "all"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["run", "all.toml", "--dry-run"]) == 0
    err = capsys.readouterr().err.splitlines()
    left_out = [line for line in err if "left out" in line]
    assert len(left_out) == 1 and "'ghost'" in left_out[0]
    assert "'no-such-runtime' not found" in left_out[0]
    (tmp_path / "named.toml").write_text('name = "named"\ngame = "ra"\nplayers = [2]\n'
                                         'roster = ["ghost", "random"]\n')
    assert main(["run", "named.toml", "--dry-run"]) == 2
    assert "key 'roster': bot 'ghost' cannot be used" in capsys.readouterr().err
