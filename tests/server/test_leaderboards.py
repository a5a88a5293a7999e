"""The server's leaderboards: read from the store once, then each stored game folded in,
the board the API shows equal to ``arena leaderboard``'s over the same games."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.records import GameResult
from arena.report.leaderboard import build_leaderboard, leaderboard_json
from tests.report.helpers import record_of
from tests.server.conftest import in_process, make_server_folder

pytestmark = pytest.mark.anyio


def two_player(number: int, winner: str, loser: str) -> GameResult:
    return GameResult(f"game{number:04d}", "ra", (winner, loser), (10.0, 4.0), (1, 2))


async def test_a_stored_game_shows_on_the_leaderboard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)  # 2-player tables
    async with in_process(folder) as api:
        server = api.server
        for number in range(12):  # stored before the leaderboards start: read at once
            result = two_player(number, *(("a", "b") if number % 3 else ("b", "a")))
            server.league_store.add_game(record_of(result))
        await server.leaderboards.compute()
        before = (await api.client.get("/api/v1/leaderboard?players=2")).json()
        assert before["games"] == 12 and {row["bot"] for row in before["bots"]} == {"a", "b"}
        for number in range(12, 15):  # newcomer c beats a, as the ladder stores it
            result = two_player(number, "c", "a")
            server.league_store.add_game(record_of(result))
            server.leaderboards.game_stored(result)
        server.leaderboards.game_stored(result)  # told twice: counted once
        await server.leaderboards.compute()
        after = (await api.client.get("/api/v1/leaderboard?players=2")).json()
        assert after["games"] == 15
        assert after["recent"][0]["game_id"] == "game0014"
        rows = {row["bot"]: row for row in after["bots"]}
        old = {row["bot"]: row for row in before["bots"]}
        assert rows["c"]["games"] == 3 and rows["c"]["elo"] > rows["b"]["elo"]
        assert rows["a"]["elo"] < old["a"]["elo"]  # a's losses to c count
        # the same numbers as arena leaderboard over the store's games
        expected = leaderboard_json(build_leaderboard(
            server.league_store.results("ra"), bootstrap=server.settings.rating_bootstrap))
        for row in expected["bots"]:
            for key in ("elo", "low", "high", "games", "rank"):
                assert rows[row["bot"]][key] == pytest.approx(row[key], abs=0.011)
