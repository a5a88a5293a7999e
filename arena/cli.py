"""The ``arena`` command.

Each subcommand lives beside the code it drives; this file only maps names to modules.
A command module ``M`` for command ``name`` defines ``name_arguments(parser)`` and
``name_command(args) -> int``.  Only the module of the command being run is imported,
so ``arena --help`` stays fast and one broken area cannot take the others down.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from arena import __version__
from arena.errors import ArenaError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("arena.league.commands", "play a league from a TOML file (resumes if interrupted)"),
    "leaderboard": ("arena.report.commands", "show the ratings of a league"),
    "report": ("arena.report.commands", "write a self-contained HTML report of a league"),
    "replay": ("arena.league.commands", "tell the story of one stored game"),
    "export": ("arena.league.commands", "write a league's games as JSON Lines"),
    "merge": ("arena.league.commands", "join the stores of a league's shards into one"),
    "bots": ("arena.plugins.commands", "list every bot that can be found"),
    "validate": ("arena.plugins.commands", "check that a bot follows the protocol"),
    "submit": ("arena.plugins.commands", "validate a bot folder and install it"),
    "selfplay": ("arena.games.selfplay", "play one game between random players and show it"),
    "bench": ("arena.bench.commands",
              "measure speed: a game engine, the protocol, a league, ratings"),
}


def _chosen_command(argv: Sequence[str]) -> str | None:
    for token in argv:
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Ra Arena: leagues of bots playing Ra and Ra: The Dice Game.",
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = _chosen_command(argv)
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            getattr(module, f"{name}_arguments")(command_parser)
            command_parser.set_defaults(_handler=getattr(module, f"{name}_command"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(argv).parse_args(argv)
        result: int = args._handler(args)
        return result
    except ArenaError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `arena replay 3 | head`
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
