"""``arena bots``, ``arena submit`` and ``arena validate``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.plugins.discovery import DEFAULT_BOT_PATH, discover, name_note
from arena.plugins.registry import BotEntry, Registry
from arena.runner.botspec import BotSpec
from arena.settings import PROCESS_SANDBOX_LEVELS, seed_option

if TYPE_CHECKING:
    from arena.plugins.conformance import ConformanceReport


def _add_path_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        type=Path,
        action="append",
        metavar="DIR",
        help="a bot folder or a folder of bot folders (repeatable; default: ./bots); "
        "the bots bundled with Ra Arena are always included",
    )


# --- arena bots ---------------------------------------------------------------------------


def bots_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", help="only the bots that play this game")
    _add_path_option(parser)
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("--names", action="store_true",
                        help="print only the names of the bots in use, one a line "
                        "(for scripts and shell completion)")


def bots_command(args: argparse.Namespace) -> int:
    registry = discover(args.path)
    entries = registry.entries
    if args.names:  # the bots a league can name: ready, and not hidden by a user's bot
        names = {e.name for e in entries if e.shadowed_by is None and e.spec is not None
                 and (args.game is None or (e.spec is not None and args.game in e.spec.games))}
        print("\n".join(sorted(names)))
        return 0
    if args.game is not None:
        registry.game(args.game)  # an ArenaError naming the known games if unknown
        # a bot whose manifest cannot be read may be meant for this game: keep it visible
        entries = [e for e in entries if e.spec is None or args.game in e.spec.games]
    if args.json:
        print(json.dumps(_bots_json(registry, entries), indent=2))
        return 0
    if entries:
        from tabulate import tabulate

        rows = [_bot_row(entry) for entry in entries]
        print(tabulate(rows, headers="keys", maxcolwidths=[None, None, 50, None, 30, 70]))
        engines = _ra_engines(entries)
        if engines:
            print(f"Ra engine: {engines}")
    else:
        print("no bots found" + (f" for {args.game}" if args.game else ""))
    for problem in registry.problems:
        print(f"problem: {problem}")
    return 0


def _ra_engines(entries: list[BotEntry]) -> str | None:
    """Which Ra engine the bots that play on ours run on, as processes (the sandbox's
    default; in-process, ARENA_RA_ENGINE counts too)."""
    from arena.strategies.entry_points import describe_ra_engines

    return describe_ra_engines([e.spec for e in entries if e.spec is not None and e.ready],
                               in_process=False)


def _bot_row(entry: BotEntry) -> dict[str, str]:
    spec = entry.spec
    status = "\n".join(entry.problems) if entry.problems else entry.status
    if entry.ready and spec is not None and spec.build:
        status += "; " + build_state(spec)
    return {
        "name": entry.name,
        "version": spec.version if spec else "?",
        "source": entry.source,
        "games": format_games(spec.games) if spec else "?",
        "command": format_command(spec.command) if spec else "?",
        "status": status,
    }


def build_state(spec: BotSpec) -> str:
    """Whether a bot with a build step has a current build in the command line's cache."""
    from arena.plugins.builds import is_built

    if is_built(spec):
        return "built"
    return f"not built yet (it is before it first plays; `arena build {spec.name}` now)"


def format_command(command: tuple[str, ...]) -> str:
    """The argv as a shell would read it, leaving the "{python}" placeholder readable."""
    from arena.runner.build import describe_argv

    return describe_argv(command)


def format_games(games: Any) -> str:
    """{"ra": (2, 3, 4)} -> "ra 2-4"; gaps are listed: "ra 2,4"."""
    parts = []
    for name, counts in games.items():
        counts = sorted(counts)
        contiguous = counts == list(range(counts[0], counts[-1] + 1)) if counts else False
        if contiguous and len(counts) > 1:
            parts.append(f"{name} {counts[0]}-{counts[-1]}")
        else:
            parts.append(f"{name} {','.join(map(str, counts))}")
    return ", ".join(parts)


