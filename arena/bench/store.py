"""``arena bench store``: bytes on disk per stored game and the time to write and read
them, compressed records (the store today) against JSON text records (store version 1,
the baseline, written in the same run from the same games).

The games are real: random players through the referee, in-process, so the records have
the size and shape of a league's."""

from __future__ import annotations

import argparse
import pickle
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from arena.league.schedule import build_schedule
from arena.league.store import (
    create_store,
    file_bytes,
    open_store,
    pack_record,
    write_version_one_store,
)
from arena.plugins import load_game
from arena.records import GameRecord
from arena.runner.players import random_player
from arena.runner.referee import play_game

GAMES_PER_COUNT = 500


def _records(game_name: str, num_players: int, count: int, seed: int) -> list[GameRecord]:
    game = load_game(game_name)
    bots = [f"bot{i}" for i in range(12)]  # enough tables for the games asked for
    schedule, _ = build_schedule(game_name, bots, [num_players], seed=seed)
    records = []
    for scheduled in schedule[:count]:
        players = [random_player(name) for name in scheduled.seats]
        record = trio.run(play_game, game, players, scheduled.seed)
        records.append(record.in_league(scheduled.game_id, scheduled.table, scheduled.round))
    return records


def _measure(records: list[GameRecord], folder: Path, version_one: bool) -> dict[str, float]:
    start = time.perf_counter()
    if version_one:
        write_version_one_store(folder, records)
    else:
        store = create_store(folder)
        for record in records:
            store.add_game(record)
        store.close()
    written = time.perf_counter() - start
    start = time.perf_counter()
    reader = open_store(folder)
    read = sum(1 for _ in reader.games())
    reader.close()
    assert read == len(records)
    return {
        "disk": file_bytes(folder) / len(records),
        "write_ms": 1000 * written / len(records),
        "read_ms": 1000 * (time.perf_counter() - start) / len(records),
    }


def _coordinator(records: list[GameRecord], folder: Path) -> dict[str, float]:
    """CPU ms per game of a worker process and of the coordinator (the one writer) when
    worker processes send whole records (pickled; the coordinator encodes, compresses and
    inserts: until issue 16) and when they send them packed (``pack_record``; the
    coordinator inserts), alternated game by game into two stores."""
    stores = {mode: create_store(folder / mode) for mode in ("record", "packed")}
    spent = {f"{mode} {side}": 0.0 for mode in stores for side in ("worker", "coordinator")}
    for store in stores.values():  # each store has its dictionary, as after a league's start
        store.add_game(records[0])
    for record in records[1:]:
        for mode, store in stores.items():
            started = time.process_time()
            if mode == "packed":
                frame = pickle.dumps(pack_record(record, store.dictionary(record.game)))
            else:
                frame = pickle.dumps(record)
            sent = time.process_time()
            store.add_game(pickle.loads(frame))
            spent[f"{mode} worker"] += sent - started
            spent[f"{mode} coordinator"] += time.process_time() - sent
    for store in stores.values():
        store.close()
    return {key: 1000 * value / (len(records) - 1) for key, value in spent.items()}


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    seed = int(getattr(args, "seed", 1))
    counts = getattr(args, "players", None) or [2, 3, 4, 5]
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-store-") as scratch:
        for num_players in counts:
            records = _records("ra", num_players, GAMES_PER_COUNT, seed)
            text = _measure(records, Path(scratch) / f"text{num_players}", version_one=True)
            packed = _measure(records, Path(scratch) / f"zlib{num_players}", version_one=False)
            sides = _coordinator(records, Path(scratch) / f"sides{num_players}")
            rows.append({
                "players": num_players,
                "games": len(records),
                "v1 text (KB/game on disk)": text["disk"] / 1000,
                "zlib (KB/game on disk)": packed["disk"] / 1000,
                "ratio": text["disk"] / packed["disk"],
                "write v1 (ms/game)": text["write_ms"],
                "write zlib (ms/game)": packed["write_ms"],
                "read v1 (ms/game)": text["read_ms"],
                "read zlib (ms/game)": packed["read_ms"],
                "coordinator, record / packed (ms/game)":
                    f"{sides['record coordinator']:.3f} / {sides['packed coordinator']:.3f}",
                "worker, record / packed (ms/game)":
                    f"{sides['record worker']:.3f} / {sides['packed worker']:.3f}",
            })
    return {
        "title": "League store: Ra records on disk, zlib-compressed (today) vs JSON text "
                 "(store version 1)",
        "benchmark": "store",
        "rows": rows,
        "notes": [
            "baseline: the same games written as store version 1 (JSON text records) in "
            "this run; disk = league.sqlite after a WAL checkpoint, divided by the games",
            "zlib: each record compressed with its game's preset dictionary (the first "
            "record stored), 16 KB pages; disk includes the dictionary and empty tables",
            "games: random players through the referee, in-process, seed "
            f"{seed}; read = every record parsed back (replay, export)",
            "goal (issue 14): at most 3 KB per game on disk",
            "coordinator / worker: CPU per game on each side when worker processes send "
            "whole records (pickled; the coordinator encodes, compresses and inserts: the "
            "baseline, until issue 16) or packed records (store.pack_record, today; the "
            "coordinator only inserts), alternated game by game in this run",
        ],
    }
