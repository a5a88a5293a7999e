"""What the pages derive from the ladder's games is shared by every viewer until the
games change (server/cache.py), and event streams gather what arrives together into one
write (server/events.py)."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest
import trio
import trio.testing

from arena.server import cache
from arena.server.cache import Shared
from arena.server.events import KEEPALIVE, Events, next_batch
from arena.server.services import ladder as app_module
from arena.server.watch import result_json
from tests.server.conftest import in_process
from tests.server.test_pages import EVIL, store_games, valid_bot, web_login


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(cache.time, "monotonic", fake)
    return fake


@pytest.mark.no_store
def test_a_value_is_kept_while_its_version_holds_or_while_it_is_young(clock: Clock) -> None:
    shared: Shared[str] = Shared(min_age=1.0)
    made: list[int] = []

    def compute(version: int) -> str:
        made.append(version)
        return f"made from {version}"

    assert shared.get_sync("bot", 1, lambda: compute(1)) == "made from 1"
    clock.now += 60
    assert shared.get_sync("bot", 1, lambda: compute(1)) == "made from 1"  # same games
    assert shared.get_sync("bot", 2, lambda: compute(2)) == "made from 2"  # older than 1 s
    clock.now += 0.5
    assert shared.get_sync("bot", 3, lambda: compute(3)) == "made from 2"  # young: kept
    assert shared.get_sync("other", 3, lambda: compute(3)) == "made from 3"  # by key
    clock.now += 0.6
    assert shared.get_sync("bot", 3, lambda: compute(3)) == "made from 3"
    assert made == [1, 2, 3, 3] and shared.computed == 4


@pytest.mark.no_store
def test_a_costly_value_is_kept_in_proportion_to_its_cost(clock: Clock) -> None:
    shared: Shared[int] = Shared(min_age=1.0, duty=0.1)

    def costly(version: int) -> int:
        clock.now += 2.0  # two seconds to compute: kept at least twenty
        return version

    assert shared.get_sync("chart", 1, lambda: costly(1)) == 1
    clock.now += 15
    assert shared.get_sync("chart", 2, lambda: costly(2)) == 1
    clock.now += 6
    assert shared.get_sync("chart", 2, lambda: costly(2)) == 2


@pytest.mark.no_store
def test_callers_at_once_wait_for_one_computation() -> None:
    shared: Shared[int] = Shared(min_age=1.0)
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def slow() -> int:
        calls.append(1)
        started.set()
        release.wait(10)
        return 42

    got: list[int] = []
    first = threading.Thread(target=lambda: got.append(shared.get_sync("k", 1, slow)))
    first.start()
    assert started.wait(10)
    others = [threading.Thread(target=lambda: got.append(shared.get_sync("k", 1, slow)))
              for _ in range(8)]
    for thread in others:
        thread.start()
    time.sleep(0.05)  # let them reach the computation's lock
    release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert got == [42] * 9 and calls == [1]


@pytest.mark.no_store
def test_a_request_finding_an_older_value_gets_it_while_it_is_made_again() -> None:
    shared: Shared[int] = Shared(min_age=0.0)
    release = threading.Event()

    def slow(version: int) -> int:
        release.wait(10)
        return version

    async def main() -> None:
        release.set()
        assert await shared.get("k", 1, lambda: slow(1)) == 1  # nothing kept: waited for
        release.clear()
        assert await shared.get("k", 2, lambda: slow(2)) == 1  # at once: the older one
        assert await shared.get("k", 2, lambda: slow(2)) == 1  # one computation at a time
        release.set()
        with trio.fail_after(10):
            while await shared.get("k", 2, lambda: slow(2)) != 2:
                await trio.sleep(0.01)
        assert shared.computed == 2

    trio.run(main)


def test_an_event_stream_gathers_what_arrives_together() -> None:
    async def main() -> None:
        events = Events()
        receive = events.subscribe()
        assert await next_batch(receive, keepalive=15) == KEEPALIVE  # nothing: alive
        events.publish("game_stored", {"game_id": "a"})
        events.publish("game_stored", {"game_id": "b"})

        async def later() -> None:
            await trio.sleep(0.2)
            events.publish("rating_changed", {"games": 2})
            await trio.sleep(1.0)
            events.publish("game_stored", {"game_id": "c"})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(later)
            batch = await next_batch(receive, keepalive=15, gather=0.5)
            assert [line for line in batch.splitlines() if line.startswith("event:")] == [
                "event: game_stored", "event: game_stored", "event: rating_changed"]
            assert batch.startswith("id: 1\n") and batch.endswith("\n\n")
            assert '"c"' in await next_batch(receive, keepalive=15, gather=0.5)
        events.unsubscribe(receive)
        assert not events.subscribers

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.anyio
async def test_bot_page_views_share_one_computation_until_a_game_is_stored(
        server_folder: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "FRESH_SECONDS", 0.0)  # only a stored game renews
    async with in_process(server_folder[0]) as api:
        ada = await valid_bot(api, "ada", "alpha")
        bob = await valid_bot(api, "bob", "beta")
        await store_games(api, [ada, bob], 4, crash=bob)
        server = api.server
        # every web process reads the stored games once (the first page that needs them)
        await trio.to_thread.run_sync(server.view.results)
        reads: list[int] = []
        failures_in = server.failures_in
        monkeypatch.setattr(server, "failures_in",
                            lambda games: reads.append(len(games)) or failures_in(games))
        await web_login(api, "bob")
        for _ in range(3):
            page = await api.client.get("/bots/bob/beta")
            assert page.status_code == 200 and "crash: 4 games" in page.text
        assert len(reads) == 1
        # shared, but what is private is still decided per viewer
        await web_login(api, "ada")
        other = await api.client.get("/bots/bob/beta")
        assert "crash: 4 games" in other.text and "Traceback" not in other.text
        assert EVIL not in other.text and len(reads) == 1
        # a game stored: the next view is the kept one, made again meanwhile with it
        newest = server.view.results()[-1]  # (told as the ladder tells every process)
        server.announce("game_stored", result_json(
            dataclasses.replace(newest, game_id="abcd9999ef999999")))
        page = await api.client.get("/bots/bob/beta")
        assert "crash: 4 games" in page.text
        with trio.fail_after(20):
            while len(reads) < 2:
                await trio.sleep(0.01)
            while "crash: 5 games" not in page.text:
                page = await api.client.get("/bots/bob/beta")
        assert len(reads) == 2
