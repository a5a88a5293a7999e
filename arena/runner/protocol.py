"""Protocol "ra-arena/1": the messages between the arena and a bot, as typed values.

One JSON object per line (UTF-8, ``\\n``-terminated) on the bot's stdin and stdout; every
object has a ``"type"``.  docs/protocol.md explains the conversation; the JSON Schemas in
``arena/runner/schemas/`` describe each message exactly.

:func:`decode_bot_message` is the only place where a line from a bot becomes a value: it
rejects anything that is not one of the three messages a bot may send (ready, reply,
pong) with the right shape, raising :class:`BotFailure` ("malformed" or "protocol").
Unknown extra keys are allowed, so bots stay compatible when later versions add some.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any

import orjson

from arena.fastjson import dumps
from arena.runner.failures import BotFailure

PROTOCOL = "ra-arena/1"
ARENA_MESSAGES = ("hello", "new_game", "request", "action", "game_over", "ping", "quit")
BOT_MESSAGES = ("ready", "reply", "pong")
MAX_NAME_CHARS = 100
WANTS_KEYS = ("observation", "notifications")

JSON = Any


def schema(message_type: str) -> dict[str, JSON]:
    """The JSON Schema of one message type (shipped as package data)."""
    if message_type not in ARENA_MESSAGES + BOT_MESSAGES:
        raise ValueError(f"no message type {message_type!r}")
    text = resources.files("arena.runner").joinpath(f"schemas/{message_type}.json").read_text()
    loaded: dict[str, JSON] = json.loads(text)
    return loaded


def encode(message: dict[str, JSON]) -> bytes:
    """One message as one line of compact UTF-8 JSON (orjson: a 1.2 KB request in 2.3
    µs against 84 with the standard library, msgspec 4.8; see arena.fastjson)."""
    return dumps(message, newline=True)


# ---------------------------------------------------------------- arena -> bot


def hello(arena_version: str, limits: dict[str, JSON],
          parameters: dict[str, float | int] | None = None) -> dict[str, JSON]:
    """The first message; ``parameters``: the values of the bot's declared parameters
    (left out for a bot that declares none, so that its hello is as it always was)."""
    message: dict[str, JSON] = {"type": "hello", "protocol": PROTOCOL, "arena": arena_version,
                                "limits": limits}
    if parameters is not None:
        message["parameters"] = parameters
    return message


def ping(ping_id: int) -> dict[str, JSON]:
    return {"type": "ping", "id": ping_id}


def quit_message() -> dict[str, JSON]:
    return {"type": "quit"}


@dataclass(frozen=True)
class GameInfo:
    """A new game starts: who the bot is in it and under which rules."""

    game: str
    options: dict[str, JSON]
    num_players: int
    seat: int
    seed: int  # for the bot's own randomness; not the game's seed
    players: list[str]  # name per seat
    move_ms: int
    bank_ms: int | None
    game_ms: int | None = None  # the seat's whole-game clock, None = no clock

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": "new_game",
            "game": self.game,
            "options": self.options,
            "num_players": self.num_players,
            "seat": self.seat,
            "seed": self.seed,
            "players": self.players,
            "time": {"move_ms": self.move_ms, "bank_ms": self.bank_ms,
                     "game_ms": self.game_ms},
        }


@dataclass(frozen=True)
class DecisionRequest:
    id: int
    seat: int
    observation: dict[str, JSON] | None  # None: the bot asked not to get it (Wants)
    legal: list[dict[str, JSON]]
    move_ms: int  # the time for this decision before the bank is touched
    bank_ms: int | None  # what is left of the seat's overage bank, None = no bank
    # what is left on the seat's whole-game clock, None = no clock (then the key is left
    # out of the message: requests stay as small as before for games without a clock)
    game_ms_left: int | None = None
    # when the reply is due, on trio's clock (not sent: the bot gets move_ms and the rest)
    deadline: float = math.inf

    def to_json(self) -> dict[str, JSON]:
        message: dict[str, JSON] = {"type": "request", "id": self.id}
        if self.observation is not None:
            message["observation"] = self.observation
        message["legal"] = self.legal
        time: dict[str, JSON] = {"move_ms": self.move_ms, "bank_ms": self.bank_ms}
        if self.game_ms_left is not None:
            time["game_ms_left"] = self.game_ms_left
        message["time"] = time
        return message


@dataclass(frozen=True)
class ActionNotice:
    """Someone (possibly the bot itself) made a decision."""

    decision: int  # the request id of that decision
    seat: int
    action: dict[str, JSON]
    # what the action revealed to everyone (a drawn tile), if anything: GameState.outcome_json
    outcome: dict[str, JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        message: dict[str, JSON] = {"type": "action", "decision": self.decision,
                                    "seat": self.seat, "action": self.action}
        if self.outcome is not None:
            message["outcome"] = self.outcome
        return message

    @cached_property
    def line(self) -> bytes:
        """The encoded message, built once however many bots are told."""
        return encode(self.to_json())


@dataclass(frozen=True)
class GameOverInfo:
    seat: int
    scores: list[float]
    placements: list[int]  # after forfeits: what the ratings use
    forfeits: list[int] = field(default_factory=list)  # seats that forfeited

    def to_json(self) -> dict[str, JSON]:
        return {"type": "game_over", "seat": self.seat, "scores": self.scores,
                "placements": self.placements, "forfeits": self.forfeits}


# ---------------------------------------------------------------- bot -> arena


@dataclass(frozen=True)
class Wants:
    """What parts of the conversation a bot asked for in ``ready`` (default: all).
    Without the observation a request carries only id, legal list and time; without
    notifications no ``action`` message is sent."""

    observation: bool = True
    notifications: bool = True


EVERYTHING = Wants()


@dataclass(frozen=True)
class Ready:
    name: str
    version: str
    protocol: str
    wants: Wants = EVERYTHING


def _is_integer(value: JSON) -> bool:
    """An id as the protocol wants it: a JSON integer (json gives 1.0 as a float, and
    True is an int to Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Reply:
    id: int  # the referee checks it against the request's
    index: int
    comment: str | None = None


@dataclass(frozen=True)
class Pong:
    id: int


BotMessage = Ready | Reply | Pong


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


# built once: json.loads with options builds a new decoder on every call
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def decode_bot_message(line: bytes) -> BotMessage:
    """Turn one line from a bot (without its newline) into a message, or raise BotFailure.

    orjson parses (a reply: 0.8 µs against 3.6 with the standard library); a line it
    refuses is parsed again by the standard library, which says what is wrong with it in
    the words the failure records have always used (and decides the rare lines the two
    judge differently, e.g. an integer beyond 64 bits, which orjson reads as a float)."""
    try:
        return _message(orjson.loads(line), line)
    except (orjson.JSONDecodeError, BotFailure):
        # orjson reads an integer beyond 64 bits as a float: the verdict on a refused
        # line is the standard library's
        return _message(_decode_slowly(line), line)


def _decode_slowly(line: bytes) -> JSON:
    """The standard library's reading of a line orjson refused: a value, or a BotFailure
    that says what is wrong."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BotFailure("malformed", f"not UTF-8 ({error.reason} at byte {error.start})") \
            from None
    try:
        data = _DECODER.decode(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise BotFailure("malformed", f"not JSON: {_short(text)} ({error})") from None
    return data


def _message(data: JSON, line: bytes) -> BotMessage:
    """A parsed line as one of the bot's messages, its shape checked."""
    if not isinstance(data, dict):
        raise BotFailure("malformed", f"not a JSON object: {_short_line(line)}")
    kind = data.get("type")
    if kind == "reply":
        index = data.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            raise BotFailure("malformed", f"reply needs an integer 'index': {_short_line(line)}")
        if not _is_integer(data.get("id")):
            raise BotFailure("malformed", "reply needs the request's 'id' as an integer "
                                          f"(1, not 1.0 or true): {_short_line(line)}")
        comment = data.get("comment")
        if comment is not None and not isinstance(comment, str):
            raise BotFailure("malformed", f"reply 'comment' must be a string: {_short_line(line)}")
        return Reply(id=data["id"], index=index, comment=comment)
    if kind == "pong":
        if not _is_integer(data.get("id")):
            raise BotFailure("malformed", "pong needs the ping's 'id' as an integer "
                                          f"(1, not 1.0 or true): {_short_line(line)}")
        return Pong(id=data["id"])
    if kind == "ready":
        values = {}
        for key in ("name", "version", "protocol"):
            value = data.get(key)
            if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME_CHARS:
                raise BotFailure(
                    "malformed",
                    f"ready needs a string {key!r} of 1-{MAX_NAME_CHARS} characters: "
                    f"{_short_line(line)}",
                )
            values[key] = value
        wants = _decode_wants(data["wants"]) if "wants" in data else EVERYTHING
        return Ready(**values, wants=wants)
    if isinstance(kind, str):
        raise BotFailure("protocol", f"a bot may send ready, reply or pong, not {kind!r}")
    raise BotFailure("malformed", f"message without a string 'type': {_short_line(line)}")


def _decode_wants(wants: JSON) -> Wants:
    """The ``wants`` of a ready message, checked strictly: a bot that misspells a key
    would otherwise silently get what it did not ask for."""
    if not isinstance(wants, dict):
        raise BotFailure("protocol", f"ready 'wants' must be an object, not {_kind(wants)}")
    unknown = sorted(set(wants) - set(WANTS_KEYS))
    if unknown:
        raise BotFailure("protocol", f"ready 'wants' has unknown key(s) "
                                     f"{', '.join(map(repr, unknown))}; known: "
                                     f"{', '.join(WANTS_KEYS)}")
    for key, value in wants.items():
        if not isinstance(value, bool):
            raise BotFailure("protocol", f"ready 'wants' {key!r} must be true or false, "
                                         f"not {_kind(value)}")
    return Wants(**wants)


def _kind(value: JSON) -> str:
    return "null" if value is None else json.dumps(value)[:40]


def _short_line(line: bytes) -> str:
    return _short(line.decode("utf-8", "replace"))


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"
