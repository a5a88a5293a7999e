"""arena.sdk: the helper a Python bot is written with."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from arena import sdk
from arena.runner.protocol import PROTOCOL, decode_bot_message, schema

JSON = Any


def converse(messages: list[dict[str, JSON]], choose: Any = None, **hooks: Any
             ) -> list[dict[str, JSON]]:
    """Run a bot on ``messages``; what it wrote, one dict per line."""
    stdin = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    stdout = io.BytesIO()
    sdk.run(choose or (lambda observation, legal: len(legal) - 1), name="t", version="2",
            stdin=stdin, stdout=stdout, **hooks)
    lines = stdout.getvalue().splitlines()
    for line in lines:  # every answer passes the arena's own decoder and the schema
        decode_bot_message(line)
        message = json.loads(line)
        jsonschema.validate(message, schema(message["type"]))
    return [json.loads(line) for line in lines]


REQUEST = {"type": "request", "id": 7, "observation": {"x": 1},
           "legal": [{"a": 1}, {"a": 2}, {"a": 3}], "time": {"move_ms": 1000, "bank_ms": None}}


def test_the_sdk_answers_hello_requests_and_pings() -> None:
    out = converse([{"type": "hello", "protocol": PROTOCOL, "arena": "0.1", "limits": {}},
                    REQUEST, {"type": "ping", "id": 3}])
    assert out == [  # no on_action hook: it asks not to be told the others' actions
        {"type": "ready", "name": "t", "version": "2", "protocol": PROTOCOL,
         "wants": {"observation": True, "notifications": False}},
        {"type": "reply", "id": 7, "index": 2},
        {"type": "pong", "id": 3},
    ]


def test_choose_gets_the_observation_and_legal_list_and_may_comment() -> None:
    seen = []

    def choose(observation: JSON, legal: JSON) -> tuple[int, str]:
        seen.append((observation, legal))
        return 1, "the middle one"

    out = converse([REQUEST], choose)
    assert seen == [({"x": 1}, REQUEST["legal"])]
    assert out == [{"type": "reply", "id": 7, "index": 1, "comment": "the middle one"}]


def test_hooks_get_their_messages_and_unknown_messages_are_ignored() -> None:
    got: dict[str, list[JSON]] = {"new": [], "action": [], "over": []}
    new_game = {"type": "new_game", "seat": 1, "seed": 5}
    action = {"type": "action", "decision": 1, "seat": 0, "action": {}}
    over = {"type": "game_over", "placements": [1, 2]}
    out = converse([new_game, {"type": "from_the_future"}, action, over, REQUEST],
                   on_new_game=got["new"].append, on_action=got["action"].append,
                   on_game_over=got["over"].append)
    assert got == {"new": [new_game], "action": [action], "over": [over]}
    assert [m["type"] for m in out] == ["reply"]


def test_quit_ends_the_loop() -> None:
    out = converse([{"type": "quit"}, REQUEST])
    assert out == []


def test_a_bot_file_runs_as_a_real_process() -> None:
    bot = Path(__file__).resolve().parents[1] / "arena" / "bots" / "first" / "bot.py"
    conversation = b"".join(json.dumps(m).encode() + b"\n" for m in [
        {"type": "hello", "protocol": PROTOCOL}, REQUEST, {"type": "quit"}])
    done = subprocess.run([sys.executable, str(bot)], input=conversation, capture_output=True,
                          timeout=30, check=True)
    assert [json.loads(line)["type"] for line in done.stdout.splitlines()] == ["ready", "reply"]


def test_an_error_in_choose_is_not_swallowed() -> None:
    def choose(observation: JSON, legal: JSON) -> int:
        raise KeyError("oops")

    with pytest.raises(KeyError):
        converse([REQUEST], choose)


def test_the_sdk_is_standard_library_only() -> None:
    source = Path(sdk.__file__).read_text()
    imports = {line.split()[1].split(".")[0] for line in source.splitlines()
               if line.startswith(("import ", "from "))}
    assert imports <= {"__future__", "json", "sys", "collections", "typing"}


HELLO = {"type": "hello", "protocol": PROTOCOL, "arena": "0.1", "limits": {}}
LEAN_REQUEST = {k: v for k, v in REQUEST.items() if k != "observation"}


def test_a_bot_following_the_game_with_observations_asks_for_everything() -> None:
    out = converse([HELLO], on_action=lambda message: None)
    assert out == [{"type": "ready", "name": "t", "version": "2", "protocol": PROTOCOL}]


def test_observation_false_asks_for_lean_requests_and_choose_gets_none() -> None:
    seen: list[JSON] = []

    def choose(observation: JSON, legal: JSON) -> int:
        seen.append((observation, legal))
        return 0

    out = converse([HELLO, LEAN_REQUEST], choose, observation=False)
    assert out[0]["wants"] == {"observation": False, "notifications": False}
    assert out[1] == {"type": "reply", "id": 7, "index": 0}
    assert seen == [(None, REQUEST["legal"])]
