from __future__ import annotations

import dataclasses
import io
import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ArenaError
from arena.league.schedule import build_schedule
from arena.league.store import (
    DB_NAME,
    RECORD_COMPRESSION_LEVEL,
    SCHEMA_VERSION,
    compress,
    create_store,
    decompress,
    open_store,
    pack_record,
    write_version_one_store,
)
from tests.league.fakes import fake_record


def test_games_round_trip_and_never_double(tmp_path: Path) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c", "crashy"], [3], seed=1)
    store = create_store(tmp_path / "res")
    for game in games:
        assert store.add_game(fake_record(game))
    assert not store.add_game(fake_record(games[0]))  # the same game again: ignored
    assert store.count() == len(games) == len(store.played_ids())

    results = store.results()
    assert [r.game_id for r in results] == [g.game_id for g in games]
    assert [r.sequence for r in results] == list(range(len(games)))
    crashed = [r for r in results if "crashy" in r.bots]
    assert crashed and all(r.failures == {r.bots.index("crashy"): "crash"} for r in crashed)
    assert all(r.placements[r.bots.index("crashy")] == 3 for r in crashed)
    assert store.results(game="ra", num_players=3) == results
    assert store.results(num_players=4) == [] and store.results(game="ra_dice") == []

    found = store.find_game(games[2].game_id[:10])
    assert found.seats == games[2].seats and found.seed == games[2].seed
    assert found.sequence == 2 and found.finished_at is not None and found.finished_at > 0
    # the whole record comes back as it went in, plus when it was stored
    unstored = [dataclasses.replace(r, sequence=None, finished_at=None) for r in store.games()]
    assert unstored == [fake_record(game) for game in games]
    out = io.StringIO()
    assert store.export(out) == len(games)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [d["game_id"] for d in lines] == [g.game_id for g in games]
    store.close()

    # WAL mode and a healthy file
    connection = sqlite3.connect(tmp_path / "res" / DB_NAME)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_find_game_errors(tmp_path: Path) -> None:
    store = create_store(tmp_path)
    with pytest.raises(ArenaError, match="no game 'abc'"):
        store.find_game("abc")
    games, _ = build_schedule("ra", ["a", "b", "c", "d", "e", "f"], [2], seed=1)
    for game in games:
        store.add_game(fake_record(game))
    with pytest.raises(ArenaError, match="matches several games"):
        store.find_game("")


def test_open_store_needs_a_league(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="no league results in"):
        open_store(tmp_path)
    (tmp_path / DB_NAME).write_text("this is not sqlite" * 100)
    with pytest.raises(ArenaError, match="not a usable league store"):
        open_store(tmp_path)


def test_one_league_run_at_a_time(tmp_path: Path) -> None:
    first = create_store(tmp_path / "res")
    with pytest.raises(ArenaError, match=r"is being played by arena run \(pid \d+\)"):
        create_store(tmp_path / "res")
    reader = open_store(tmp_path / "res")  # reading (leaderboard, export) is fine
    assert reader.count() == 0
    first.close()
    create_store(tmp_path / "res").close()  # free again


def _version_one_store(folder: Path, games: list[Any]) -> None:
    write_version_one_store(folder, [fake_record(game) for game in games])


def test_records_are_stored_compressed(tmp_path: Path) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c"], [3], seed=4)
    store = create_store(tmp_path)
    for game in games:
        store.add_game(fake_record(game))
    rows = store.connection.execute("SELECT typeof(record), record FROM games").fetchall()
    assert {kind for kind, _ in rows} == {"blob"}
    (dictionary,) = store.connection.execute("SELECT data FROM dictionaries").fetchone()
    for _, blob in rows:  # zlib with the game's preset dictionary, nothing home-made
        unpacker = zlib.decompressobj(zdict=dictionary)
        assert json.loads(unpacker.decompress(blob) + unpacker.flush())["game"] == "ra"
    assert store.connection.execute("PRAGMA page_size").fetchone()[0] == 16384
    version = store.connection.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    store.close()


