"""``arena bench protocol`` runs and reports every row (no speed assertions here)."""

from __future__ import annotations

import argparse
import re

import pytest

from arena.bench.protocol import run_benchmark, sent_lines
from arena.errors import ArenaError
from arena.runner.protocol import ActionNotice, DecisionRequest, encode


def test_the_protocol_benchmark_reports_all_rows() -> None:
    args = argparse.Namespace(seconds=0.2, players=[2], seed=1, json=True)
    result = run_benchmark(args)
    assert [row["path"].split(",")[0] for row in result["rows"]] == [
        "raw pipe echo (2 Python processes)", "raw pipe echo", "raw pipe echo",
        "raw pipe echo", "raw pipe echo",
        "JSON echo (same JSON work", "arena pipe layer", "full stack", "full stack",
        "full stack", "full stack", "full stack",
        "referee + in-process player (observation built)",
        "referee + in-process player", "trio: one cancel scope with a deadline (per decision)",
        *[f"JSON of a full request and a reply: {label}" for label in
          ("standard library", "orjson (the arena's)", "msgspec")[: len(result["rows"]) - 15]]]
    assert len(result["rows"]) >= 17  # the standard library and orjson at least
    counts = {row["decisions"] for row in result["rows"]}
    assert len(counts) == 1 and counts.pop() > 0  # the same decisions for every row
    for row in result["rows"]:
        assert 0 < row["median µs"] <= row["p99 µs"]
        assert row["arena CPU µs/decision"] > 0
    assert result["trivial_stack_vs_raw_echo"] > 0
    assert result["lean_trivial_stack_vs_lean_raw_echo"] > 0
    assert "target" in result["notes"][0] and "lean requests" in result["notes"][0]
    assert "arena CPU per decision" in result["notes"][0]
    assert set(result["arena_cpu_us_per_decision"]) == {"trivial", "trivial_lean"}
    assert "orjson" in result["notes"][1]
    assert any("sleeping at once" in note for note in result["notes"])
    # the floors: the in-process referee plus the raw echo, over that echo
    floors = result["floor_vs_rotating_echo"]
    assert floors["full"] > 1 and floors["lean"] > 1
    assert any(note.startswith("floors in this run") for note in result["notes"])
    # the raw echo carried the arena's real bytes: lean requests are far smaller
    sizes = re.findall(r"full: median (\d+) bytes.*lean: median (\d+) bytes",
                       result["notes"][2])
    assert sizes and int(sizes[0][1]) * 4 < int(sizes[0][0])


def test_sent_lines_are_what_a_process_player_writes() -> None:
    request = DecisionRequest(2, 1, None, [{"type": "pass"}], 1000, None)
    notice = ActionNotice(1, 0, {"type": "draw"})
    lines = sent_lines([(1, notice), (0, notice), (1, request)])
    assert lines == [(1, encode(notice.to_json()) + encode(request.to_json()))]


@pytest.mark.parametrize(("players", "seconds", "message"), [
    ([9], 1.0, "not 9"), ([2], 0.0, "--seconds must be positive")])
def test_bad_arguments_are_user_errors(players: list[int], seconds: float, message: str
                                       ) -> None:
    args = argparse.Namespace(seconds=seconds, players=players, seed=1, json=False)
    with pytest.raises(ArenaError, match=message):
        run_benchmark(args)
