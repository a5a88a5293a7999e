"""A small league's `arena export`, kept as a golden file: refactors must not change it.

The league (bundled deterministic bots, real processes, Ra at 2 and 3 players) is played
from scratch and exported; everything that depends on the clock or on the order in which
games finish (timings, finished_at, sequence) is left out and the games are sorted by id.
Any other difference is a behaviour change: if it is meant, regenerate the file with

    ARENA_REGENERATE_GOLDEN=1 python -m pytest tests/league/test_golden_export.py

and review the diff like any other change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from arena.cli import main

GOLDEN = Path(__file__).with_name("golden") / "export-ra-small.jsonl"
LEAGUE = """\
name = "golden"
game = "ra"
players = [2, 3]
roster = ["first", "random", "greedy"]
rounds = 1
seed = 424242
public_deals = true
concurrency = 1
workers = 1
results_dir = "out"
[time]
per_decision = 5.0
"""
# (public deals: the games are dealt from the file's seed as before deal keys existed,
# so this file also shows that public deals deal exactly what they always dealt)
# depend on the clock or on finishing order, not on the games
VOLATILE = ("timings", "finished_at", "sequence")


def normalised(line: str) -> dict[str, Any]:
    game: dict[str, Any] = json.loads(line)
    for key in VOLATILE:
        game.pop(key, None)
    record = game.get("record", {})
    record.pop("timings", None)
    return game


def test_league_export_matches_the_golden_file(tmp_path: Path, capsys) -> None:
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE)
    assert main(["run", str(league), "--quiet"]) == 0
    out = tmp_path / "games.jsonl"
    assert main(["export", str(league), "-o", str(out)]) == 0
    capsys.readouterr()
    games = sorted((normalised(line) for line in out.read_text().splitlines()),
                   key=lambda game: game["game_id"])
    text = "".join(json.dumps(game, sort_keys=True) + "\n" for game in games)
    if os.environ.get("ARENA_REGENERATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert len(games) == 9  # 3 pairs x 2 seatings + 1 table x 3 seatings
    expected = GOLDEN.read_text().splitlines()
    got = text.splitlines()
    assert len(got) == len(expected)
    for want, have in zip(expected, got, strict=True):
        assert json.loads(have) == json.loads(want)
