"""bot.toml: a good manifest becomes a BotSpec; every kind of broken one is explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.plugins.manifest import ManifestError, content_hash, load_manifest

from .conftest import GOOD_MANIFEST, TOY_GAMES, write_bot


def problems_of(folder: Path) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        load_manifest(folder, TOY_GAMES)
    assert str(folder / "bot.toml") in str(caught.value)  # every message names the file
    return caught.value.problems


def test_good_manifest_gives_the_spec(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "tester")
    spec = load_manifest(folder, TOY_GAMES)
    assert spec.name == "tester"
    assert spec.version == "1.0.0"
    assert spec.command == ("{python}", "bot.py")
    assert spec.folder == folder.resolve()
    assert spec.games == {"toy": (2, 3, 4)}
    assert spec.authors == ("Test Author",)
    assert spec.description == "A test bot."
    assert spec.resources == {"memory_mb": 256}
    assert spec.source == f"folder {folder}"
    assert spec.content_hash == content_hash(folder)
    assert spec.plays("toy", 3) and not spec.plays("toy", 5)


def test_an_entry_point_is_read_not_imported(tmp_path: Path) -> None:
    manifest = GOOD_MANIFEST.format(name="tester").replace(
        'description = "A test bot."', 'description = "x"\nentry_point = "nowhere.yet:make"')
    spec = load_manifest(write_bot(tmp_path / "tester", manifest=manifest), TOY_GAMES)
    assert spec.entry_point == "nowhere.yet:make"  # imported where a trusted game is played
    assert load_manifest(write_bot(tmp_path / "plain"), TOY_GAMES).entry_point is None


def test_optional_keys_may_be_left_out(tmp_path: Path) -> None:
    manifest = 'name = "lean"\nversion = "0.1"\ncommand = ["{python}", "bot.py"]\n' \
        "[games]\nduel = [2]\n"
    spec = load_manifest(write_bot(tmp_path / "lean", manifest=manifest), TOY_GAMES)
    assert (spec.authors, spec.description, spec.resources) == ((), "", {})


def replace_line(old: str, new: str) -> str:
    assert old in GOOD_MANIFEST
    return GOOD_MANIFEST.replace(old, new).format(name="tester")


BROKEN = {
    "missing name": (replace_line('name = "{name}"\n', ""), "key 'name': missing"),
    "missing games": (
        replace_line("[games]\ntoy = [2, 3, 4]\n", ""), "key 'games': missing"),
    "unknown key": (replace_line('version = "1.0.0"', 'version = "1.0.0"\ncolour = "red"'),
                    "key 'colour': unknown key; allowed keys: name, version"),
    "name with a space": (replace_line('name = "{name}"', 'name = "my bot"'),
                          "key 'name': 'my bot' is not allowed; a name is 1-40 characters"),
    "name uppercase": (replace_line('name = "{name}"', 'name = "Bot"'), "key 'name': 'Bot'"),
    "name too long": (replace_line('name = "{name}"', f'name = "{"b" * 41}"'), "key 'name'"),
    "name not a string": (replace_line('name = "{name}"', "name = 3"),
                          "key 'name': must be a string"),
    "version a number": (replace_line('version = "1.0.0"', "version = 1.0"),
                         "key 'version': must be a string such as \"1.0.0\""),
    "version with spaces": (replace_line('version = "1.0.0"', 'version = "one point o"'),
                            "key 'version': 'one point o' is not allowed"),
    "authors a string": (replace_line('authors = ["Test Author"]', 'authors = "me"'),
                         "key 'authors': must be a list of non-empty strings"),
    "description a list": (replace_line('description = "A test bot."', "description = []"),
                           "key 'description': must be a string"),
    "command a string": (replace_line('command = ["{{python}}", "bot.py"]', 'command = "bot.py"'),
                         "key 'command': must be a list of strings"),
    "command empty": (replace_line('command = ["{{python}}", "bot.py"]', "command = []"),
                      "key 'command': empty"),
    "executable missing": (
        replace_line('command = ["{{python}}", "bot.py"]', 'command = ["./no-such-program"]'),
        "key 'command': executable './no-such-program' not found"),
    "program not on PATH": (
        replace_line('command = ["{{python}}", "bot.py"]', 'command = ["surely-not-installed-x"]'),
        "key 'command': executable 'surely-not-installed-x' not found"),
    "script not executable": (
        replace_line('command = ["{{python}}", "bot.py"]', 'command = ["./bot.py"]'),
        "key 'command': executable './bot.py' not found"),
    "games not a table": (replace_line("[games]\ntoy = [2, 3, 4]\n", "games = [2]\n"),
                          "key 'games': must be a table"),
    "games empty": (replace_line("toy = [2, 3, 4]\n", ""), "key 'games': names no game"),
    "unknown game": (replace_line("toy = [2, 3, 4]", "chess = [2]"),
                     "key 'games.chess': unknown game 'chess'; known games: duel, toy"),
    "player count too high": (replace_line("toy = [2, 3, 4]", "toy = [2, 5]"),
                              "key 'games.toy': Toy is played by 2..4 players, not 5"),
    "player count too low": (replace_line("toy = [2, 3, 4]", "toy = [1]"),
                             "key 'games.toy': Toy is played by 2..4 players, not 1"),
    "player count twice": (replace_line("toy = [2, 3, 4]", "toy = [2, 2]"),
                           "key 'games.toy': a player count is listed twice"),
    "no player counts": (replace_line("toy = [2, 3, 4]", "toy = []"), "key 'games.toy': empty"),
    "player count as text": (replace_line("toy = [2, 3, 4]", 'toy = ["2"]'),
                             "key 'games.toy': must be a list of player counts"),
    "player count a bool": (replace_line("toy = [2, 3, 4]", "toy = [true]"),
                            "key 'games.toy': must be a list of player counts"),
    "unknown resource": (replace_line("memory_mb = 256", "gpus = 1"),
                         "key 'resources.gpus': unknown resource; allowed: memory_mb"),
    "resource above the cap": (replace_line("memory_mb = 256", "memory_mb = 999999"),
                               "key 'resources.memory_mb': 999999 is outside 0 < memory_mb <="),
    "resource zero": (replace_line("memory_mb = 256", "memory_mb = 0"),
                      "key 'resources.memory_mb': 0 is outside"),
    "resource as text": (replace_line("memory_mb = 256", 'memory_mb = "lots"'),
                         "key 'resources.memory_mb': must be a number"),
    "resources not a table": (
        replace_line("[resources]\nmemory_mb = 256\n", "").replace(
            "[games]", "resources = 1\n[games]"),
        "key 'resources': must be a table"),
    "entry point without a colon": (
        replace_line('description = "A test bot."', 'description = "x"\n'
                     'entry_point = "arena.strategies.entry_points.first"'),
        "key 'entry_point': 'arena.strategies.entry_points.first' is not \"module:attribute\""),
    "entry point not a name": (
        replace_line('description = "A test bot."', 'description = "x"\n'
                     'entry_point = "my bot:make player"'),
        "key 'entry_point': 'my bot:make player' is not \"module:attribute\", e.g. "),
    "entry point a list": (
        replace_line('description = "A test bot."', 'description = "x"\nentry_point = ["a:b"]'),
        "key 'entry_point': must be a string \"module:attribute\""),
    "invalid TOML": ('name = "x\n', "not valid TOML"),
    "top-level key after [games]": (
        replace_line('description = "A test bot."\n', "").replace(
            "toy = [2, 3, 4]", 'toy = [2, 3, 4]\ndescription = "late"'),
        "key 'games.description': 'description' is a top-level key: move it above [games]"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_manifest_is_explained(tmp_path: Path, kind: str) -> None:
    manifest, expected = BROKEN[kind]
    problems = problems_of(write_bot(tmp_path / "tester", manifest=manifest))
    assert any(expected in problem for problem in problems), problems


def test_toml_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "b", manifest='name = "b"\nversion = \n')
    (problem,) = problems_of(folder)
    assert "line 2" in problem and "column" in problem


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    manifest = (
        'name = "Bad Name"\nversion = 1\ncolour = "red"\ncommand = []\n'
        "[games]\ntoy = [1, 2]\nchess = [2]\n[resources]\nmemory_mb = 999999\n"
    )
    problems = problems_of(write_bot(tmp_path / "bad", manifest=manifest))
    keys = sorted(problem.split(":")[0] for problem in problems)
    assert keys == sorted(
        [
            "key 'colour'",
            "key 'version'",
            "key 'name'",
            "key 'games.toy'",
            "key 'games.chess'",
            "key 'resources.memory_mb'",
            "key 'command'",
        ]
    )


def test_missing_manifest_and_bad_encoding(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "missing" in problems_of(empty)[0]
    latin = write_bot(tmp_path / "latin")
    (latin / "bot.toml").write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    assert problems_of(latin) == ["not UTF-8 text (byte 11)"]


def test_executables_in_the_folder_and_on_the_bots_path_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_bot(tmp_path / "native", manifest=replace_line(
        'command = ["{{python}}", "bot.py"]', 'command = ["./run.sh", "--fast"]'))
    script = folder / "run.sh"
    script.write_text("#!/bin/sh\nexec python3 bot.py\n")
    assert problems_of(folder)[0].startswith("key 'command': executable './run.sh'")
    script.chmod(0o755)
    assert load_manifest(folder, TOY_GAMES).command == ("./run.sh", "--fast")
    folder2 = write_bot(tmp_path / "onpath", manifest=replace_line(
        'command = ["{{python}}", "bot.py"]', 'command = ["sh", "run.sh"]'))
    # found on the bots' PATH, whatever the caller's PATH is
    monkeypatch.setenv("PATH", str(tmp_path))
    assert load_manifest(folder2, TOY_GAMES).command == ("sh", "run.sh")


def test_a_bare_name_is_not_looked_up_in_the_folder(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "bare", manifest=replace_line(
        'command = ["{{python}}", "bot.py"]', 'command = ["runme"]'))
    (folder / "runme").write_text("#!/bin/sh\n")
    (folder / "runme").chmod(0o755)
    (problem,) = problems_of(folder)
    assert "executable 'runme' not found on the bots' PATH" in problem
    assert "write './runme'" in problem


def test_content_hash_follows_content_not_caches(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "a")
    first = content_hash(folder)
    assert len(first) == 64
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0cache")
    (folder / ".arena-install.json").write_text("{}")
    assert content_hash(folder) == first
    copy = write_bot(tmp_path / "b")  # same files elsewhere: same hash
    assert content_hash(copy) == first
    (folder / "bot.py").write_text("print('changed')\n")
    assert content_hash(folder) != first
    (folder / "bot.py").write_text("print('I am a bot')\n")
    assert content_hash(folder) == first
    (folder / "bot.py").rename(folder / "other.py")  # a rename changes the bot
    assert content_hash(folder) != first
    (folder / "other.py").rename(folder / "bot.py")
    (folder / "data").mkdir()
    (folder / "data" / "weights.bin").write_bytes(b"\1\2")
    assert content_hash(folder) != first


# --- whatever a manifest holds, the answer is a spec or a ManifestError, never a crash ----

def toml_value(value: object) -> str:
    """A TOML literal for the values the strategy below produces."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON escapes are TOML escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_value(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


SCALARS = st.one_of(
    st.booleans(),
    st.integers(-10, 10),
    st.floats(-1e6, 1e6, allow_nan=False),
    # no surrogates (not UTF-8) and no DEL (TOML wants it escaped, JSON does not escape it)
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x7f"),
            max_size=8),
    st.sampled_from(["toy", "duel", "{python}", "bot.py", "./bot.py", "ra", "memory_mb"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["toy", "duel", "chess", "memory_mb", "x"]), inner,
                      max_size=3),
    max_leaves=8,
)
KEYS = st.sampled_from(
    ["name", "version", "authors", "description", "command", "games", "resources", "extra"]
)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(KEYS, VALUES, max_size=8))
def test_any_manifest_gives_a_spec_or_a_clear_error(tmp_path: Path, data: dict) -> None:
    text = "".join(f"{key} = {toml_value(value)}\n" for key, value in data.items())
    folder = write_bot(tmp_path / "fuzz", manifest=text)
    try:
        spec = load_manifest(folder, TOY_GAMES)
    except ManifestError as error:
        assert error.problems and all(p.startswith("key '") for p in error.problems)
    else:
        assert spec.name == data["name"] and spec.games
