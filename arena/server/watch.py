"""What every web process knows of the ladder, made from the coordinator's messages
(arena/server/bus.py), whichever process coordinates: the roster, the games being played,
the leaderboards, and every stored game's result (read from the store once, when a page
first needs them, then kept up game by game).  The pages read the ladder here only."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from arena.records import GameResult

# the events every watcher gets (server-sent events); the rest are the processes' own
EVENTS = frozenset({"game_started", "game_stored", "rating_changed", "upload_validated",
                    "friendly_stored", "verdict"})


def result_json(result: GameResult) -> dict[str, Any]:
    """A stored game as the ``game_stored`` event tells it."""
    return {"game_id": result.game_id, "game": result.game,
            "num_players": result.num_players, "bots": list(result.bots),
            "placements": list(result.placements), "scores": list(result.scores),
            "failures": {str(seat): why for seat, why in result.failures.items()}}


def result_of(data: dict[str, Any]) -> GameResult:
    return GameResult(game_id=data["game_id"], game=data["game"], bots=tuple(data["bots"]),
                      scores=tuple(float(s) for s in data["scores"]),
                      placements=tuple(data["placements"]),
                      failures={int(k): v for k, v in data.get("failures", {}).items()})


class LadderView:
    """See the module.  ``read_results`` reads every stored ladder game (in a worker
    thread: the first page that needs them waits, the event loop never does)."""

    def __init__(self, read_results: Callable[[], list[GameResult]]) -> None:
        self.read_results = read_results
        self.roster: dict[str, tuple[int, ...]] = {}  # ladder name -> its player counts
        self.playing: dict[str, tuple[int, tuple[str, ...]]] = {}  # id -> (k, seats)
        self.boards: dict[int, dict[str, Any]] = {}
        self._results: list[GameResult] | None = None
        self._arrived: list[GameResult] = []  # stored while the results were read
        self._lock = threading.Lock()

    # -- what the coordinator tells ------------------------------------------------------
    def heard(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "game_started":
            self.playing[data["game_id"]] = (int(data["num_players"]), tuple(data["bots"]))
        elif kind == "game_stored":
            self.playing.pop(data["game_id"], None)
            result = result_of(data)
            with self._lock:
                (self._arrived if self._results is None else self._results).append(result)

    def set_roster(self, bots: list[list[Any]]) -> None:
        """The ladder's new roster: [ladder name, player counts] per bot; the games of
        the round before were all stored."""
        self.roster = {str(name): tuple(counts) for name, counts in bots}
        self.playing = {}

    def set_boards(self, boards: dict[Any, dict[str, Any]]) -> None:
        self.boards = {**self.boards, **{int(count): board for count, board in boards.items()}}

    # -- what the pages read --------------------------------------------------------------
    def plays(self, name: str, count: int) -> bool:
        return count in self.roster.get(name, ())

    def generation(self) -> int | None:
        """How many results are known (None before they were read): what the pages'
        caches compare."""
        results = self._results
        return None if results is None else len(results)

    def results(self) -> list[GameResult]:
        """Every stored ladder game's result, in the order they were stored (from a
        worker thread: the first call reads the store)."""
        if self._results is None:
            read = self.read_results()
            with self._lock:
                if self._results is None:
                    known = {result.game_id for result in read}
                    self._results = read + [r for r in self._arrived
                                            if r.game_id not in known]
                    self._arrived = []
        with self._lock:
            return list(self._results)
