"""What a bot wrote never drives the user's terminal: control characters shown as escapes
in every command's output, JSON output keeping its values."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.schedule import build_schedule
from arena.league.store import create_store
from arena.records import Failure
from arena.terminal import VisibleStream, visible
from tests.league.fakes import fake_record

HOSTILE = "boom\x1b]0;pwned\x07\x1b[31mred\x9b2J\u202eevil\rover"


def test_visible_escapes_every_control_character_but_newline_and_tab() -> None:
    assert visible("a\tb\nc") == "a\tb\nc"
    shown = visible(HOSTILE)
    assert not any(ch in shown for ch in "\x1b\x07\x9b\u202e\r")
    assert "\\u001b]0;pwned\\u0007" in shown and "\\u009b2J" in shown and "\\u202e" in shown
    # inside a JSON string the escapes read back as the same characters
    assert json.loads(f'"{visible(HOSTILE)}"') == HOSTILE


def test_the_progress_lines_own_prefix_still_works() -> None:
    out = io.StringIO()
    VisibleStream(out).write("\r\x1b[2K[###] 3/4 games \x1b[0m")  # type: ignore[arg-type]
    assert out.getvalue() == "\r\x1b[2K[###] 3/4 games \\u001b[0m"


@pytest.fixture
def hostile_store(tmp_path: Path) -> tuple[Path, str]:
    (game,) = build_schedule("ra", ["a", "b"], [2], seed=3)[0][:1]
    record = fake_record(game)
    record = dataclasses.replace(record, failures=(Failure(
        seat=0, bot="a", reason="crash", detail=f"it said {HOSTILE}", phase="decision",
        decision=4, stderr_tail=f"line one\n{HOSTILE}\n"),), placements=(2, 1))
    store = create_store(tmp_path / "res")
    store.add_game(record)
    store.close()
    return tmp_path / "res", game.game_id


def test_replay_shows_a_bots_escape_sequences_as_text(hostile_store, capsys) -> None:
    results, game_id = hostile_store
    assert main(["replay", game_id, "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\r" not in out
    assert "\\u001b]0;pwned\\u0007" in out  # shown, not obeyed


def test_export_stays_valid_json_with_the_same_values(hostile_store, capsys) -> None:
    results, _ = hostile_store
    assert main(["export", str(results)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out
    (line,) = out.splitlines()
    (failure,) = json.loads(line)["record"]["failures"]
    assert failure["stderr_tail"] == f"line one\n{HOSTILE}\n"
