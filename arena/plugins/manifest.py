"""``bot.toml``: the manifest of a bot folder, loaded and checked into a ``BotSpec``.

Every problem is reported at once, each naming the file, the key and what is allowed, so a
bot author fixes a manifest in one round.  The same checks (``spec_problems``) apply to
bots that plugins register directly, without a manifest.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Literal

from arena.errors import ArenaError, did_you_mean
from arena.games.base import Game
from arena.runner.botspec import BotSpec, Parameter, parse_tcp_address
from arena.runner.sandbox import SAFE_PATH
from arena.runner.trusted import ENTRY_POINT_PATTERN, ENTRY_POINT_RULE
from arena.settings import FolderLimits, Limits, folder_limits
from arena.tomlinput import TomlProblem, decode_toml

MANIFEST_NAME = "bot.toml"
INSTALL_RECORD_NAME = ".arena-install.json"
PYTHON_PLACEHOLDER = "{python}"
MAX_MANIFEST_BYTES = 64 * 1024

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
NAME_RULE = "1-40 characters: lowercase letters, digits, '-' and '_', not starting with '-' or '_'"
VERSION_PATTERN = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}")
VERSION_RULE = 'a string such as "1.0.0" (1-40 characters: letters, digits, ".", "+", "-", "_")'

# Resources a manifest may request: key -> what it means.  The cap is the arena's default
# limit (arena/settings.py); a league clamps a request to its own caps when it runs.
RESOURCE_MEANINGS: dict[str, str] = {
    "memory_mb": "memory the bot's processes may use together, in MiB",
    "cores": "cores the bot may keep busy at once (a cgroup CPU quota, else CPU affinity)",
}


def resource_caps() -> dict[str, float]:
    defaults = Limits()
    return {key: getattr(defaults, key) for key in RESOURCE_MEANINGS}


REQUIRED_KEYS = ("name", "version", "games")  # and one of "command", "connect"
OPTIONAL_KEYS = ("command", "connect", "build", "entry_point", "authors", "description",
                 "resources", "parameters")

# Left out of the content hash and of an installed copy: caches and bookkeeping that do
# not change what the bot does.
IGNORED_NAMES = frozenset({"__pycache__", ".git", ".arena-install.json", ".DS_Store"})
IGNORED_SUFFIXES = (".pyc", ".pyo")


class ManifestError(ArenaError):
    """A manifest (or a plugin's bot spec) that cannot be used; lists every problem."""

    def __init__(self, where: str, problems: list[str]) -> None:
        self.where = where
        self.problems = problems
        if len(problems) == 1:
            message = f"{where}: {problems[0]}"
        else:
            message = f"{where}: {len(problems)} problems:\n" + "\n".join(
                f"  - {problem}" for problem in problems
            )
        super().__init__(message)


def load_manifest(
    folder: Path,
    games: Mapping[str, Game],
    source: str | None = None,
    unavailable_games: Mapping[str, str] | None = None,
    limits: FolderLimits | None = None,
) -> BotSpec:
    """The bot in ``folder`` (which holds ``bot.toml``), checked against the known ``games``
    (``unavailable_games``: game name -> why it failed to load, for a clearer message) and
    its files against ``limits`` (default: ``arena.settings.folder_limits()``).

    Raises ``ManifestError`` listing every problem."""
    path = folder / MANIFEST_NAME
    data = _read_toml(path)
    problems, bad_keys = _shape_problems(data)
    spec = BotSpec(
        name=_valid(data, "name", bad_keys, ""),
        version=_valid(data, "version", bad_keys, ""),
        command=tuple(_valid(data, "command", bad_keys, [])),
        connect=_valid(data, "connect", bad_keys, None),
        folder=folder.resolve(),
        games={
            game: tuple(sorted(counts))
            for game, counts in _valid(data, "games", bad_keys, {}).items()
            if f"games.{game}" not in bad_keys
        },
        source=source or f"folder {folder}",
        description=_valid(data, "description", bad_keys, ""),
        authors=tuple(_valid(data, "authors", bad_keys, [])),
        resources={
            key: value
            for key, value in _valid(data, "resources", bad_keys, {}).items()
            if f"resources.{key}" not in bad_keys
        },
        content_hash=_hash_or_problem(folder, problems, limits),
        entry_point=_valid(data, "entry_point", bad_keys, None),
        build=tuple(_valid(data, "build", bad_keys, [])),
        parameters=_parameters(_valid(data, "parameters", bad_keys, {}), bad_keys),
    )
    problems.extend(spec_problems(spec, games, unavailable_games, skip=bad_keys))
    if problems:
        raise ManifestError(str(path), problems)
    return spec


def _hash_or_problem(folder: Path, problems: list[str], limits: FolderLimits | None
                     ) -> str | None:
    try:
        return content_hash(folder, limits)
    except FolderRefused as refused:
        problems.append(f"bot folder refused: {refused}")
    except OSError as error:
        problems.append(f"the bot's files cannot be read: {error}")
    return None


def _valid(data: Mapping[str, Any], key: str, bad_keys: set[str], default: Any) -> Any:
    return default if key in bad_keys or key not in data else data[key]


def peek_name(folder: Path) -> str | None:
    """The name a possibly broken manifest claims, if it can be read at all."""
    try:
        name = decode_toml(read_regular(folder / MANIFEST_NAME, MAX_MANIFEST_BYTES)).get("name")
    except (OSError, FolderRefused, TomlProblem):
        return None
    return name if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        info = path.stat()  # a symbolic link is followed, as it always was
        if stat.S_ISDIR(info.st_mode):
            raise FileNotFoundError
        if not stat.S_ISREG(info.st_mode):
            raise ManifestError(str(path), [f"is {file_kind(info.st_mode)}, not a regular file"])
        if info.st_size > MAX_MANIFEST_BYTES:
            raise ManifestError(str(path), [f"larger than {MAX_MANIFEST_BYTES} bytes"])
        return decode_toml(read_regular(path, MAX_MANIFEST_BYTES))
    except TomlProblem as problem:
        raise ManifestError(str(path), [str(problem)]) from None
    except FileNotFoundError:
        raise ManifestError(str(path), ["missing: a bot folder needs a bot.toml file"]
                            ) from None
    except FolderRefused as refused:  # replaced between the stat and the read
        raise ManifestError(str(path), [f"cannot be read: {refused}"]) from None
    except OSError as error:
        raise ManifestError(str(path), [f"cannot be read: {error.strerror}"]) from None


def _shape_problems(data: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    """Problems of presence and type, and the keys whose values cannot be checked further."""
    problems: list[str] = []
    bad: set[str] = set()

    def wrong(key: str, message: str) -> None:
        problems.append(f"key {key!r}: {message}")
        bad.add(key)

    allowed = (*REQUIRED_KEYS, *OPTIONAL_KEYS)
    for key in data:
        if key not in allowed:
            wrong(key, f"unknown key{did_you_mean(key, allowed)}; allowed keys: "
                       f"{', '.join(allowed)}")
    for key in ("name", "version", "command", "games"):
        if key == "command":
            if "command" not in data and "connect" not in data:
                wrong("command", 'missing: give command (the bot\'s argv, e.g. ["{python}", '
                                 '"bot.py"]) or connect (a bot server, e.g. '
                                 '"tcp://127.0.0.1:9000")')
            elif "command" in data and "connect" in data:
                wrong("connect", "give command or connect, not both")
        elif key not in data:
            wrong(key, f"missing (required keys: {', '.join(REQUIRED_KEYS)}, and command "
                       "or connect)")
    if not isinstance(data.get("name", ""), str):
        wrong("name", f"must be a string of {NAME_RULE}")
    if not isinstance(data.get("version", ""), str):
        wrong("version", f"must be {VERSION_RULE}")
    if not isinstance(data.get("description", ""), str):
        wrong("description", "must be a string")
    authors = data.get("authors", [])
    if not (isinstance(authors, list) and all(isinstance(a, str) and a.strip() for a in authors)):
        wrong("authors", 'must be a list of non-empty strings, e.g. ["Ada Lovelace"]')
    command = data.get("command", [])
    if not (isinstance(command, list) and all(isinstance(arg, str) for arg in command)):
        wrong("command", 'must be a list of strings (argv), e.g. ["{python}", "bot.py"]')
    build = data.get("build", [])
    if not (isinstance(build, list) and all(isinstance(arg, str) for arg in build)):
        wrong("build", 'must be a list of strings (argv), e.g. ["javac", "-d", "classes", '
                       '"Bot.java"]')
    elif "build" in data and not build:
        wrong("build", 'empty; give the argv, e.g. ["javac", "-d", "classes", "Bot.java"], '
                       "or leave the key out")
    elif "build" in data and "connect" in data:
        wrong("build", "a bot reached over connect is not built here: remove build")
    if "connect" in data and not isinstance(data["connect"], str):
        wrong("connect", 'must be a string "tcp://HOST:PORT"')
    if "entry_point" in data and not isinstance(data["entry_point"], str):
        wrong("entry_point", f"must be a string {ENTRY_POINT_RULE}")
    games = data.get("games", {})
    if not isinstance(games, dict):
        wrong("games", "must be a table of game name -> list of player counts, e.g. ra = [2, 3]")
    else:
        for game, counts in games.items():
            if game in allowed:  # TOML puts every key after [games] into that table
                wrong(f"games.{game}", f"{game!r} is a top-level key: move it above [games]")
            elif not (isinstance(counts, list) and all(_is_int(c) for c in counts)):
                wrong(f"games.{game}", "must be a list of player counts (integers), e.g. [2, 3]")
        if games and all(f"games.{game}" in bad for game in games):
            bad.add("games")  # "names no game" would only repeat the problems above
    resources = data.get("resources", {})
    if not isinstance(resources, dict):
        wrong("resources", "must be a table, e.g. memory_mb = 256")
    else:
        for key, value in resources.items():
            if not (_is_int(value) or isinstance(value, float)):
                wrong(f"resources.{key}", "must be a number")
    _parameters_shape(data.get("parameters", {}), allowed, wrong, bad)
    return problems, bad


# [parameters]: NAME = { default = ..., min = ..., max = ..., c_end = ..., r_end = ... }
PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
PARAMETER_NAME_RULE = ("1-40 letters, digits and '_', not starting with a digit (a name every "
                       "language can read)")
PARAMETER_KEYS = ("default", "min", "max", "c_end", "r_end", "integer")
PARAMETER_NUMBERS = ("default", "min", "max", "c_end", "r_end")
PARAMETER_EXAMPLE = "denial = { default = 0.6, min = 0.0, max = 2.0, c_end = 0.1, r_end = 0.002 }"
MAX_PARAMETERS = 64
# fishtest's usual learning rate at the last iteration (its SPSA form suggests it)
DEFAULT_R_END = 0.002
# without c_end: a twentieth of the range, a change small enough to keep the bot sound
DEFAULT_C_END_SHARE = 0.05


def _parameters_shape(parameters: Any, top_keys: tuple[str, ...],
                      wrong: Any, bad: set[str]) -> None:
    if not isinstance(parameters, dict):
        wrong("parameters", f"must be a table of NAME = {{...}}, e.g. {PARAMETER_EXAMPLE}")
        return
    if len(parameters) > MAX_PARAMETERS:
        wrong("parameters", f"{len(parameters)} parameters; at most {MAX_PARAMETERS}")
        return
    for name, table in parameters.items():
        key = f"parameters.{name}"
        if name in top_keys:  # TOML puts every key after [parameters] into that table
            wrong(key, f"{name!r} is a top-level key: move it above [parameters]")
        elif not PARAMETER_NAME.fullmatch(name):
            wrong(key, f"{name[:40]!r} is not a parameter name: {PARAMETER_NAME_RULE}")
        elif not isinstance(table, dict):
            wrong(key, f"must be a table, e.g. {PARAMETER_EXAMPLE}")
        else:
            for field_name, value in table.items():
                if field_name not in PARAMETER_KEYS:
                    wrong(f"{key}.{field_name}", "unknown key; allowed keys: "
                                                 + ", ".join(PARAMETER_KEYS))
                elif field_name == "integer":
                    if not isinstance(value, bool):
                        wrong(f"{key}.integer", "must be true or false")
                elif not (_is_int(value) or isinstance(value, float)) \
                        or not math.isfinite(value):
                    wrong(f"{key}.{field_name}", "must be a finite number")
            for required in ("default", "min", "max"):
                if required not in table:
                    wrong(f"{key}.{required}", f"missing; a parameter needs default, min "
                                               f"and max, e.g. {PARAMETER_EXAMPLE}")
        if any(bad_key == key or bad_key.startswith(f"{key}.") for bad_key in bad):
            bad.add(key)  # its other checks would only repeat the problem


def _parameters(table: Mapping[str, Any], bad_keys: set[str]) -> tuple[Parameter, ...]:
    """The declared parameters whose shape is right (the others have a problem already);
    c_end and r_end filled in where left out (DEFAULT_C_END_SHARE, DEFAULT_R_END)."""
    declared = []
    for name, entry in table.items():
        if f"parameters.{name}" in bad_keys:
            continue
        low, high = float(entry["min"]), float(entry["max"])
        declared.append(Parameter(
            name=name, default=float(entry["default"]), minimum=low, maximum=high,
            c_end=float(entry.get("c_end", DEFAULT_C_END_SHARE * (high - low))),
            r_end=float(entry.get("r_end", DEFAULT_R_END)),
            integer=bool(entry.get("integer", False)),
        ))
    return tuple(declared)


def parameter_problems(parameters: tuple[Parameter, ...]) -> list[str]:
    """What is wrong with declared parameters' values, one line each naming the key."""
    problems = []
    for parameter in parameters:
        key = f"parameters.{parameter.name}"
        low, high = parameter.minimum, parameter.maximum
        if not low < high:
            problems.append(f"key {key!r}: min {low:g} must be below max {high:g}")
            continue
        if not low <= parameter.default <= high:
            problems.append(f"key '{key}.default': {parameter.default:g} is outside min..max "
                            f"({low:g}..{high:g})")
        if not 0 < parameter.c_end <= high - low:
            problems.append(f"key '{key}.c_end': {parameter.c_end:g} must be above 0 and at "
                            f"most max - min ({high - low:g}): SPSA's last perturbation")
        if not parameter.r_end > 0:
            problems.append(f"key '{key}.r_end': {parameter.r_end:g} must be above 0: SPSA's "
                            f"last learning rate (fishtest's usual {DEFAULT_R_END:g})")
        if parameter.integer:
            fractional = [f"{what} {value:g}" for what, value in
                          (("default", parameter.default), ("min", low), ("max", high))
                          if value != math.floor(value)]
            if fractional:
                problems.append(f"key {key!r}: an integer parameter needs whole numbers, "
                                f"not {', '.join(fractional)}")
    return problems


def spec_problems(
    spec: BotSpec,
    games: Mapping[str, Game],
    unavailable_games: Mapping[str, str] | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Everything that stops ``spec`` from being played, as messages naming the key
    (keys in ``skip`` already have a problem reported)."""
    problems: list[str] = []
    if "name" not in skip and not NAME_PATTERN.fullmatch(spec.name):
        problems.append(f"key 'name': {spec.name!r} is not allowed; a name is {NAME_RULE}")
    if "version" not in skip and not VERSION_PATTERN.fullmatch(spec.version):
        problems.append(f"key 'version': {spec.version!r} is not allowed; use {VERSION_RULE}")
    if "games" not in skip:
        problems.extend(_games_problems(spec.games, games, unavailable_games or {}))
    problems.extend(_resources_problems(spec.resources))
    if "parameters" not in skip:
        problems.extend(parameter_problems(spec.parameters))
    if "entry_point" not in skip and spec.entry_point is not None \
            and not ENTRY_POINT_PATTERN.fullmatch(spec.entry_point):
        problems.append(f"key 'entry_point': {spec.entry_point[:80]!r} is not "
                        f"{ENTRY_POINT_RULE}")
    if spec.connect is not None:
        if "connect" not in skip:
            problems.extend(connect_problems(spec.connect))
    else:
        if "build" not in skip and spec.build:
            problems.extend(program_problems("build", spec.build, spec.folder))
        if "command" not in skip:
            # a bot with a build step may run what its build makes: a file of its folder
            # that is not there yet is judged once it is built (arena/plugins/builds.py)
            problems.extend(program_problems("command", spec.command, spec.folder,
                                             made_by_build=spec.needs_build))
    return problems


def connect_problems(connect: str) -> list[str]:
    """``tcp://HOST:PORT`` is checked here; another scheme is a plugin transport's."""
    scheme, separator, _rest = connect.partition("://")
    if not separator or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme):
        return [f"key 'connect': {connect[:80]!r} is not an address like "
                "tcp://127.0.0.1:9000"]
    if scheme == "tcp":
        try:
            parse_tcp_address(connect)
        except ValueError as problem:
            return [f"key 'connect': {problem}"]
    return []


def _games_problems(
    claimed: Mapping[str, tuple[int, ...]],
    games: Mapping[str, Game],
    unavailable: Mapping[str, str],
) -> list[str]:
    known = ", ".join(sorted(games)) or "none could be loaded"
    if not claimed:
        return [f"key 'games': names no game; known games: {known}"]
    problems = []
    for name, counts in claimed.items():
        key = f"games.{name}"
        game = games.get(name)
        if game is None and name in unavailable:
            problems.append(f"key {key!r}: game {name!r} cannot be used: {unavailable[name]}")
            continue
        if game is None:
            problems.append(f"key {key!r}: unknown game {name!r}{did_you_mean(name, games)}; "
                            f"known games: {known}")
            continue
        allowed = f"{game.min_players}..{game.max_players}"
        if not counts:
            problems.append(f"key {key!r}: empty; list the player counts the bot plays ({allowed})")
        if len(set(counts)) != len(counts):
            problems.append(f"key {key!r}: a player count is listed twice")
        for count in counts:
            if not game.min_players <= count <= game.max_players:
                problems.append(
                    f"key {key!r}: {game.title} is played by {allowed} players, not {count}"
                )
    return problems


def _resources_problems(resources: Mapping[str, float]) -> list[str]:
    problems = []
    caps = resource_caps()
    for key, value in resources.items():
        if key not in RESOURCE_MEANINGS:
            allowed = ", ".join(f"{k} ({meaning})" for k, meaning in RESOURCE_MEANINGS.items())
            problems.append(f"key 'resources.{key}': unknown resource"
                            f"{did_you_mean(key, RESOURCE_MEANINGS)}; allowed: {allowed}")
        elif not 0 < value <= caps[key]:
            problems.append(f"key 'resources.{key}': {value} is outside 0 < {key} <= {caps[key]:g}")
    return problems


def command_problems(command: tuple[str, ...], folder: Path | None) -> list[str]:
    """Why ``command`` (a manifest's key 'command') cannot start here, if it cannot."""
    return program_problems("command", command, folder)


# the Debian (and Ubuntu) package that brings a toolchain's program, named when it is
# missing (here and by arena new-bot); default-*: the distribution's current Java
TOOLCHAIN_PACKAGES = {
    "javac": "default-jdk-headless", "java": "default-jre-headless",
    "go": "golang-go", "rustc": "rustc", "cargo": "cargo", "gcc": "gcc", "cc": "gcc",
    "g++": "g++", "c++": "g++", "make": "make", "node": "nodejs", "npm": "npm",
}
_EXAMPLES = {"command": '["{python}", "bot.py"]',
             "build": '["javac", "-d", "classes", "Bot.java"]'}


def program_problems(key: str, argv: tuple[str, ...], folder: Path | None, *,
                     made_by_build: bool = False) -> list[str]:
    """Why the program of ``argv`` (the manifest's ``key``, 'command' or 'build') cannot
    run here, if it cannot: one line naming the program.  ``made_by_build``: a file of
    the bot's folder that is missing may be made by the bot's build (it is judged after
    the build)."""
    if not argv or not argv[0].strip():
        return [f"key {key!r}: empty; give the argv, e.g. {_EXAMPLES[key]}"]
    program = argv[0]
    path = resolve_executable(program, folder)
    if path is not None:
        if program == PYTHON_PLACEHOLDER:  # the arena's own interpreter runs
            return []
        problem = program_problem(path, folder)
        if problem is None or (made_by_build and not os.path.isabs(program)):
            return []  # (a file of the folder the build may still replace)
        return [f"key {key!r}: {program!r} cannot run here: {problem}"]
    if "/" in program:
        if made_by_build and not os.path.isabs(program):
            return []
        return [f"key {key!r}: executable {program!r} not found (or not executable)"]
    message = f"key {key!r}: executable {program!r} not found on the bots' PATH ({SAFE_PATH})"
    package = TOOLCHAIN_PACKAGES.get(program)
    if package is not None:
        message += f": is it installed? (Debian: apt-get install {package})"
    if folder is not None and (folder / program).exists():
        message += f"; to run the file in the bot's folder write './{program}'"
    return [message]


def resolve_executable(program: str, folder: Path | None) -> Path | None:
    """The file the runner will execute for argv[0] ``program``, or None if there is none
    (or it is not executable).  As the runner does: "{python}" is the arena's Python, a
    path with a slash is relative to the bot's folder, a bare name is looked up on the
    bots' PATH (never the caller's PATH, never the bot's folder)."""
    if program == PYTHON_PLACEHOLDER:
        return Path(sys.executable)
    if "/" in program:
        path = Path(program)
        if not path.is_absolute():
            if folder is None:
                return None
            path = folder / path
    else:
        found = shutil.which(program, path=SAFE_PATH)
        if found is None:
            return None
        path = Path(found)
    return path if path.is_file() and os.access(path, os.X_OK) else None


# --- can this file be executed here? --------------------------------------------------------
# Read from the file's first bytes, never by running it: an ELF program for this machine
# (class, byte order and machine of the arena's own interpreter) whose loader exists, or
# a script whose "#!" interpreter exists; anything else fails in execve (ENOEXEC).

_ELF_MAGIC = b"\x7fELF"
_MACHINES = {3: "x86 (i386)", 8: "MIPS", 20: "PowerPC", 21: "PowerPC 64", 22: "S/390",
             40: "ARM", 62: "x86-64", 183: "AArch64", 243: "RISC-V", 258: "LoongArch"}
# 32-bit programs a 64-bit kernel also runs (if their loader is installed)
_ALSO_RUNS = {(2, 62): {(1, 3)}, (2, 183): {(1, 40)}}
_MAX_SCRIPT_DEPTH = 4  # Linux follows at most 4 levels of interpreters
_SHEBANG_BYTES = 256  # what Linux reads of a "#!" line (BINPRM_BUF_SIZE)


@dataclass(frozen=True)
class _Elf:
    elf_class: int  # 1: 32-bit, 2: 64-bit
    data: int  # 1: little-endian, 2: big-endian
    kind: int  # e_type: 2 an executable, 3 a shared object (a PIE program)
    machine: int  # e_machine

    def describe(self) -> str:
        bits = {1: "32-bit", 2: "64-bit"}.get(self.elf_class, "?-bit")
        return f"{_MACHINES.get(self.machine, f'machine {self.machine}')} ({bits})"


def _elf_header(head: bytes) -> _Elf | None:
    if len(head) < 20 or not head.startswith(_ELF_MAGIC) or head[5] not in (1, 2):
        return None
    order: Literal["little", "big"] = "little" if head[5] == 1 else "big"
    return _Elf(head[4], head[5], int.from_bytes(head[16:18], order),
                int.from_bytes(head[18:20], order))


@lru_cache(maxsize=1)
def _this_machine() -> _Elf | None:
    """The ELF header of the interpreter running the arena (None: not an ELF system)."""
    try:
        with open(_open_regular(Path(os.path.realpath(sys.executable)),
                                follow_symlinks=True), "rb") as file:
            return _elf_header(file.read(64))
    except (OSError, FolderRefused):
        return None


def program_problem(path: Path, folder: Path | None, depth: int = 0) -> str | None:
    """Why the executable file ``path`` cannot run on this machine, judged from its first
    bytes (it is never run), or None if it can (or this is not an ELF system, where only
    a "#!" line is checked).  A relative "#!" interpreter is taken from ``folder``, the
    bot's working directory."""
    try:
        with open(_open_regular(path, follow_symlinks=True), "rb") as file:
            head = file.read(_SHEBANG_BYTES)
            if head.startswith(b"#!"):
                return _script_problem(head, folder, depth)
            host = _this_machine()
            if host is None:
                return None
            elf = _elf_header(head)
            if elf is None:
                return ("it is neither a program for this machine (no ELF header) nor a "
                        "script (no '#!' line)")
            if elf.kind not in (2, 3):
                return "it is an ELF file but not a program (an object file or a core dump?)"
            same = (elf.elf_class, elf.data, elf.machine) == (host.elf_class, host.data,
                                                               host.machine)
            also = (elf.elf_class, elf.machine) in _ALSO_RUNS.get(
                (host.elf_class, host.machine), set()) and elf.data == host.data
            if not (same or also):
                return f"it is a program for {elf.describe()}, this machine is {host.describe()}"
            loader = _elf_loader(file, elf)
    except FolderRefused as refused:
        return str(refused)
    except OSError as error:
        return f"{path} cannot be read: {error.strerror}"
    if loader is not None and not os.path.exists(loader):
        return f"it needs the loader {loader}, which this machine does not have"
    return None


def _elf_loader(file: BinaryIO, elf: _Elf) -> str | None:
    """The program interpreter (PT_INTERP) an ELF program names, if any."""
    order: Literal["little", "big"] = "little" if elf.data == 1 else "big"
    wide = elf.elf_class == 2
    file.seek(0)
    header = file.read(64)

    def number(data: bytes, at: int, size: int) -> int:
        return int.from_bytes(data[at:at + size], order)

    offset = number(header, 32, 8) if wide else number(header, 28, 4)
    entry_size = number(header, 54 if wide else 42, 2)
    count = min(number(header, 56 if wide else 44, 2), 256)
    for index in range(count):
        file.seek(offset + index * entry_size)
        entry = file.read(entry_size)
        if len(entry) < (56 if wide else 32) or number(entry, 0, 4) != 3:  # PT_INTERP
            continue
        at, size = ((number(entry, 8, 8), number(entry, 32, 8)) if wide
                    else (number(entry, 4, 4), number(entry, 16, 4)))
        file.seek(at)
        name = file.read(min(size, 4096)).split(b"\0", 1)[0]
        return os.fsdecode(name) if name else None
    return None


def _script_problem(head: bytes, folder: Path | None, depth: int) -> str | None:
    line = head[2:].split(b"\n", 1)[0]
    words = line.split(None, 1)
    if not words:
        return "its '#!' line names no interpreter"
    interpreter = os.fsdecode(words[0])
    path = Path(interpreter)
    if not path.is_absolute():
        if folder is None:
            return None
        path = folder / path
    if not (path.is_file() and os.access(path, os.X_OK)):
        return (f"it is a script for {interpreter!r} (its '#!' line), which this machine "
                "does not have (or is not executable)")
    if depth + 1 >= _MAX_SCRIPT_DEPTH:
        return "its '#!' interpreters are scripts nested too deep"
    problem = program_problem(path, folder, depth + 1)
    if problem is not None:
        return f"its interpreter {interpreter} cannot run: {problem}"
    if path.name == "env" and len(words) > 1 and sys.platform.startswith("linux"):
        return _env_problem(os.fsdecode(words[1]).strip())
    return None


def _env_problem(argument: str) -> str | None:
    """``#!/usr/bin/env ARGUMENT``: Linux passes ARGUMENT as one word (``-S`` splits it);
    the program env looks for on the bots' PATH must be there."""
    words = argument.split()
    if words and words[0] == "-S":
        words = words[1:]
    elif words and words[0].startswith("-S"):
        words = [words[0][2:], *words[1:]]
    elif words:
        words = [argument]
    words = [word for word in words if "=" not in word]  # NAME=VALUE settings
    if not words or words[0].startswith("-"):
        return None  # an option of env's own: not judged here
    program = words[0]
    if "/" in program or shutil.which(program, path=SAFE_PATH) is not None:
        return None
    return (f"it is a script for {program!r} (its '#!/usr/bin/env' line), which is not on "
            f"the bots' PATH ({SAFE_PATH})")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.endswith(IGNORED_SUFFIXES)


# --- reading a bot folder -----------------------------------------------------------------
# The one place that reads a bot folder: discovery, the content hash, `arena submit`'s copy
# and a cluster's packing all go through scan_bot_folder and open_bot_file.  Nothing here
# ever blocks: entries are looked at with lstat only, a symbolic link is never followed
# (its target text is the entry), a named pipe, socket or device is refused without being
# opened, and a file is opened only once it is known to be a regular file (O_NONBLOCK,
# O_NOFOLLOW, then checked again on the descriptor).  Sizes are apparent sizes, so a
# sparse file counts in full.


class FolderRefused(ArenaError):
    """A bot folder the arena will not read: one line saying why."""


@dataclass(frozen=True)
class FolderEntry:
    """A file or symbolic link of a bot folder, as lstat saw it during the scan."""

    relative: Path
    link: str | None  # the target text of a symbolic link; None for a regular file
    size: int  # bytes: a file's apparent size (a sparse file counts in full)
    mode: int  # permission bits
    mtime_ns: int
    identity: tuple[int, int]  # (st_dev, st_ino): the file opened later must be this one


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(mode: int) -> str:
    """What an lstat mode is, in words ("a named pipe (FIFO)", "a folder", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return "a special file"


def _size_text(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit}"
    return f"{size} bytes"


def scan_bot_folder(folder: Path, limits: FolderLimits | None = None) -> list[FolderEntry]:
    """The files and symbolic links of a bot folder that matter, sorted by relative path
    (caches, ``.git`` and the install record are left out: ``IGNORED_NAMES``).

    ``FolderRefused`` (one line) for a special file (named pipe, socket, device), a file
    over ``limits.file_mb``, files over ``limits.folder_mb`` together or more than
    ``limits.files`` entries; ``OSError`` if the folder cannot be read.  ``folder`` itself
    may be a symbolic link (it was named); nothing inside it is followed."""
    limits = folder_limits() if limits is None else limits
    found: list[FolderEntry] = []
    entries = total = 0
    pending = [Path()]
    while pending:
        relative_folder = pending.pop()
        with os.scandir(folder / relative_folder) as listing:
            for item in listing:
                if _ignored(item.name):
                    continue
                try:
                    item.name.encode()
                except UnicodeEncodeError:  # the hash and the records are UTF-8
                    raise FolderRefused(f"{relative_folder / item.name!r} is not a UTF-8 "
                                        "name") from None
                entries += 1
                if entries > limits.files:
                    raise FolderRefused(
                        f"more than {limits.files} files, folders and links, the cap per bot "
                        "folder (ARENA_BOT_FILES raises it)")
                relative = relative_folder / item.name
                info = item.stat(follow_symlinks=False)  # lstat: nothing is followed
                mode = info.st_mode
                if stat.S_ISDIR(mode):
                    pending.append(relative)
                    continue
                if stat.S_ISLNK(mode):
                    link = os.readlink(folder / relative)
                elif stat.S_ISREG(mode):
                    link = None
                    _check_size(relative, info, total, limits)
                    total += info.st_size
                else:
                    raise FolderRefused(f"{relative} is {file_kind(mode)}: a bot folder may "
                                        "hold only regular files, folders and symbolic links")
                found.append(FolderEntry(relative, link, info.st_size, stat.S_IMODE(mode),
                                         info.st_mtime_ns, (info.st_dev, info.st_ino)))
    return sorted(found, key=lambda entry: entry.relative.as_posix())


def _check_size(relative: Path, info: os.stat_result, total: int, limits: FolderLimits) -> None:
    size = info.st_size
    if size > limits.file_bytes:
        sparse = getattr(info, "st_blocks", None)
        how = (", sparse: its apparent size counts"
               if sparse is not None and sparse * 512 < size else "")
        raise FolderRefused(f"{relative} is {_size_text(size)}{how}, over the cap of "
                            f"{limits.file_mb} MiB per file (ARENA_BOT_FILE_MB raises it)")
    if total + size > limits.folder_bytes:
        raise FolderRefused(f"its files add up to more than {limits.folder_mb} MiB, the cap "
                            "per bot folder (ARENA_BOT_FOLDER_MB raises it)")


def bot_files(folder: Path, limits: FolderLimits | None = None) -> list[Path]:
    """Every file of a bot folder that matters, relative to it, sorted (symbolic links
    included); see ``scan_bot_folder``."""
    return [entry.relative for entry in scan_bot_folder(folder, limits)]


def _open_regular(path: Path, *, follow_symlinks: bool) -> int:
    """A read-only descriptor of the regular file at ``path``; ``FolderRefused`` if it is
    anything else.  Never blocks and never opens anything but a regular file: on Linux
    the path is first opened with O_PATH (which runs no driver's open: a device is not
    touched) and reopened for reading only once it is known to be a regular file."""
    nofollow = 0 if follow_symlinks else os.O_NOFOLLOW
    read_flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    o_path = getattr(os, "O_PATH", 0)
    if o_path and os.path.isdir("/proc/self/fd"):
        handle = os.open(path, o_path | nofollow | os.O_CLOEXEC)
        try:
            _require_regular(path, os.fstat(handle).st_mode)
            descriptor = os.open(f"/proc/self/fd/{handle}", read_flags)
        finally:
            os.close(handle)
    else:
        _require_regular(path, os.stat(path, follow_symlinks=follow_symlinks).st_mode)
        descriptor = os.open(path, read_flags | nofollow)
    try:
        _require_regular(path, os.fstat(descriptor).st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _require_regular(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise FolderRefused(f"{path} is {file_kind(mode)}, not a regular file")


def read_regular(path: Path, max_bytes: int, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file at ``path``, never blocking; ``FolderRefused`` if it
    is not a regular file or is larger than ``max_bytes``."""
    with open(_open_regular(path, follow_symlinks=follow_symlinks), "rb") as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FolderRefused(f"{path} is larger than {max_bytes} bytes")
    return data


def open_regular(path: Path, *, follow_symlinks: bool = False) -> BinaryIO:
    """The regular file at ``path`` opened for reading, never blocking; ``FolderRefused``
    if it is anything else (by default a symbolic link too)."""
    # returned open: the caller's `with` closes it
    return open(_open_regular(path, follow_symlinks=follow_symlinks), "rb")  # noqa: SIM115


def open_bot_file(folder: Path, entry: FolderEntry) -> BinaryIO:
    """The regular file ``entry`` of ``folder`` opened for reading: the very file the scan
    saw (``FolderRefused`` if it was replaced since)."""
    file = open_regular(folder / entry.relative)
    info = os.fstat(file.fileno())
    if (info.st_dev, info.st_ino) != entry.identity:
        file.close()
        raise FolderRefused(f"{entry.relative} changed while the bot folder was read")
    return file


def read_chunks(folder: Path, entry: FolderEntry) -> Iterator[bytes]:
    """The bytes of ``entry`` in chunks, exactly ``entry.size`` of them (``FolderRefused``
    if the file grew or shrank since the scan)."""
    left = entry.size
    with open_bot_file(folder, entry) as file:
        while chunk := file.read(min(1 << 20, left + 1)):
            left -= len(chunk)
            if left < 0:
                break
            yield chunk
    if left != 0:
        raise FolderRefused(f"{entry.relative} changed while the bot folder was read")


def content_hash(folder: Path, limits: FolderLimits | None = None) -> str:
    """sha256 over the sorted relative paths and contents of a bot folder's files.

    Caches (``__pycache__``, ``*.pyc``), ``.git`` and the install record are left out, so a
    folder and its installed copy hash the same.  A symlink counts as its target text.
    Raises what ``scan_bot_folder`` raises."""
    digest = hashlib.sha256()
    for entry in scan_bot_folder(folder, limits):
        digest.update(entry.relative.as_posix().encode() + b"\0")
        if entry.link is not None:
            digest.update(b"symlink\0" + entry.link.encode() + b"\0")
            continue
        digest.update(b"file\0" + str(entry.size).encode() + b"\0")
        for chunk in read_chunks(folder, entry):
            digest.update(chunk)
    return digest.hexdigest()
