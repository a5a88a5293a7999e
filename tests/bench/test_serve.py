"""arena bench serve: the phases' order and what its summary reports (the real run,
a server and fifty clients, is the benchmark itself: `arena bench serve`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bench import serve
from arena.errors import ArenaError


def test_phases_alternate_abba_so_a_trend_favours_neither(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    order: list[str] = []
    alone = iter([10.0, 7.0])  # the ladder slowing along the run

    async def no_setup(url: str) -> None:
        pass

    async def phase(clients: list[Any], database: Path, seconds: float, paced: bool,
                    seed: int, server: int) -> dict[str, Any]:
        kind = "saturation" if not paced else "class" if clients else "alone"
        order.append(kind)
        rate = next(alone) if kind == "alone" else {"class": 8.5, "saturation": 0.0}[kind]
        return {"games_per_second": rate, "server_cpu": 0.5, "latencies": [0.01, 0.02],
                "steady": [0.02], "arrival": [0.01], "errors": [], "seconds": seconds,
                "by_route": {route: [0.01] for route in serve.ROUTES}, "lags": [0.001]}

    monkeypatch.setattr(serve, "_setup", no_setup)
    monkeypatch.setattr(serve, "_phase", phase)
    class Client:
        async def aclose(self) -> None:
            pass

    monkeypatch.setattr(serve, "_clients", lambda url, count: [Client() for _ in range(count)])
    result = trio.run(serve._measure, "http://127.0.0.1:1", Path("x"), 3, 0.01, 2, 1, 0)
    assert order == ["alone", "class", "class", "alone", "saturation"]
    rows, notes = serve._summary(60.0, 3, 1.0, 2, result)
    assert rows[0]["ladder games/s"] == 8.5 and rows[1]["ladder games/s"] == 8.5
    assert rows[0]["server CPU %"] == 50.0
    assert "+0.0% lost" in notes[0]
    assert "/api/v1/leaderboard 10/10 ms" in notes[1]


def test_with_a_database_sqlite_and_postgresql_with_one_and_two_processes_in_one_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """--database: the class at the default pace on SQLite, then on PostgreSQL with one
    web process and with two, each saturated; the ratio of the two saturations and the
    store call's cost said (the real run: `arena bench serve --database ...`)."""
    import argparse

    runs: list[tuple[float, str, int]] = []

    def one(pace: float, clients: int, seconds: float, rounds: int, seed: int,
            database: str = "", workers: int = 1) -> dict[str, Any]:
        runs.append((pace, database, workers))
        times = [0.01, 0.02]
        return {"alone": [2.0], "loaded": [1.9], "latencies": times, "steady": times,
                "arrival": times, "errors": [], "cpu_alone": [0.1], "cpu_loaded": [0.3],
                "lags": [0.001], "by_route": {route: times for route in serve.ROUTES},
                "saturated": {"latencies": [0.01] * 100 * workers, "seconds": 1.0,
                              "games_per_second": 1.0, "server_cpu": 0.9 * workers,
                              "errors": []}}

    monkeypatch.setattr(serve, "_run_one", one)
    monkeypatch.setattr(serve, "_store_calls", lambda database: ["store calls timed"])
    url = "postgresql://bench@127.0.0.1:5432/bench"
    result = serve.run_benchmark(argparse.Namespace(seconds=1.0, clients=3, seed=1,
                                                    database=url))
    assert runs == [(60.0, "", 1), (60.0, url, 1), (60.0, url, 2)]
    ladders = {row["ladder"] for row in result["rows"]}
    assert ladders == {"60 tables/min, SQLite", "60 tables/min, PostgreSQL",
                       "60 tables/min, PostgreSQL, 2 web processes"}
    assert any("saturate at 2.00 times one (goal: at least 1.3)" in note
               for note in result["notes"])
    assert "store calls timed" in result["notes"]
    with pytest.raises(ArenaError, match="postgresql:// address"):
        serve.run_benchmark(argparse.Namespace(seconds=1.0, clients=3, seed=1,
                                               database="mysql://x"))
