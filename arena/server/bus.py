"""What one process of the server tells every process of it, and who coordinates.

With SQLite the server is one process: :class:`LocalBus` hands each message to this
process's handlers at once, and this process always coordinates.  With PostgreSQL any
number of web processes (``arena serve --workers N``, or servers on other machines over
the same database) share the work: every one serves pages, the API and event streams;
exactly one at a time, the *coordinator*, runs the ladder, the validation queue, the
friendly games and the leaderboards' rating process.

* :class:`PgBus`: a message goes to this process's handlers at once, and to every other
  process as a NOTIFY on channel ``arena`` (JSON, at most ``MAX_PAYLOAD`` bytes, marked
  with the sending process, which ignores it when it comes back); every process LISTENs
  on a connection of its own, waiting on its socket in the event loop, and hands what
  arrives to its handlers: the events reach the watchers of every process, and what a
  web process asks of the coordinator (a version to validate, a roster changed, a
  friendly request) reaches it wherever it runs.  A process that loses its listening
  connection connects again (and says so).
* :class:`Coordination`: a PostgreSQL session-level advisory lock, held on a connection
  of its own for as long as the process coordinates.  Every other process tries to take
  it each ``TRY_SECONDS``: when the coordinator dies (``kill -9``, a crash, a machine
  lost) PostgreSQL ends its session (at once for a closed socket, within the keepalives'
  half a minute for a vanished machine) and another takes over within seconds.  The
  coordinator checks its lock's connection each ``TRY_SECONDS`` too and stops
  coordinating if it lost it (another may have it by then).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections.abc import Callable
from typing import Any

import trio

from arena.errors import ArenaError

CHANNEL = "arena"
MAX_PAYLOAD = 7900  # PostgreSQL's limit is 8000 bytes
TRY_SECONDS = 1.0
RECONNECT_SECONDS = 2.0
# the advisory lock's key: an arbitrary 64-bit number, the same in every process
COORDINATOR_LOCK = 0x52_61_41_72_65_6E_61  # "RaArena"

Handler = Callable[[str, dict[str, Any]], None]


def process_name() -> str:
    return f"{socket.gethostname()} pid {os.getpid()}"


class LocalBus:
    """One process: messages go to its handlers at once."""

    def __init__(self) -> None:
        self.handlers: list[Handler] = []

    def subscribe(self, handler: Handler) -> None:
        self.handlers.append(handler)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        for handler in list(self.handlers):
            handler(kind, data)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        task_status.started()
        await trio.sleep_forever()

    def close(self) -> None:
        pass


class PgBus:
    """Every process over one PostgreSQL database (see the module)."""

    def __init__(self, url: str, log: Callable[[str], None]) -> None:
        from arena.league.pg_store import PgConnection

        self.url = url
        self.log = log
        self.handlers: list[Handler] = []
        self.origin = secrets.token_hex(8)  # this process, in its messages
        # the connection messages are sent on (NOTIFY is sent when its statement ends:
        # autocommit), and the one this process listens on
        self.sender = PgConnection(url, "public", name="arena serve (events out)")
        self.listener: Any = None

    def subscribe(self, handler: Handler) -> None:
        self.handlers.append(handler)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Tell this process, then every other; never raises: a message the database
        does not take reaches this process only, and is said."""
        self._deliver(kind, data)
        text = json.dumps({"kind": kind, "data": data, "from": self.origin},
                          separators=(",", ":"))
        if len(text.encode()) > MAX_PAYLOAD:
            self.log(f"an event {kind} of {len(text)} bytes was not sent to the other "
                     "processes (too long for PostgreSQL's NOTIFY)")
            return
        try:
            self.sender.run("SELECT pg_notify(?, ?)", (CHANNEL, text))
        except ArenaError as problem:
            self.log(f"an event {kind} could not be sent to the other processes: "
                     f"{problem}")

    def _deliver(self, kind: str, data: dict[str, Any]) -> None:
        for handler in list(self.handlers):
            handler(kind, data)

    def _listen(self) -> Any:
        from arena.league.pg_store import PgConnection

        connection = PgConnection(self.url, "public", name="arena serve (events in)")
        connection.run(f"LISTEN {CHANNEL}")
        return connection

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Hand each message that arrives to the handlers, until cancelled."""
        self.listener = self._listen()
        task_status.started()
        lost = False
        while True:
            try:
                pgconn = self.listener.connection.pgconn
                await trio.lowlevel.wait_readable(pgconn.socket)
                pgconn.consume_input()
                while (notice := pgconn.notifies()) is not None:
                    message = json.loads(notice.extra.decode())
                    if message.get("from") != self.origin:  # (ours: delivered at once)
                        self._deliver(message["kind"], message["data"])
                if lost:
                    lost = False
                    self.log("listening to the other processes again")
            except (ArenaError, OSError, ValueError) as problem:
                if not lost:
                    self.log(f"lost the events of the other processes ({problem}); "
                             f"connecting again every {RECONNECT_SECONDS:g} s")
                lost = True
                self.listener.close()
                await trio.sleep(RECONNECT_SECONDS)
                try:
                    self.listener = self._listen()
                except ArenaError:
                    continue

    def close(self) -> None:
        self.sender.close()
        if self.listener is not None:
            self.listener.close()


class Coordination:
    """Whether this process coordinates (see the module): :meth:`take` tries the lock,
    :meth:`held` checks it is still ours."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.connection: Any = None
        self.session: int | None = None  # the backend holding the lock

    def take(self) -> bool:
        """True if this process now holds the coordinator's lock (always, on SQLite)."""
        if self.url is None:
            return True
        from arena.league.pg_store import PgConnection

        try:
            if self.connection is None:
                self.connection = PgConnection(self.url, "public",
                                               name="arena serve (coordinator lock)")
            row = self.connection.row("SELECT pg_try_advisory_lock(?), pg_backend_pid()",
                                      (COORDINATOR_LOCK,))
        except ArenaError:
            self.release()
            return False
        if not row or not row[0]:
            return False
        self.session = int(row[1])
        return True

    def held(self) -> bool:
        """Whether the lock's session is still alive (then PostgreSQL keeps it ours)."""
        if self.url is None:
            return True
        try:  # (a connection made again is another session: the lock went with the old)
            row = self.connection.row("SELECT pg_backend_pid()") \
                if self.connection is not None else None
        except ArenaError:
            return False
        return row is not None and row[0] == self.session

    def release(self) -> None:
        """Give the lock up (closing its session does)."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        self.session = None
