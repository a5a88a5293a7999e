"""A protocol trace: every line to and from chosen bots, with its time (cutechess's
``-debug``), for ``arena run``, ``arena validate`` and any command that plays bots over
channels in this process.

A command adds the option and wraps its play in the traces it names::

    add_trace_argument(parser)                      # --trace BOT[=FILE], repeatable
    with traces(args.trace, default_bot=spec.name):  # the bots' channels are traced
        ...

Inside the block every channel a :class:`~arena.runner.connection.BotConnection` opens
to a traced bot is wrapped (:func:`traced`): each line the arena sends (``>``), each
line the bot answers (``<``) and what happens to the connection (``#``: opened, closed,
aborted and why, no answer by the deadline) is written as one line::

       0.412 mybot#1 > {"type":"request","id":3,...}
       0.413 mybot#1 < {"type":"reply","id":3,"index":0}

seconds since the trace began, the bot and which of its connections (a bot in two games
at once has two), then the line itself (control characters shown as ``\\uXXXX``, never
obeyed).  ``BOT`` alone writes to standard error, ``BOT=FILE`` to a file (made anew;
several bots may share one).  Only this process is traced: a league traces its games by
playing them here (``arena run --trace`` uses no worker processes), and bots played
in-process (sandbox "trusted") have no lines to trace.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

import trio

from arena.errors import ArenaError
from arena.runner.channel import BotChannel
from arena.runner.failures import BotFailure
from arena.terminal import visible

OPTION_HELP = (
    "write every line to and from bot BOT, with its time in seconds, to FILE (BOT alone: "
    "to standard error); repeatable")


class TraceSink:
    """Where trace lines go: a file, or standard error (where a live progress line is
    cleared first, so that it never runs into a trace line)."""

    def __init__(self, stream: TextIO, started: float, clear_line: bool = False) -> None:
        self.stream = stream
        self.started = started
        self.clear_line = clear_line

    def write(self, label: str, arrow: str, text: str) -> None:
        prefix = "\r\x1b[2K" if self.clear_line else ""
        elapsed = time.monotonic() - self.started
        self.stream.write(f"{prefix}{elapsed:10.3f} {label} {arrow} {visible(text)}\n")
        self.stream.flush()


# bot name -> its sink, while a ``traces`` block runs; the bots a channel was opened to
_ACTIVE: dict[str, TraceSink] = {}
_OPENED: set[str] = set()
_CONNECTIONS = itertools.count(1)


def add_trace_argument(parser: argparse.ArgumentParser, bot_optional: bool = False) -> None:
    """``--trace BOT[=FILE]``, repeatable (``bot_optional``: ``--trace`` alone names the
    command's own bot, e.g. the one ``arena validate`` checks)."""
    if bot_optional:
        parser.add_argument("--trace", action="append", nargs="?", const="",
                            metavar="BOT[=FILE]",
                            help=OPTION_HELP + "; --trace alone: the bot under test")
    else:
        parser.add_argument("--trace", action="append", metavar="BOT[=FILE]",
                            help=OPTION_HELP)


def parse_traces(values: Sequence[str] | None, default_bot: str | None = None
                 ) -> dict[str, Path | None]:
    """``["mybot=t.log", "random"]`` -> ``{"mybot": Path("t.log"), "random": None}``
    (None: standard error); an empty value is ``default_bot``."""
    chosen: dict[str, Path | None] = {}
    for value in values or ():
        bot, _, file = value.partition("=")
        bot = bot.strip() or (default_bot or "")
        if not bot:
            raise ArenaError(f"--trace {value!r}: name a bot, --trace BOT or --trace "
                             "BOT=FILE")
        if "=" in value and not file:
            raise ArenaError(f"--trace {value!r}: name the file after '=', or leave out "
                             "'=' to trace to standard error")
        chosen[bot] = Path(file) if file else None
    return chosen


@contextlib.contextmanager
def traces(values: Sequence[str] | None, default_bot: str | None = None
           ) -> Iterator[dict[str, Path | None]]:
    """Trace the bots ``values`` name (the ``--trace`` option) while the block runs;
    yields what was chosen (bot -> file, None for standard error)."""
    chosen = parse_traces(values, default_bot)
    if not chosen:
        yield chosen
        return
    started = time.monotonic()
    with contextlib.ExitStack() as files:
        sinks: dict[Path | None, TraceSink] = {}
        for bot, path in chosen.items():
            if path not in sinks:
                if path is None:
                    sinks[path] = TraceSink(sys.stderr, started, clear_line=sys.stderr.isatty())
                else:
                    stream = files.enter_context(path.open("w", encoding="utf-8"))
                    sinks[path] = TraceSink(stream, started)
                traced_here = ", ".join(b for b, p in chosen.items() if p == path)
                sinks[path].stream.write(
                    f"# protocol trace of {traced_here}, from {time.strftime('%Y-%m-%d %H:%M:%S')}"
                    ": seconds since then, BOT#CONNECTION, > to the bot, < from it, "
                    "# what became of the connection\n")
            _ACTIVE[bot] = sinks[path]
        try:
            yield chosen
        finally:
            for bot in chosen:
                _ACTIVE.pop(bot, None)
            never = sorted(set(chosen) - _OPENED)
            _OPENED.difference_update(chosen)
    for bot in never:  # a typo, or a bot that plays no game here
        print(f"note: --trace {bot}: no connection to a bot called {bot!r} was opened, so "
              "nothing was traced for it", file=sys.stderr)


def traced(channel: BotChannel, bot: str) -> BotChannel:
    """``channel`` with every line written to the bot's trace, if it is being traced."""
    sink = _ACTIVE.get(bot)
    if sink is None:
        return channel
    _OPENED.add(bot)
    return TracedChannel(channel, sink, f"{bot}#{next(_CONNECTIONS)}")


class TracedChannel:
    """A :class:`BotChannel` that passes everything on, writing each line to a sink."""

    exchange: Callable[[bytes, float], Awaitable[bytes | None]]  # set when the inner has it

    def __init__(self, inner: BotChannel, sink: TraceSink, label: str) -> None:
        self.inner = inner
        self.sink = sink
        self.label = label
        if getattr(inner, "exchange", None) is not None:  # keep the fast path if it has one
            self.exchange = self._exchange
        pid = f" (pid {inner.pid})" if inner.pid is not None else ""
        self.note(f"opened: {inner.kind}{pid}")

    def note(self, text: str) -> None:
        self.sink.write(self.label, "#", text)

    def _sent(self, data: bytes) -> None:
        for line in data.split(b"\n"):
            if line:
                self.sink.write(self.label, ">", line.decode("utf-8", "backslashreplace"))

    def _received(self, line: bytes) -> None:
        self.sink.write(self.label, "<", line.decode("utf-8", "backslashreplace"))

    @property
    def kind(self) -> str:
        return self.inner.kind

    @property
    def pid(self) -> int | None:
        return self.inner.pid

    @property
    def log_path(self) -> Path | None:
        return self.inner.log_path

    async def send(self, data: bytes) -> None:
        self._sent(data)
        await self.inner.send(data)

    async def receive_line(self, *, fresh: bool = False) -> bytes:
        try:
            line = await self.inner.receive_line(fresh=fresh)
        except BotFailure as failure:
            self.note(f"{failure.reason}: {failure.detail}")
            raise
        self._received(line)
        return line

    async def _exchange(self, data: bytes, deadline: float) -> bytes | None:
        self._sent(data)
        try:
            line: bytes | None = await self.inner.exchange(data, deadline)  # type: ignore[attr-defined]
        except BotFailure as failure:
            self.note(f"{failure.reason}: {failure.detail}")
            raise
        if line is None:
            late = trio.current_time() - deadline
            self.note(f"no answer by the deadline ({late:+.3f} s)")
        else:
            self._received(line)
        return line

    async def close(self, grace: float) -> None:
        self.note("closed")
        await self.inner.close(grace)

    async def abort(self, failure: BotFailure, grace: float) -> str:
        tail = await self.inner.abort(failure, grace)
        self.note(f"ended after {failure.reason}: {failure.detail}")
        return tail

    def worn_out(self) -> bool:
        return self.inner.worn_out()
