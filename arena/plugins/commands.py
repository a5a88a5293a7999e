"""``arena bots``, ``arena submit`` and ``arena validate``."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.plugins.discovery import DEFAULT_BOT_PATH, discover
from arena.plugins.manifest import PYTHON_PLACEHOLDER
from arena.plugins.registry import BotEntry, Registry


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


def bots_command(args: argparse.Namespace) -> int:
    registry = discover(args.path)
    entries = registry.entries
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
        print(tabulate(rows, headers="keys", maxcolwidths=[None, None, 40, None, 30, 70]))
    else:
        print("no bots found" + (f" for {args.game}" if args.game else ""))
    for problem in registry.problems:
        print(f"problem: {problem}")
    return 0


def _bot_row(entry: BotEntry) -> dict[str, str]:
    spec = entry.spec
    return {
        "name": entry.name,
        "version": spec.version if spec else "?",
        "source": entry.source,
        "games": format_games(spec.games) if spec else "?",
        "command": format_command(spec.command) if spec else "?",
        "status": "\n".join(entry.problems) if entry.problems else "ready",
    }


def format_command(command: tuple[str, ...]) -> str:
    """The argv as a shell would read it, leaving the "{python}" placeholder readable."""
    return " ".join(arg if arg == PYTHON_PLACEHOLDER else shlex.quote(arg) for arg in command)


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
    bots = []
    for entry in entries:
        spec = entry.spec
        bots.append(
            {
                "name": entry.name,
                "source": entry.source,
                "ready": entry.ready,
                "problems": entry.problems,
                "version": spec.version if spec else None,
                "games": {g: list(c) for g, c in spec.games.items()} if spec else None,
                "command": list(spec.command) if spec else None,
                "folder": str(spec.folder) if spec and spec.folder else None,
                "content_hash": spec.content_hash if spec else None,
            }
        )
    problems = [{"source": p.source, "message": p.message} for p in registry.problems]
    return {"bots": bots, "problems": problems}


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


def submit_command(args: argparse.Namespace) -> int:
    from arena.plugins.install import install_bot
    from arena.plugins.manifest import load_manifest

    bots_dir: Path = args.to
    registry = discover([bots_dir] if bots_dir.is_dir() else [])
    if not args.path.is_dir():
        raise ArenaError(f"{args.path} is not a directory (give the bot's folder)")
    name = load_manifest(args.path, registry.games, None, registry.unusable_games).name
    _refuse_name_used_elsewhere(registry, name, bots_dir / name)
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
