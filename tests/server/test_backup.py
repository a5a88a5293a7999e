"""`arena serve backup`: the ladder's database and the friendly games' store, each by its
own online backup."""

from __future__ import annotations

from pathlib import Path

from arena.cli import main
from arena.league.schedule import build_schedule
from arena.league.store import create_store, open_store
from tests.league.fakes import fake_record


def test_the_backup_copies_the_friendly_games_store_too(tmp_path: Path, capsys) -> None:
    folder, copy = tmp_path / "srv", tmp_path / "copy"
    assert main(["serve", "init", str(folder)]) == 0
    friendly = create_store(folder / "friendly")
    (game,) = build_schedule("ra", ["a", "b"], [2], seed=1)[0][:1]
    friendly.add_game(fake_record(game))
    friendly.close()
    capsys.readouterr()
    assert main(["serve", "backup", str(folder), str(copy)]) == 0
    copied = open_store(copy / "friendly")
    assert copied.played_ids() == {game.game_id}
    copied.close()
    assert (copy / "friendly").stat().st_mode & 0o077 == 0
    assert open_store(copy).count() == 0  # the ladder's own, copied too
