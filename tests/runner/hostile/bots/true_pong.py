"""Answers the ping of id 1 with "id": true (which equals 1 in Python)."""
import json
import sys

from _hostile import answer, send

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "ready", "name": "hostile", "version": "1", "protocol": "ra-arena/1"})
    elif message["type"] == "ping":
        send({"type": "pong", "id": True})
    elif message["type"] == "request":
        answer(message)
