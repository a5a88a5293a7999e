"""What the arena needs to know to start a bot: produced by discovery, used by the runner."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

# the values a player was given for its declared parameters: (name, value), in the
# declaration's order (hashable: part of what distinguishes two players of one bot)
ParameterValues = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Parameter:
    """One tunable parameter a bot declares (``[parameters]`` in bot.toml,
    docs/manifest.md): what it is called, its default and bounds, and SPSA's step sizes
    as fishtest writes them (``arena tune``, docs/tuning.md): ``c_end``, the perturbation
    at the last iteration, and ``r_end``, the learning rate there (a_end = r_end *
    c_end**2).  ``integer``: the bot gets whole numbers (SPSA's values are rounded at
    random, as fishtest rounds them, so that the mean is the real value)."""

    name: str
    default: float
    minimum: float
    maximum: float
    c_end: float
    r_end: float
    integer: bool = False

    def clip(self, value: float) -> float:
        return min(max(value, self.minimum), self.maximum)


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
    # the tunable parameters it declares ([parameters] in bot.toml), in their order
    parameters: tuple[Parameter, ...] = ()
    # values chosen for some of them (``arena tune``'s perturbed players), the defaults
    # for the rest: a bot given other values is another player (another process)
    parameter_values: ParameterValues = ()

    @property
    def needs_build(self) -> bool:
        """A build step whose built copy this spec is not (yet)."""
        return bool(self.build) and self.built_hash is None

    def plays(self, game: str, num_players: int) -> bool:
        return num_players in self.games.get(game, ())

    def parameters_json(self) -> dict[str, float | int] | None:
        """What the bot is told of its parameters (hello's ``parameters``, the in-process
        factory's ``parameters=``): every declared one, its chosen value or its default
        (an integer parameter as a JSON integer); None for a bot that declares none."""
        if not self.parameters:
            return None
        chosen = dict(self.parameter_values)
        told: dict[str, float | int] = {}
        for parameter in self.parameters:
            value = chosen.get(parameter.name, parameter.default)
            told[parameter.name] = round(value) if parameter.integer else value
        return told

    def with_parameters(self, values: ParameterValues | Mapping[str, float]) -> BotSpec:
        """This bot playing with ``values`` for (some of) its declared parameters;
        ValueError naming an undeclared one or a value out of its bounds."""
        items = tuple(values.items()) if isinstance(values, Mapping) else tuple(values)
        declared = {p.name: p for p in self.parameters}
        for name, value in items:
            parameter = declared.get(name)
            if parameter is None:
                known = ", ".join(declared) or "none"
                raise ValueError(f"bot {self.name} declares no parameter {name!r} "
                                 f"(its parameters: {known})")
            if not (math.isfinite(value) and parameter.minimum <= value <= parameter.maximum):
                raise ValueError(f"parameter {name} of bot {self.name}: {value!r} is outside "
                                 f"{parameter.minimum:g}..{parameter.maximum:g}")
        given = dict(items)
        ordered = tuple((p.name, float(given[p.name])) for p in self.parameters
                        if p.name in given)
        return replace(self, parameter_values=ordered)


def seat_specs(specs: Mapping[str, BotSpec], seats: Sequence[str],
               parameters: Sequence[tuple[str, ParameterValues]] = ()) -> list[BotSpec]:
    """The players of a game's seats: each seat's bot from ``specs`` by name, given the
    parameter values ``parameters`` names for it (a tuning's perturbed players,
    arena/league/schedule.py's ScheduledGame.parameters); the one place where a
    scheduled game becomes the specs its pool starts, on every backend."""
    chosen = dict(parameters)
    return [specs[name] if name not in chosen else specs[name].with_parameters(chosen[name])
            for name in seats]


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
