"""``arena bench formats``: the real formats on bots of known strength, the same truths for
every format, the round robin at the same games as the baseline."""

from __future__ import annotations

import argparse

import pytest

from arena.bench import formats as bench
from arena.bench.formats import goal_lines, measure, run_benchmark, spearman


def test_rows_for_every_format_at_about_equal_games() -> None:
    rows = measure(16, 2, repetitions=3, seed=4)
    assert [(row["format"], row["setting"]) for row in rows] == [
        ("swiss", "2 rounds"), ("round robin", "1 orbit"), ("swiss", "4 rounds"),
        ("round robin", "2 orbits"), ("swiss", "8 rounds"), ("round robin", "4 orbits"),
        ("knockout", "matches of 2"), ("knockout", "matches of 4"),
        ("knockout", "matches of 8")]
    games = {row["setting"]: row["games"] for row in rows}
    # k j Swiss rounds give as many games as j orbits of the round robin's sample
    assert games["2 rounds"] == games["1 orbit"] == 32
    assert games["8 rounds"] == games["4 orbits"] == 128
    assert games["matches of 2"] >= 15 * 2  # 15 matches, and any tie-break sets
    for row in rows:
        assert -1 <= row["Spearman"] <= 1 and len(row["found"]) == 3
    assert measure(16, 2, repetitions=3, seed=4) == rows  # seeded: the same figures
    assert measure(16, 2, repetitions=3, seed=5) != rows


def test_a_field_far_apart_is_ranked_right_by_every_format(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "SPREAD", 5000.0)  # luck no longer matters
    for row in measure(9, 3, repetitions=3, seed=1):
        if row["format"] != "knockout" and row["setting"] not in ("3 rounds", "1 orbit"):
            assert row["best first (share)"] == 1.0 and row["Spearman"] > 0.9, row
        if row["format"] == "knockout":  # the winner is right; the rest is by round
            assert row["best first (share)"] == 1.0, row


def test_spearman() -> None:
    truth = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert spearman(["a", "b", "c"], truth) == 1.0
    assert spearman(["c", "b", "a"], truth) == -1.0


def test_the_goal_is_judged_at_32_and_64_bots_against_equal_games() -> None:
    def row(format_: str, setting: str, share: float, found: list[bool]) -> dict[str, object]:
        return {"bots": 32, "players": 2, "format": format_, "setting": setting,
                "games": 128, "best first": f"{100 * share:.0f}%",
                "best first (share)": share, "found": found}

    rows = [row("swiss", "4 rounds", 0.5, [True, True, False, False]),
            row("round robin", "2 orbits", 0.25, [True, False, False, False])]
    (line,) = goal_lines(rows)
    assert line.startswith("goal met at 32 bots, 2 players, 128 games: Swiss 50%")
    assert "only Swiss found it 1 times, only round robin 0" in line
    rows[0]["best first (share)"] = 0.25
    assert goal_lines(rows)[0].startswith("goal NOT met")
    assert goal_lines([{**r, "bots": 16} for r in rows]) == []


def test_the_command_prints_its_baseline_and_title() -> None:
    args = argparse.Namespace(seed=1, repetitions=2, bots=[6], players=[2])
    result = run_benchmark(args)
    assert "baseline: the round robin at the same games, same run" in result["title"]
    assert len(result["rows"]) == 9 and "found" not in result["rows"][0]
