"""What a new user met in the first hour (issue 43, item 4), each now a clear line: a bot
folder without its bot.toml, a path that is not a folder, a typo in a key or an option, a
page named by its start, a game id that is not there, a server that is not running, the
bundled leagues in --help, a bot.toml naming its bot otherwise than its folder, and a
deeply nested value quoted back."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.config import bundled_leagues

MANIFEST = """name = "{name}"
version = "1.0.0"
command = ["{{python}}", "bot.py"]
[games]
ra = [2, 3, 4, 5]
"""


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ") and err.count("\n") == 1, err
    return err


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with bots/: one without a manifest, one whose manifest names it otter."""
    (tmp_path / "bots" / "no-manifest").mkdir(parents=True)
    (tmp_path / "bots" / "no-manifest" / "bot.py").write_text("print('hello')\n")
    (tmp_path / "bots" / "__pycache__").mkdir()  # not a bot: never listed
    other = tmp_path / "bots" / "named-other"
    other.mkdir()
    (other / "bot.toml").write_text(MANIFEST.format(name="otter"))
    (other / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def league(folder: Path, roster: str) -> str:
    path = folder / "league.toml"
    path.write_text(f'name = "x"\ngame = "ra"\nplayers = 2\nroster = {roster}\n')
    return str(path)


def test_a_bot_folder_without_its_manifest_is_listed_and_named_in_the_refusal(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots"]) == 0
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.startswith("no-manifest"))
    assert "no bot.toml" in row and "__pycache__" not in table
    assert main(["run", league(workspace, '["no-manifest", "random"]'), "--dry-run"]) == 2
    err = one_line(capsys)
    assert "bot 'no-manifest' cannot be used" in err and "no bot.toml" in err
    assert "arena new-bot NAME" in err
    assert main(["bots", "--names"]) == 0
    assert "no-manifest" not in capsys.readouterr().out.split()


def test_a_folder_without_a_manifest_hides_no_bot_of_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bots" / "random").mkdir(parents=True)  # e.g. a copy being read
    monkeypatch.chdir(tmp_path)
    assert main(["run", league(tmp_path, '["random", "first"]'), "--dry-run"]) == 0


def test_a_manifest_naming_the_bot_otherwise_is_said_everywhere(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "--json"]) == 0
    (otter,) = [b for b in json.loads(capsys.readouterr().out)["bots"] if b["name"] == "otter"]
    assert otter["ready"] and "names the bot 'otter', not 'named-other'" in otter["notes"][0]
    assert main(["run", league(workspace, '["named-other", "random"]'), "--dry-run"]) == 2
    err = one_line(capsys)
    assert "unknown bot 'named-other'" in err and "holds the bot 'otter'" in err
    assert main(["validate", "bots/named-other", "--json", "--games", "1", "--game", "ra",
                 "--move-seconds", "0.05"]) == 1  # its bot.py is empty: it fails ...
    err = capsys.readouterr().err  # ... but first the note
    assert "note: bots/named-other's bot.toml names the bot 'otter'" in err


@pytest.mark.parametrize(("given", "said"), [
    ("bots/doesnotexist", "no folder bots/doesnotexist: give a bot's folder"),
    ("./league.toml", "./league.toml is not a folder"),
])
def test_validate_tells_a_path_from_a_name(workspace: Path, given: str, said: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    league(workspace, '["random", "first"]')
    assert main(["validate", given]) == 2
    err = one_line(capsys)
    assert said in err and "unknown bot" not in err


@pytest.mark.parametrize(("text", "hint"), [
    ('name = "x"\ngame = "ra"\nplayers = 2\nroudns = 3\n', "(did you mean 'rounds'?)"),
    ('name = "x"\ngame = "ra"\nplayers = 2\n[time]\nper_decison = 1\n',
     "(did you mean 'per_decision'?)"),
])
def test_a_mistyped_key_gets_a_suggestion(tmp_path: Path, text: str, hint: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "league.toml"
    path.write_text(text)
    assert main(["run", str(path), "--dry-run"]) == 2
    assert hint in one_line(capsys)


def test_a_mistyped_manifest_key_and_option_get_a_suggestion(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = workspace / "typo"
    bot.mkdir()
    (bot / "bot.toml").write_text('descripton = "x"\n' + MANIFEST.format(name="typo"))
    assert main(["validate", str(bot)]) == 2
    assert "key 'descripton': unknown key (did you mean 'description'?)" in one_line(capsys)
    with pytest.raises(SystemExit):
        main(["run", "--roudns", "3"])
    assert "--roudns (did you mean '--rounds'?)" in capsys.readouterr().err


@pytest.mark.parametrize(("topic", "page"), [
    ("writing", "writing-a-bot.md"), ("json", "ra-json.md"), ("ratings", "ratings.md")])
def test_a_page_is_found_by_its_start_or_a_word(topic: str, page: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", topic, "--path"]) == 0
    assert Path(capsys.readouterr().out.strip()).name == page


def test_an_ambiguous_or_mistyped_page_says_which(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "rules"]) == 2
    assert "matches several pages: rules-ra-dice, rules-ra" in one_line(capsys)
    assert main(["docs", "ratngs"]) == 2
    assert "(did you mean 'ratings'?)" in one_line(capsys)


def test_an_unknown_game_id_points_to_arena_games(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from arena.league.store import create_store

    create_store(tmp_path / "results" / "one").close()
    monkeypatch.chdir(tmp_path)
    assert main(["replay", "deadbeef"]) == 2
    err = one_line(capsys)
    assert "arena games" in err and "arena export" not in err
    assert main(["replay", "deadbeef", "--results", "results/one"]) == 2
    assert "`arena games results/one` lists" in one_line(capsys)


def test_a_server_that_is_not_running_is_asked_about(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import io

    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("secret\n"))
    assert main(["login", f"http://127.0.0.1:{port}", "--name", "ada",
                 "--password-stdin"]) == 2
    err = one_line(capsys)
    assert f"cannot reach the server at http://127.0.0.1:{port}" in err
    assert "is it running?" in err and "arena serve" in err


def test_run_help_names_every_bundled_league(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "dice-ladder" in bundled_leagues()
    assert f"a bundled league: {', '.join(bundled_leagues())}" in text


def test_a_deeply_nested_value_is_quoted_back_short(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "league.toml"
    path.write_text('name = "x"\ngame = "ra"\nplayers = 2\nroster = '
                    + "[" * 300 + '"a"' + "]" * 300 + "\n")
    assert main(["run", str(path), "--dry-run"]) == 2
    err = one_line(capsys)
    assert "key 'roster'" in err and len(err) < 300
