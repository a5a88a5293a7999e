"""The ``arena`` command.

Each subcommand lives beside the code it drives; this file only maps names to modules.
A command module ``M`` for command ``name`` defines ``name_arguments(parser)`` and
``name_command(args) -> int``.  Only the module of the command being run is imported,
so ``arena --help`` stays fast and one broken area cannot take the others down.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from arena import __version__
from arena.errors import ArenaError, did_you_mean, excerpt
from arena.terminal import guarded_streams

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("arena.league.commands", "play a league from a TOML file (resumes if interrupted)"),
    "match": ("arena.league.match",
              "play bots against each other, no league file (resumes if run again)"),
    "leaderboard": ("arena.report.commands", "show the ratings of a league"),
    "report": ("arena.report.commands", "write a self-contained HTML report of a league"),
    "replay": ("arena.league.commands", "tell the story of one stored game"),
    "games": ("arena.league.commands", "list a league's stored games (ids, seats, failures)"),
    "export": ("arena.league.commands", "write a league's games as JSON Lines"),
    "merge": ("arena.league.commands", "join the stores of a league's shards into one"),
    "bots": ("arena.plugins.commands", "list every bot that can be found"),
    "validate": ("arena.plugins.commands", "check that a bot follows the protocol"),
    "submit": ("arena.plugins.commands", "validate a bot folder and install it"),
    "build": ("arena.plugins.commands",
              "build a bot whose bot.toml names a build step (once per content)"),
    "init": ("arena.workspace", "make a workspace: a league file and a bot to start from"),
    "new-bot": ("arena.workspace", "make a bot folder that passes arena validate as it is"),
    "play": ("arena.play.commands", "play a game yourself in the terminal against bots"),
    "selfplay": ("arena.play.selfplay", "play one game between random players and show it"),
    "docs": ("arena.userdocs", "read the user documentation (leagues, writing a bot, ...)"),
    "completion": ("arena.completion",
                   "print a shell completion script (bash, zsh, fish, tcsh)"),
    "tune": ("arena.tune.commands",
             "tune a bot's declared parameters by SPSA against other bots (resumable)"),
    "bench": ("arena.bench.commands",
              "measure speed: a game engine, the protocol, a league, ratings"),
    "serve": ("arena.server.commands",
              "run a competition server: accounts, bot uploads, validation, a ladder"),
    "login": ("arena.server.commands", "log in to a server and keep a token for arena upload"),
    "upload": ("arena.server.commands", "upload a bot folder to a server as a new version"),
}


# name -> examples shown at the end of its --help (as cutechess-cli and git do)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "run": (
        "arena run                          # the bundled league, into ./results/bundled",
        "arena run dice                     # another bundled league (LEAGUE names them)",
        "arena run my.toml --dry-run        # check everything, play nothing",
        "arena run my.toml --rounds 4 --seed 7 --results-dir results/try",
        "arena run my.toml --cluster tcp://127.0.0.1:8786   # on a Dask cluster",
        "arena run my.toml --trace mybot=mybot.log   # every line to and from mybot, timed",
    ),
    "match": (
        "arena match random first                   # 10 games, 2 players, stored and rated",
        "arena match mcts greedy --games 40 --seconds 0.2 --concurrency 4",
        "arena match mcts greedy --sprt 0 10        # until the SPRT decides (or 20000 games)",
        "arena match mcts greedy --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05",
        "arena match random first greedy --players 3 --games 6",
        "arena match dice-greedy random --game ra_dice",
        "arena match mybot first --trace mybot     # every line to and from mybot, timed",
    ),
    "leaderboard": (
        "arena leaderboard                  # the league `arena run` plays",
        "arena leaderboard my.toml --matrix",
        "arena leaderboard results/spring --json",
        "arena leaderboard ladder --alpha-rank --nash --fairness",
        "arena leaderboard ladder --payoffs csv > payoffs.csv",
    ),
    "report": ("arena report my.toml -o report.html",),
    "docs": (
        "arena docs                         # the pages",
        "arena docs writing-a-bot           # one page",
        "arena docs leagues --path          # where it is, to open it in an editor",
    ),
    "games": (
        "arena games                        # the last 50 games of the default league",
        "arena games results/my --bot mcts --failed   # mcts's games where a bot failed",
        "arena games my.toml --players 4 --limit 0",
    ),
    "replay": (
        "arena replay 6658485b             # a unique prefix of a game id is enough",
        "arena replay 6658485b --json --results my.toml",
        "arena replay 6658485b --html -o game.html   # step through it in a browser",
    ),
    "export": ("arena export my.toml -o games.jsonl", "arena export dice --players 4"),
    "merge": (
        "arena merge results/spring.shard-1-of-2 results/spring.shard-2-of-2 "
        "-o results/spring",
    ),
    "bots": ("arena bots", "arena bots --game ra_dice --json", "arena bots --path ~/my-bots"),
    "validate": ("arena validate first", "arena validate ./bots/mybot --games 20",
                 "arena validate ./bots/mybot --trace   # every line to and from it, timed"),
    "submit": ("arena submit ./mybot", "arena submit ./mybot --replace"),
    "build": ("arena build ./my-java-bot", "arena build my-java-bot --log",
              "arena build ./my-go-bot --rebuild --sandbox none"),
    "init": ("arena init my-arena", "arena init                         # here"),
    "new-bot": ("arena new-bot clever", "arena new-bot clever-js --lang javascript",
                "arena new-bot fast --lang rust --dir ~/ra/bots"),
    "play": (
        "arena play ra --bots greedy mcts           # you, greedy and mcts: 3 players",
        "arena play ra_dice --bots dice-greedy --seat 1 --name ada",
        "arena play ra --bots random random --seed 7 --seconds 60",
    ),
    "selfplay": ("arena selfplay ra --players 3 --seed 7", "arena selfplay ra_dice"),
    "completion": (
        "arena completion bash > ~/.local/share/bash-completion/completions/arena",
        "arena completion zsh > ~/.zfunc/_arena   # with fpath+=(~/.zfunc) in ~/.zshrc",
        "arena completion fish > ~/.config/fish/completions/arena.fish",
        "arena completion tcsh > ~/.arena.tcsh    # then: source ~/.arena.tcsh in ~/.tcshrc",
    ),
    "tune": (
        "arena tune greedy --against greedy --players 3 --games 20000 --sandbox trusted",
        "arena tune greedy --against greedy mcts --seconds 0.05 --games 2000 --start gold=0.2",
        "arena tune ./my-bot --against greedy --cluster tcp://127.0.0.1:8786 --in-flight 8",
    ),
    "bench": (
        "arena bench ra --seconds 4",
        "arena bench protocol --players 4",
        "arena bench league --cluster",
        "arena bench store",
        "arena bench sprt",
        "arena bench plan",
        "arena bench formats --bots 32 64 --players 2 --repetitions 50",
    ),
    "serve": (
        "arena serve init myserver          # settings, database, admin password",
        "arena serve myserver               # http://127.0.0.1:8080",
        "arena serve myserver --host 0.0.0.0 --port 443   # needs TLS in settings.toml",
        "arena serve backup myserver myserver-copy",
    ),
    "login": ("arena login http://127.0.0.1:8080",
              "arena login https://arena.example.org --name ada --password-stdin < pass.txt"),
    "upload": ("arena upload ./mybot",
               "arena upload ./mybot --wait --server https://arena.example.org"),
}


def _epilog(name: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES.get(name, ()))


def _chosen_command(argv: Sequence[str]) -> str | None:
    for token in argv:
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


class _Parser(argparse.ArgumentParser):
    """argparse, with a "did you mean" for a mistyped option (``--roudns``)."""

    def error(self, message: str) -> NoReturn:
        unknown = message.removeprefix("unrecognized arguments: ")
        if unknown != message:
            options = [option for parser in _parsers(self) for action in parser._actions
                       for option in action.option_strings if option.startswith("--")]
            message = "unrecognized arguments: " + " ".join(
                word + (did_you_mean(word.split("=")[0], options) if word.startswith("--")
                        else "") for word in unknown.split(" "))
        super().error(message)


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and its commands' parsers."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += action.choices.values()
    return found


def build_parser(argv: Sequence[str], every_command: bool = False) -> argparse.ArgumentParser:
    """The parser for ``argv``: only the chosen command's arguments are added (its module
    alone is imported), unless ``every_command`` (for a shell completion script)."""
    parser = _Parser(
        prog="arena",
        description="Ra Arena: leagues of bots playing Ra and Ra: The Dice Game.",
        epilog="examples:\n  arena run\n  arena leaderboard\n  arena validate ./mybot\n"
               "  arena run --help",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = _chosen_command(argv)
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(
            name, help=help_text, description=help_text,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == chosen or every_command:  # every one: for shell completion
            module = importlib.import_module(module_name)
            function = name.replace("-", "_")  # new-bot -> new_bot_arguments
            getattr(module, f"{function}_arguments")(command_parser)
            command_parser.epilog = _epilog(name)
            command_parser.set_defaults(_handler=getattr(module, f"{function}_command"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    with guarded_streams():  # what bots wrote never drives the user's terminal
        return _run(argv)


def _run(argv: list[str]) -> int:
    try:
        args = build_parser(argv).parse_args(argv)
        result: int = args._handler(args)
        return result
    except ArenaError as error:
        print(f"arena: error: {excerpt(str(error))}", file=sys.stderr)
        return error.exit_code
    except RecursionError:  # input nested beyond what a parser can follow
        print("arena: error: the input is nested too deeply to read", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `arena replay 3 | head`: the reader has all it wanted
        # (before OSError, its base); stdout to /dev/null so that the flush at exit is quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # the file system refused what the user asked for
        # the file name cut on its own, so that the ": " before the reason survives the cut
        where = f"{excerpt(str(error.filename))}: " if error.filename else ""
        print(f"arena: error: {where}{excerpt(error.strerror or str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
