"""`arena serve backup`: the ladder's database and the friendly games' store, each by its
own online backup (a PostgreSQL server's: one snapshot, copied into SQLite stores in
the copy, which is then a server folder of its own)."""

from __future__ import annotations

from pathlib import Path

from arena.cli import main
from arena.league.schedule import build_schedule
from arena.league.store import open_store
from arena.server.settings import load_settings
from arena.server.store import FRIENDLY, open_league_store
from tests.league.fakes import fake_record
from tests.server.conftest import new_database


def test_the_backup_copies_the_friendly_games_store_too(tmp_path: Path, capsys) -> None:
    folder, copy = tmp_path / "srv", tmp_path / "copy"
    assert main(["serve", "init", str(folder), "--database", new_database()]) == 0
    friendly = open_league_store(load_settings(folder), FRIENDLY, writer=True)
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
    assert not load_settings(copy).postgres  # a folder of its own, whatever the original