def _bots_json(registry: Registry, entries: list[BotEntry]) -> dict[str, Any]:
    from arena.strategies.entry_points import ra_engine_of

    bots = []
    for entry in entries:
        spec = entry.spec
        bots.append(
            {
                "name": entry.name,
                "source": entry.source,
                "ready": entry.ready,
                "problems": entry.problems,
                "notes": entry.notes,
                "shadows": entry.shadows,
                "shadowed_by": entry.shadowed_by,
                "version": spec.version if spec else None,
                "games": {g: list(c) for g, c in spec.games.items()} if spec else None,
                "command": list(spec.command) if spec else None,
                "build": list(spec.build) if spec and spec.build else None,
                "built": _built_json(spec),
                "folder": str(spec.folder) if spec and spec.folder else None,
                "content_hash": spec.content_hash if spec else None,
                # the Ra engine its strategy plays on as a process: "compiled", "python",
                # or null for a bot that does not play on ours
                "ra_engine": ra_engine_of(spec, in_process=False) if spec else None,
            }
        )
    problems = [{"source": p.source, "message": p.message} for p in registry.problems]
    return {"bots": bots, "problems": problems}


def _built_json(spec: BotSpec | None) -> bool | None:
    """Whether the bot's build is current (None: it has no build step)."""
    from arena.plugins.builds import is_built

    return None if spec is None or not spec.build else is_built(spec)


# --- arena submit -------------------------------------------------------------------------


def submit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the bot's folder (with its bot.toml)")
    parser.add_argument(
        "--to",
        type=Path,
        default=DEFAULT_BOT_PATH,
        metavar="DIR",
        help="the bots directory to install into (default: ./bots)",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="overwrite an installed bot of the same name with different content",
    )
    parser.add_argument(
        "--check-games", type=int, default=1, metavar="N",
        help="before installing, play N games per game and player count the bot claims "
        "as a conformance check (default 1; `arena validate` runs the full check)",
    )
    parser.add_argument(
        "--no-check", action="store_true",
        help="install without the conformance check (the manifest is still checked, and "
        "a bot with a build step is built)",
    )
    _add_sandbox_option(parser)


def _add_sandbox_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox", choices=PROCESS_SANDBOX_LEVELS, default=None,
        help="build and run the bot in this sandbox (default: the league default)",
    )


def submit_command(args: argparse.Namespace) -> int:
    from arena.plugins.install import install_bot, planned_action
    from arena.plugins.manifest import load_manifest

    bots_dir: Path = args.to
    registry = discover([bots_dir] if bots_dir.is_dir() else [])
    if not args.path.is_dir():
        raise ArenaError(f"{args.path} is not a directory (give the bot's folder)")
    if args.check_games < 1:
        raise ArenaError(f"--check-games must be at least 1, not {args.check_games}")
    spec = load_manifest(args.path, registry.games, None, registry.unusable_games)
    _refuse_name_used_elsewhere(registry, spec.name, bots_dir / spec.name)
    note = name_note(spec, args.path)
    if note:
        print(f"note: {note}", file=sys.stderr)
    # refusals first, so that nobody waits for a check whose result cannot be used
    action = planned_action(spec, args.path, bots_dir, replace=args.replace)
    from arena.plugins.builds import BuildFailed

    try:
        built = built_for_command(spec, args.sandbox)  # its build, even with --no-check
    except BuildFailed as failure:
        raise ArenaError(f"{failure}; nothing was installed") from None
    if action != "unchanged" and not args.no_check:
        _conformance_gate(built, registry, args.check_games, args.sandbox)
    installed = install_bot(args.path, bots_dir, registry.games, replace=args.replace)
    spec = installed.spec
    what = {
        "installed": "installed",
        "replaced": "replaced the previous bot with",
        "unchanged": "already installed, unchanged:",
    }[installed.action]
    print(
        f"{what} {spec.name} {spec.version} in {installed.folder} "
        f"(content sha256 {spec.content_hash})"
    )
    return 0


