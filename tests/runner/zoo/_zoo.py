"""Raw protocol helpers for the zoo of misbehaving bots (no SDK: full control)."""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(request, index):
    send({"type": "reply", "id": request["id"], "index": index})


def serve(on_request, on_ping=None, on_game_over=None, ready=None, on_other=None):
    """Answer hello and ping normally unless told otherwise; on_request decides;
    on_other gets every other message (new_game, action, ...)."""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send(ready or {"type": "ready", "name": "zoo", "version": "1",
                           "protocol": "ra-arena/1"})
        elif kind == "ping":
            if on_ping is None:
                send({"type": "pong", "id": message["id"]})
            else:
                on_ping(message)
        elif kind == "request":
            on_request(message)
        elif kind == "game_over" and on_game_over is not None:
            on_game_over(message)
        elif kind == "quit":
            return
        elif on_other is not None:
            on_other(message)
