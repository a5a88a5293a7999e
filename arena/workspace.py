"""``arena init [DIR]`` and ``arena new-bot NAME``: a place to start from.

``init`` makes a workspace: ``league.toml`` (the bundled bots and yours, playing Ra),
``bots/my-bot`` (a Python bot that plays as it is) and a three-line ``README.md``.  In it,
``arena run`` plays that league (``./league.toml`` is what ``arena run`` looks for first)
and ``arena bots`` lists your bot beside the bundled ones.

``new-bot`` makes one bot folder that passes ``arena validate`` as it is, in any of
``LANGUAGES``: a seeded random choice among the legal actions, the lines a student edits
marked ``EDIT``, and a README saying how to build, run and test it by hand.  Each
language's template is a complete bot folder of the package, ``arena/bot_templates/KEY``,
written with the name ``my-bot`` that new-bot replaces (so the templates are real code that
compilers and linters read as it is); a compiled one has a ``build`` in its ``bot.toml``.
A template whose tools are missing is made all the same, with a note naming the package
to install.  Nothing existing is ever overwritten.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

from arena.errors import ArenaError
from arena.package_data import package_folder
from arena.plugins.manifest import IGNORED_NAMES, IGNORED_SUFFIXES, TOOLCHAIN_PACKAGES
from arena.runner.sandbox import SAFE_PATH

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
TEMPLATE_NAME = "my-bot"  # the name the templates are written with: new-bot puts NAME there


@dataclass(frozen=True)
class Language:
    """A language of ``new-bot``: its template is ``arena/bot_templates/KEY``."""

    title: str
    needs: str  # what must be installed, with the versions the template is written for
    tools: tuple[str, ...]  # the programs its build and command run

    @property
    def packages(self) -> str:
        return packages_of(self.tools)


def packages_of(tools: Iterable[str]) -> str:
    """The Debian/Ubuntu packages that give ``tools`` (manifest.TOOLCHAIN_PACKAGES)."""
    return " ".join(dict.fromkeys(TOOLCHAIN_PACKAGES[tool] for tool in tools))


LANGUAGES = {
    "python": Language("Python", "nothing more: the arena's own Python", ()),
    "javascript": Language("JavaScript", "Node.js 18 or newer", ("node",)),
    "c": Language("C", "a C11 compiler, gcc 12 or newer", ("gcc",)),
    "cpp": Language("C++", "a C++17 compiler, g++ 12 or newer", ("g++",)),
    "java": Language("Java", "a JDK, 17 or newer", ("javac", "java")),
    "go": Language("Go", "Go 1.19 or newer", ("go",)),
    "rust": Language("Rust", "Rust 1.63 or newer with Cargo", ("cargo", "rustc")),
}

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


def template_folder(language: str) -> Path:
    """The template of ``language``: a bot folder inside the installed package."""
    return package_folder("bot_templates") / language


def template_files(language: str) -> list[Path]:
    """The files of a template, relative to its folder: all but caches and what its
    .gitignore names (what a build makes, should someone have built it in place)."""
    folder = template_folder(language)
    ignore = folder / ".gitignore"
    built = [line.strip().rstrip("/") for line in ignore.read_text().splitlines()
             if line.strip() and not line.startswith("#")] if ignore.is_file() else []
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or any(part in IGNORED_NAMES or part.endswith(IGNORED_SUFFIXES)
                                     for part in relative.parts):
            continue
        if not any(fnmatch(relative.parts[0], pattern) for pattern in built):
            files.append(relative)
    return files


def missing_tools(language: str) -> list[str]:
    """The tools of ``language`` that builds and bots will not find: they look only on the
    bots' PATH, never on the user's."""
    return [tool for tool in LANGUAGES[language].tools
            if shutil.which(tool, path=SAFE_PATH) is None]


def make_bot(folder: Path, name: str, language: str) -> Path:
    """A new bot folder ``folder/name``: the template of ``language`` named ``name``
    (ArenaError if it exists or the name is bad; a failed attempt leaves nothing)."""
    if not NAME_PATTERN.match(name):
        raise ArenaError(f"bot name {name[:60]!r}: use 1-40 lowercase letters, digits, '-' "
                         "or '_', starting with a letter (e.g. my-bot)")
    target = folder / name
    if target.exists():
        raise ArenaError(f"{target} exists already; choose another name or remove it")
    source = template_folder(language)
    files = template_files(language)
    try:
        target.mkdir(parents=True)
    except OSError as problem:
        raise ArenaError(f"cannot make {target}: {problem.strerror}") from None
    try:
        for relative in files:
            text = (source / relative).read_bytes().replace(TEMPLATE_NAME.encode(),
                                                            name.encode())
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            (target / relative).write_bytes(text)  # written anew: the user's umask applies
    except OSError as problem:
        shutil.rmtree(target, ignore_errors=True)
        raise ArenaError(f"cannot write {target}: {problem.strerror}") from None
    return target


def languages_help() -> str:
    """The languages, what each needs and whether this machine has it: new-bot's help."""
    lines = []
    for key, language in LANGUAGES.items():
        missing = missing_tools(key)
        where = (f" (apt install {language.packages})" if language.packages else "")
        state = f"; missing here: {', '.join(missing)}" if missing else ""
        lines.append(f"{key:<11} {language.title}, needs {language.needs}{where}{state}")
    return "\n".join(lines)


def new_bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the bot's name (lowercase letters, digits, '-', '_')")
    parser.add_argument("--lang", choices=list(LANGUAGES), default="python",
                        help="the bot's language (default python; each needs, below)")
    parser.add_argument("--dir", type=Path, default=Path("bots"),
                        help="the folder to put it in (default ./bots)")
    parser.add_argument_group(
        "languages (--lang): what each needs installed, on Debian or Ubuntu from the "
        "packages named",
        languages_help())


def new_bot_command(args: argparse.Namespace) -> int:
    target = make_bot(args.dir, args.name, args.lang)
    print(f"made {target}: try `arena validate {target}`, then add {args.name!r} to a "
          "league's roster; its README.md says how to build, run and test it by hand")
    missing = missing_tools(args.lang)
    if missing:
        language = LANGUAGES[args.lang]
        print(f"note: {' and '.join(missing)} not found on the bots' PATH ({SAFE_PATH}): "
              f"install {language.needs} to build and run it (Debian/Ubuntu: "
              f"sudo apt install {packages_of(missing)})", file=sys.stderr)
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
