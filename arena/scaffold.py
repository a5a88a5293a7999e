"""``arena init [DIR]`` and ``arena new-bot NAME``: the files a new user starts from.

``init`` makes a workspace (a league file, ``bots/`` with one example bot, a three-line
README); ``new-bot`` makes one bot folder.  Each bot made here passes ``arena validate``
as it is: it plays uniformly at random among the legal actions, seeded by the arena, so
its games replay exactly.  Nothing existing is ever overwritten.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from string import Template

from arena.errors import ArenaError
from arena.league.config import NAME_PATTERN as LEAGUE_NAME_PATTERN
from arena.plugins.discovery import DEFAULT_BOT_PATH
from arena.plugins.manifest import MANIFEST_NAME, NAME_PATTERN, NAME_RULE

LANGUAGES = ("python", "javascript")
EXAMPLE_BOT = "my-bot"
LEAGUE_FILE = "league.toml"

# Every game the bundled engines offer, with every player count they allow: a random
# player is legal in all of them, and a user removes what their bot is not meant for.
_GAMES = "ra = [2, 3, 4, 5]\nra_dice = [2, 3, 4]\n"

_PYTHON_MANIFEST = Template('''\
name = "$name"
version = "0.1.0"
description = "A new bot: random among the legal actions until you teach it better."
command = ["{python}", "bot.py"]      # {python}: the interpreter that runs the arena

[games]                                # game -> the player counts it plays
$games
[resources]
memory_mb = 256
''')

_PYTHON_BOT = Template('''\
"""$name: a Ra Arena bot.  Teach `choose` to play; the observation and the legal actions
are described in docs/ra-json.md (Ra) and docs/writing-a-bot.md of Ra Arena."""

import random

from arena.sdk import run

rng = random.Random(0)


def new_game(message: dict) -> None:
    rng.seed(message["seed"])  # the arena's seed for this game: same seed, same choices


def choose(observation: dict, legal: list) -> int:
    # `legal` lists the actions allowed now (dicts with a "type"); answer with an index.
    # Debug output goes to stderr: stdout belongs to the protocol.
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name="$name", version="0.1.0", on_new_game=new_game)
''')

_JAVASCRIPT_MANIFEST = Template('''\
name = "$name"
version = "0.1.0"
description = "A new bot in JavaScript (Node.js): random among the legal actions."
command = ["node", "bot.js"]

[games]                                # game -> the player counts it plays
$games
[resources]
memory_mb = 2048                       # Node reserves about 1 GiB of address space
''')

_JAVASCRIPT_BOT = Template('''\
// $name: a Ra Arena bot for Node.js.  The protocol ("ra-arena/1", one JSON object per
// line) is described in docs/protocol.md of Ra Arena; teach choose() to play.
"use strict";
const readline = require("readline");

// A small seeded generator (Math.random cannot be seeded): same seed, same choices.
let state = 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

// `legal` lists the actions allowed now; answer with an index into it.
function choose(observation, legal) {
  return Math.floor(random() * legal.length);
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\\n");
}

readline.createInterface({ input: process.stdin, terminal: false }).on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "ready", name: "$name", version: "0.1.0", protocol: "ra-arena/1" });
  } else if (message.type === "new_game") {
    state = Number(BigInt.asUintN(32, BigInt(message.seed)));
  } else if (message.type === "request") {
    send({ type: "reply", id: message.id, index: choose(message.observation, message.legal) });
  } else if (message.type === "ping") {
    send({ type: "pong", id: message.id });
  } else if (message.type === "quit") {
    process.exit(0);
  }  // the other messages (action, game_over, ...) need no answer
}).on("close", () => process.exit(0));
''')

_LEAGUE = Template('''\
# Your bot against two bundled ones.  `arena run $league_file` plays it (results go to
# results/$league beside this file); every key is described in docs/leagues.md of Ra Arena.
name = "$league"
game = "ra"
players = [2, 3]
roster = ["$bot", "random", "first"]
format = "round-robin"
rounds = 4
seed = 1
bot_paths = ["bots"]                   # relative to this file

[time]
per_decision = 1.0
''')

_README = Template(
    "# $league: a Ra Arena workspace\n"
    "`arena run $league_file` plays the league; `arena leaderboard $league_file` ranks it; "
    "`arena report $league_file -o report.html` shows it.\n"
    "Your bot is bots/$bot/ (teach `choose` in bot.py to play); "
    "`arena validate bots/$bot` checks it; `arena new-bot NAME` adds another.\n"
)


@dataclass(frozen=True)
class BotTemplate:
    source_name: str
    source: Template
    manifest: Template


TEMPLATES: dict[str, BotTemplate] = {
    "python": BotTemplate("bot.py", _PYTHON_BOT, _PYTHON_MANIFEST),
    "javascript": BotTemplate("bot.js", _JAVASCRIPT_BOT, _JAVASCRIPT_MANIFEST),
}


def bot_files(name: str, language: str) -> dict[str, str]:
    """File name -> text of a new bot called ``name``."""
    if not NAME_PATTERN.fullmatch(name):
        raise ArenaError(f"bot name {name[:60]!r} is not allowed: {NAME_RULE}")
    template = TEMPLATES[language]
    return {
        MANIFEST_NAME: template.manifest.substitute(name=name, games=_GAMES),
        template.source_name: template.source.substitute(name=name),
    }


def workspace_files(league: str) -> dict[str, str]:
    """Relative path -> text of a new workspace whose league is called ``league``."""
    words = {"league": league, "bot": EXAMPLE_BOT, "league_file": LEAGUE_FILE}
    files = {LEAGUE_FILE: _LEAGUE.substitute(words), "README.md": _README.substitute(words)}
    for file_name, text in bot_files(EXAMPLE_BOT, "python").items():
        files[f"bots/{EXAMPLE_BOT}/{file_name}"] = text
    return files


def league_name_for(folder: Path) -> str:
    """The folder's name as a league name (letters, digits, '-', '_', '.')."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-_.")[:64]
    return name if LEAGUE_NAME_PATTERN.match(name) else "my-league"


