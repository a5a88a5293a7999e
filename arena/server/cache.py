"""What the pages and the API derive from the ladder's games, computed once and shared by
every viewer until the games change, instead of once per view.

A class of fifty watching a bot page asked, per view, for every stored ladder game to
be read and its rating history refitted (py-spy, ``arena bench serve``: most of the
server's CPU, in threads holding the GIL against the web app).  Here a value is kept
with the *version* of what it was made from (the number of ladder games stored); a
request gets the kept value while that version holds, or while the value is younger
than ``min_age`` (the leaderboard's own pace: at most one computation a second while
games arrive), else one computation runs in a worker thread.  A request that finds an
older value gets it at once while that computation runs (a page is then at most one
computation late: no viewer waits for one, and the event loop never runs one); only
the first request for a key waits, with every other one arriving meanwhile.  Only what
is the same for every viewer is kept: what depends on who asks (private reports, stderr
tails, the session) is still decided per request, by the templates and the handlers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

T = TypeVar("T")
MAX_ENTRIES = 1000  # values kept at most (one per bot page and chart): then the oldest go


@dataclass
class _Entry(Generic[T]):
    version: Hashable
    value: T
    made: float  # time.monotonic() when computed
    seconds: float  # how long computing it took


class Shared(Generic[T]):
    """Values by key, each computed in a worker thread by one caller at a time and
    shared (see the module).  ``duty``: the most of the time these computations may take
    (a value whose computation took ``s`` seconds is kept at least ``s / duty``): a
    costly value (a rating history over a long ladder) is refreshed less often rather
    than holding a core."""

    def __init__(self, min_age: float, duty: float | None = None) -> None:
        self.min_age = min_age
        self.duty = duty
        self._entries: dict[Hashable, _Entry[T]] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()
        self._refreshing: set[Hashable] = set()  # keys being computed again for get()
        self.computed = 0  # computations so far (tests, the bench)

    def _fresh(self, key: Hashable, version: Hashable) -> _Entry[T] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        keep = self.min_age if self.duty is None else max(self.min_age,
                                                          entry.seconds / self.duty)
        if entry.version == version or time.monotonic() - entry.made < keep:
            return entry
        return None

    def get_sync(self, key: Hashable, version: Hashable, compute: Callable[[], T]) -> T:
        """The value of ``key`` (from a worker thread): the kept one if still fresh, else
        computed here, once, while other callers of the same key wait for it."""
        entry = self._fresh(key, version)
        if entry is not None:
            return entry.value
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            entry = self._fresh(key, version)  # computed by the caller we waited for
            if entry is not None:
                return entry.value
            began = time.monotonic()
            value = compute()
            done = time.monotonic()
            with self._guard:
                self._entries.pop(key, None)  # re-inserted: the newest last
                self._entries[key] = _Entry(version, value, done, done - began)
                while len(self._entries) > MAX_ENTRIES:
                    oldest = next(iter(self._entries))
                    del self._entries[oldest]
                    self._locks.pop(oldest, None)
                self.computed += 1
            return value

    async def get(self, key: Hashable, version: Hashable, compute: Callable[[], T]) -> T:
        """The value of ``key``: the kept one at once if fresh; else a computation in a
        worker thread (the event loop never computes it), waited for only when no older
        value is kept."""
        entry = self._fresh(key, version)
        if entry is not None:
            return entry.value
        old = self._entries.get(key)
        if old is None:
            return await trio.to_thread.run_sync(self.get_sync, key, version, compute)
        if key not in self._refreshing:
            self._refreshing.add(key)
            trio.lowlevel.spawn_system_task(self._refresh, key, version, compute)
        return old.value

    async def _refresh(self, key: Hashable, version: Hashable, compute: Callable[[], T]
                       ) -> None:
        try:
            await trio.to_thread.run_sync(self.get_sync, key, version, compute)
        except Exception:  # the next request computes it itself, and meets the error
            with self._guard:
                self._entries.pop(key, None)
        finally:
            self._refreshing.discard(key)
