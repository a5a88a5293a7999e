"""``arena serve migrate DIR postgresql://...``: a used SQLite server copied into
PostgreSQL whole (accounts, tokens, bots and versions, verdicts, friendly games, the
ladder's games and its deal key), checked, resumable after an interruption, and then
served from PostgreSQL as it was served from SQLite."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.schedule import build_schedule
from arena.server import migrate
from arena.server.settings import load_settings
from arena.server.store import FRIENDLY, LADDER, open_league_store, open_server_store
from tests.league.fakes import fake_record
from tests.postgres import CURRENT
from tests.server.conftest import bot_archive, in_process, make_server_folder

pytestmark = [pytest.mark.anyio, pytest.mark.postgresql_only]


async def _used_server(folder: Path) -> dict[str, Any]:
    """A SQLite server with accounts, a token, a bot's versions, a verdict, a friendly
    request, ladder and friendly games: what a client saw of it."""
    async with in_process(folder) as api:
        token = await api.account("ada")
        await api.account("bob")
        for _ in range(2):
            answer = await api.upload(token, "ada", "mine", bot_archive("mine"))
            assert answer.status_code == 202, answer.text
        store = api.server.store
        store.finish_validation(1, "valid", "1", {"passed": True}, "ok", "")
        store.finish_validation(2, "valid", "1", {"passed": True}, "ok", "")
        assert store.start_verdict(2, 1)
        store.save_verdict(2, "stronger", 60.0, 10.0, 110.0, 40)
        user = store.user("ada")
        assert user is not None
        store.add_friendly(user.id, 1, ["ada/mine@2", "arena/random@x"], 3)
        store.next_counter("ladder_tables")
        bots = ["ada/mine@1", "ada/mine@2", *(f"other{n}" for n in range(6))]
        schedule, _ = build_schedule("ra", bots, [2], seed=3)
        for game in schedule[:30]:
            api.server.league_store.add_game(fake_record(game))
        deal_key = api.server.league_store.deal_key()
    friendly = open_league_store(load_settings(folder), FRIENDLY, writer=True)
    friendly.add_game(fake_record(schedule[30]))
    friendly.close()
    async with in_process(folder) as api:
        auth = {"Authorization": f"Bearer {token}"}
        return {"token": token, "deal_key": deal_key,
                "me": (await api.client.get("/api/v1/me", headers=auth)).json(),
                "bot": (await api.client.get("/api/v1/bots/ada/mine", headers=auth)).json(),
                "game": (await api.client.get(f"/api/v1/games/{schedule[0].game_id}")).json(),
                "friendly": (await api.client.get(
                    f"/api/v1/games/{schedule[30].game_id}")).json()}


def _database() -> str:
    assert CURRENT.cluster is not None
    url = CURRENT.cluster.new_database()
    CURRENT.databases.append(url)
    return url


async def test_a_used_server_is_copied_whole_checked_and_served_from_postgresql(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, sqlite=True)
    seen = await _used_server(folder)
    url = _database()
    capsys.readouterr()
    assert main(["serve", "migrate", str(folder), url]) == 0
    out = capsys.readouterr().out
    assert "the same rows on both sides (30 ladder games)" in out, out
    assert "rows and" in out and "games compared whole" in out
    settings = load_settings(folder)
    assert settings.database == url  # settings.toml names it now
    # a second run finds everything there and changes nothing
    report = migrate.migrate(dataclasses.replace(settings, database=""), url,
                             lambda line: None)
    assert report.copied["ladder.games"] == 0 and not report.mismatched()
    assert report.counts["ladder.games"] == (30, 30)
    async with in_process(folder) as api:  # the same answers, from PostgreSQL
        auth = {"Authorization": f"Bearer {seen['token']}"}
        assert (await api.client.get("/api/v1/me", headers=auth)).json() == seen["me"]
        assert (await api.client.get("/api/v1/bots/ada/mine", headers=auth)).json() \
            == seen["bot"]
        for key in ("game", "friendly"):
            game_id = seen[key]["game_id"]
            assert (await api.client.get(f"/api/v1/games/{game_id}")).json() == seen[key]
        assert api.server.league_store.deal_key() == seen["deal_key"]  # kept, not shown
        # new rows are numbered after the copied ones
        token = await api.account("cyd")
        answer = await api.upload(token, "cyd", "new", bot_archive("new"))
        assert answer.json()["id"] == 3
        assert api.server.store.next_counter("ladder_tables") == 1


async def test_an_interrupted_migration_finishes_when_run_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, sqlite=True)
    await _used_server(folder)
    url = _database()
    settings = load_settings(folder)
    monkeypatch.setattr(migrate, "BATCH", 7)
    real_table = migrate._Copier.table

    def interrupted(self: Any, source: Any, name: str, target: Any, table: str,
                    *rest: Any) -> int:
        if (table, rest[-1]) != ("games", "ladder."):
            return int(real_table(self, source, name, target, table, *rest))
        batches: list[int] = []
        run_many = target.run_many

        def two_batches(sql: str, rows: Any) -> None:  # then a Ctrl-C
            if len(batches) == 2:
                raise KeyboardInterrupt
            run_many(sql, rows)
            batches.append(len(rows))

        target.run_many = two_batches
        try:
            return int(real_table(self, source, name, target, table, *rest))
        finally:
            target.run_many = run_many

    monkeypatch.setattr(migrate._Copier, "table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        migrate.migrate(settings, url, lambda line: None)
    partial = open_league_store(dataclasses.replace(settings, database=url), LADDER)
    assert partial.count() == 14  # two batches of 7, each whole
    partial.close()
    monkeypatch.setattr(migrate._Copier, "table", real_table)
    report = migrate.migrate(settings, url, lambda line: None)
    assert report.counts["ladder.games"] == (30, 30)
    assert report.copied["ladder.games"] == 16  # it resumed after the last batch
    assert report.compared_games > 0 and report.compared_rows > 0


async def test_a_database_holding_another_server_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    make_server_folder(first, capsys, sqlite=True)
    make_server_folder(second, capsys, sqlite=True)
    url = _database()
    migrate.migrate(load_settings(first), url, lambda line: None)
    with pytest.raises(ArenaError, match="already holds another server's accounts"):
        migrate.migrate(load_settings(second), url, lambda line: None)
    on_postgresql = dataclasses.replace(load_settings(first), database=url)
    with pytest.raises(ArenaError, match="already uses"):  # nothing to migrate
        migrate.migrate(on_postgresql, url, lambda line: None)
    store = open_server_store(on_postgresql)
    assert store.user("root") is not None
    store.close()
