"""Whatever a user types or writes ends in a result or in one clear line (exit 2), never a
traceback: league files, manifests and command arguments, by hand and by fuzzing."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.errors import ArenaError, excerpt
from arena.league.config import parse_league
from arena.plugins.manifest import ManifestError, load_manifest

LONG = "a" * 300
DEEP = "{a = " * 600 + "1" + "}" * 600


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and len(err) < 2500
    return err


@pytest.mark.parametrize(("text", "message"), [
    (f'name = "x"\ngame = "ra"\nplayers = 3\noptions = {DEEP}\n', "nested too deeply"),
    ('name = "x"\ngame = "ra"\nplayers = 3\nseed = -7\n', "key 'seed': must be between 0"),
    (f'name = "x"\ngame = "ra"\nplayers = 3\nresults_dir = "{LONG}"\n',
     "key 'results_dir': has a part longer than a file name may be"),
    (f'name = "x"\ngame = "ra"\nplayers = 3\nbot_paths = ["{LONG}"]\n',
     "key 'bot_paths': has a part longer than a file name may be"),
    ('name = "x"\ngame = "ra"\nplayers = 3\nroster = ["first", "random", "greedy"]\n'
     '[rating]\nanchor = "nobody"\n', "key 'rating.anchor': 'nobody' plays no game"),
    ('name = "x"\ngame = "ra"\nplayers = 3\nbad = "' + "z" * 100_000 + '"\n',
     "key 'bad': unknown key"),
    (b"name = \"x\"\ngame = \"ra\"\nplayers = 3\n\xff\xfe\n", "not UTF-8 text"),
])
def test_a_bad_league_file_is_one_clear_line(tmp_path: Path, text: str | bytes, message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    league = tmp_path / "league.toml"
    if isinstance(text, bytes):
        league.write_bytes(text)
    else:
        league.write_text(text)
    assert main(["run", str(league), "--dry-run"]) == 2
    assert message in one_line_error(capsys)


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_bytes(b"\xef\xbb\xbfname = \"bom\"\ngame = \"ra\"\nplayers = 3\n")
    assert parse_league(league.read_text(encoding="utf-8"), league).name == "bom"
    assert main(["run", str(league), "--dry-run"]) == 0


@pytest.mark.parametrize("argv", [
    ["run", LONG], ["export", LONG], ["leaderboard", LONG], ["validate", LONG],
    ["replay", "abc", "--results", LONG], ["report", LONG, "-o", "r.html"],
])
def test_an_overlong_argument_is_one_clear_line(argv: list[str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert "..." in one_line_error(capsys)  # the 300 characters are not all quoted


def test_one_broken_manifest_disables_only_its_bot(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "bots" / "deep"
    deep.mkdir(parents=True)
    (deep / "bot.toml").write_text('name = "deep"\nversion = "1.0.0"\ncommand = ["x"]\n'
                                   "[games]\nra = [2]\n[resources]\nx = " + "[" * 3000
                                   + "]" * 3000 + "\n")
    monkeypatch.chdir(tmp_path)
    assert main(["bots", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"first"' in out and "nested too deeply" in out


def test_a_results_folder_without_write_permission_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.league import store

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(ArenaError, match="no permission to write in the results folder"):
        store.create_store(tmp_path / "results")


def test_excerpts_cut_long_words_and_long_messages() -> None:
    assert excerpt("short words stay") == "short words stay"
    cut = excerpt(f"bad value {LONG} here")
    assert cut.startswith("bad value " + "a" * 60 + "...(300 characters)") and "here" in cut
    assert len(excerpt("word " * 10_000)) < 2100


# -- fuzzing: any league file and any manifest end in a value or in ArenaError ------------

KEYS = ["name", "game", "players", "roster", "format", "challenger", "rounds", "seed",
        "max_games", "concurrency", "workers", "results_dir", "bot_paths", "options",
        "time", "limits", "rating", "cluster", "per_decision", "memory_mb", "sandbox",
        "version", "command", "connect", "games", "resources", "ra", "ra_dice", "anchor"]
scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True),
    st.booleans(), st.text(alphabet=string.printable, max_size=30),
    st.sampled_from(["ra", "ra_dice", "none", "bwrap", "round-robin", "gauntlet", "all",
                     "tcp://127.0.0.1:1", "{python}", "x" * 300]),
)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(value), repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


documents = st.lists(
    st.tuples(st.sampled_from(KEYS), st.one_of(scalars, st.lists(scalars, max_size=4))),
    max_size=12,
).map(lambda pairs: "".join(f"{key} = {toml_value(value)}\n" for key, value in pairs))
mutations = st.one_of(
    documents,
    st.tuples(documents, st.text(max_size=40)).map(lambda pair: pair[0] + pair[1]),
    st.tuples(documents, st.sampled_from(["[time]\n", "[limits]\n", "[games]\n", "[[x]]\n",
                                          "[options]\n", "[cluster]\n"]), documents)
    .map("".join),
)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutations)
def test_any_league_file_is_a_league_or_an_arena_error(tmp_path: Path, text: str) -> None:
    try:
        parse_league(text, tmp_path / "fuzz.toml")
    except ArenaError as error:
        message = str(error)
        assert "\n" not in message and "Traceback" not in message


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutations)
def test_any_manifest_is_a_bot_or_a_manifest_error(tmp_path: Path, text: str) -> None:
    from arena.plugins import game_registry

    folder = tmp_path / "fuzzbot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(text)
    try:
        load_manifest(folder, game_registry().games)
    except ManifestError as error:
        assert all(line.strip() for line in str(error).splitlines())
