"""Sandbox level "trusted": bots played inside the arena's own processes, with no bot
process and no pipe (research runs of millions of games).

A bot qualifies when its manifest names an in-process entry point, ``entry_point =
"module:attribute"`` (docs/manifest.md).  The attribute is a factory, imported where the
game is played (this process, a worker process, a Dask worker) and called as
``factory(args)`` with the arguments the bot program gets on its command line
(:func:`program_args`: its ``sys.argv[1:]``), so flags in ``command`` configure both modes
alike.  A bot that declares tunable parameters (``[parameters]``) is called as ``factory(args,
parameters={name: value})``, the values its hello would carry (docs/protocol.md).
It returns a :class:`~arena.runner.players.Player`, usually a
:class:`~arena.runner.players.PythonPlayer` built from the same ``choose`` and hooks that
the bot program hands to :func:`arena.sdk.run`.

What stays the same as in process mode: the decisions (same bot seed in ``new_game``, same
``wants``), comments, placements, the manifest's version, and a crash (an exception) that
forfeits the seat; after any failure the bot is made afresh for its next game, as a
failed process is restarted.  What differs: timings, the record's ``kind`` (``"python"``
for a seat played in-process), and a failure's detail text.  Nothing limits such a bot
but the time per decision, and that only after it returns: a slow decision cannot be
interrupted, it is a timeout once it comes back.  Nothing contains it either: it runs with
the arena's rights, in its memory.
"""

from __future__ import annotations

import importlib
import inspect
import re
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from arena.errors import ArenaError
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.runner.players import Player, wants_of
from arena.runner.protocol import (
    EVERYTHING,
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Reply,
    Wants,
)

JSON = Any
Factory = Callable[..., Player]  # factory(args) or, with parameters, factory(args, parameters=)

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
ENTRY_POINT_PATTERN = re.compile(rf"{_NAME}(\.{_NAME})*:{_NAME}(\.{_NAME})*")
ENTRY_POINT_RULE = '"module:attribute", e.g. "arena.strategies.entry_points:greedy"'

WARNING = ("WARNING: sandbox trusted: the bots run INSIDE the arena's own processes, with no "
           "containment and no limit but the time per decision (checked once a decision "
           "returns); use it only for your own trusted code")


def program_args(command: Sequence[str]) -> list[str]:
    """The arguments the bot program finds in ``sys.argv[1:]`` when started with
    ``command``: after "{python} SCRIPT", "{python} -m MODULE" or "PROGRAM"."""
    if not command:
        return []
    if command[0] == "{python}":
        rest = list(command[1:])
        return rest[2:] if rest[:1] == ["-m"] else rest[1:]
    return list(command[1:])


def load_factory(spec: BotSpec) -> Factory:
    """The factory ``spec``'s entry point names, imported now; ArenaError if it cannot be."""
    if spec.entry_point is None:
        raise ArenaError(f"bot {spec.name} has no in-process entry point (key 'entry_point' "
                         f"in its bot.toml): it cannot play under sandbox 'trusted'")
    module_name, _, attribute = spec.entry_point.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except Exception as error:  # ImportError, AttributeError, or the module's own error
        detail = "".join(traceback.format_exception_only(error)).strip()
        raise ArenaError(f"bot {spec.name}: entry point {spec.entry_point!r} cannot be "
                         f"loaded: {detail}") from None
    if not callable(target):
        raise ArenaError(f"bot {spec.name}: entry point {spec.entry_point!r} is not callable")
    if spec.parameters and not _takes_parameters(target):
        raise ArenaError(f"bot {spec.name} declares [parameters] but its entry point "
                         f"{spec.entry_point!r} takes no 'parameters' argument: define it as "
                         "factory(args, parameters=None)")
    factory: Factory = target
    return factory


def _takes_parameters(factory: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # not introspectable (a builtin): let the call decide
        return True
    return "parameters" in signature.parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())


def check_trusted(roster: Sequence[BotSpec]) -> None:
    """Every bot of ``roster`` can play in-process (before any game is played): one line
    naming the bots that cannot, or the first entry point that does not load."""
    missing = [spec.name for spec in roster if spec.entry_point is None]
    if missing:
        raise ArenaError(
            "sandbox 'trusted' plays only bots that name an in-process entry point "
            f"(key 'entry_point' in bot.toml); without one: {', '.join(missing)}")
    for spec in roster:
        load_factory(spec)


class TrustedPlayer:
    """A bot of ``spec`` played in-process, as a :class:`Player` that records what the
    process would (name and version from the manifest).  The factory's player is made
    at once and made afresh after a failure, so the next game starts anew like a
    restarted process (and the referee, which asks before the game, knows whether it
    needs a cancel scope).  One game at a time (the pool sees to it)."""

    kind = "python"  # as every in-process player's in game records (docs/records.md)

    def __init__(self, spec: BotSpec, factory: Factory | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self._factory = factory or load_factory(spec)
        self._inner: Player | None = None
        self._broken: BotFailure | None = None  # why the factory failed
        self._make()

    def _make(self) -> None:
        try:
            args = program_args(self.spec.command)
            parameters = self.spec.parameters_json()
            made = self._factory(args) if parameters is None \
                else self._factory(args, parameters=parameters)
            self._inner, self._broken = made, None
        except (Exception, SystemExit) as error:  # the process would die at its start
            detail = "".join(traceback.format_exception_only(error)).strip()
            self._inner = None
            self._broken = BotFailure("crash", f"its entry point {self.spec.entry_point} "
                                               f"raised {detail}")

    @property
    def enforces_deadline(self) -> bool:
        """A plain function call (a PythonPlayer) needs no cancel scope; a player that
        waits gets one (see Player.choose)."""
        return self._inner is None or getattr(self._inner, "enforces_deadline", False) is True

    @property
    def wants(self) -> Wants:
        return EVERYTHING if self._inner is None else wants_of(self._inner)

    async def start_game(self, info: GameInfo) -> None:
        if self._inner is None and self._broken is None:
            self._make()
        if self._inner is None:
            failure, self._broken = self._broken, None  # the next game tries again
            assert failure is not None
            raise failure
        await self._inner.start_game(info)

    def _running(self) -> Player:
        if self._inner is None:
            raise BotFailure("crash", "the bot is not started")
        return self._inner

    async def choose(self, request: DecisionRequest) -> Reply | None:
        return await self._running().choose(request)

    async def notify(self, notice: ActionNotice) -> None:
        await self._running().notify(notice)

    async def game_over(self, result: GameOverInfo) -> None:
        await self._running().game_over(result)

    async def abandon(self, failure: BotFailure) -> str:
        self._make()  # a fresh bot for its next game, as a failed process is restarted
        return ""

    def take_incidents(self) -> list[dict[str, JSON]]:
        return [] if self._inner is None else self._inner.take_incidents()
