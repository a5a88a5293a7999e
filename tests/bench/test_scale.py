"""``arena bench scale``, tiny: it runs the real commands on a synthesised store, prints
the target line and the same-run baseline, and samples the league's memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bench import scale
from arena.bench.scale import memory_figures, synthesise_store
from arena.cli import main
from arena.league.store import open_store


@pytest.fixture(autouse=True)
def _one_run_each(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale, "REPEATS", 1)  # each subprocess costs a second or more


def test_a_tiny_run_prints_the_target_and_the_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "scale", "--games", "200", "--league-games", "60"]) == 0
    out = capsys.readouterr().out
    assert "arena leaderboard" in out and "arena report" in out
    assert "target (issue 16 item 5): each command within 5 s on 200 games:" in out
    assert "baseline (same run): python start-up + import arena.cli" in out
    assert "league memory:" in out and "MB per 10,000 games" in out


def test_json_has_the_rows_baselines_and_league(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", "--games", "100", "--league-games", "40", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {row["command"] for row in result["rows"]} == {"arena leaderboard", "arena report"}
    assert all(row["seconds"] > 0 and row["peak MB"] > 0 for row in result["rows"])
    assert result["baseline"]["start-up seconds"] > 0
    assert result["league"]["games"] >= 40 and result["league"]["100% MB"] > 0


def test_the_synthesised_store_is_a_readable_league(tmp_path: Path) -> None:
    synthesise_store(tmp_path / "results", 300, seed=2)
    store = open_store(tmp_path / "results")
    try:
        results = store.results()
        record = store.find_game(results[0].game_id)  # records decompress
    finally:
        store.close()
    assert len(results) == 300 and {r.num_players for r in results} == {2, 3, 4, 5}
    assert record.game == "ra" and len({b for r in results for b in r.bots}) == 40


def test_memory_figures_read_the_samples() -> None:
    samples = [(n, 100.0 + n / 10_000) for n in range(0, 100_001, 1000)]
    figures = memory_figures(samples)
    assert figures["10% MB"] == pytest.approx(101.0) and figures["100% MB"] == 110.0
    assert figures["MB per 10,000 games"] == pytest.approx(1.0)


@pytest.mark.parametrize("option", ["--games", "--league-games"])
def test_counts_must_be_positive(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", option, "0"]) == 2
    assert f"{option} must be at least 1, not 0" in capsys.readouterr().err


def test_each_row_runs_the_arena_it_names(tmp_path: Path) -> None:
    """The commands run outside any checkout with the named one first on the path:
    ``python -m`` puts the working directory first, which made ``--against`` measure the
    checkout the bench was started in."""
    import subprocess
    import sys

    import arena
    from arena.bench import scale

    other = tmp_path / "other"
    (other / "arena").mkdir(parents=True)
    (other / "arena" / "__init__.py").write_text("WHO = 'other'\n")
    here = str(Path(arena.__file__).resolve())
    for source, expected in ((None, here), (str(other), str(other / "arena" / "__init__.py"))):
        done = subprocess.run(
            [sys.executable, "-c", "import arena; print(arena.__file__)"],
            env=scale._environment(source), cwd=tmp_path, capture_output=True, text=True,
            check=True)
        assert str(Path(done.stdout.strip()).resolve()) == str(Path(expected).resolve())
