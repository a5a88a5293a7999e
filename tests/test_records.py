"""The game record: its JSON form (docs/records.md) is exactly what earlier versions
exported, stores written by earlier versions still read, and bad documents say why."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.league.store import DB_NAME, VERSION_ONE_SCHEMA, create_store, open_store
from arena.plugins import load_game
from arena.records import GameRecord, GameResult, RecordError
from arena.runner.players import first_player, random_player
from arena.runner.referee import play_game

# Two lines of `arena export` written by the version before GameRecord existed (a Ra game
# with a crash and comments, a Ra: The Dice Game game with a crash), byte for byte.
EXPORTED_V1 = Path(__file__).with_name("golden") / "export-v1.jsonl"


def compact(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def test_the_json_form_of_earlier_exports_round_trips_byte_for_byte() -> None:
    for line in EXPORTED_V1.read_text().splitlines():
        record = GameRecord.from_json(json.loads(line))
        assert compact(record.to_json()) == line
        assert record.status == "failed" and len(record.forfeits) == 1


def test_a_store_written_by_an_earlier_version_reads_and_exports_the_same(
    tmp_path: Path,
) -> None:
    lines = EXPORTED_V1.read_text().splitlines()
    connection = sqlite3.connect(tmp_path / DB_NAME)
    connection.executescript(VERSION_ONE_SCHEMA)  # the schema as version 1 created it
    with connection:  # the rows as the earlier writer laid them out, column by column
        for line in lines:
            game = json.loads(line)
            connection.execute(
                "INSERT INTO games (seq, game_id, game, table_id, round, num_players, seats,"
                " seed, status, scores, placements, failures, timings, record, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game["sequence"] + 1, game["game_id"], game["game"], game["table"],
                 game["round"], len(game["seats"]), json.dumps(game["seats"]), game["seed"],
                 game["status"], json.dumps(game["scores"]), json.dumps(game["placements"]),
                 json.dumps(game["failures"]), json.dumps(game["timings"]),
                 compact(game["record"]), game["finished_at"]))
    connection.close()
    # read as it is, then converted to the current version when opened for playing
    for opener in (open_store, create_store):
        store = opener(tmp_path)
        try:
            out = tmp_path / "out.jsonl"
            with out.open("w") as stream:
                assert store.export(stream) == 2
            assert out.read_text().splitlines() == lines
            results = store.results()
            assert results == [GameRecord.from_json(json.loads(line)).result() for line in lines]
            assert results[0].failures == {0: "crash"} and results[1].sequence == 7
        finally:
            store.close()


def test_the_referee_record_goes_through_the_store_unchanged(tmp_path: Path) -> None:
    game = load_game("ra")
    played = trio.run(play_game, game, [random_player("r"), first_player("f")], 9)
    record = played.in_league("g1", "t1", 2)
    store = create_store(tmp_path)
    try:
        assert store.add_game(record)
        stored = store.find_game("g1")
    finally:
        store.close()
    assert stored.sequence == 0 and stored.finished_at is not None
    assert dataclasses.replace(stored, sequence=None, finished_at=None) == record
    assert game.replay(stored.engine).placements() == list(stored.placements)
    assert stored.result() == GameResult("g1", "ra", ("r", "f"),
                                         tuple(float(s) for s in played.scores),
                                         played.placements, {}, 0)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("record"), "'record' is missing or not of type Mapping"),
    (lambda d: d["record"].pop("engine"), "'engine' is missing"),
    (lambda d: d["record"].update(seed="7"), "'seed' is missing or not of type int"),
    (lambda d: d["record"]["players"][0].pop("name"), "'name' is missing"),
    (lambda d: d["record"]["failures"][0].update(seat=None), "'seat' is missing"),
])
def test_a_document_that_is_not_a_record_says_which_key(change, message: str) -> None:
    data = json.loads(EXPORTED_V1.read_text().splitlines()[0])
    change(data)
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(data)


def test_an_unreadable_stored_record_is_a_user_error_naming_the_game(tmp_path: Path) -> None:
    line = EXPORTED_V1.read_text().splitlines()[0]
    store = create_store(tmp_path)
    try:
        store.add_game(GameRecord.from_json(json.loads(line)))
        store.connection.execute("UPDATE games SET record = '{\"game\": 1'")
        game_id = json.loads(line)["game_id"]
        with pytest.raises(ArenaError, match=f"game {game_id} cannot be read"):
            store.find_game(game_id)
    finally:
        store.close()
