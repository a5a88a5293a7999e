"""Messages, schemas and the one place where a bot's bytes become values."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.runner.failures import REASONS, BotFailure
from arena.runner.lines import CHUNK, LineReader
from arena.runner.players import PythonPlayer
from arena.runner.protocol import (
    ARENA_MESSAGES,
    BOT_MESSAGES,
    PROTOCOL,
    Pong,
    Ready,
    Reply,
    decode_bot_message,
    encode,
    hello,
    ping,
    quit_message,
    schema,
)
from arena.runner.referee import play_game
from arena.settings import Limits

from .toygame import NIM


def validate(message: dict[str, Any]) -> None:
    jsonschema.validate(message, schema(message["type"]))


@pytest.mark.parametrize("name", ARENA_MESSAGES + BOT_MESSAGES)
def test_every_schema_is_a_valid_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schema(name))
    assert schema(name)["properties"]["type"] == {"const": name}


def test_every_message_the_arena_sends_in_a_game_matches_its_schema() -> None:
    sent: list[dict[str, Any]] = []

    def remember(message: dict[str, Any]) -> None:
        sent.append(message)

    class Spy(PythonPlayer):
        async def choose(self, request: Any) -> Reply:
            sent.append(request.to_json())
            return await super().choose(request)

    players = [Spy(f"p{i}", lambda o, legal: 0, on_new_game=remember, on_action=remember,
                   on_game_over=remember) for i in range(3)]
    trio.run(lambda: play_game(NIM, players, 9, limits=Limits(bank_seconds=1.0)))
    kinds = {m["type"] for m in sent}
    assert kinds == {"new_game", "request", "action", "game_over"}
    for message in [*sent, hello("0.1.0", Limits().protocol_json()), ping(3),
                    quit_message()]:
        validate(json.loads(encode(message)))


def test_good_bot_messages_decode_and_match_their_schemas() -> None:
    lines = {
        b'{"type":"ready","name":"b","version":"1","protocol":"ra-arena/1"}':
            Ready("b", "1", PROTOCOL),
        b'{"type":"reply","id":4,"index":2}': Reply(4, 2),
        b'{"type":"reply","id":4,"index":0,"comment":"sure","extra":[1]}':
            Reply(4, 0, "sure"),
        b'{"type":"pong","id":9}': Pong(9),
    }
    for line, expected in lines.items():
        assert decode_bot_message(line) == expected
        validate(json.loads(line))


@pytest.mark.parametrize(("line", "reason"), [
    (b"\xff\xfe", "malformed"),
    (b"not json", "malformed"),
    (b"[1, 2]", "malformed"),
    (b'{"index": 1}', "malformed"),
    (b'{"type":"reply","id":1}', "malformed"),
    (b'{"type":"reply","id":1,"index":"2"}', "malformed"),
    (b'{"type":"reply","id":1,"index":true}', "malformed"),
    (b'{"type":"reply","id":1,"index":1.0}', "malformed"),
    (b'{"type":"reply","index":1}', "malformed"),
    (b'{"type":"reply","id":1,"index":1,"comment":5}', "malformed"),
    (b'{"type":"reply","id":1,"index":NaN}', "malformed"),
    (b'{"type":"ready","name":"","version":"1","protocol":"x"}', "malformed"),
    (b'{"type":"ready","name":"b","version":"1"}', "malformed"),
    (b'{"type":"pong"}', "malformed"),
    (b"[" * 100_000 + b"]" * 100_000, "malformed"),
    (b'{"type":"request","id":1}', "protocol"),
    (b'{"type":"hello"}', "protocol"),
])
def test_bad_bot_messages_fail_with_the_right_reason(line: bytes, reason: str) -> None:
    with pytest.raises(BotFailure) as caught:
        decode_bot_message(line)
    assert caught.value.reason == reason


# JSON values, often shaped like a bot message (a "type" among the real ones)
_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                       lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                       max_leaves=12)
_messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["ready", "reply", "pong", "request", "x"])},
    optional={"id": _values, "index": _values, "comment": _values, "name": _values,
              "version": _values, "protocol": _values})


_names = st.text(min_size=1, max_size=100)
_valid = st.one_of(
    st.fixed_dictionaries({"type": st.just("reply"), "id": st.integers(),
                           "index": st.integers(min_value=0)},
                          optional={"comment": st.text(max_size=20), "extra": _values}),
    st.fixed_dictionaries({"type": st.just("pong"), "id": st.integers()}),
    st.fixed_dictionaries({"type": st.just("ready"), "name": _names, "version": _names,
                           "protocol": st.just(PROTOCOL)}))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200),
                 st.one_of(_values, _messages, _valid)
                 .map(lambda value: json.dumps(value).encode())))
def test_decoding_never_fails_with_anything_but_a_bot_failure(line: bytes) -> None:
    try:
        decoded = decode_bot_message(line)
    except BotFailure as failure:
        assert failure.reason in REASONS
        decoded = None
    # whatever the schema of a bot message accepts, the decoder accepts too
    try:
        message = json.loads(line)
    except ValueError:
        return
    if isinstance(message, dict) and message.get("type") in BOT_MESSAGES and \
            jsonschema.Draft202012Validator(schema(message["type"])).is_valid(message):
        assert type(decoded).__name__.lower() == message["type"]


def test_bot_failure_only_takes_known_reasons() -> None:
    with pytest.raises(ValueError):
        BotFailure("sulking", "?")


async def _lines_from(chunks: list[bytes], max_line: int) -> tuple[list[bytes], str, int]:
    """Feed ``chunks`` through a LineReader; the lines read, the failure, peak buffer."""
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = LineReader(receive, max_line)
    lines: list[bytes] = []
    peak = 0

    async def feed() -> None:
        for chunk in chunks:
            await send.send_all(chunk)
            await trio.testing.wait_all_tasks_blocked()
        await send.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(feed)
        try:
            while True:
                lines.append(await reader.next_line())
                peak = max(peak, len(reader._buffer))
        except BotFailure as failure:
            nursery.cancel_scope.cancel()
            peak = max(peak, len(reader._buffer))
            return lines, failure.reason, peak
    raise AssertionError("unreachable")


def test_line_reader_splits_lines_across_chunks() -> None:
    lines, reason, _ = trio.run(_lines_from, [b"ab", b"c\nde", b"f\r\n\n", b"tail"], 100)
    assert lines == [b"abc", b"def", b""]
    assert reason == "crash"  # the stream ended; "tail" had no newline


def test_line_reader_accepts_a_line_of_exactly_the_limit() -> None:
    lines, _, _ = trio.run(_lines_from, [b"x" * 100 + b"\n"], 100)
    assert lines == [b"x" * 100]


def test_line_reader_fails_an_endless_line_without_buffering_it() -> None:
    chunks = [b"y" * 50_000] * 2000  # 100 MB, never a newline
    lines, reason, peak = trio.run(_lines_from, chunks, 200_000)
    assert (lines, reason) == ([], "oversize")
    assert peak <= 200_000 + CHUNK


def test_ready_may_say_what_the_bot_wants_and_it_is_checked_strictly() -> None:
    from arena.runner.protocol import EVERYTHING, Wants

    base = '{"type":"ready","name":"b","version":"1","protocol":"ra-arena/1"'
    assert decode_bot_message((base + "}").encode()) == Ready("b", "1", PROTOCOL, EVERYTHING)
    lean = base + ',"wants":{"observation":false,"notifications":false}}'
    assert decode_bot_message(lean.encode()) == Ready("b", "1", PROTOCOL, Wants(False, False))
    validate(json.loads(lean))
    partial = base + ',"wants":{"notifications":false}}'
    assert decode_bot_message(partial.encode()) == Ready("b", "1", PROTOCOL,
                                                         Wants(True, False))
    for wants, phrase in [('[]', "must be an object"), ('null', "must be an object"),
                          ('{"observations":false}', "unknown key(s) 'observations'"),
                          ('{"observation":0}', "must be true or false, not 0"),
                          ('{"notifications":null}', "must be true or false, not null")]:
        line = f'{base},"wants":{wants}}}'.encode()
        with pytest.raises(BotFailure, match=re.escape(phrase)) as caught:
            decode_bot_message(line)
        assert caught.value.reason == "protocol"
        with pytest.raises(jsonschema.ValidationError):
            validate(json.loads(line))


def test_a_lean_request_has_no_observation_and_matches_the_schema() -> None:
    from arena.runner.protocol import DecisionRequest

    request = DecisionRequest(3, 0, None, [{"type": "pass"}], 1000, None).to_json()
    assert request == {"type": "request", "id": 3, "legal": [{"type": "pass"}],
                       "time": {"move_ms": 1000, "bank_ms": None}}
    validate(request)


@pytest.mark.parametrize(("line", "reason"), [
    # orjson reads integers beyond 64 bits as floats: the standard library's verdict holds
    (b'{"type":"reply","id":1,"index":18446744073709551616}', None),
    (b'{"type":"reply","id":18446744073709551617,"index":0}', None),
    (b'{"type":"reply","id":1,"index":1.0}', "malformed"),
    (b'{"type":"reply","id":1,"index":0,"comment":"\\ud800"}', None),  # a lone surrogate
    (b'{"type":"reply","id":1,"index":NaN}', "malformed"),
    (b'{"type":"reply","id":1,"index":0}\xff', "malformed"),
])
def test_the_fast_parser_and_the_standard_library_agree(line: bytes, reason: str | None
                                                        ) -> None:
    expected = json.loads(line) if reason is None else None
    try:
        message = decode_bot_message(line)
    except BotFailure as failure:
        assert failure.reason == reason
        return
    assert reason is None and isinstance(message, Reply)
    assert (message.id, message.index, message.comment) == \
        (expected["id"], expected["index"], expected.get("comment"))


def test_encode_takes_what_orjson_refuses() -> None:
    message = {"type": "new_game", "options": {"huge": 2**70, "text": "caf\u00e9"}}
    line = encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == message
    assert encode({"type": "ping", "id": 3}) == b'{"type":"ping","id":3}\n'
