"""``arena init [DIR]`` and ``arena new-bot NAME``: a place to start from.

``init`` makes a workspace: ``league.toml`` (the bundled bots and yours, playing Ra),
``bots/my-bot`` (a Python bot that plays as it is) and a three-line ``README.md``.  In it,
``arena run`` plays that league (``./league.toml`` is what ``arena run`` looks for first)
and ``arena bots`` lists your bot beside the bundled ones.

``new-bot`` makes one bot folder (Python with the standard-library SDK, or JavaScript for
Node.js with no package) that passes ``arena validate`` as it is: a seeded random choice
among the legal actions, and a comment saying where a strategy goes.  Nothing existing is
ever overwritten.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from arena.errors import ArenaError

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")

PYTHON_BOT = '''"""{name}: a Ra Arena bot.  It plays a random legal action, seeded by each
game's seed (so its games can be replayed); put your strategy in choose().  `arena validate {path}`
checks it against the protocol; `arena docs writing-a-bot` says what the arena sends."""

import random

from arena.sdk import run

rng = random.Random()


def on_new_game(message: dict) -> None:
    rng.seed(message["seed"])  # your own randomness: the same game gives the same play


def choose(observation: dict | None, legal: list) -> int:
    # observation: what your seat may see; legal: the actions you may take, as JSON.
    # Return the index of your choice in legal.
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name="{name}", version="0.1.0", on_new_game=on_new_game)
'''

JAVASCRIPT_BOT = '''// {name}: a Ra Arena bot for Node.js (no packages needed), protocol
// "ra-arena/1": one JSON object per line on stdin and stdout.  It plays a random legal
// action, seeded by each game's seed; put your strategy in choose().
// `arena validate {path}` checks it.
"use strict";
const readline = require("readline");

let state = 0; // mulberry32: a small seeded generator (Math.random cannot be seeded)
function seed(value) {{ state = Number(BigInt.asUintN(32, BigInt(value))) >>> 0; }}
function random() {{
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}}

// observation: what your seat may see; legal: the actions you may take.  Return an index.
function choose(observation, legal) {{
  return Math.floor(random() * legal.length);
}}

function send(message) {{ process.stdout.write(JSON.stringify(message) + "\\n"); }}

const input = readline.createInterface({{ input: process.stdin, terminal: false }});
input.on("line", (line) => {{
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {{
    send({{ type: "ready", name: "{name}", version: "0.1.0", protocol: "ra-arena/1" }});
  }} else if (message.type === "new_game") {{
    seed(message.seed);
  }} else if (message.type === "request") {{
    send({{ type: "reply", id: message.id, index: choose(message.observation, message.legal) }});
  }} else if (message.type === "ping") {{
    send({{ type: "pong", id: message.id }});
  }} else if (message.type === "quit") {{
    process.exit(0);
  }}
}});
input.on("close", () => process.exit(0));
'''

MANIFEST = '''name = "{name}"
version = "0.1.0"
description = "A random legal action, seeded: a place to start."
command = {command}

[games]
ra = [2, 3, 4, 5]
ra_dice = [2, 3, 4]
'''

LEAGUE = '''# Your league: your bot against the bundled ones, playing Ra.  `arena run` plays it (it
# is ./league.toml), `arena leaderboard` ranks; every key is in `arena docs leagues`.
name = "{name}"
game = "ra"
players = [2, 3]
roster = ["{bot}", "random", "first", "greedy"]
rounds = 4
seed = 1
bot_paths = ["bots"]
'''

README = '''# {name}: a Ra Arena workspace
Your bot: bots/{bot} (`arena validate bots/{bot}` checks it; `arena new-bot NAME` adds one).
`arena run` plays league.toml; `arena leaderboard`, `arena report -o report.html` show it.
'''

LANGUAGES = {
    "python": ("bot.py", PYTHON_BOT, '["{python}", "bot.py"]'),
    "javascript": ("bot.js", JAVASCRIPT_BOT, '["node", "bot.js"]'),
}


def make_bot(folder: Path, name: str, language: str) -> Path:
    """A new bot folder ``folder/name`` (ArenaError if it exists or the name is bad)."""
    if not NAME_PATTERN.match(name):
        raise ArenaError(f"bot name {name[:60]!r}: use 1-40 lowercase letters, digits, '-' "
                         "or '_', starting with a letter (e.g. my-bot)")
    target = folder / name
    if target.exists():
        raise ArenaError(f"{target} exists already; choose another name or remove it")
    program, template, command = LANGUAGES[language]
    try:
        target.mkdir(parents=True)
        (target / "bot.toml").write_text(MANIFEST.format(name=name, command=command))
        (target / program).write_text(template.format(name=name, path=target))
    except OSError as problem:
        raise ArenaError(f"cannot write {target}: {problem.strerror}") from None
    return target


def new_bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the bot's name (lowercase letters, digits, '-', '_')")
    parser.add_argument("--lang", choices=sorted(LANGUAGES), default="python",
                        help="the bot's language (default python; javascript needs Node.js)")
    parser.add_argument("--dir", type=Path, default=Path("bots"),
                        help="the folder to put it in (default ./bots)")


def new_bot_command(args: argparse.Namespace) -> int:
    target = make_bot(args.dir, args.name, args.lang)
    print(f"made {target}: try `arena validate {target}`, then add {args.name!r} to a "
          "league's roster")
    return 0


def init_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."),
                        help="where to make the workspace (default: here)")


def init_command(args: argparse.Namespace) -> int:
    folder: Path = args.folder
    name = re.sub(r"[^a-z0-9_-]", "-", (folder.resolve().name or "league").lower())[:40]
    name = name if NAME_PATTERN.match(name) else "my-league"
    existing = [p for p in ("league.toml", "README.md", "bots/my-bot") if (folder / p).exists()]
    if existing:
        raise ArenaError(f"{folder} already has {', '.join(existing)}; init makes a new "
                         "workspace and never overwrites (choose an empty folder)")
    make_bot(folder / "bots", "my-bot", "python")
    try:
        (folder / "league.toml").write_text(LEAGUE.format(name=name, bot="my-bot"))
        (folder / "README.md").write_text(README.format(name=name, bot="my-bot"))
    except OSError as problem:
        raise ArenaError(f"cannot write in {folder}: {problem.strerror}") from None
    where = "" if folder == Path(".") else f"cd {folder} && "
    print(f"made a workspace in {folder}: league.toml, bots/my-bot, README.md\n"
          f"next: {where}arena validate bots/my-bot && arena run")
    return 0
