"""``arena serve`` (init, run, backup), ``arena login`` and ``arena upload``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.runner.botspec import is_loopback

SERVE_USAGE = ("arena serve init DIR [--database URL] | arena serve DIR [--host H] "
               "[--port P] [--insecure] [--workers N] | arena serve backup DIR OUT | "
               "arena serve migrate DIR postgresql://...")


# --- arena serve ------------------------------------------------------------------------
def serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = SERVE_USAGE
    parser.add_argument("words", nargs="+", metavar="DIR",
                        help="DIR: run the server of DIR; `init DIR`: make a server folder; "
                             "`backup DIR OUT`: a consistent copy while it runs; `migrate "
                             "DIR URL`: copy a SQLite server into PostgreSQL")
    parser.add_argument("--host", help="address to listen on (default: settings, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: settings, 8080)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a non-loopback address without TLS (passwords and tokens "
                             "then cross the network in clear)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="web processes (default 1); more than 1 needs PostgreSQL "
                             "(database = \"postgresql://...\" in settings.toml): every "
                             "one serves pages, the API and events, one coordinates")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the ladder's games on this Dask scheduler (overrides "
                             "[cluster] address; docs/cluster.md)")
    parser.add_argument("--admin", default="admin", metavar="NAME",
                        help="init: the admin account's name (default admin)")
    parser.add_argument("--database", metavar="URL", default="",
                        help="init: keep the accounts, bots and games in this PostgreSQL "
                             "database (postgresql://USER@HOST/DB, empty of an arena's "
                             "tables; `pip install 'ra-arena[postgres]'`) rather than in "
                             "SQLite in the folder")


def serve_command(args: argparse.Namespace) -> int:
    words = args.words
    if words[0] == "init" and len(words) == 2:
        return init_server(Path(words[1]), args.admin, args.database)
    if words[0] == "backup" and len(words) == 3:
        backup(Path(words[1]), Path(words[2]))
        print(f"backed up {words[1]} to {words[2]}; `arena serve {words[2]}` serves the copy")
        return 0
    if words[0] == "migrate" and len(words) == 3:
        from arena.server.migrate import migrate_command

        return migrate_command(words[1], words[2])
    if len(words) != 1:
        raise ArenaError(f"usage: {SERVE_USAGE}")
    if args.workers < 1:
        raise ArenaError(f"--workers is a number of web processes, 1 or more, not "
                         f"{args.workers}")
    return run_server(Path(words[0]), args.host, args.port, args.insecure, args.cluster,
                      args.workers)


def init_server(folder: Path, admin: str, database: str = "") -> int:
    from arena.server import accounts
    from arena.server.core import make_private
    from arena.server.settings import (
        DEFAULT_SETTINGS,
        SECRET_NAME,
        SETTINGS_NAME,
        load_settings,
        write_private,
    )
    from arena.server.store import open_league_store, open_server_store

    if folder.exists() and any(folder.iterdir()):
        raise ArenaError(f"{folder} exists and is not empty; choose a new folder")
    accounts.check_new_account(admin, "x" * accounts.MIN_PASSWORD)
    text = DEFAULT_SETTINGS
    if database:
        _check_empty_database(database)
        text = text.replace('database = ""', f"database = {json.dumps(database)}", 1)
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        write_private(folder / SETTINGS_NAME, text.encode())
        write_private(folder / SECRET_NAME, (accounts.new_secret() + "\n").encode())
        settings = load_settings(folder)
        settings.uploads.mkdir(mode=0o700)
        open_league_store(settings, writer=True).close()  # the ladder's games (SQLite: the
        store = open_server_store(settings)                # same file as the server's)
        password = accounts.new_secret()[:24]
        store.add_user(admin, accounts.hash_password(password), "admin", True)
        store.close()
    except BaseException:  # no half-made server folder is left
        for path in [folder] if made else list(folder.iterdir()):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        raise
    make_private(folder)  # the folder 0700, the database 0600: nobody else's to read
    where = (f"the database {describe_database(database)}" if database else
             f"the database {settings.sqlite_path.name}")
    print(f"made the server folder {folder}: {SETTINGS_NAME} (edit it), {where}, "
          f"{settings.uploads.name}/")
    print(f"admin account: {admin}, password (shown this once): {password}")
    print(f"run it: arena serve {folder}")
    return 0


def describe_database(database: str) -> str:
    """A database as the server's lines name it (a PostgreSQL address without its
    password; "" is the folder's SQLite file)."""
    from arena.league.pg_store import describe

    return describe(database) if database else "league.sqlite"


