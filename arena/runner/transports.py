"""Transports: how the arena reaches a bot, chosen through the ``arena_open_bot`` hook.

The bundled transports are the hook implementation below, asked after every plugin's:

* ``connect = "tcp://HOST:PORT"`` in the manifest: a TCP connection to a bot that runs as
  a server (on another machine, as lichess and Botzone bots do).  The connection is the
  bot's whole life: a new one is opened when the arena needs a fresh bot.
* otherwise the local process, started plainly (``sandbox = "none"``) or inside bubblewrap
  (``"bwrap"``), see :mod:`arena.runner.process` and :mod:`arena.runner.sandbox`.

Whatever the transport, the conversation is :class:`arena.runner.connection.BotConnection`:
the same time limits, size limits and failure reasons.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import urlsplit

import pluggy
import trio

from arena.errors import ArenaError
from arena.plugins import hookspecs
from arena.plugins.hookspecs import ChannelOpener, hookimpl
from arena.runner.botspec import BotSpec
from arena.runner.channel import BotChannel, StreamChannel
from arena.runner.failures import BotFailure
from arena.runner.process import open_process_channel
from arena.settings import Limits


def parse_tcp_address(connect: str) -> tuple[str, int]:
    """(host, port) of ``tcp://HOST:PORT``; ValueError saying what is wrong."""
    parts = urlsplit(connect)
    if parts.scheme != "tcp":
        raise ValueError(f"{connect[:80]!r} is not a tcp://HOST:PORT address")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or not 0 < port < 65536 or parts.path not in ("", "/"):
        raise ValueError(f"{connect[:80]!r} needs a host and a port 1-65535, "
                         "e.g. tcp://127.0.0.1:9000")
    return parts.hostname, port


@hookimpl
def arena_open_bot(spec: BotSpec, limits: Limits) -> ChannelOpener | None:
    """The bundled transports: TCP for a ``connect = "tcp://..."`` manifest, a local
    process for a ``command`` one; another scheme is left to plugins."""
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


@functools.cache
def transport_manager() -> pluggy.PluginManager:
    """The hook caller for ``arena_open_bot``: the bundled transports, then (asked first)
    every installed plugin that implements it.  A plugin that fails to load is left out
    here; ``arena bots`` reports it."""
    import sys

    from arena.plugins.discovery import _entry_point_plugins

    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    manager.register(sys.modules[__name__], name="transports bundled with Ra Arena")
    for source, load in _entry_point_plugins():
        try:
            plugin = load()
            if hasattr(plugin, "arena_open_bot"):
                manager.register(plugin, name=source)
        except (Exception, SystemExit):  # noqa: S110 - reported by discovery instead
            continue
    return manager


async def open_bot_channel(spec: BotSpec, limits: Limits, nursery: trio.Nursery,
                           log_dir: Path) -> BotChannel:
    """A channel to ``spec``'s bot through the first transport that serves it.  Raises
    BotFailure("crash") when it cannot be reached (a transport plugin's own failure
    included: a plugin must not stop the arena), ArenaError for a bad configuration."""
    try:
        opener = transport_manager().hook.arena_open_bot(spec=spec, limits=limits)
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
