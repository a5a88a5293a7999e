"""Store faults: a full disk, a damaged page and an empty file each end in one clear line
and a non-zero exit, and nothing already stored is lost."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import stat
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.run import run_league
from arena.league.schedule import build_schedule
from arena.league.store import DB_NAME, create_store, open_store
from tests.league.fakes import FakePlay, bots, fake_record

NAMES = ["a", "b", "c", "d"]


def play(path: Path) -> int:
    return run_league(load_league(path), backend=FunctionBackend(FakePlay()), bots=bots(NAMES),
                      out=io.StringIO(), err=io.StringIO(), quiet=True)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_empty_store_file_is_refused_not_taken_for_a_new_league(
        league_file, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = league_file('roster = ["random", "first", "greedy"]')
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / DB_NAME).touch()
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is empty (0 bytes): it is not a league store" in err
    assert (tmp_path / "out" / DB_NAME).stat().st_size == 0  # left as it was
    with pytest.raises(ArenaError, match="is empty"):
        open_store(tmp_path / "out")


def test_a_new_store_is_made_whole_and_readable_by_its_owner_only(tmp_path: Path) -> None:
    store = create_store(tmp_path / "res")
    store.close()
    path = tmp_path / "res" / DB_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".new")) == []
    with sqlite3.connect(path) as check:
        assert check.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)


def test_a_damaged_page_stops_the_run_with_one_line_and_changes_nothing(
        league_file, tmp_path: Path) -> None:
    path = league_file(f"roster = {NAMES}", "rounds = 3")
    assert play(path) == 0
    store_path = tmp_path / "out" / DB_NAME
    with sqlite3.connect(store_path) as connection:  # everything into the main file
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(store_path.read_bytes())
    data[-page_size:] = b"\xa5" * page_size  # garbage over the last page
    store_path.write_bytes(bytes(data))
    before = digest(store_path)

    with pytest.raises(ArenaError) as raised:  # `arena run` prints it as one line, exit 2
        play(path)
    message = str(raised.value)
    assert "\n" not in message and "is damaged" in message
    assert "nothing more was written to it" in message
    assert digest(store_path) == before


def test_a_full_disk_is_one_line_and_every_game_stored_before_is_kept(tmp_path: Path) -> None:
    games = [game for seed in range(1, 100)
             for game in build_schedule("ra", NAMES, [3], seed=seed)[0]]
    store = create_store(tmp_path / "res")
    # SQLite's own "database or disk is full", at a size reached after a few games
    pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
    store.connection.execute(f"PRAGMA max_page_count = {pages + 1}")
    stored = 0
    with pytest.raises(ArenaError) as raised:
        for game in games:
            stored += store.add_game(fake_record(game))
    store.close()
    message = str(raised.value)
    assert "database or disk is full while storing game" in message
    assert "every game stored before is safe" in message and "\n" not in message
    reopened = open_store(tmp_path / "res")
    assert reopened.count() == stored > 0
    assert reopened.connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    reopened.close()


def _checkpointed(store_path: Path) -> bytearray:
    with sqlite3.connect(store_path) as connection:  # everything into the main file
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return bytearray(store_path.read_bytes())


def test_one_damaged_page_of_the_dictionary_leaves_every_game_readable(
        league_file, tmp_path: Path) -> None:
    path = league_file(f"roster = {NAMES}", "rounds = 3")
    assert play(path) == 0
    store_path = tmp_path / "out" / DB_NAME
    store = open_store(tmp_path / "out")
    ((ident, dictionary),) = store.connection.execute("SELECT id, data FROM dictionaries")
    expected = [record.to_json() for record in store.games()]
    store.close()
    data = _checkpointed(store_path)
    sample = dictionary[:64]
    places = [i for i in range(len(data)) if data.startswith(sample, i)]
    assert len(places) == 3  # the dictionary and its two spare copies, on other pages
    block = 4096
    start = places[0] // block * block  # a 4 KiB page holding the first copy's start
    assert all(not start <= other < start + block for other in places[1:])
    data[start:start + block] = b"\xa5" * block
    store_path.write_bytes(bytes(data))

    damaged = open_store(tmp_path / "out")
    try:
        unreadable: list[str] = []
        assert [record.to_json() for record in damaged.games(unreadable=unreadable)] == expected
        assert unreadable == [] and len(expected) == 36
    finally:
        damaged.close()


def test_export_writes_every_readable_game_and_names_the_rest(league_file, tmp_path: Path,
                                                               capsys) -> None:
    path = league_file(f"roster = {NAMES}", "rounds = 3")
    assert play(path) == 0
    store = open_store(tmp_path / "out")
    broken = sorted(store.played_ids())[:2]
    with store.connection:
        store.connection.executemany("UPDATE games SET record = X'00ff' WHERE game_id = ?",
                                     [(game,) for game in broken])
    store.close()
    assert main(["export", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    exported = [line for line in captured.out.splitlines() if line]
    assert len(exported) == 34 and not any(game in captured.out for game in broken)
    assert "2 games cannot be read" in captured.err
    assert all(game in captured.err for game in broken)


def _ids_by_seq(store_path: Path) -> list[str]:
    with sqlite3.connect(store_path) as connection:
        return [row[0] for row in connection.execute("SELECT game_id FROM games ORDER BY seq")]


def _damage_page(store_path: Path, data: bytearray, page: int) -> None:
    size = 16384  # the store's page size (store.PAGE_SIZE)
    data[(page - 1) * size:page * size] = b"\xa5" * size
    store_path.write_bytes(bytes(data))


@pytest.mark.parametrize("index_too", [False, True])
def test_after_damage_to_the_last_page_export_does_what_the_run_advises(
        league_file, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        index_too: bool) -> None:
    """Issue 43 item 9: the run says `arena export` writes every game still readable;
    it does (rc 1, the lost games named), past the damaged page, also to a file, and
    also when the index of game ids is damaged as well (then a lost game is named by
    its number)."""
    path = league_file(f"roster = {NAMES}", "rounds = 80")
    assert play(path) == 0
    store_path = tmp_path / "out" / DB_NAME
    store = open_store(tmp_path / "out")
    expected = {record.game_id: record.to_json() for record in store.games()}
    store.close()
    order = _ids_by_seq(store_path)
    data = _checkpointed(store_path)
    with sqlite3.connect(store_path) as connection:
        index_root = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_games_1'"
        ).fetchone()[0]
    pages = len(data) // 16384
    assert index_root != pages  # the last page holds rows of the games table
    _damage_page(store_path, data, pages)
    if index_too:
        _damage_page(store_path, data, index_root)

    with pytest.raises(ArenaError) as raised:  # what `arena run` prints, exit 2
        play(path)
    advice = str(raised.value)
    assert "\n" not in advice and "is damaged" in advice
    assert "`arena export` writes every game still readable in it" in advice

    out = tmp_path / "games.jsonl"
    assert main(["export", str(tmp_path / "out"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert exported and all(expected[game["game_id"]] == game for game in exported)
    lost = [game_id for game_id in order if game_id not in {g["game_id"] for g in exported}]
    assert lost and len(exported) + len(lost) == len(expected) == 960
    assert f"{len(lost)} games cannot be read" in err
    # named by id, or (the index damaged too) by their number in the store
    names = lost if not index_too else [f"#{order.index(game) + 1}" for game in lost]
    assert all(name in err for name in names[:20]), err
