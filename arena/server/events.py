"""Server-sent events: every subscriber gets its own bounded channel; a subscriber that
falls behind loses events rather than slowing the ladder (the leaderboard can always be
read again).  A stream sends what arrived within ``GATHER_SECONDS`` of an event as one
write: a ladder storing tens of games a second to fifty watchers was thousands of
writes a second for the web app's one event loop, now a few per watcher."""

from __future__ import annotations

import itertools
import json
from typing import Any

import trio

QUEUE = 256
GATHER_SECONDS = 0.5  # the events that follow one within this time go in its write
KEEPALIVE = ": keep-alive\n\n"


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


async def next_batch(receive: trio.MemoryReceiveChannel[str], keepalive: float,
                     gather: float = GATHER_SECONDS) -> str:
    """The next events of a subscription as one text: the first that comes within
    ``keepalive`` seconds (else a keep-alive comment) and all that arrive in the
    ``gather`` seconds after it."""
    text = KEEPALIVE
    with trio.move_on_after(keepalive):
        text = await receive.receive()
    if text is KEEPALIVE:
        return text
    await trio.sleep(gather)
    parts = [text]
    while True:
        try:
            parts.append(receive.receive_nowait())
        except trio.WouldBlock:
            break
    return "".join(parts)
