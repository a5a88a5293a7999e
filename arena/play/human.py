"""A person at the terminal as a player the referee can seat (``arena play``).

Input is read from a non-blocking copy of stdin through trio, so the referee's time
limit can interrupt a person who has not answered (a blocking read could not be
cancelled, and would then eat the next answer)."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

import trio

from arena.games.base import Game
from arena.runner.failures import BotFailure
from arena.runner.players import Player, WrappedPlayer
from arena.runner.protocol import (
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Reply,
)
from arena.viewer.frames import describe_action

JSON = Any
HELP = ("Type the number of a move and press Enter.  Other commands: "
        "'board' draws the position again, 'help' shows this, 'quit' leaves the game "
        "(nothing is stored).")


class HumanQuit(Exception):
    """The person asked to leave, or closed the input: the game is abandoned."""


class LineReader:
    """Lines from a file descriptor, read without blocking the event loop."""

    def __init__(self, fd: int) -> None:
        self._stream = trio.lowlevel.FdStream(os.dup(fd))
        self._buffer = b""

    async def line(self) -> str | None:
        """The next line without its newline; None at end of input."""
        while b"\n" not in self._buffer:
            chunk = await self._stream.receive_some(4096)
            if not chunk:
                if self._buffer:
                    rest, self._buffer = self._buffer, b""
                    return rest.decode(errors="replace")
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    async def aclose(self) -> None:
        await self._stream.aclose()


def _clock(milliseconds: int | None) -> str:
    if milliseconds is None:
        return "no limit"
    seconds = max(0, milliseconds // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


class HumanPlayer:
    """Draws the position, numbers the legal moves from 1, and asks until it gets one."""

    kind = "human"
    version = "-"

    def __init__(self, name: str, reader: LineReader, game: Game,
                 out: TextIO = sys.stdout) -> None:
        self.name = f"human:{name}"
        self.reader = reader
        self.game = game  # it draws the position (Game.board_text)
        self.out = out
        self.names: Sequence[str] = ()
        self.seat = 0

    def say(self, *lines: str) -> None:
        self.out.write("".join(f"{line}\n" for line in lines))
        self.out.flush()

    async def start_game(self, info: GameInfo) -> None:
        self.names = [f"{n} (you)" if s == info.seat else n for s, n in enumerate(info.players)]
        self.seat = info.seat
        seats = ", ".join(f"{s}: {n}" for s, n in enumerate(self.names))
        self.say(f"{info.game} for {info.num_players} players. Seats: {seats}",
                 f"Time per move: {info.move_ms // 1000} s"
                 + (f"; game clock {_clock(info.game_ms)}" if info.game_ms else ""), HELP, "")

    async def choose(self, request: DecisionRequest) -> Reply:
        started = time.monotonic()
        legal = [describe_action(move) for move in request.legal]
        position = self.game.board_text(request.observation or {}, self.names)
        menu = [f"  {number:>3}. {move}" for number, move in enumerate(legal, start=1)]
        self.say("", *position, "Your moves:", *menu)
        while True:
            left = request.move_ms + (request.bank_ms or 0)
            if request.game_ms_left is not None:
                left = min(left, request.game_ms_left)
            spent = int((time.monotonic() - started) * 1000)
            self.out.write(f"Your move (1-{len(legal)}; clock {_clock(left - spent)}): ")
            self.out.flush()
            line = await self.reader.line()
            if line is None:
                raise HumanQuit("the input ended")
            answer = line.strip().lower()
            if answer in ("quit", "exit", "q"):
                raise HumanQuit("you left the game")
            if answer in ("help", "h", "?"):
                self.say(HELP)
            elif answer == "board":
                self.say(*position, "Your moves:", *menu)
            elif answer.isdigit() and 1 <= int(answer) <= len(legal):
                return Reply(id=request.id, index=int(answer) - 1)
            else:
                self.say(f"{line.strip()!r} is not a move: type a number from 1 to "
                         f"{len(legal)} (or 'help')")

    async def notify(self, notice: ActionNotice) -> None:
        who = self.names[notice.seat] if notice.seat < len(self.names) else notice.seat
        revealed = "" if not notice.outcome else " -> " + ", ".join(
            f"{key} {value}" for key, value in notice.outcome.items())
        self.say(f"  {who}: {describe_action(notice.action)}{revealed}")

    async def game_over(self, result: GameOverInfo) -> None:
        order = sorted(range(len(result.scores)), key=lambda s: (result.placements[s], s))
        self.say("", "Game over.", *(
            f"  {result.placements[s]}. {self.names[s]}: {result.scores[s]:g} points"
            + (" (forfeit)" if s in result.forfeits else "") for s in order))

    async def abandon(self, failure: BotFailure) -> str:
        self.say("", f"You are out of this game ({failure.reason}: {failure.detail}); "
                     "a fallback policy plays your seat to the end.")
        return ""

    def take_incidents(self) -> list[dict[str, JSON]]:
        return []


class BotAtItsOwnPace(WrappedPlayer):
    """A bot at a person's table: the game's limits give the person minutes per move,
    but the bot is told, and held to, ``seconds`` per move, as in a league (a bot that
    plans to use a share of its time would otherwise think for minutes)."""

    def __init__(self, inner: Player, seconds: float) -> None:
        super().__init__(inner)
        self.move_ms = max(1, int(seconds * 1000))

    async def start_game(self, info: GameInfo) -> None:
        await self.inner.start_game(dataclasses.replace(
            info, move_ms=min(info.move_ms, self.move_ms), bank_ms=None, game_ms=None))

    async def choose(self, request: DecisionRequest) -> Reply | None:
        move_ms = min(request.move_ms, self.move_ms)
        reply = None
        with trio.move_on_after(move_ms / 1000):
            reply = await self.inner.choose(dataclasses.replace(
                request, move_ms=move_ms, bank_ms=None, game_ms_left=None))
        if reply is not None:
            return reply
        raise BotFailure("timeout", f"no reply within its {move_ms / 1000:g} s per move")
