"""A good bot that follows the game through the action notices; its comment on each
request says how many actions it had seen, in order, before being asked."""

import json
import sys

from _zoo import send

seen: list[int] = []
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "ready", "name": "follower", "version": "1", "protocol": "ra-arena/1"})
    elif kind == "new_game":
        seen = []
    elif kind == "action":
        seen.append(message["decision"])
    elif kind == "request":
        in_order = seen == list(range(1, message["id"]))
        send({"type": "reply", "id": message["id"], "index": 0,
              "comment": f"{len(seen)} {in_order}"})
    elif kind == "ping":
        send({"type": "pong", "id": message["id"]})
    elif kind == "quit":
        break
