"""The player interface the referee talks to, and players that live inside the arena.

A :class:`Player` is anything with these async methods; the referee never knows whether a
bot reached over a channel (:class:`arena.runner.connection.BotConnection`: a process, TCP,
a plugin's transport) or a Python function
(:class:`PythonPlayer`) is behind it.  Methods raise
:class:`~arena.runner.failures.BotFailure` when the player breaks the protocol.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from arena.runner.failures import BotFailure
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
# the observation: a dict, or None for a player made with observation=False (Any so
# that functions typed for a dict fit)
ChooseFunction = Callable[[Any, list[dict[str, JSON]]], int | tuple[int, str]]


class Player(Protocol):
    name: str
    version: str
    kind: str  # "process" or "python"
    # Optional: ``wants`` (a Wants), read by the referee once start_game has returned:
    # what the player asked to be sent (see wants_of).  Optional: ``enforces_deadline``
    # (see choose).

    async def start_game(self, info: GameInfo) -> None:
        """Get ready for a new game (start or check the process, send new_game)."""

    async def choose(self, request: DecisionRequest) -> Reply | None:
        """The player's answer; the referee enforces the time limit and checks it.
        A player whose ``enforces_deadline`` is True returns None when no answer came by
        ``request.deadline``; the referee cancels any other at the deadline (a cancel
        scope per decision, which costs about 8 µs)."""

    async def notify(self, notice: ActionNotice) -> None:
        """Someone made a decision."""

    async def game_over(self, result: GameOverInfo) -> None:
        """The game is over."""

    async def abandon(self, failure: BotFailure) -> str:
        """The player failed and is out of this game: stop it, return its stderr tail."""

    def take_incidents(self) -> list[dict[str, JSON]]:
        """Failures that happened outside a game (e.g. no pong), since the last call."""


def wants_of(player: Player) -> Wants:
    """What the player asked for; everything for a player without a ``wants``
    attribute (e.g. a wrapper written before protocol features existed)."""
    wants = getattr(player, "wants", EVERYTHING)
    return wants if isinstance(wants, Wants) else EVERYTHING


class WrappedPlayer:
    """A player that passes everything on to ``inner``: subclass it to watch a player
    (latencies, the bytes it is sent) without changing what the referee sees."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.name, self.version, self.kind = inner.name, inner.version, inner.kind

    @property
    def wants(self) -> Wants:
        # read by the referee after start_game: a lean bot stays lean when wrapped
        return wants_of(self.inner)

    @property
    def enforces_deadline(self) -> bool:
        return getattr(self.inner, "enforces_deadline", False) is True

    async def start_game(self, info: GameInfo) -> None:
        await self.inner.start_game(info)

    async def choose(self, request: DecisionRequest) -> Reply | None:
        return await self.inner.choose(request)

    async def notify(self, notice: ActionNotice) -> None:
        await self.inner.notify(notice)

    async def game_over(self, result: GameOverInfo) -> None:
        await self.inner.game_over(result)

    async def abandon(self, failure: BotFailure) -> str:
        return await self.inner.abandon(failure)

    def take_incidents(self) -> list[dict[str, JSON]]:
        return self.inner.take_incidents()


class PythonPlayer:
    """A player that is a Python function ``choose(observation, legal) -> index`` (or
    ``(index, comment)``, as with the SDK), with the same optional hooks as the SDK
    (``on_new_game(info_json)``, ``on_action(notice)``, ``on_game_over(result)``,
    ``on_request(request_json)`` just before ``choose``).  An exception in it (or
    ``sys.exit``) counts as a crash.

    ``observation=False`` works like a lean process bot: ``choose`` gets None for the
    observation and the referee does not build it; without ``on_action`` the referee
    does not build notifications for this player."""

    kind = "python"
    # choose never waits (a function call cannot be interrupted anyway): no cancel scope
    enforces_deadline = True

    def __init__(
        self,
        name: str,
        choose: ChooseFunction,
        version: str = "0",
        on_new_game: Callable[[dict[str, JSON]], None] | None = None,
        on_action: Callable[[dict[str, JSON]], None] | None = None,
        on_game_over: Callable[[dict[str, JSON]], None] | None = None,
        observation: bool = True,
        on_request: Callable[[dict[str, JSON]], None] | None = None,
    ) -> None:
        self.name = name
        self.wants = Wants(observation=observation, notifications=on_action is not None)
        self.version = version
        self._choose = choose
        self._on_new_game = on_new_game
        self._on_action = on_action
        self._on_game_over = on_game_over
        self._on_request = on_request

    async def start_game(self, info: GameInfo) -> None:
        if self._on_new_game is not None:
            self._call(self._on_new_game, info.to_json())

    async def choose(self, request: DecisionRequest) -> Reply:
        if self._on_request is not None:
            self._call(self._on_request, request.to_json())
        choice = self._call(self._choose, request.observation, request.legal)
        index, comment = choice if isinstance(choice, tuple) and len(choice) == 2 \
            else (choice, None)
        if isinstance(index, bool) or not isinstance(index, int):
            raise BotFailure("malformed", f"choose() returned {choice!r}, not an int")
        if comment is not None and not isinstance(comment, str):
            raise BotFailure("malformed", f"choose() returned the comment {comment!r}, "
                                          "not a string")
        return Reply(id=request.id, index=index, comment=comment)

    async def notify(self, notice: ActionNotice) -> None:
        if self._on_action is not None:
            self._call(self._on_action, notice.to_json())

    async def game_over(self, result: GameOverInfo) -> None:
        if self._on_game_over is not None:
            self._call(self._on_game_over, result.to_json())

    async def abandon(self, failure: BotFailure) -> str:
        return ""

    def take_incidents(self) -> list[dict[str, JSON]]:
        return []

    @staticmethod
    def _call(function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except (Exception, SystemExit) as error:  # sys.exit ends a bot process: a crash
            detail = "".join(traceback.format_exception_only(error)).strip()
            raise BotFailure("crash", f"raised {detail}") from None


def random_player(name: str = "random") -> PythonPlayer:
    """Uniform among the legal choices, seeded by the new game's bot seed (it needs no
    observation, so none is built for it)."""
    rng = random.Random(0)

    def new_game(info: dict[str, JSON]) -> None:
        rng.seed(info["seed"])

    return PythonPlayer(name, lambda _obs, legal: rng.randrange(len(legal)),
                        on_new_game=new_game, observation=False)


def first_player(name: str = "first") -> PythonPlayer:
    """Always the first legal choice (no observation built for it)."""
    return PythonPlayer(name, lambda _obs, _legal: 0, observation=False)
