"""``arena completion bash|zsh|fish|tcsh``: a shell completion script for commands, options,
bot names and league files.

Made with shtab, which writes a static script from the full argument parser once: pressing
TAB then costs no Python start (argcomplete runs ``arena`` on every TAB), and the lazy
parser of cli.py (only the chosen command's module is imported) needs no change, because
the script is generated from a parser with every command.  Bot names are looked up when
completing (``arena bots --names``), since they depend on the folder you stand in; league
names and game names are fixed per installation and written into the script.
"""

from __future__ import annotations

import argparse
from typing import Any

SHELLS = ("bash", "zsh", "fish", "tcsh")

# which completion an argument gets, by its dest: the same word means the same thing in
# every command (a league file or results folder, a bot, a folder, a file)
LEAGUE_DESTS = frozenset({"league", "source", "results", "stores"})
BOT_DESTS = frozenset({"bot", "bots", "challenger", "anchor"})
FOLDER_DESTS = frozenset({"path", "to", "results_dir", "dir", "folder"})
FILE_DESTS = frozenset({"output"})
GAME_DESTS = frozenset({"game"})

_BASH_PREAMBLE = """
# league files (*.toml), results folders and the bundled leagues' names
_arena_leagues() {
  compgen -W "%(leagues)s" -- "$1"
  compgen -f -X '!*.toml' -- "$1"
  compgen -d -- "$1"
}
# the bots `arena bots` finds from here, and folders (a bot may be given by its folder)
_arena_bots() {
  compgen -W "$(arena bots --names 2>/dev/null)" -- "$1"
  compgen -d -- "$1"
}
"""


def completion_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete for")


def completion_command(args: argparse.Namespace) -> int:
    print(completion_script(args.shell), end="")
    return 0


def completion_script(shell: str) -> str:
    import shtab

    from arena.cli import build_parser
    from arena.league.config import bundled_leagues
    from arena.plugins.discovery import game_registry

    leagues = " ".join(bundled_leagues())
    games = sorted(game_registry().games)
    completers: dict[frozenset[str], Any] = {
        LEAGUE_DESTS: {"bash": "_arena_leagues",
                       "zsh": f"_alternative 'leagues:league:({leagues})' "
                              "'files:league file:_files -g \\*.toml'",
                       "fish": f"(printf '%s\\n' {leagues}; "
                               "__fish_complete_suffix .toml)",
                       "tcsh": "f:*.toml"},
        BOT_DESTS: {"bash": "_arena_bots",
                    "zsh": "_alternative 'bots:bot:(\\$(arena bots --names 2>/dev/null))' "
                           "'folders:bot folder:_files -/'",
                    "fish": "(arena bots --names 2>/dev/null; __fish_complete_directories)",
                    "tcsh": "`arena bots --names`"},
        FOLDER_DESTS: shtab.DIRECTORY,
        FILE_DESTS: shtab.FILE,
        GAME_DESTS: {"bash": "_arena_games", "zsh": f"({' '.join(games)})",
                     "fish": f"(printf '%s\\n' {' '.join(games)})",
                     "tcsh": f"({' '.join(games)})"},
    }
    parser = build_parser([], every_command=True)
    for action in _every_action(parser):
        for dests, completer in completers.items():
            if action.dest in dests and not action.choices:
                action.complete = completer  # type: ignore[attr-defined]
    preamble = _BASH_PREAMBLE % {"leagues": leagues} + (
        f'_arena_games() {{\n  compgen -W "{" ".join(games)}" -- "$1"\n}}\n')
    script: str = shtab.complete(
        parser, shell=shell, preamble=preamble if shell == "bash" else "")
    return script


def _every_action(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    actions = []
    for action in parser._actions:
        actions.append(action)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions.extend(_every_action(sub))
    return actions
