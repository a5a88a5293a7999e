"""arena bots: the table, the --game filter, --json, and problems shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main

from .conftest import write_bot

RA_BOT = """\
name = "{name}"
version = "{version}"
command = ["{{python}}", "bot.py", "--deep"]
[games]
{games}
"""


def ra_bot(folder: Path, name: str, games: str = "ra = [2, 3, 4]", version: str = "1.0") -> None:
    write_bot(folder / name, manifest=RA_BOT.format(name=name, games=games, version=version))


@pytest.fixture
def bots_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    bots = tmp_path / "bots"
    ra_bot(bots, "deep-ra", version="2.5")
    ra_bot(bots, "dicer", games="ra_dice = [2, 4]")
    write_bot(bots / "broken", manifest='name = "broken"\nversion = "1"\n')
    return bots


def test_table_lists_every_bot_with_its_status(
    bots_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bots"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "version", "source", "games", "command", "status"]
    row = {line.split()[0]: line for line in lines[2:] if line and not line.startswith(" ")}
    assert row["deep-ra"].split() == [
        "deep-ra", "2.5", "folder", "bots/deep-ra", "ra", "2-4", "{python}", "bot.py", "--deep",
        "ready",
    ]
    assert "ra_dice 2,4" in row["dicer"]
    assert "key 'command': missing" in row["broken"]
    assert "random" in row  # the bundled bots are always there


def test_game_filter(bots_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "--game", "ra_dice", "--json"]) == 0
    names = {bot["name"] for bot in json.loads(capsys.readouterr().out)["bots"]}
    assert "dicer" in names and "deep-ra" not in names
    assert "broken" in names  # unreadable games: shown rather than hidden
    assert main(["bots", "--game", "chess"]) == 2
    assert "unknown game 'chess'; known games: ra, ra_dice" in capsys.readouterr().err


def test_path_option_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ra_bot(tmp_path / "mine", "mybot")
    assert main(["bots", "--path", str(tmp_path / "mine"), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    mybot = next(bot for bot in listed["bots"] if bot["name"] == "mybot")
    assert mybot["ready"] and mybot["problems"] == []
    assert mybot["games"] == {"ra": [2, 3, 4]}
    assert mybot["command"] == ["{python}", "bot.py", "--deep"]
    assert len(mybot["content_hash"]) == 64
    assert main(["bots", "--path", str(tmp_path / "missing")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_clash_is_shown_for_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ra_bot(tmp_path / "one", "twin")
    ra_bot(tmp_path / "two", "twin")
    paths = ["--path", str(tmp_path / "one"), "--path", str(tmp_path / "two")]
    assert main(["bots", *paths]) == 0
    out = capsys.readouterr().out
    assert "problem: " in out and "bot name 'twin' is registered twice" in out
    assert main(["bots", *paths, "--json"]) == 0
    twins = [bot for bot in json.loads(capsys.readouterr().out)["bots"] if bot["name"] == "twin"]
    assert [bot["problems"] for bot in twins] == [
        [f"name 'twin' is also registered by folder {tmp_path / 'two' / 'twin'}"],
        [f"name 'twin' is also registered by folder {tmp_path / 'one' / 'twin'}"],
    ]
