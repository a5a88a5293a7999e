"""``arena leaderboard`` and ``arena report`` end to end, on a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.records import GameResult

from .helpers import NAMES, write_store


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory, league: list[GameResult]) -> Path:
    folder = tmp_path_factory.mktemp("league") / "results" / "spring"
    return write_store(folder, league, name="spring")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_leaderboard_prints_a_table(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["leaderboard", str(store_dir), "--bootstrap", "20"], capsys)
    assert code == 0, err
    assert out.startswith("spring: 400 games of ra")
    lines = out.splitlines()
    assert "rank" in lines[1] and "95% interval" in lines[1] and "failures" in lines[1]
    for name in NAMES:
        assert any(f" {name} " in line for line in lines)
    assert lines[3].split()[1] == "foxtrot"


def test_leaderboard_json_and_matrix(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["leaderboard", str(store_dir), "--json", "--matrix", "--bootstrap", "10"], capsys
    )
    assert code == 0
    data = json.loads(out)
    assert data["league"] == "spring" and data["games"] == 400
    assert [b["bot"] for b in data["bots"]][0] == "foxtrot"
    assert set(data["win_rate"]["alpha"]) == set(NAMES) - {"alpha"}


def test_leaderboard_format_and_filters(
    store_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        ["leaderboard", str(store_dir), "--format", "github", "--players", "2", "--matrix",
         "--bootstrap", "0"],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[1].startswith("|")
    games = int(out.split(":")[1].split()[0])
    assert 0 < games < 400  # only the two-player games
    assert "Likelihood that the row bot is stronger" in out


def test_leaderboard_errors_are_clear(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["leaderboard", str(store_dir), "--game", "ra_dice"], capsys)
    assert code == 2 and "no game matches the filter (engines here: ra" in err
    code, _, err = run(["leaderboard", str(store_dir), "--format", "nope"], capsys)
    assert code == 2 and "unknown table format 'nope'" in err
    code, _, err = run(["leaderboard", str(tmp_path / "missing")], capsys)
    assert code == 2 and "no such results folder or league file" in err
    code, _, err = run(["leaderboard", str(tmp_path)], capsys)
    assert code == 2 and "no league results in" in err
    code, _, err = run(["leaderboard", str(store_dir), "--anchor", "zulu"], capsys)
    assert code == 2 and "anchor bot 'zulu'" in err
    with pytest.raises(SystemExit):
        main(["leaderboard", str(store_dir), "--players", "1"])
    assert "at least 2 players" in capsys.readouterr().err


def test_an_empty_league_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_store(tmp_path / "empty", [], name="empty")
    code, _, err = run(["leaderboard", str(tmp_path / "empty")], capsys)
    assert code == 2 and "no game has finished yet" in err


def test_league_file_as_source_uses_its_rating_settings(
    tmp_path: Path, league: list[GameResult], capsys: pytest.CaptureFixture[str]
) -> None:
    write_store(tmp_path / "res", league[:150], name="tiny")
    league_file = tmp_path / "tiny.toml"
    league_file.write_text(
        'name = "tiny"\ngame = "ra"\nplayers = [2, 3, 4]\nroster = ["alpha", "bravo"]\n'
        'results_dir = "res"\n[rating]\nanchor = "charlie"\nbootstrap = 10\n',
        encoding="utf-8",
    )
    code, out, err = run(["leaderboard", str(league_file), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["anchor"] == "charlie" and data["bootstrap"] == 10
    charlie = next(b for b in data["bots"] if b["bot"] == "charlie")
    assert charlie["elo"] == pytest.approx(1500.0)


def test_stored_settings_are_the_default_and_flags_override(
    tmp_path: Path, league: list[GameResult], capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"seed": 5, "rating": {"anchor": "delta", "bootstrap": 7, "prior_games": 1.0}}
    folder = write_store(tmp_path / "r", league[:100], config=config)
    _, out, _ = run(["leaderboard", str(folder), "--json"], capsys)
    assert json.loads(out)["anchor"] == "delta" and json.loads(out)["bootstrap"] == 7
    _, out, _ = run(["leaderboard", str(folder), "--json", "--anchor", "echo", "--bootstrap", "3"],
                    capsys)  # fmt: skip
    assert json.loads(out)["anchor"] == "echo" and json.loads(out)["bootstrap"] == 3


def test_default_source_is_the_one_league_under_results(
    tmp_path: Path,
    league: list[GameResult],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["leaderboard"], capsys)
    assert code == 2 and "no league results found" in err
    write_store(tmp_path / "results" / "one", league[:60], name="one")
    code, out, _ = run(["leaderboard", "--bootstrap", "0"], capsys)
    assert code == 0 and out.startswith("one: 60 games")
    write_store(tmp_path / "results" / "two", league[:60], name="two")
    code, _, err = run(["leaderboard"], capsys)
    assert code == 2 and "several leagues found" in err and "two" in err


def test_report_writes_one_html_file(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.html"
    code, out, err = run(["report", str(store_dir), "-o", str(target), "--bootstrap", "10"], capsys)
    assert code == 0, err
    assert out.startswith(f"wrote {target}")
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "spring" in page and "foxtrot" in page
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]  # no temporary left behind


def test_report_default_location_and_bad_output(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["report", str(store_dir), "--bootstrap", "0"], capsys)
    assert code == 0 and (store_dir / "report.html").is_file()
    (store_dir / "report.html").unlink()
    code, _, err = run(["report", str(store_dir), "-o", str(tmp_path / "no" / "r.html")], capsys)
    assert code == 2 and "does not exist" in err


def test_plackett_luce_column(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["leaderboard", str(store_dir), "--plackett-luce", "--bootstrap", "0"],
                       capsys)  # fmt: skip
    assert code == 0 and "PL Elo" in out.splitlines()[1]
    code, out, _ = run(
        ["leaderboard", str(store_dir), "--plackett-luce", "--json", "--bootstrap", "0"], capsys
    )
    top = json.loads(out)["bots"][0]
    assert top["bot"] == "foxtrot" and abs(top["plackett_luce_elo"] - top["elo"]) < 60


def test_leaderboard_payoffs_as_json_and_csv(
    store_dir: Path, capsys: pytest.CaptureFixture[str], league: list[GameResult]
) -> None:
    import csv
    import io

    code, out, err = run(["leaderboard", str(store_dir), "--payoffs"], capsys)
    assert code == 0, err
    data = json.loads(out)
    compositions = {tuple(sorted(r.bots)) for r in league if len(set(r.bots)) == r.num_players}
    assert {tuple(t["bots"]) for t in data["tables"]} == compositions
    table = data["tables"][0]
    games = [r for r in league if tuple(sorted(r.bots)) == tuple(table["bots"])]
    bot = table["bots"][0]
    scores = [r.scores[r.bots.index(bot)] for r in games]
    assert table["payoffs"][bot]["games"] == len(games)
    assert table["payoffs"][bot]["mean_score"] == pytest.approx(sum(scores) / len(scores))
    code, out, _ = run(["leaderboard", str(store_dir), "--payoffs", "csv"], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == sum(len(t["bots"]) for t in data["tables"])
    with pytest.raises(SystemExit) as stopped:
        main(["leaderboard", str(store_dir), "--payoffs", "xml"])
    assert stopped.value.code == 2 and "invalid choice: 'xml'" in capsys.readouterr().err


def test_leaderboard_game_theory_and_fairness(
    store_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["leaderboard", str(store_dir), "--alpha-rank", "--fairness", "--bootstrap", "0"], capsys
    )
    assert code == 0, err
    header = out.splitlines()[1]
    assert "α-Rank" in header and "Nash" not in header and "ahead of next" in header
    assert "Seat advantage" in out and "Elo vs other seats" in out
    code, out, _ = run(
        ["leaderboard", str(store_dir), "--json", "--nash", "--fairness", "--bootstrap", "0"],
        capsys,
    )
    data = json.loads(out)
    assert "nash_average" in data["bots"][0] and "alpha_rank" not in data["bots"][0]
    low, high = data["seats"][0]["elo_advantage_interval"]
    assert low <= data["seats"][0]["elo_advantage"] <= high