def _check_empty_database(database: str) -> None:
    """A PostgreSQL database for a new server: reachable, and holding no server yet."""
    from arena.server.pg_store import PgServerStore

    store = PgServerStore(database)
    try:
        if store.users():
            raise ArenaError(f"{describe_database(database)} already holds a server's "
                             "accounts: give another database (or copy a server into an "
                             "empty one with `arena serve migrate`)")
    finally:
        store.close()


# a stop (SIGINT, SIGTERM): the workers and bots are told to quit; whatever is left of
# them after this long is killed (at once on a second signal)
STOP_SECONDS = 8.0
FORCED_EXIT_SECONDS = 4.0  # ... and if the program has still not ended after this more


@dataclasses.dataclass
class _Stop:
    """How the server was stopped, and the processes it had then (none is left after)."""

    signal: str | None = None
    began: float = 0.0
    processes: set[tuple[int, int]] = dataclasses.field(default_factory=set)
    exit_code: int = 0
    quiet: bool = False  # one of several web processes: the first process says it all

    def line(self) -> str:
        took = time.monotonic() - self.began
        return (f"arena serve: stopped ({self.signal}) in {took:.1f} s; the ladder's games "
                "in flight are played again at the next start")


def run_server(folder: Path, host: str | None, port: int | None, insecure: bool,
               cluster: str | None = None, workers: int = 1) -> int:
    """The server until SIGINT (Ctrl-C) or SIGTERM: then it stops within seconds, says
    so in one line, and leaves no process behind; exit 130 after SIGINT, 0 after
    SIGTERM (a service manager's stop).  ``workers`` > 1: that many web processes
    (arena/server/workers.py), PostgreSQL only."""
    import trio

    from arena import processes
    from arena.server.core import Server
    from arena.server.workers import worker_slot

    if workers > 1:
        return _run_workers(folder, host, port, insecure, cluster, workers)
    slot = worker_slot()  # one of the web processes of `--workers N`
    stop = _Stop(quiet=slot is not None)

    def interrupted(number: int, frame: object) -> None:
        stop.signal = stop.signal or signal.Signals(number).name
        raise KeyboardInterrupt

    # SIGTERM stops it as Ctrl-C does, also before and after the event loop
    previous = signal.signal(signal.SIGTERM, interrupted)
    try:
        try:
            server = Server.open(folder, cluster=cluster)
        except KeyboardInterrupt:
            if not stop.quiet:
                print(f"arena serve: stopped ({stop.signal or 'SIGINT'}) before it started",
                      file=sys.stderr)
            return 0 if stop.signal == "SIGTERM" else 130
        host = host or server.settings.host
        port = server.settings.port if port is None else port
        if slot is not None:
            server.process_label = f" (web process {slot[1]} of {slot[2]})"
        tls = server.settings.tls
        if not is_loopback(host) and tls is None and not insecure:
            server.close()
            raise ArenaError(f"{host} is not a loopback address: give the server TLS "
                             "(tls_cert and tls_key in settings.toml) or pass --insecure")
        try:
            try:
                trio.run(serve, server, host, port, stop, slot[0] if slot else None)
            except BaseExceptionGroup as group:
                raise _single(group, host, port) from None
        except KeyboardInterrupt:  # a signal before the loop took them over
            stop.signal, stop.began = stop.signal or "SIGINT", stop.began or time.monotonic()
        finally:
            server.stopping = True
            try:
                server.close()
            finally:
                # (multiprocessing's resource tracker ends by itself once this process
                # has, after releasing what the rating process's queues held)
                left = processes.end(stop.processes | processes.descendants(os.getpid()),
                                     spare={_resource_tracker()})
                if stop.signal is not None and not stop.quiet:
                    print(stop.line() + (f" ({len(left)} processes could not be ended)"
                                         if left else ""), file=sys.stderr, flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 130 if stop.signal == "SIGINT" else 0


def _resource_tracker() -> int | None:
    from multiprocessing import resource_tracker

    pid = getattr(resource_tracker._resource_tracker, "_pid", None)
    return pid if isinstance(pid, int) else None


def _single(group: BaseExceptionGroup, host: str, port: int) -> BaseException:
    """The one error of a failed start (the port taken, say), in one line if known."""
    problem: BaseException = group
    while isinstance(problem, BaseExceptionGroup) and len(problem.exceptions) == 1:
        problem = problem.exceptions[0]
    if isinstance(problem, OSError):
        return ArenaError(f"cannot listen on {host}:{port}: {problem.strerror or problem}")
    return problem


def _run_workers(folder: Path, host: str | None, port: int | None, insecure: bool,
                 cluster: str | None, workers: int) -> int:
    """``arena serve DIR --workers N`` (arena/server/workers.py)."""
    from arena.server.settings import load_settings
    from arena.server.workers import run_workers

    settings = load_settings(folder)
    if not settings.postgres:
        raise ArenaError(f"--workers {workers}: several web processes need PostgreSQL "
                         "(database = \"postgresql://...\" in settings.toml, `arena serve "
                         "migrate`); SQLite is one process's")
    host = host or settings.host
    port = settings.port if port is None else port
    if not is_loopback(host) and settings.tls is None and not insecure:
        raise ArenaError(f"{host} is not a loopback address: give the server TLS "
                         "(tls_cert and tls_key in settings.toml) or pass --insecure")
    extra = ["--host", host, "--port", str(port), *(["--insecure"] if insecure else []),
             *(["--cluster", cluster] if cluster else [])]
    return run_workers(folder, host, port, workers, extra,
                       _announce(settings, host, port, settings.cluster(cluster),
                                 f"{workers} web processes"))


def _announce(settings: Any, host: str, port: int, cluster: Any, processes: str = ""
              ) -> str:
    """The line a started server says: where, and what its ladder plays."""
    address = f"[{host}]" if ":" in host and not host.startswith("[") else host
    scheme = "https" if settings.tls else "http"
    return (f"arena serve: {settings.folder} on {scheme}://{address}:{port} ("
            + (f"{processes}; " if processes else "")
            + f"ladder: {settings.game}, {'/'.join(map(str, settings.players))} players"
            + (f", games on {cluster.address}" if cluster else "") + ")")


async def serve(server: object, host: str, port: int, stop: _Stop | None = None,
                listening: int | None = None) -> None:
    """The whole server in one trio program: the background work (validation queue,
    ladder, leaderboards) and Hypercorn's trio worker serving the app, until SIGINT or
    SIGTERM (``stop`` says which, and when); ``listening``: the socket, already bound,
    of one of several web processes (which then says nothing when it starts)."""
    import trio
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    from arena.server.app import create_app
    from arena.server.core import Server
    from arena.server.middleware import RequestDeadline

    assert isinstance(server, Server)
    stop = stop if stop is not None else _Stop()
    config = Config()
    address = f"[{host}]" if ":" in host and not host.startswith("[") else host
    config.bind = [f"{address}:{port}" if listening is None else f"fd://{listening}"]
    config.accesslog = None
    config.errorlog = "-"
    config.graceful_timeout = 2.0
    # slow clients: a connection must send its request's head within idle_seconds (also
    # the keep-alive between requests) and a body whole within request_seconds
    # (RequestDeadline); heads at most 16 KiB.  No read_timeout: an event stream's
    # client rightly sends nothing for hours (their number is capped by the app)
    config.keep_alive_timeout = server.settings.idle_seconds
    config.h11_max_incomplete_size = 16 * 1024
    config.backlog = 256
    tls = server.settings.tls
    if tls is not None:
        config.certfile, config.keyfile = str(tls[0]), str(tls[1])
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as guard:
            work = trio.CancelScope()
            guard.start_soon(_stop_on_signals, signals, work, server, stop)
            with work:
                async with trio.open_nursery() as nursery:
                    await nursery.start(server.run)
                    app = RequestDeadline(create_app(server), server.settings.request_seconds)
                    await nursery.start(hypercorn_serve, app, config)
                    if listening is None:
                        print(_announce(server.settings, host, port, server.cluster),
                              file=sys.stderr, flush=True)
            guard.cancel_scope.cancel()  # the signal watcher


async def _stop_on_signals(signals: Any, work: Any, server: Any, stop: _Stop) -> None:
    """The first signal cancels the server's work (its workers and bots are told to
    quit); a second one, or STOP_SECONDS, kills whatever processes are left; if the
    program has still not ended FORCED_EXIT_SECONDS later, it exits."""
    import trio

    from arena import processes

    async for number in signals:
        if stop.signal is None:
            stop.signal = signal.Signals(number).name
            stop.began = time.monotonic()
            stop.exit_code = 130 if number == signal.SIGINT else 0
            stop.processes = processes.descendants(os.getpid())
            server.stopping = True  # what the stop makes fail is no news: one line
            work.cancel()
            with trio.move_on_after(STOP_SECONDS):
                await signals.__anext__()  # a second signal: no more waiting
        stop.processes |= processes.descendants(os.getpid())
        processes.kill(stop.processes)
        await trio.sleep(FORCED_EXIT_SECONDS)
        left = processes.end(stop.processes)
        print(stop.line() + " (forced" + (f"; {len(left)} processes could not be ended"
                                         if left else "") + ")", file=sys.stderr, flush=True)
        os._exit(stop.exit_code)


def backup(folder: Path, out: Path) -> None:
    """A consistent copy of a server folder, made while it runs: the database through
    SQLite's online backup (a PostgreSQL server's: one snapshot of it copied into SQLite
    in the copy, arena/server/migrate.py), then the settings, the secret and the uploads
    (a version's files never change once it is listed, and every listed one is
    copied)."""
    from arena.league.store import DB_NAME, backup_database
    from arena.server.ladder import FRIENDLY_FOLDER
    from arena.server.migrate import backup_postgres, use_database
    from arena.server.settings import SECRET_NAME, SETTINGS_NAME, UPLOADS_NAME, load_settings

    settings = load_settings(folder)
    if out.exists() and any(out.iterdir()):
        raise ArenaError(f"{out} exists and is not empty; choose a new folder")
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)  # a copy of the accounts: as private as the original
    if settings.postgres:
        backup_postgres(settings, out, lambda line: print(f"arena serve backup: {line}",
                                                          file=sys.stderr, flush=True))
    else:
        backup_database(settings.sqlite_path, out / DB_NAME)
    friendly = folder / FRIENDLY_FOLDER / DB_NAME  # the owners' unrated games, if any
    if friendly.is_file() and not settings.postgres:
        (out / FRIENDLY_FOLDER).mkdir(mode=0o700)
        backup_database(friendly, out / FRIENDLY_FOLDER / DB_NAME)
    for name in (SETTINGS_NAME, SECRET_NAME):
        shutil.copy2(folder / name, out / name)
        os.chmod(out / name, 0o600)
    if settings.postgres:  # the copy is a server folder of its own, on SQLite
        use_database(dataclasses.replace(settings, folder=out), "")
    tls = settings.tls
    if tls is not None:
        for path in tls:
            if path.resolve().is_relative_to(folder.resolve()):
                copy = out / path.resolve().relative_to(folder.resolve())
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, copy)
    shutil.copytree(folder / UPLOADS_NAME, out / UPLOADS_NAME, symlinks=True,
                    ignore=shutil.ignore_patterns(".upload-*"))


