"""Write a Ra Arena bot in a few lines (standard library only; copy this file freely).

    from arena.sdk import run

    def choose(observation, legal):
        return 0          # the index of your choice in ``legal``

    run(choose, name="my-bot", version="1.0.0")

``run`` speaks protocol "ra-arena/1" on stdin/stdout (docs/protocol.md): it answers the
arena's hello, requests and pings, and calls your optional hooks for the other messages.
``choose`` may also return ``(index, comment)``: the comment (a short string) goes into
the game record.  Print your debugging to stderr, never to stdout.

Lean requests: ``run(choose, observation=False)`` asks the arena not to send the
observation (``choose`` then gets None for it), which saves both sides the JSON work
when the legal list is all the bot looks at.  Without an ``on_action`` hook the bot asks
not to be sent the other players' actions at all.

Parameters: a bot that declares tunable parameters in its bot.toml (``[parameters]``,
docs/manifest.md; ``arena tune`` tunes them, docs/tuning.md) finds their values in the
hello message: ``run(choose, on_hello=lambda hello: configure(hello.get("parameters",
{})))`` is called once, before the first game (a process plays with one set of values).

Time: ``on_request(message)``, if given, gets each request just before ``choose`` is
called; :func:`seconds_for` turns its ``time`` into the longest this decision may take
(per-decision limit, overage bank and the optional whole-game clock together).

An exception in ``choose`` or a hook ends the bot (the arena records a crash and plays the
seat out for you); that is on purpose, so mistakes are seen.

Speed: the SDK needs nothing beyond the standard library, but reads and writes JSON with
orjson when it is installed (``pip install orjson``; the arena itself depends on it):
a full request (about 1.5 KB) is read about five times faster.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

try:  # optional: the same messages, parsed and written several times faster
    import orjson as _fast_json
except ImportError:  # pragma: no cover - the standard library suffices
    _fast_json = None  # type: ignore[assignment]

PROTOCOL = "ra-arena/1"

JSON = Any
Choice = int | tuple[int, str]
# the observation: a dict, or None with run(..., observation=False)
ChooseFunction = Callable[[Any, list[dict[str, JSON]]], Choice]
Hook = Callable[[dict[str, JSON]], None]


def run(
    choose: ChooseFunction,
    *,
    name: str = "python-bot",
    version: str = "0.0.0",
    on_new_game: Hook | None = None,
    on_action: Hook | None = None,
    on_game_over: Hook | None = None,
    on_request: Hook | None = None,
    on_hello: Hook | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    observation: bool = True,
) -> None:
    """Serve the arena until it says quit or closes the input.

    ``on_new_game(message)`` gets the new_game message (``seed`` is for your own
    randomness, ``seat`` is you); ``on_action(message)`` each decision made by anyone;
    ``on_game_over(message)`` the final scores and placements; ``on_request(message)``
    each request before ``choose`` sees it (e.g. for its ``time``, see
    :func:`seconds_for`); ``on_hello(message)`` the hello message, before the bot says
    ready (its ``parameters``: see the module docstring).  ``observation=False``: lean
    requests (see the module docstring)."""
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer

    encoder = json.JSONEncoder(separators=(",", ":"))
    loads: Callable[[bytes], Any] = json.loads if _fast_json is None else _fast_json.loads

    def send(message: dict[str, JSON]) -> None:
        if _fast_json is not None:
            try:
                writer.write(_fast_json.dumps(message, option=_fast_json.OPT_APPEND_NEWLINE))
                writer.flush()
                return
            except TypeError:  # e.g. an integer beyond 64 bits: the standard library can
                pass
        writer.write(encoder.encode(message).encode() + b"\n")
        writer.flush()

    hooks = {"new_game": on_new_game, "action": on_action, "game_over": on_game_over}
    ready: dict[str, JSON] = {"type": "ready", "name": name, "version": version,
                              "protocol": PROTOCOL}
    wants = {"observation": observation, "notifications": on_action is not None}
    if not all(wants.values()):  # an arena ignores what it does not know: say it only then
        ready["wants"] = wants
    for line in reader:
        if not line.strip():
            continue
        message = loads(line)
        kind = message.get("type")
        if kind == "request":
            if on_request is not None:
                on_request(message)
            choice = choose(message.get("observation"), message["legal"])
            reply: dict[str, JSON] = {"type": "reply", "id": message["id"]}
            if isinstance(choice, tuple):
                reply["index"], reply["comment"] = choice
            else:
                reply["index"] = choice
            send(reply)
        elif kind == "ping":
            send({"type": "pong", "id": message["id"]})
        elif kind == "hello":
            if on_hello is not None:
                on_hello(message)
            send(ready)
        elif kind == "quit":
            return
        else:
            hook = hooks.get(kind)
            if hook is not None:
                hook(message)
            # anything else (a later protocol version's news) is ignored on purpose


def seconds_for(request: dict[str, JSON]) -> float | None:
    """The longest the arena lets this request's decision take, in seconds:
    min(move_ms + bank_ms, game_ms_left), leaving out the bank when it is null and the
    game clock when it is absent (docs/protocol.md, time control).  None when the
    request says nothing usable about time.  The arena measures from its side of the
    pipe: keep a margin."""
    timing = request.get("time")
    if not isinstance(timing, dict):
        return None
    move, bank, left = (_number(timing.get(k)) for k in ("move_ms", "bank_ms", "game_ms_left"))
    if move is None:
        return None
    allowed = move + (bank or 0.0)
    if left is not None:
        allowed = min(allowed, left)
    return max(0.0, allowed / 1000.0)


def _number(value: JSON) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None
