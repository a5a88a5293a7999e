"""What the arena needs to know to start a bot: produced by discovery, used by the runner."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit


@dataclass(frozen=True)
class BotSpec:
    name: str
    version: str
    # argv of the bot process.  Relative paths are relative to ``folder``; the
    # placeholder "{python}" stands for the interpreter that runs the arena.
    command: tuple[str, ...]
    # The bot's own folder (its working directory, the only one visible in the sandbox);
    # None for a bot that needs no folder of its own.
    folder: Path | None
    # game name -> the player counts the bot can play
    games: Mapping[str, tuple[int, ...]]
    # where it was found: "folder <path>" or "entry point <distribution>"
    source: str
    description: str = ""
    authors: tuple[str, ...] = ()
    # requested resource limits (same keys as the league's limits), within the league's caps
    resources: Mapping[str, float] = field(default_factory=dict)
    # sha256 of the bot folder's content (None when not computed)
    content_hash: str | None = None
    # "tcp://HOST:PORT": a bot that runs as a server elsewhere, reached by the TCP
    # transport instead of starting ``command`` (which is then empty)
    connect: str | None = None
    # "module:attribute": a factory for the bot as an in-process player, used instead of
    # ``command`` under sandbox "trusted" (arena/runner/trusted.py, docs/manifest.md)
    entry_point: str | None = None
    # argv that builds the bot before it runs (a compiler, say): run once per content of
    # the sources in a private copy of ``folder``, in the sandbox, with no network; the
    # bot then runs in that built copy (arena/runner/build.py, arena/plugins/builds.py)
    build: tuple[str, ...] = ()
    # set on the spec of a built copy: the content hash of ``folder``, the built files
    # (``content_hash`` stays the sources', which names the bot in stores)
    built_hash: str | None = None

    @property
    def needs_build(self) -> bool:
        """A build step whose built copy this spec is not (yet)."""
        return bool(self.build) and self.built_hash is None

    def plays(self, game: str, num_players: int) -> bool:
        return num_players in self.games.get(game, ())


def parse_tcp_address(connect: str) -> tuple[str, int]:
    """(host, port) of a ``connect = "tcp://HOST:PORT"``; ValueError saying what is wrong.

    Here, beside the field it reads, so that the manifest check (arena.plugins.manifest)
    and the TCP transport (arena.runner.transports) agree without importing each other."""
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


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this
    machine's loopback: where plain TCP may go without TLS (a cluster, a server)."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
