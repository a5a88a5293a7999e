"""Server-sent events: every subscriber gets its own bounded channel; a subscriber that
falls behind loses events rather than slowing the ladder (the leaderboard can always be
read again)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import trio

QUEUE = 256


class Events:
    def __init__(self) -> None:
        self.subscribers: set[trio.MemorySendChannel[str]] = set()
        self.pairs: dict[trio.MemoryReceiveChannel[str], trio.MemorySendChannel[str]] = {}
        self.numbers = itertools.count(1)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Tell every subscriber now (never blocks: called from the league's listeners)."""
        text = f"id: {next(self.numbers)}\nevent: {kind}\ndata: {json.dumps(data)}\n\n"
        for channel in list(self.subscribers):
            try:
                channel.send_nowait(text)
            except trio.WouldBlock:
                pass  # a slow reader misses this one
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.subscribers.discard(channel)

    def subscribe(self) -> trio.MemoryReceiveChannel[str]:
        send, receive = trio.open_memory_channel[str](QUEUE)
        self.subscribers.add(send)
        self.pairs[receive] = send
        return receive

    def unsubscribe(self, receive: trio.MemoryReceiveChannel[str]) -> None:
        receive.close()
        send = self.pairs.pop(receive, None)
        if send is not None:
            self.subscribers.discard(send)