def built_for_command(spec: BotSpec, sandbox: str | None, *, rebuild: bool = False,
                      show_log: bool = False) -> BotSpec:
    """``spec``'s built copy for a command (validate, submit, build): built now if the
    cache has none, at the sandbox level ``sandbox`` (None: the league default), its
    progress and, if it fails, the end of its log on stderr."""
    from arena.plugins.builds import TerminalReporter, ensure_built
    from arena.settings import Limits

    if not spec.build:
        return spec
    limits = Limits() if sandbox is None else Limits(sandbox=sandbox)
    return ensure_built(spec, sandbox=limits.sandbox, bot_uid=limits.bot_uid,
                        reporter=TerminalReporter(show_log=show_log), rebuild=rebuild)


def _conformance_gate(spec: BotSpec, registry: Registry, games: int, sandbox: str | None
                      ) -> None:
    """A short `arena validate` before installing: nothing is installed if it fails."""
    from arena.plugins.conformance import OPPONENT_NAMES, run_check
    from arena.settings import Limits

    opponents = [registry.bots[name] for name in OPPONENT_NAMES if name in registry.bots]
    report = run_check(spec, registry.games, opponents, games_per_setting=games,
                       max_violations=1,
                       limits=Limits() if sandbox is None else Limits(sandbox=sandbox))
    if not report.passed:
        violation = report.violations[0]
        raise ArenaError(
            f"{spec.name} failed the conformance check ({violation.check}: "
            f"{violation.reason}: {violation.detail}); nothing was installed. "
            "`arena validate` gives the details; --no-check installs anyway"
        )


def _refuse_name_used_elsewhere(registry: Registry, name: str, target: Path) -> None:
    """Installing must not create a clash with a bot of the same name from another source
    (a plugin, the bundled bots): --replace only ever replaces the folder at ``target``."""
    for entry in registry.entries:
        if entry.name != name:
            continue
        folder = entry.folder
        if folder is None or folder.resolve() != target.resolve():
            raise ArenaError(
                f"the name {name!r} is already used by {entry.source}; "
                "rename the bot (key 'name' in its bot.toml)"
            )


# --- arena validate -----------------------------------------------------------------------


