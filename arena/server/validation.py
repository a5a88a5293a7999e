"""The validation queue: each new version is built if its manifest names a build step
(in the sandbox, into the server's build cache: arena/plugins/builds.py), then runs the
conformance check (``arena validate``'s code) in the sandbox, one at a time, beside the
ladder; it ends ``valid`` or ``rejected`` with the report, the end of the bot's stderr
and the end of its build's log (a failed build is a rejected version)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.games.base import Game
from arena.plugins.builds import BuildFailed
from arena.runner.botspec import BotSpec
from arena.runner.diagnosis import died_at_start
from arena.server.context import ServerContext, ladder_spec
from arena.server.store import disk_full, printable
from arena.settings import Limits
from arena.storage import StorageError

STDERR_TAIL_CHARS = 4000
BUILD_LOG_CHARS = 4000  # the end of a build's log its owner sees


@dataclasses.dataclass(frozen=True)
class Outcome:
    valid: bool
    message: str
    report: dict[str, Any] | None
    stderr_tail: str
    build_log: str = ""  # the end of its build's log


async def conformance(spec: BotSpec, games: Mapping[str, Game], opponents: Sequence[BotSpec],
                      *, games_per_setting: int, limits: Limits) -> Outcome:
    """The one call of the conformance check (arena/plugins/conformance.py) in the
    server: its public entry point, a few games, stop at the first violation."""
    from arena.plugins.conformance import check_bot

    report = await check_bot(spec, games, opponents, games_per_setting=games_per_setting,
                             limits=limits, max_violations=1)
    shown = [v for v in report.violations if v.stderr_tail]
    tail = shown[-1].stderr_tail if shown else ""
    if len(tail) > STDERR_TAIL_CHARS:  # a bot that died at its start: its first lines say why
        tail = tail[:STDERR_TAIL_CHARS] if died_at_start(shown[-1].detail) \
            else tail[-STDERR_TAIL_CHARS:]
    if report.passed:
        played = sum(s.games_played for s in report.settings)
        return Outcome(True, f"passed the conformance check ({played} games)",
                       report.to_json(), tail)
    first = report.violations[0] if report.violations else None
    message = ("failed the conformance check" if first is None else
               f"failed the conformance check: {first.check}: {first.reason}: {first.detail}")
    return Outcome(False, message[:1000], report.to_json(), tail)


RETRY_SECONDS = 10  # a verdict that could not be stored (a full disk) is tried again


async def run_queue(server: ServerContext, receive: trio.MemoryReceiveChannel[int]) -> None:
    """Validate the versions sent on ``receive``, one at a time, for ever.  A version
    whose verdict cannot be stored stays pending and is validated again (also after a
    stop: the server queues every pending version at its start)."""
    async for version_id in receive:
        while True:
            try:
                await validate_one(server, version_id)
                break
            except (OSError, StorageError) as problem:
                what = "the disk is full" if disk_full(problem) else repr(problem)
                server.log(f"the verdict on version {version_id} could not be stored: "
                           f"{what}; it stays pending and is validated again in "
                           f"{RETRY_SECONDS} s")
                await trio.sleep(RETRY_SECONDS)


async def validate_one(server: ServerContext, version_id: int) -> None:
    version = server.store.version(version_id)
    if version is None or version.state != "pending":
        return
    settings = server.settings
    try:
        spec = server.load_spec(server.folder_of(version))
        spec = ladder_spec(spec, version.ladder_name, settings.game, settings.players)
        if not spec.games[settings.game]:
            raise ArenaError(f"it plays none of the ladder's player counts "
                             f"({settings.game}: {list(settings.players)})")
        try:
            spec, build_log = await build(server, spec)
        except BuildFailed as failure:
            outcome = Outcome(False, f"the build failed: {failure.reason}"[:1000], None, "",
                              failure.log_tail[-BUILD_LOG_CHARS:])
        else:
            outcome = await conformance(
                spec, server.games, server.opponents, games_per_setting=settings.games,
                limits=Limits(sandbox="auto", move_seconds=settings.move_seconds))
            outcome = dataclasses.replace(outcome, build_log=build_log)
    except ArenaError as problem:
        text = str(problem).replace(f"{server.folder_of(version)}/", "")
        outcome = Outcome(False, text.replace(str(settings.folder), "")[:1000], None, "")
    except Exception as problem:  # a bug here must not stop the queue
        server.log(f"validation of version {version_id} failed: {problem!r}")
        outcome = Outcome(False, "the server could not validate it (see its log)", None, "")
    # what the bot wrote reaches pages, the events and terminals: no control characters
    outcome = dataclasses.replace(outcome, message=printable(outcome.message),
                                  stderr_tail=printable(outcome.stderr_tail),
                                  build_log=printable(outcome.build_log))
    state = "valid" if outcome.valid else "rejected"
    manifest_version = spec_version(server.folder_of(version), server)
    server.store.finish_validation(version_id, state, manifest_version, outcome.report,
                                   outcome.message, outcome.stderr_tail, outcome.build_log)
    server.announce("upload_validated", {
        "id": version_id, "bot": f"{version.owner}/{version.bot}", "number": version.number,
        "state": state, "message": outcome.message})
    if outcome.valid:
        server.ladder.roster_changed()


async def build(server: ServerContext, spec: BotSpec) -> tuple[BotSpec, str]:
    """``spec``'s built copy in the server's build cache, built now (in a thread, at the
    server's sandbox level) if it has none, and the end of its build's log ("" for a bot
    without a build step); BuildFailed if it fails."""
    from arena.plugins.builds import NoticeReporter, build_log_path, ensure_built

    if not spec.needs_build:
        return spec, ""
    cache = server.build_cache()
    reporter = NoticeReporter(lambda line: None)  # (the owner sees the log's end)
    built = await trio.to_thread.run_sync(
        lambda: ensure_built(spec, cache=cache, sandbox=server.sandbox, reporter=reporter))
    path = build_log_path(spec, cache)
    log = path.read_text(errors="replace") if path is not None else ""
    return built, log[-BUILD_LOG_CHARS:]


def spec_version(folder: Path, server: ServerContext) -> str:
    try:
        return server.load_spec(folder).version
    except ArenaError:
        return ""