# --- arena login / arena upload --------------------------------------------------------
def login_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the server, e.g. https://arena.example.org")
    parser.add_argument("--name", help="your account's name (default: asked)")
    parser.add_argument("--password-stdin", action="store_true",
                        help="read the password from the first line of stdin (scripts)")
    parser.add_argument("--token-name", default=None,
                        help="a name for the token (default: this machine's name)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow plain http to a non-loopback server")


def login_command(args: argparse.Namespace) -> int:
    import getpass
    import socket

    from arena.server import client

    url = client.check_url(args.url, args.insecure)
    name = args.name
    if not name:
        if args.password_stdin or not sys.stdin.isatty():
            raise ArenaError("give --name NAME (the password comes from stdin)")
        name = input("name: ").strip()
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass(f"password for {name} at {url}: ")
    token_name = args.token_name or f"arena login on {socket.gethostname()}"[:64]
    answer = client.request("POST", f"{url}/api/v1/tokens", json={
        "name": name, "password": password, "token_name": token_name})
    path = client.save_login(url, answer["user"], answer["token"])
    print(f"logged in to {url} as {answer['user']}; token {token_name!r} kept in {path}")
    return 0


def upload_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="FOLDER", help="the bot's folder")
    parser.add_argument("--server", metavar="URL",
                        help="the server (default: the last one `arena login` used)")
    parser.add_argument("--owner", help="upload to another user's bot (admins)")
    parser.add_argument("--wait", action="store_true",
                        help="wait for the validation's verdict (exit 1 if rejected)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                        help="with --wait: how long to wait (default 600)")


def upload_command(args: argparse.Namespace) -> int:
    import time

    from arena.plugins.manifest import IGNORED_NAMES, MANIFEST_NAME, peek_name
    from arena.runner.diagnosis import stderr_to_show
    from arena.server import client
    from arena.server.archives import pack_folder

    folder: Path = args.folder
    if not (folder / MANIFEST_NAME).is_file():
        raise ArenaError(f"{folder} has no {MANIFEST_NAME}: give a bot's folder")
    name = peek_name(folder)
    if name is None:
        raise ArenaError(f"{folder / MANIFEST_NAME} has no valid 'name' (`arena validate "
                         f"{folder}` says more)")
    url, login = client.login_for(args.server)
    owner = args.owner or login["user"]
    data = pack_folder(folder, IGNORED_NAMES)
    version = client.request(
        "POST", f"{url}/api/v1/bots/{owner}/{name}/versions", token=login["token"],
        content=data, headers={"Content-Type": "application/gzip"})
    print(f"uploaded {version['bot']} version {version['number']} (id {version['id']}, "
          f"{len(data)} bytes): {version['state']}", flush=True)
    if not args.wait:
        return 0
    deadline = time.monotonic() + args.timeout
    while version["state"] == "pending":
        if time.monotonic() > deadline:
            print(f"still pending after {args.timeout:g} s; `arena upload` again with --wait "
                  f"or see {url}/bots/{version['bot']}")
            return 1
        time.sleep(1.0)
        version = client.request("GET", f"{url}/api/v1/versions/{version['id']}",
                                 token=login["token"])
    print(f"{version['bot']} version {version['number']}: {version['state']}: "
          f"{version['message']}")
    build_log = (version.get("build_log") or "").strip().splitlines()
    if version["state"] == "rejected" and build_log:  # a failed build: its log's end
        for line in build_log[-20:]:
            print(f"  build: {line[:200]}")
    for line in stderr_to_show(version.get("stderr_tail") or "", version["message"], 5):
        print(f"  stderr: {line[:200]}")
    return 0 if version["state"] == "valid" else 1
