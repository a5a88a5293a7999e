"""``arena report`` and ``arena replay --html`` under the ``-o`` rules (arena/outputs.py):
through a link the replay pages go beside the real file; ``-`` is standard output."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.league.store import create_store
from arena.records import GameRecord


@pytest.fixture
def league(ra_game: GameRecord, tmp_path: Path) -> Path:
    store = create_store(tmp_path / "league")
    store.add_game(ra_game)
    store.close()
    return tmp_path / "league"


def test_report_through_a_link_puts_the_replays_beside_the_real_file(
    league: Path, ra_game: GameRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "report.html").symlink_to(site / "index.html")
    assert main(["report", str(league), "-o", str(tmp_path / "report.html")]) == 0
    assert (tmp_path / "report.html").is_symlink()
    page = (site / "index.html").read_text()
    assert f'href="index-games/{ra_game.game_id}.html"' in page
    assert (site / "index-games" / f"{ra_game.game_id}.html").is_file()
    assert not (tmp_path / "report-games").exists()
    assert "wrote 1 replay page(s)" in capsys.readouterr().out


def test_report_and_replay_to_dash(league: Path, ra_game: GameRecord, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(league), "-o", "-", "--replays"]) == 0
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("</html>")
    assert "no replay pages" in captured.err and "wrote standard output" in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league"]
    assert main(["replay", ra_game.game_id, "--results", str(league), "--html", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("</html>") and "wrote standard output" in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league"]
