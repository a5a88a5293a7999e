"""--trace (issue 43, item 6): every line to and from a chosen bot, with its time, as
cutechess's -debug; for `arena run` and `arena validate`, from one piece
(arena/runner/trace.py) that any command playing bots in its process adopts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.config import load_league
from arena.league.store import open_store
from arena.runner.trace import parse_traces

LINE = re.compile(r"^ *(\d+\.\d{3}) (\S+)#(\d+) ([<>#]) (.*)$")


def read_trace(path: Path) -> list[tuple[float, str, int, str, str]]:
    header, *lines = path.read_text().splitlines()
    assert header.startswith("# protocol trace of ")
    parsed = []
    for line in lines:
        match = LINE.match(line)
        assert match, line
        parsed.append((float(match[1]), match[2], int(match[3]), match[4], match[5]))
    return parsed


def test_run_traces_every_line_of_the_chosen_bot(league_file, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file('roster = ["first", "random"]', "rounds = 1", players="2")
    trace = tmp_path / "first.trace"
    assert main(["run", str(path), "--quiet", "--trace", f"first={trace}",
                 "--sandbox", "none"]) == 0
    lines = read_trace(trace)
    assert {bot for _t, bot, _c, _a, _x in lines} == {"first"}  # random is not traced
    times = [t for t, *_ in lines]
    assert times == sorted(times)
    sent = [json.loads(text) for _t, _b, _c, arrow, text in lines if arrow == ">"]
    answers = [json.loads(text) for _t, _b, _c, arrow, text in lines if arrow == "<"]
    # every request the bot was sent is in the trace, and its reply after it
    store = open_store(load_league(path).results_dir)
    try:
        records = list(store.games())
    finally:
        store.close()
    decisions = sum(record.timings["seats"][seat]["decisions"] for record in records
                    for seat, bot in enumerate(record.seats) if bot == "first")
    requests = [m for m in sent if m["type"] == "request"]
    replies = [m for m in answers if m["type"] == "reply"]
    assert decisions > 0 and len(requests) == len(replies) == decisions
    assert [m["id"] for m in requests] == [m["id"] for m in replies]
    kinds = {m["type"] for m in sent}
    assert {"hello", "new_game", "request", "game_over", "quit"} <= kinds
    assert {m["type"] for m in answers} >= {"ready", "reply"}
    assert any(arrow == "#" and text.startswith("opened: process") for *_, arrow, text
               in lines)
    assert lines[-1][3:] == ("#", "closed")


def test_validate_traces_the_bot_under_test_to_stderr(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "first", "--game", "ra", "--games", "1", "--sandbox", "none",
                 "--trace"]) == 0
    err = capsys.readouterr().err.splitlines()
    traced = [LINE.match(line) for line in err]
    ours = [m for m in traced if m is not None]
    assert ours and {m[2] for m in ours} == {"first"}
    texts = [m[5] for m in ours if m[4] != "#"]
    assert any('"type":"ping"' in t for t in texts) and any('"type":"pong"' in t for t in texts)


def test_a_trace_naming_no_bot_of_the_games_says_so(league_file, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file('roster = ["first", "random"]', "rounds = 1", players="2")
    assert main(["run", str(path), "--quiet", "--trace", f"frist={tmp_path / 't'}",
                 "--sandbox", "none"]) == 0
    assert "--trace frist: no connection to a bot called 'frist' was opened" \
        in capsys.readouterr().err


def test_trace_values_are_checked() -> None:
    assert parse_traces(["a=x.log", "b"]) == {"a": Path("x.log"), "b": None}
    assert parse_traces([""], default_bot="mine") == {"mine": None}
    for value, message in (("=x.log", "name a bot"), ("a=", "name the file")):
        with pytest.raises(ArenaError, match=message):
            parse_traces([value])


def test_run_refuses_a_trace_it_could_not_write(league_file,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file('roster = ["first", "random"]', players="2")
    assert main(["run", str(path), "--trace", "first", "--cluster",
                 "tcp://127.0.0.1:1"]) == 2
    assert "not with --cluster" in capsys.readouterr().err
    assert main(["run", str(path), "--trace", "first", "--sandbox", "trusted"]) == 2
    assert "no lines to trace" in capsys.readouterr().err


def test_match_traces_with_the_same_option(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "random.trace"
    assert main(["match", "first", "random", "--games", "2", "--sandbox", "none",
                 "--results-dir", str(tmp_path / "m"), "--trace", f"random={trace}"]) == 0
    lines = read_trace(trace)
    assert {bot for _t, bot, _c, _a, _x in lines} == {"random"}
    replies = [text for *_, arrow, text in lines if arrow == "<" and '"reply"' in text]
    requests = [text for *_, arrow, text in lines if arrow == ">" and '"request"' in text]
    assert replies and len(replies) == len(requests)
