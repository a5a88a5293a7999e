"""``arena tune`` on the command line: every mistake in one line, the tuned bot as a new
version of its manifest, and the report's trajectories."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins import discover
from arena.plugins.manifest import load_manifest
from arena.runner.botspec import Parameter
from arena.tune.commands import field_of, start_values
from arena.tune.tuned import next_version, tuned_manifest, write_tuned_bot

BOTS = Path(__file__).resolve().parents[2] / "arena" / "bots"


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["tune", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("arena: error: ") and "\n" not in err, err
    return err


@pytest.mark.parametrize(("argv", "expected"), [
    (["first", "--against", "random"], "bot first declares no parameters: nothing to tune"),
    (["greedy", "--against", "random", "--games", "51"], "give an even number"),
    (["greedy", "--against", "random", "--games", "ten"], "--games wants a whole number"),
    (["greedy", "--against", "random", "--games", "0"],
     "--games must be between 2 and 10000000, not 0"),
    (["greedy", "--against", "random", "--players", "7"], "Ra is for 2-5 players"),
    (["greedy", "--against", "dice-greedy"], "bot 'dice-greedy' cannot play ra with 2"),
    (["greedy", "--against", "nobody"], "unknown bot 'nobody'"),
    (["greedy", "--against", "random", "--start", "depth=3"],
     "the bot has no parameter 'depth'; its parameters: denial, bid_margin"),
    (["greedy", "--against", "random", "--start", "gold=7"],
     "--start gold 7: must be between 0 and 3"),
    (["greedy", "--against", "random", "--start", "gold"], "write NAME=VALUE"),
    (["greedy", "--against", "random", "--start", "gold=lots"], "--start gold wants a number"),
    (["greedy", "--against", "random", "--players", "3", "--verify-games", "10"],
     "must be a multiple of 3"),
    (["greedy", "--against", "random", "--seconds", "-1"],
     "--seconds must be more than 0 and at most 86400, not -1"),
    (["greedy", "--against", "random", "--in-flight", "0"],
     "--in-flight must be between 1 and 5000, not 0"),
])
def test_each_mistake_is_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                  expected: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may be written, least of all into the checkout
    assert expected in error_of(capsys, *argv)
    assert not (tmp_path / "results").exists()


def test_the_field_fills_a_table_with_copies() -> None:
    registry = discover()
    greedy, first = registry.bot("greedy"), registry.bot("first")
    assert [s.name for s in field_of([greedy], 4)] == ["greedy", "greedy#2", "greedy#3"]
    assert [s.name for s in field_of([first, first, greedy], 3)] == ["first", "first#2",
                                                                     "greedy"]
    assert field_of([first], 2) == [first]


def test_start_values() -> None:
    declared = (Parameter("a", 1.0, 0.0, 2.0, 0.1, 0.002),
                Parameter("n", 3.0, 1.0, 9.0, 1.0, 0.002, integer=True))
    assert start_values(declared, []) == (1.0, 3.0)
    assert start_values(declared, ["a=0.5,n=4"]) == (0.5, 4.0)
    assert start_values(declared, ["n=2", "a=2"]) == (2.0, 2.0)
    with pytest.raises(Exception, match="an integer parameter, not 2.5"):
        start_values(declared, ["n=2.5"])


def test_next_version() -> None:
    assert next_version("1.0.0") == "1.0.1"
    assert next_version("v2") == "v3"
    assert next_version("2.3+tuned") == "2.4+tuned"
    assert next_version("beta") == "beta.1"


def test_the_tuned_bot_is_a_new_version_with_the_tuned_defaults(tmp_path: Path) -> None:
    registry = discover()
    greedy = registry.bot("greedy")
    values = [p.default for p in greedy.parameters]
    values[3] = 1.234567891  # gods
    values[-1] = 0.5
    folder = write_tuned_bot(greedy, values, tmp_path)
    assert folder == tmp_path / "tuned"
    text = (folder / "bot.toml").read_text()
    original = (BOTS / "greedy" / "bot.toml").read_text()
    # the comments and the layout stay; only the defaults and the version change
    assert [line for line in text.splitlines() if line.startswith("#")] == \
        [line for line in original.splitlines() if line.startswith("#")]
    assert 'version = "1.0.1"' in text
    assert re.search(r"^gods = \{ default = 1\.2346, min = 0\.0", text, re.MULTILINE)
    spec = load_manifest(folder, registry.games)  # a bot validate and submit take
    assert spec.version == "1.0.1" and spec.name == "greedy"
    assert [p.default for p in spec.parameters][3] == 1.2346
    assert spec.parameters[-1].default == 0.5
    assert (folder / "bot.py").read_text() == (BOTS / "greedy" / "bot.py").read_text()
    # written again (a finished tune run again): replaced whole, with the asked version
    write_tuned_bot(greedy, values, tmp_path, "2.0.0")
    assert tomllib.loads((folder / "bot.toml").read_text())["version"] == "2.0.0"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tuned"]


def test_an_integer_parameter_is_written_whole() -> None:
    declared = (Parameter("n", 3.0, 1.0, 9.0, 1.0, 0.002, integer=True),)
    text = tuned_manifest('name = "x"\nversion = "1"\n[parameters]\n'
                          "n = { default = 3, min = 1, max = 9, integer = true }\n",
                          declared, [5.6], "2")
    assert tomllib.loads(text)["parameters"]["n"]["default"] == 6


def test_a_short_tune_on_the_command_line_and_its_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["tune", "greedy", "--against", "first", "random", "--players", "3", "--games",
            "20", "--verify-games", "6", "--sandbox", "trusted", "--start", "gold=0.4",
            "--concurrency", "2"]
    assert main([*argv, "--in-flight", "2"]) == 0
    out, err = capsys.readouterr()
    results = tmp_path / "results" / "tune-greedy-ra-3p"
    assert "10 SPSA pairs (20 games) of greedy" in out
    assert re.search(r"^gold\s+0\.4\s+\S+\s+1\s+0\.\.3$", out, re.MULTILINE), out
    assert "verification: 6 games at 3 players" in out and "greedy:tuned" in out
    assert f"wrote {Path('results') / 'tune-greedy-ra-3p' / 'tuned'}" in out
    assert "pair 10/10: denial" in err  # the values as they go
    assert (results / "tuned" / "bot.toml").is_file()
    # run again: nothing left to play, the same outcome; the pairs in flight, not given,
    # are the stored tune's (2), not this machine's default (1)
    assert main(argv) == 0
    again, _ = capsys.readouterr()
    assert again == out
    # the report draws each parameter's trajectory
    assert main(["report", str(results), "-o", str(tmp_path / "report.html"),
                 "--no-replays"]) == 0
    page = (tmp_path / "report.html").read_text()
    figures = re.findall(r'<figure class="chart" data-parameter="(\w+)">.*?</figure>', page)
    assert figures == [p.name for p in discover().bot("greedy").parameters]
    for name in figures:
        figure = re.search(rf'data-parameter="{name}">(.*?)</figure>', page)
        assert figure is not None and figure.group(1).count("<svg") == 1
        assert "<polyline" in figure.group(1)
    assert "Verification match" in page
