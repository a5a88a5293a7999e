"""``arena completion SHELL``: a completion script for commands, options, bot names and
league files, generated from the same argparse parser the commands use.

shtab does the generating (a small, well-kept library that writes static scripts for
bash, zsh and fish from argparse); argcomplete would instead run Python on every Tab
press.  Bot names come from ``arena bots --names`` when Tab is pressed, so bots added
later complete too."""

from __future__ import annotations

import argparse

from arena.errors import ArenaError

SHELLS = ("bash", "zsh", "fish")
# arguments that name a league file or results folder, and those that name a bot
LEAGUE_ARGUMENTS = {"league", "results", "source", "stores"}
BOT_ARGUMENTS = {"bot"}
BASH_BOTS = """
_arena_bot_names() {
  compgen -W "$(arena bots --names 2>/dev/null)" -- "$1"
  compgen -d -S '/' -- "$1"
}
"""


def completion_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def completion_command(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:
        raise ArenaError("shell completion needs shtab: pip install shtab") from None
    from arena.cli import build_parser

    parser = build_parser([], every_command=True)
    bots = {"bash": "_arena_bot_names", "zsh": "($(arena bots --names 2>/dev/null))"}
    for subparsers in _subparser_actions(parser):
        for command in subparsers.choices.values():
            for action in command._actions:
                if action.dest in LEAGUE_ARGUMENTS:
                    action.complete = shtab.FILE  # type: ignore[attr-defined]
                elif action.dest in BOT_ARGUMENTS:
                    action.complete = bots  # type: ignore[attr-defined]
    preamble = {"bash": BASH_BOTS}.get(args.shell, "")
    print(shtab.complete(parser, shell=args.shell, preamble=preamble))
    return 0


def _subparser_actions(parser: argparse.ArgumentParser) -> list[argparse._SubParsersAction]:
    return [action for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)]