def validate_arguments(parser: argparse.ArgumentParser) -> None:
    from arena.plugins.conformance import DEFAULT_MOVE_SECONDS, DEFAULT_OVERAGE_SECONDS

    parser.add_argument("bot", metavar="PATH_OR_NAME", help="a bot folder, or a bot's name")
    parser.add_argument(
        "--games", type=int, default=None, metavar="N",
        help="games per game and player count the bot claims (default: one per seat, so "
        "that the bot takes every seat once)",
    )
    parser.add_argument("--game", help="check only this game")
    parser.add_argument("--seed", type=seed_option, default=1, help="master seed (default 1)")
    parser.add_argument(
        "--move-seconds", type=float, default=DEFAULT_MOVE_SECONDS, metavar="S",
        help=f"the time per decision (default {DEFAULT_MOVE_SECONDS:g}: the check is of the "
        "protocol, not of strength; a bot reads its time from the arena, so a search bot "
        "thinks briefly, and a bot that ignores it times out)",
    )
    parser.add_argument(
        "--overage", type=float, default=DEFAULT_OVERAGE_SECONDS, metavar="S",
        help=f"an overage bank per game, for the decisions that take longer than "
        f"--move-seconds (default {DEFAULT_OVERAGE_SECONDS:g}: room for the odd late reply "
        "of a loaded machine; 0: none, every decision must fit)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=None, metavar="N",
        help="games played at once (default: the number of usable CPUs)",
    )
    parser.add_argument(
        "--max-violations", type=int, default=3, metavar="N",
        help="stop after this many violations (default 3)",
    )
    _add_sandbox_option(parser)
    _add_path_option(parser)
    from arena.runner.trace import add_trace_argument

    add_trace_argument(parser, bot_optional=True)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def validate_command(args: argparse.Namespace) -> int:
    import dataclasses

    import trio

    from arena.plugins.builds import BuildFailed
    from arena.plugins.conformance import (
        OPPONENT_NAMES,
        ProgressLine,
        check_bot,
        games_for,
        setting_line,
    )
    from arena.runner.diagnosis import stderr_to_show
    from arena.runner.sandbox import choose_level
    from arena.runner.trace import traces
    from arena.settings import Limits, usable_cores

    if args.games is not None and args.games < 1:
        raise ArenaError(f"--games must be at least 1, not {args.games}")
    if args.max_violations < 1:
        raise ArenaError(f"--max-violations must be at least 1, not {args.max_violations}")
    if not args.move_seconds > 0:
        raise ArenaError(f"--move-seconds must be more than 0, not {args.move_seconds:g}")
    if not args.overage >= 0:
        raise ArenaError(f"--overage must be 0 or more, not {args.overage:g}")
    if args.concurrency is not None and args.concurrency < 1:
        raise ArenaError(f"--concurrency must be at least 1, not {args.concurrency}")
    registry = discover(args.path)
    spec = _named_bot(args.bot, registry)
    if args.game is not None:
        registry.game(args.game)  # unknown game: an error listing the known ones
        if args.game not in spec.games:
            raise ArenaError(f"{spec.name} does not play {args.game} (it plays "
                             f"{format_games(spec.games)})")
        spec = dataclasses.replace(spec, games={args.game: spec.games[args.game]})
    limits = Limits(move_seconds=args.move_seconds, bank_seconds=args.overage or None)
    if args.sandbox is not None:
        limits = dataclasses.replace(limits, sandbox=args.sandbox)
    try:
        spec = built_for_command(spec, args.sandbox)
    except BuildFailed as failure:
        if args.json:
            print(json.dumps({"bot": spec.name, "version": spec.version, "passed": False,
                              "build": {"reason": failure.reason,
                                        "log_tail": failure.log_tail}}, indent=2))
        else:
            print(f"FAILED: {spec.name} {spec.version}: the build failed: {failure.reason}")
        return 1
    opponents = [registry.bots[name] for name in OPPONENT_NAMES if name in registry.bots]
    concurrency = args.concurrency or usable_cores()
    shown = ProgressLine()

    def progress(line: str) -> None:
        if not args.json:
            shown.say(line, sys.stdout)

    per_setting = (f"{args.games} games per game and player count" if args.games is not None
                   else "one game per seat at each player count")
    total = sum(games_for(n, args.games) for counts in spec.games.values() for n in counts)
    progress(
        f"validating {spec.name} {spec.version} ({spec.source}) against "
        f"{', '.join(o.name for o in opponents) or 'in-process random, first'}: "
        f"{per_setting} ({total} games, {concurrency} at once)"
    )
    bot_limits = limits.for_bot(spec.resources)
    bank = bot_limits.bank_seconds
    progress(
        f"limits: {bot_limits.move_seconds:g} s per decision"
        f"{f' (+ {bank:g} s overage per game)' if bank else ''}, "
        f"{bot_limits.handshake_seconds:g} s "
        f"handshake, {bot_limits.ping_seconds:g} s ping, {bot_limits.memory_mb} MiB, "
        f"sandbox {choose_level(bot_limits.sandbox).level}"
    )

    async def check() -> Any:
        return await check_bot(
            spec, registry.games, opponents, games_per_setting=args.games, seed=args.seed,
            limits=limits, max_violations=args.max_violations, progress=progress,
            concurrency=concurrency, game_done=shown.game_done, handle_signals=True,
        )

    try:
        with traces(args.trace, default_bot=spec.name):  # --trace: its lines, timed
            report = trio.run(check)
    finally:
        shown.finish()
    exit_code = 130 if report.interrupted else 0 if report.passed else 1
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return exit_code
    games = sum(s.games_played for s in report.settings)
    if report.interrupted:  # the settings cut short, as far as they went
        for setting in report.settings:
            if setting.games_played < games_for(setting.num_players, args.games):
                print(setting_line(setting) + " (cut short)")
    if report.passed:
        print(f"PASSED: {spec.name} {spec.version} follows the protocol "
              f"({games} games, no violation)")
        return 0
    if report.violations:
        print("violations:")
    for violation in report.violations:
        print(f"  {violation.where()}: {violation.reason}: {violation.detail}")
        for line in stderr_to_show(violation.stderr_tail, violation.detail, 3):
            print(f"      stderr: {line[:200]}")
    if report.interrupted:
        checked = ("the handshake, the ping and " if report.ping_seconds is not None
                   else "the handshake and " if report.handshake_seconds is not None else "")
        found = (f"{_violations(report)}" if report.violations else "no violation so far")
        print(f"INTERRUPTED: {spec.name} {spec.version}: checked {checked}{games} of "
              f"{report.total_games} games: {found}{_listed(report)}", file=sys.stdout)
        return exit_code
    stopped = (f"; stopped early, {games} of {report.total_games} games played"
               if report.stopped_early else "")
    print(f"FAILED: {spec.name} {spec.version}: {_violations(report)} in {games} games"
          f"{_listed(report)}{stopped}")
    return 1