def test_a_version_one_store_is_read_as_it_is_and_converted_when_played(
    tmp_path: Path,
) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c", "d"], [3], seed=9)
    _version_one_store(tmp_path, games)
    expected = [fake_record(game) for game in games]

    def stored(store: Any) -> list[Any]:
        return [dataclasses.replace(r, sequence=None, finished_at=None) for r in store.games()]

    reader = open_store(tmp_path)  # reading does not write
    assert stored(reader) == expected
    reader_results = reader.results()
    reader.close()
    connection = sqlite3.connect(tmp_path / DB_NAME)
    assert {k for (k,) in connection.execute("SELECT typeof(record) FROM games")} == {"text"}
    connection.close()

    player = create_store(tmp_path)  # opening to play converts, keeping every game
    assert stored(player) == expected
    kinds = {k for (k,) in player.connection.execute("SELECT typeof(record) FROM games")}
    assert kinds == {"blob"}
    columns = {row[1] for row in player.connection.execute("PRAGMA table_info(games)")}
    assert "timings" not in columns and "dictionary" in columns
    assert player.connection.execute("PRAGMA page_size").fetchone()[0] == 16384
    assert player.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert player.results() == reader_results
    assert player.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    player.close()


def test_a_store_from_a_newer_arena_is_refused_not_rewritten(tmp_path: Path) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c"], [3], seed=2)
    store = create_store(tmp_path)
    store.add_game(fake_record(games[0]))
    with store.connection:
        store.connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    store.close()
    for opener in (open_store, create_store):
        with pytest.raises(ArenaError, match="newer arena .*version 99"):
            opener(tmp_path)
    # both refused, and the stored game is still there
    connection = sqlite3.connect(tmp_path / DB_NAME)
    assert connection.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1


def test_a_record_packed_where_it_was_played_is_stored_as_the_record_itself(
        tmp_path: Path) -> None:
    # What a worker process sends: the JSON text before the store has a dictionary,
    # compressed with the store's dictionary after; both read back as the record.
    games, _ = build_schedule("ra", ["a", "b", "c", "crashy"], [3], seed=2)
    direct, packed = create_store(tmp_path / "direct"), create_store(tmp_path / "packed")
    assert packed.dictionary("ra") is None
    for game in games:
        direct.add_game(fake_record(game))
        record = pack_record(fake_record(game), packed.dictionary("ra"))
        assert (record.dictionary is None) == (game is games[0])
        assert packed.add_game(record)
    assert not packed.add_game(pack_record(fake_record(games[1]), packed.dictionary("ra")))
    columns = "game_id, game, table_id, round, num_players, seats, seed, status, scores, " \
              "placements, failures, record, dictionary, worker"
    rows = [store.connection.execute(f"SELECT {columns} FROM games ORDER BY seq").fetchall()
            for store in (direct, packed)]
    assert rows[0] == rows[1]  # byte for byte, the compressed records too
    assert [r.result() for r in packed.games()] == [r.result() for r in direct.games()]
    assert packed.results() == direct.results()
    direct.close()
    packed.close()


def test_a_record_packed_with_another_stores_dictionary_is_refused(tmp_path: Path) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c"], [3], seed=3)
    store = create_store(tmp_path / "one")
    store.add_game(fake_record(games[0]))
    ident, data = store.dictionary("ra") or (0, b"")
    foreign = pack_record(fake_record(games[1]), (ident + 1, data))
    with pytest.raises(ArenaError, match="not this store's"):
        store.add_game(foreign)
    assert store.count() == 1
    store.close()


def test_a_dictionary_made_in_a_failed_transaction_is_not_used_after_it(
        tmp_path: Path) -> None:
    games, _ = build_schedule("ra", ["a", "b", "c"], [3], seed=5)
    store = create_store(tmp_path)
    store.connection.execute(  # the first game's row fails after its dictionary went in
        "CREATE TRIGGER refuse BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'no'); END")
    with pytest.raises(ArenaError):
        store.add_game(fake_record(games[0]))
    store.connection.execute("DROP TRIGGER refuse")
    assert store.dictionary("ra") is None  # rolled back with the game
    assert store.add_game(fake_record(games[0]))
    assert store.add_game(pack_record(fake_record(games[1]), store.dictionary("ra")))
    assert [r.seed for r in store.games()] == [games[0].seed, games[1].seed]
    store.close()


def test_compression_gives_the_bytes_of_a_fresh_compressor_whatever_the_dictionary() -> None:
    texts = [json.dumps({"game": "ra", "seed": seed, "moves": list(range(seed))}).encode()
             for seed in range(1, 6)]
    dictionaries = [b"", b'{"game": "ra", "seed": ' * 40, b'"moves": [0, 1, 2, 3' * 30]
    for text in texts:
        for dictionary in dictionaries:  # interleaved: each dictionary's own compressor
            fresh = zlib.compressobj(RECORD_COMPRESSION_LEVEL, zdict=dictionary) \
                if dictionary else zlib.compressobj(RECORD_COMPRESSION_LEVEL)
            assert compress(text, dictionary) == fresh.compress(text) + fresh.flush()
            assert decompress(compress(text, dictionary), dictionary) == text
