"""One played game, the same type from the referee to the store, export, replay and report.

:class:`GameRecord` is a playthrough: the referee builds it (who sat where, scores,
placements, failures, comments, timings and the engine's own record, from which
``Game.replay(record.engine)`` rebuilds the game); a league sets its place in the schedule
(:meth:`GameRecord.in_league`) and the store adds when it was stored.  Its JSON form, one
line of ``arena export``, is documented in ``docs/records.md``; :meth:`GameRecord.to_json`
and :meth:`GameRecord.from_json` are the only code that writes and reads it.

:class:`GameResult` is the thin view ratings read: who sat where, scores, placements and
forfeits.  It is kept apart because a rating reads every game of a league and a record
carries every action (kilobytes per game): the store answers ratings from a few columns
without parsing records, and synthetic leagues (rating tests, ``arena bench rating``) have
results but no playthrough.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

JSON = Any


class PlayerEntry(TypedDict):
    seat: int
    name: str  # the bot's name (a league's seat list)
    version: str
    kind: str  # "process", "python", ...: what played the seat


class Failure(TypedDict):
    """A seat that failed during the game: it forfeits, a fallback policy plays it out."""

    seat: int
    bot: str
    reason: str  # one of arena.runner.failures.REASONS
    detail: str
    phase: str  # "start", "decision" or "notify"
    decision: int | None  # the decision number, for phase "decision" and "notify"
    stderr_tail: str


class Incident(TypedDict):
    """A failure that cost no game ("between games", or "game_over" after the result)."""

    seat: int
    bot: str
    reason: str
    detail: str
    phase: str
    stderr_tail: str


class Comment(TypedDict):
    decision: int
    seat: int
    comment: str


class SeatTimings(TypedDict):
    decisions: int
    seconds: float
    max_seconds: float
    bank_left: float | None  # None: the limits had no overage bank
    clock_left: float | None  # None: the limits had no game clock


class Timings(TypedDict):
    seconds: float
    seats: list[SeatTimings]


@dataclass(frozen=True)
class GameResult:
    """The rating view of one finished game (see the module docstring for why)."""

    game_id: str
    game: str  # engine name, e.g. "ra"
    bots: tuple[str, ...]  # bot name per seat
    scores: tuple[float, ...]  # final score per seat
    # place per seat, 1 = winner; a seat that forfeited is already placed last
    placements: tuple[int, ...]
    # seat -> failure reason ("crash", "timeout", ...) for seats that forfeited
    failures: Mapping[int, str] = field(default_factory=dict)
    # order in which games finished (0, 1, 2, ...), for "rating over games" plots
    sequence: int = 0

    @property
    def num_players(self) -> int:
        return len(self.bots)


class RecordError(ValueError):
    """A document that is not a game record (``from_json``): says which key is wrong."""


@dataclass(frozen=True)
class GameRecord:
    """One playthrough; see the module docstring and ``docs/records.md``."""

    game: str  # engine name
    options: Mapping[str, JSON]  # the options the game was played with (defaults filled in)
    seed: int  # the game's seed (bots never see it)
    players: tuple[PlayerEntry, ...]  # one per seat
    scores: tuple[float, ...]  # the engine's final scores
    engine_placements: tuple[int, ...]  # the engine's placements (1 = winner)
    placements: tuple[int, ...]  # what ratings use: forfeiting seats placed last
    failures: tuple[Failure, ...] = ()
    incidents: tuple[Incident, ...] = ()
    comments: tuple[Comment, ...] = ()
    engine: Mapping[str, JSON] = field(default_factory=dict)  # the engine's own record
    timings: Timings = field(default_factory=lambda: Timings(seconds=0.0, seats=[]))
    # Its place in a league ("" and 0 for a game played on its own) ...
    game_id: str = ""
    table: str = ""
    round: int = 0
    # ... and, once read back from a store, the order and time it was stored in.
    sequence: int | None = None
    finished_at: float | None = None
    # Where it was played: a cluster worker's address; None on the league's own machine.
    worker: str | None = None

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def seats(self) -> tuple[str, ...]:
        """The bot's name in each seat."""
        return tuple(player["name"] for player in self.players)

    @property
    def forfeits(self) -> dict[int, str]:
        """seat -> failure reason, for the seats that forfeited."""
        return {failure["seat"]: failure["reason"] for failure in self.failures}

    @property
    def status(self) -> str:
        """"ok", or "failed" when a bot failed (the game still counts)."""
        return "failed" if self.failures else "ok"

    def in_league(self, game_id: str, table: str, round: int) -> GameRecord:
        """This record as game ``game_id`` of a league (its table and round)."""
        return dataclasses.replace(self, game_id=game_id, table=table, round=round)

    def result(self) -> GameResult:
        return GameResult(
            game_id=self.game_id,
            game=self.game,
            bots=self.seats,
            scores=tuple(float(s) for s in self.scores),
            placements=self.placements,
            failures=self.forfeits,
            sequence=self.sequence or 0,
        )

    # -- the JSON form (docs/records.md) ---------------------------------------------
    def playthrough_json(self) -> dict[str, JSON]:
        """The ``record`` part of the JSON form: the game as the referee saw it."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "num_players": self.num_players,
            "players": [dict(player) for player in self.players],
            "scores": list(self.scores),
            "engine_placements": list(self.engine_placements),
            "placements": list(self.placements),
            "failures": [dict(failure) for failure in self.failures],
            "incidents": [dict(incident) for incident in self.incidents],
            "comments": [dict(comment) for comment in self.comments],
            "engine": dict(self.engine),
            "timings": self.timings,
        }

    def to_json(self) -> dict[str, JSON]:
        """The whole JSON form: the league's summary of the game, then ``record``
        (``worker`` only for a game played on a cluster)."""
        data: dict[str, JSON] = {
            "game_id": self.game_id,
            "sequence": self.sequence,
            "game": self.game,
            "table": self.table,
            "round": self.round,
            "seats": list(self.seats),
            "seed": self.seed,
            "status": self.status,
            "scores": [float(s) for s in self.scores],
            "placements": list(self.placements),
            "failures": {str(seat): reason for seat, reason in self.forfeits.items()},
            "timings": self.timings,
            "finished_at": self.finished_at,
        }
        if self.worker is not None:
            data["worker"] = self.worker
        data["record"] = self.playthrough_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> GameRecord:
        """The record :meth:`to_json` wrote (the summary keys are derived, so only the
        league's own keys and ``record`` are read).  Raises :class:`RecordError`."""
        playthrough = _key(data, "record", Mapping)
        players = _key(playthrough, "players", list)
        failures = _key(playthrough, "failures", list)
        # what the derived keys (seats, failures by seat) read from the entries
        for player in players:
            _key(player, "name", str)
        for failure in failures:
            _key(failure, "seat", int)
            _key(failure, "reason", str)
        sequence = data.get("sequence")
        finished_at = data.get("finished_at")
        worker = data.get("worker")
        return cls(
            game=_key(playthrough, "game", str),
            options=_key(playthrough, "options", Mapping),
            seed=_key(playthrough, "seed", int),
            players=tuple(players),
            scores=tuple(_key(playthrough, "scores", list)),
            engine_placements=tuple(_key(playthrough, "engine_placements", list)),
            placements=tuple(_key(playthrough, "placements", list)),
            failures=tuple(failures),
            incidents=tuple(_key(playthrough, "incidents", list)),
            comments=tuple(_key(playthrough, "comments", list)),
            engine=_key(playthrough, "engine", Mapping),
            timings=_key(playthrough, "timings", Mapping),
            game_id=_key(data, "game_id", str),
            table=_key(data, "table", str),
            round=_key(data, "round", int),
            sequence=sequence if isinstance(sequence, int) else None,
            finished_at=float(finished_at) if isinstance(finished_at, int | float) else None,
            worker=worker if isinstance(worker, str) else None,
        )


def _key(data: Mapping[str, JSON], key: str, kind: type) -> Any:
    value = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(value, kind):
        raise RecordError(f"not a game record: {key!r} is missing or not of type "
                          f"{kind.__name__}")
    return value
