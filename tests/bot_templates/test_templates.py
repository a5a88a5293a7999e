"""``arena new-bot --lang L``: every language's template is made, builds as its README
says, talks the protocol (escapes, nesting, big ids, unknown messages, quit and end of
input), plays a seeded uniform random choice, and passes ``arena validate`` as made."""

from __future__ import annotations

import collections
import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins.manifest import TOOLCHAIN_PACKAGES
from arena.workspace import LANGUAGES, TEMPLATE_NAME, template_files, template_folder
from tests.bot_templates.conftest import HandBuilt, bot_name, readme_blocks, require_toolchain

EVERY_LANGUAGE = list(LANGUAGES)
# what a student edits: the source where choose() is, each with its lines marked EDIT
MAIN_SOURCE = {"python": "bot.py", "javascript": "bot.js", "c": "bot.c", "cpp": "bot.cpp",
               "java": "Bot.java", "go": "main.go", "rust": "src/main.rs"}


def manifest(folder: Path) -> dict:
    return tomllib.loads((folder / "bot.toml").read_text())


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_each_template_is_a_bot_whose_tools_and_edits_are_named(language: str) -> None:
    folder = template_folder(language)
    files = {str(path) for path in template_files(language)}
    assert {"bot.toml", "README.md", MAIN_SOURCE[language]} <= files
    data = manifest(folder)
    assert data["name"] == TEMPLATE_NAME
    assert data["games"] == {"ra": [2, 3, 4, 5], "ra_dice": [2, 3, 4]}
    # every program its build and command run by name is a tool new-bot checks for
    named = {argv[0] for argv in (data.get("build"), data["command"])
             if argv and "/" not in argv[0] and argv[0] != "{python}"}
    assert named <= set(LANGUAGES[language].tools)
    assert ("build" in data) == (language not in ("python", "javascript"))
    source = (folder / MAIN_SOURCE[language]).read_text()
    assert source.count("EDIT") >= 3 and "choose" in source  # name, new game, strategy
    readme = (folder / "README.md").read_text()
    tool = (data.get("build") or data["command"])[0]  # the package that gives the toolchain
    assert tool not in TOOLCHAIN_PACKAGES or TOOLCHAIN_PACKAGES[tool] in readme
    assert "arena validate ." in readme and "printf" in readme_blocks(folder)[0]


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_new_bot_names_every_file_after_the_bot(tmp_path: Path, language: str) -> None:
    assert main(["new-bot", "clever_2", "--lang", language, "--dir", str(tmp_path)]) == 0
    made = sorted(p.relative_to(tmp_path / "clever_2") for p in tmp_path.rglob("*")
                  if p.is_file())
    assert made == template_files(language)
    for path in made:
        assert TEMPLATE_NAME not in (tmp_path / "clever_2" / path).read_text(), path
    assert manifest(tmp_path / "clever_2")["name"] == "clever_2"
    assert "clever_2" in (tmp_path / "clever_2" / MAIN_SOURCE[language]).read_text()


def test_a_missing_toolchain_is_a_one_line_note_and_the_bot_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("arena.workspace.SAFE_PATH", str(tmp_path / "empty"))
    assert main(["new-bot", "oxide", "--lang", "rust", "--dir", str(tmp_path)]) == 0
    assert (tmp_path / "oxide" / "src" / "main.rs").is_file()
    captured = capsys.readouterr()
    assert "made" in captured.out
    assert captured.err.count("\n") == 1
    assert "cargo and rustc not found" in captured.err
    assert "apt install cargo rustc" in captured.err
    # the help says what each language needs, and what this machine lacks
    with pytest.raises(SystemExit):
        main(["new-bot", "--help"])
    help_text = capsys.readouterr().out
    for language in LANGUAGES.values():
        assert language.needs in help_text
    assert "missing here: cargo, rustc" in help_text


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_built_and_run_by_hand_as_its_readme_says(
        language: str, hand_built: Callable[[str], HandBuilt]) -> None:
    bot = hand_built(language)
    lines = [json.loads(line) for line in bot.output.splitlines()]
    assert [line["type"] for line in lines] == ["ready", "reply", "pong"]
    assert lines[0]["name"] == bot_name(language) and lines[0]["protocol"] == "ra-arena/1"
    assert lines[1]["id"] == 1 and lines[1]["index"] in (0, 1)
    assert lines[2] == {"type": "pong", "id": 2}


HELLO = ('{"protocol":"ra-arena/1","arena":"0.1 \\u00e9\\ud83d\\ude00","limits":{"move_ms":'
         '1000,"bank_ms":null,"nested":[{"a":[[]]},true,false]},"type":"hello"}')
