"""Transports: how the arena reaches a bot.

The bundled transports are :func:`bundled_opener`:

* ``connect = "tcp://HOST:PORT"`` in the manifest: a TCP connection to a bot that runs as
  a server (on another machine, as lichess and Botzone bots do).  The connection is the
  bot's whole life: a new one is opened when the arena needs a fresh bot.
* otherwise the local process, started plainly (``sandbox = "none"``) or inside bubblewrap
  (``"bwrap"``), see :mod:`arena.runner.process` and :mod:`arena.runner.sandbox`.

Plugins add transports through the ``arena_open_bot`` hook.  The runner does not know
plugins: it asks whatever :func:`use_transport_lookup` installed, and the plugins layer
installs its hook caller there when it is imported (:mod:`arena.plugins.manager`: every
plugin's transport first, these bundled ones last).  Until then, only the bundled
transports serve.

Whatever the transport, the conversation is :class:`arena.runner.connection.BotConnection`:
the same time limits, size limits and failure reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.runner.botspec import BotSpec, parse_tcp_address
from arena.runner.channel import BotChannel, ChannelOpener, StreamChannel
from arena.runner.failures import BotFailure
from arena.runner.process import open_process_channel
from arena.settings import Limits

# How to reach a bot: a ChannelOpener, or None when no transport serves it.
TransportLookup = Callable[[BotSpec, Limits], ChannelOpener | None]


def bundled_opener(spec: BotSpec, limits: Limits) -> ChannelOpener | None:
    """The bundled transports: TCP for a ``connect = "tcp://..."`` manifest, a local
    process for a ``command`` one; another scheme is left to plugins (None)."""
    if spec.connect is not None:
        if not spec.connect.startswith("tcp://"):
            return None
        host, port = parse_tcp_address(spec.connect)

        async def open_tcp(_nursery: trio.Nursery, _log_dir: Path) -> BotChannel:
            try:
                stream = await trio.open_tcp_stream(host, port)
            except OSError as problem:
                raise BotFailure("crash", f"cannot connect to {spec.connect}: "
                                          f"{problem.strerror or problem}") from None
            return StreamChannel(stream, limits.max_line_bytes, "tcp", f"{host}:{port}")

        return open_tcp

    async def open_process(nursery: trio.Nursery, log_dir: Path) -> BotChannel:
        return open_process_channel(spec, limits, nursery, log_dir)

    return open_process


_lookup: TransportLookup = bundled_opener


def use_transport_lookup(lookup: TransportLookup) -> None:
    """Make ``lookup`` the way :func:`open_bot_channel` finds a bot's transport.

    The seam between the runner and the plugins layer: arena.plugins.manager installs the
    ``arena_open_bot`` hook here (which asks the bundled transports last)."""
    global _lookup
    _lookup = lookup


def transport_lookup() -> TransportLookup:
    """What :func:`open_bot_channel` asks now (:func:`bundled_opener` until the plugins
    layer is imported)."""
    return _lookup


async def open_bot_channel(spec: BotSpec, limits: Limits, nursery: trio.Nursery,
                           log_dir: Path) -> BotChannel:
    """A channel to ``spec``'s bot through the first transport that serves it.  Raises
    BotFailure("crash") when it cannot be reached (a transport plugin's own failure
    included: a plugin must not stop the arena), ArenaError for a bad configuration."""
    try:
        opener = _lookup(spec, limits)
        if opener is None:
            scheme = (spec.connect or "").partition("://")[0]
            raise BotFailure("crash", f"no installed transport serves {scheme}:// "
                                      "addresses (a plugin must provide arena_open_bot)")
        channel: BotChannel = await opener(nursery, log_dir)
    except (BotFailure, ArenaError, trio.Cancelled):  # ArenaError: the configuration's fault
        raise
    except Exception as problem:  # a transport plugin's bug
        raise BotFailure("crash", f"its transport failed: {type(problem).__name__}: "
                                  f"{problem}") from None
    return channel