def _violations(report: ConformanceReport) -> str:
    """The count of violations the progress line showed: every one found."""
    return f"{max(report.violations_found, len(report.violations))} violation(s)"


def _listed(report: ConformanceReport) -> str:
    """How many of them the report lists, when not all."""
    found, shown = max(report.violations_found, len(report.violations)), len(report.violations)
    return "" if shown == found else \
        f" (the first {shown} listed above; --max-violations N lists more)"


def _named_bot(given: str, registry: Registry) -> BotSpec:
    """The bot a command names: a bot folder (its manifest read, a note on stderr if it
    names the bot otherwise than the folder), else the name of a bot found; an argument
    that looks like a path but is no folder is refused as such."""
    from arena.plugins.manifest import load_manifest

    folder = Path(given).expanduser()
    if folder.is_dir():
        spec = load_manifest(folder, registry.games, None, registry.unusable_games)
        note = name_note(spec, folder)
        if note:
            print(f"note: {note}", file=sys.stderr)
        return spec
    if os.sep in given or "/" in given or given.startswith((".", "~")):
        if folder.exists():
            raise ArenaError(f"{given} is not a folder: give a bot's folder (with its "
                             "bot.toml), or a bot's name (`arena bots` lists them)")
        raise ArenaError(f"no folder {given}: give a bot's folder (with its bot.toml), or a "
                         "bot's name (`arena bots` lists them)")
    return registry.bot(given)


# --- arena build --------------------------------------------------------------------------


def build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot", metavar="PATH_OR_NAME", help="a bot folder, or a bot's name")
    parser.add_argument("--rebuild", action="store_true",
                        help="build again even if the cache has a build of these sources")
    parser.add_argument("--log", action="store_true",
                        help="print the log of the sources' last build (kept in the cache) "
                        "and build nothing")
    _add_sandbox_option(parser)
    _add_path_option(parser)


def build_command(args: argparse.Namespace) -> int:
    """Build a bot with a build step (its whole log on stderr), or show its last log."""
    from arena.plugins.builds import BuildFailed, build_log_path

    registry = discover(args.path)
    spec = _named_bot(args.bot, registry)
    if not spec.build:
        print(f"{spec.name} has no build step (key 'build' of its bot.toml): nothing to build")
        return 0
    if args.log:
        path = build_log_path(spec)
        if path is None:
            raise ArenaError(f"{spec.name}: these sources were never built here; "
                             f"`arena build {args.bot}` builds them")
        print(f"{path}:")
        print(path.read_text(errors="replace"), end="")
        return 0
    try:
        built = built_for_command(spec, args.sandbox, rebuild=args.rebuild, show_log=True)
    except BuildFailed:
        return 1  # the reporter said why, with the log
    assert built.folder is not None
    print(f"{spec.name} {spec.version}: built copy in {built.folder} (content sha256 "
          f"{built.built_hash}); its sources are unchanged")
    return 0