NEW_GAME = ('{"type":"new_game","game":"ra","options":{},"num_players":3,"seat":1,'
            '"seed":9223372036854775807,"players":["a","b\\"c","\\\\ \\u0000"],'
            '"time":{"move_ms":1000,"bank_ms":null,"game_ms":null}}')
REQUEST = ('{"type":"request","id":4294967297,"observation":{"game":"ra","deep":[[[[[[{"x":'
           '"\\\\\\"\\/\\b\\f\\n\\r\\t"}]]]]]],"e":-1.5e-7,"big":1e300},"legal":[{"type":'
           '"draw"},{"type":"invoke_ra"},{"type":"god","slot":0,"tile":"gold"}],"time":'
           '{"move_ms":1000,"bank_ms":null}}')


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_it_answers_what_it_must_and_ignores_the_rest(
        language: str, hand_built: Callable[[str], HandBuilt]) -> None:
    bot = hand_built(language)
    out, err, code = bot.converse(
        HELLO, NEW_GAME,
        '{"type":"action","decision":1,"seat":0,"action":{"type":"draw"},"outcome":{}}',
        '{"type":"shout","id":99,"words":["\\ud83d\\ude00"]}',  # an unknown type: ignored
        REQUEST,
        '  {"id" : 4 , "type" : "ping"}  ',
        '{"\\u0074ype":"ping","id":5}',  # an escaped key is the same key
        '{"type":"ping","id":6,"id":7}',  # a repeated key: the last one counts
        '{"type":"game_over","seat":1,"scores":[1,2,3],"placements":[3,2,1],"forfeits":[]}',
        '{"type":"quit"}',
        '{"type":"ping","id":8}',  # after quit: never read
    )
    assert code == 0, err
    assert [m["type"] for m in out] == ["ready", "reply", "pong", "pong", "pong"], err
    assert out[1]["id"] == 4294967297 and out[1]["index"] in (0, 1, 2)
    assert [m["id"] for m in out[2:]] == [4, 5, 7]


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_it_ends_at_the_end_of_its_input_and_takes_crlf(
        language: str, hand_built: Callable[[str], HandBuilt]) -> None:
    bot = hand_built(language)
    out, err, code = bot.converse(raw=b'{"type":"hello","protocol":"ra-arena/1"}\r\n'
                                      b'{"type":"ping","id":9}\r\n')
    assert code == 0, err
    assert [m["type"] for m in out] == ["ready", "pong"] and out[1]["id"] == 9


@pytest.mark.parametrize("language", [key for key in EVERY_LANGUAGE if key != "python"])
def test_a_line_that_is_not_json_is_logged_and_skipped(
        language: str, hand_built: Callable[[str], HandBuilt]) -> None:
    """(The Python template's SDK, arena.sdk, stops at such a line instead.)"""
    bot = hand_built(language)
    out, err, code = bot.converse('{"type":"ping","id":1}', 'not json {', '{"type":',
                                  '{"type":"ping","id":2}', '{"type":"quit"}')
    assert code == 0, err
    assert out == [{"type": "pong", "id": 1}, {"type": "pong", "id": 2}]
    assert "not json {" in err  # logged where the arena keeps logs: stderr


def requests(count: int, legal: int = 3) -> list[str]:
    actions = json.dumps([{"type": "bid", "sun": sun} for sun in range(legal)])
    return [f'{{"type":"request","id":{i + 1},"observation":{{}},"legal":{actions}}}'
            for i in range(count)]


def choices(bot: HandBuilt, seed: int, count: int) -> list[int]:
    out, err, code = bot.converse(f'{{"type":"new_game","game":"ra","seat":0,"seed":{seed}}}',
                                  *requests(count))
    assert code == 0, err
    return [reply["index"] for reply in out]


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_its_random_choice_is_seeded_by_the_game_and_uniform(
        language: str, hand_built: Callable[[str], HandBuilt]) -> None:
    bot = hand_built(language)
    first = choices(bot, 12345, 3000)
    assert choices(bot, 12345, 3000) == first  # the same game plays the same
    assert choices(bot, 54321, 30) != first[:30]
    counts = collections.Counter(first)
    # each of 3 choices 1000 times on average, 26 the standard deviation: 4.6 of them
    assert sorted(counts) == [0, 1, 2] and all(880 < n < 1120 for n in counts.values()), counts


@pytest.mark.parametrize("language", EVERY_LANGUAGE)
def test_it_passes_validate_as_made(language: str, workspace: Path, arena_cache: Path
                                    ) -> None:
    """Made by new-bot, built by the arena as its bot.toml says, checked under the
    default sandbox."""
    require_toolchain(language)
    assert main(["validate", str(workspace / "bots" / bot_name(language)), "--games", "1"]) == 0
