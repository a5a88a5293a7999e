"""The duplicate-seed gauntlet: every seating of each deal, resumable, clear errors."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.strategies.gauntlet import main, make_player, seatings, summary, table_for
from arena.strategies.mcts import STEPS


def test_every_distinct_seating_is_played_once() -> None:
    assert len(seatings(["a", "b", "c"])) == 6
    assert len(seatings(["a", "b", "g", "g"])) == 12  # the field's two seats are alike
    assert table_for("new", "old", ["greedy"], 4) == ["new", "old", "greedy", "greedy"]


@pytest.mark.parametrize(("spec", "message"), [
    ("nobody", "unknown bot"),
    ("mcts@0.1", "no version '0.1'"),
    ("mcts/speed=3", "unknown option 'speed'"),
    ("mcts/exploration=lots", "exploration must be a float"),
    ("mcts/reward=mean", "reward must be one of"),
    ("mcts/iterations=0", "iterations must be a whole number"),
    ("greedy/iterations=5", "only mcts and dice-mcts"),
])
def test_a_bad_bot_name_is_refused_clearly(spec: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        make_player(spec)


def test_options_change_only_the_named_setting() -> None:
    player = make_player("mcts@1.0/exploration=0.5/iterations=7")
    assert player.name == "mcts@1.0/exploration=0.5/iterations=7"
    assert STEPS["1.0"].exploration == 0.7  # the step itself is untouched


def test_a_misspelt_bot_stops_before_any_game(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.jsonl"
    assert main(["mcts/iterations=5", "grredy", "--out", str(out)]) == 2
    assert "unknown bot 'grredy'" in capsys.readouterr().err
    assert not out.exists()


def test_it_plays_every_seating_resumes_and_rates(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.jsonl"
    args = ["mcts/iterations=20", "first", "--field", "random", "--players", "3",
            "--deals", "1", "--move-seconds", "5", "--out", str(out), "--quiet", "--json"]
    assert main(args) == 0
    info = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == info["games"] == 6
    assert len({tuple(r["bots"]) for r in rows}) == 6 and len({r["seed"] for r in rows}) == 1
    elo, low, high = info["elo"]["mcts/iterations=20"]
    assert low <= elo <= high and info["elo"]["first"] == [0, 0, 0]  # the baseline anchors
    assert info["head_to_head"]["ahead"] + info["head_to_head"]["behind"] <= 6
    # run again: nothing is replayed, nothing lost, the same summary
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 6
    assert out.read_text().count("\n") == 6


def test_a_results_file_of_other_settings_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.jsonl"
    base = ["mcts/iterations=5", "first", "--field", "random", "--players", "2", "--deals",
            "1", "--out", str(out), "--quiet"]
    assert main(base) == 0
    capsys.readouterr()
    assert main([*base, "--seed", "9"]) == 2
    assert "other settings" in capsys.readouterr().err
    assert out.read_text().count("\n") == 2  # untouched


def test_a_torn_last_line_is_reported_not_ignored(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.jsonl"
    out.write_text('{"players": 2')
    assert main(["mcts/iterations=5", "first", "--players", "2", "--out", str(out)]) == 2
    assert "not a JSON line" in capsys.readouterr().err


def test_the_summary_counts_failures_per_bot() -> None:
    rows = [{"players": 2, "deal": 0, "bots": ["a", "b"], "scores": [3, 1],
             "placements": [1, 2], "failures": {"1": "timeout"}, "max_seconds": [0.1, 0.9],
             "load": 1.0}]
    info = summary(rows, baseline="b", challenger="a", bootstrap=10)
    assert info["failures"] == {"a": 0, "b": 1}
    assert info["slowest_decision"] == {"a": 0.1, "b": 0.9}
    assert info["head_to_head"] == {"ahead": 1, "behind": 0}


def test_a_file_another_gauntlet_is_writing_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.jsonl"
    with out.open("a") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        assert main(["mcts/iterations=5", "first", "--players", "2", "--out", str(out)]) == 2
    assert "another gauntlet is writing" in capsys.readouterr().err
    assert out.read_text() == ""


def test_a_bot_of_the_other_game_is_refused(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["mcts", "dice-greedy", "--game", "ra_dice"])
    assert stop.value.code == 2
    assert "mcts plays ra, not ra_dice" in capsys.readouterr().err


def test_pool_sums_the_games_of_several_seeds_and_refuses_another_pair(
        tmp_path: Path, capsys) -> None:
    files = []
    for seed in (1, 2):
        out = tmp_path / f"seed{seed}.jsonl"
        assert main(["random", "first", "--field", "first", "--players", "2", "--deals", "2",
                     "--seed", str(seed), "--out", str(out), "--quiet"]) == 0
        files.append(str(out))
    capsys.readouterr()
    # each file: 2 deals x 2 seatings; the deals of the two seeds are all different games
    assert main(["random", "first", "--players", "2", "--json", "--pool", *files]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 8
    # a file named twice counts once
    assert main(["random", "first", "--json", "--pool", files[0], files[0]]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 4
    assert main(["first", "random", "--pool", *files]) == 2
    assert "a gauntlet of random against first" in capsys.readouterr().err
    assert main(["random", "first", "--game", "ra_dice", "--pool", *files]) == 2
    assert "games of ra, not ra_dice" in capsys.readouterr().err
    assert main(["random", "first", "--pool", str(tmp_path / "none.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