def write_new_files(root: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` under ``root``; refuse, writing nothing, if any of them exists."""
    paths = [root / relative for relative in files]
    existing = [str(path) for path in paths if path.exists() or path.is_symlink()]
    if existing:
        raise ArenaError(f"{', '.join(existing[:3])} already exist"
                         f"{'s' if len(existing) == 1 else ''}; nothing was written "
                         "(choose another folder or name)")
    for path, text in zip(paths, files.values(), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        # open(..., "x"): never overwrite, even if the file appeared since the check;
        # the mode is left to the user's umask, like any file they create
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    return paths


# --- arena init ---------------------------------------------------------------------------


def init_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", type=Path, default=Path("."), metavar="DIR",
                        help="the workspace folder (default: the current one; made if missing)")


def init_command(args: argparse.Namespace) -> int:
    root: Path = args.dir
    if root.exists() and not root.is_dir():
        raise ArenaError(f"{root} exists and is not a folder")
    write_new_files(root, workspace_files(league_name_for(root)))
    go = "" if root.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(root))} && "
    print(f"made a Ra Arena workspace in {root}: {LEAGUE_FILE}, README.md, "
          f"bots/{EXAMPLE_BOT}/")
    print(f"next: {go}arena run {LEAGUE_FILE}")
    return 0


# --- arena new-bot ------------------------------------------------------------------------


def new_bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help=f"the bot's name ({NAME_RULE})")
    parser.add_argument("--lang", choices=LANGUAGES, default="python",
                        help="the language of the bot (default: python; javascript needs "
                        "Node.js to play)")
    parser.add_argument("--to", type=Path, default=DEFAULT_BOT_PATH, metavar="DIR",
                        help="the folder of bots to make it in (default: ./bots)")


def new_bot_command(args: argparse.Namespace) -> int:
    files = bot_files(args.name, args.lang)
    folder: Path = args.to / args.name
    if folder.exists():
        raise ArenaError(f"{folder} already exists; nothing was written (choose another name)")
    write_new_files(folder, files)
    print(f"made {args.lang} bot {args.name} in {folder}: {', '.join(files)}")
    print(f"next: arena validate {shlex.quote(str(folder))}")
    return 0
