"""Finding games and bots: the registration hooks of the one plugin manager
(:mod:`arena.plugins.manager`), then bot folders.

Order (it only decides the order of listings; a name registered twice is unusable):

1. the plugins bundled with Ra Arena (:data:`arena.plugins.manager.BUNDLED_PLUGINS`: its
   games), each on its own;
2. installed distributions with entry points in the group ``arena``, sorted by
   distribution name then entry-point name: their games, bots and bot folders;
3. bot folders (with a ``bot.toml``) under the given paths, default ``./bots`` (a
   sub-folder there without one is listed as not ready, saying so: a roster naming it
   learns why);
4. the bot folders bundled with Ra Arena (package data: ``arena/bots/``).

A bot folder is read only through ``arena.plugins.manifest.scan_bot_folder`` (never
blocking, within the caps of ``arena.settings.FolderLimits``, read once per discovery):
a folder holding a named pipe, a socket or a device, or over a cap, is listed as not
ready with one line saying why, and every other bot is found as usual.

Anything that fails to load becomes a ``Problem`` naming where it came from (for an entry
point: the distribution) and the rest still loads.  Bot names resolve like PATH: a bot of
the user's (``./bots``, ``bot_paths``, a plugin) with the name of a bundled bot is used
instead of it, and ``arena bots`` says so; two of the user's bots with one name are
reported naming both, and using the name is an error until one of them is removed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from arena.errors import ArenaError
from arena.games.base import Game
from arena.package_data import package_folder
from arena.plugins.manager import LoadedPlugins, describe, loaded_plugins
from arena.plugins.manifest import (
    IGNORED_NAMES,
    MANIFEST_NAME,
    NAME_PATTERN,
    ManifestError,
    load_manifest,
    peek_name,
    spec_problems,
)
from arena.plugins.registry import BotEntry, Problem, Registry
from arena.runner.botspec import BotSpec
from arena.settings import FolderLimits, folder_limits

# The bundled bots are package data (arena/bots), in a checkout and in an installed wheel.
BUNDLED_BOTS = package_folder("bots")
DEFAULT_BOT_PATH = Path("bots")
BUNDLED_LABEL = "bundled"
NO_MANIFEST = (f"no {MANIFEST_NAME}: a bot folder needs one (`arena docs manifest`; "
               "`arena new-bot NAME` makes a folder with one)")


def discover(
    bot_paths: Sequence[Path] | None = None,
    *,
    include_bundled: bool = True,
    entry_points: bool = True,
) -> Registry:
    """Every game and bot that can be found (see the module docstring for the order).

    ``bot_paths`` are bot folders or folders of bot folders; None means ``./bots`` if it
    exists.  A path that was named explicitly and does not exist is an ``ArenaError``."""
    if bot_paths is None:
        paths = [DEFAULT_BOT_PATH] if DEFAULT_BOT_PATH.is_dir() else []
    else:
        paths = [Path(p) for p in bot_paths]
        for path in paths:
            if not path.is_dir():
                raise ArenaError(f"bot path {str(path)!r} is not a directory")

    limits = folder_limits()  # a bad ARENA_BOT_* variable: one error, before any folder
    registry = Registry()
    plugins = loaded_plugins()
    registry.problems.extend(plugins.problems_of(entry_points=entry_points))
    _collect_games(plugins, registry, entry_points)
    registry.game_problems = list(registry.problems)  # any of them may be a missing game
    folder_sources: list[tuple[Path, str | None]] = []
    _collect_plugin_bots(plugins, registry, folder_sources, entry_points)
    folder_sources.extend((path, None) for path in paths)
    if include_bundled and BUNDLED_BOTS.is_dir():
        folder_sources.append((BUNDLED_BOTS, BUNDLED_LABEL))
    _collect_bot_folders(folder_sources, registry, limits)
    _mark_clashes(registry)
    return registry


def game_registry() -> Registry:
    """Discovery for commands that need games only (no bot folder is read)."""
    return discover([], include_bundled=False)


def format_registry() -> Registry:
    """The league formats of every plugin, bundled ones first (no game, no bot folder)."""
    registry = Registry()
    plugins = loaded_plugins()
    registry.problems.extend(plugins.problems)
    for source, formats in plugins.call_each("arena_register_formats", registry.problems):
        for league_format in formats:
            name = getattr(league_format, "name", None)
            if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
                registry.problems.append(Problem(
                    source, f"format name {name!r} is not allowed (lowercase letters, "
                            "digits, '-', '_')"))
            elif name in registry.formats:
                registry.problems.append(Problem(
                    source, f"format name {name!r} is registered twice: by "
                            f"{registry.format_sources[name]} and by {source}"))
            else:
                registry.formats[name] = league_format
                registry.format_sources[name] = source
    return registry


def load_game(name: str) -> Game:
    """The game called ``name``, bundled or from a plugin; an ArenaError saying why not."""
    game: Game = game_registry().game(name)
    return game


def _collect_games(plugins: LoadedPlugins, registry: Registry, entry_points: bool) -> None:
    hook_results = plugins.call_each("arena_register_games", registry.problems,
                                     entry_points=entry_points)
    for source, games in hook_results:
        for game in games:
            problem = _game_problem(game)
            if problem:
                registry.problems.append(Problem(source, problem))
                continue
            name = game.name
            if name in registry.game_sources or name in registry.unusable_games:
                first = registry.game_sources.get(name) or registry.unusable_games[name]
                reason = f"game name {name!r} is registered twice: by {first} and by {source}"
                registry.problems.append(Problem(source, reason))
                registry.games.pop(name, None)
                registry.unusable_games[name] = reason
                continue
            registry.games[name] = game
            registry.game_sources[name] = source


def _game_problem(game: object) -> str | None:
    if not isinstance(game, Game):
        return f"registered {type(game).__name__}, not an arena.games.base.Game"
    name = getattr(game, "name", None)
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        return f"game name {name!r} is not allowed (lowercase letters, digits, '-', '_')"
    low, high = getattr(game, "min_players", None), getattr(game, "max_players", None)
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
        return f"game {name!r}: min_players/max_players must be integers with 1 <= min <= max"
    return None


def _collect_plugin_bots(
    plugins: LoadedPlugins,
    registry: Registry,
    folder_sources: list[tuple[Path, str | None]],
    entry_points: bool,
) -> None:
    for source, specs in plugins.call_each("arena_register_bots", registry.problems,
                                           entry_points=entry_points):
        for spec in specs:
            if not isinstance(spec, BotSpec):
                message = f"registered {type(spec).__name__}, not an arena.runner.botspec.BotSpec"
                registry.problems.append(Problem(source, message))
                continue
            spec = dataclasses.replace(spec, source=source)
            try:
                problems = spec_problems(spec, registry.games, registry.unusable_games)
            except (TypeError, ValueError, AttributeError) as error:  # e.g. games={"ra": 2}
                problems = [f"not a valid BotSpec: {describe(error)}"]
            registry.entries.append(BotEntry(spec.name, source, spec, problems, spec.folder))
    for source, folders in plugins.call_each("arena_bot_folders", registry.problems,
                                             entry_points=entry_points):
        for folder in folders:
            if not isinstance(folder, str | Path) or not Path(folder).is_dir():
                message = f"bot folder {folder!r} is not a directory"
                registry.problems.append(Problem(source, message))
                continue
            folder_sources.append((Path(folder), source))


def _bot_folders(path: Path) -> tuple[list[Path], list[Path]]:
    """``path`` itself if it is a bot folder, else its sub-folders holding a bot.toml;
    and the sub-folders without one (a bot whose manifest is missing)."""
    if (path / MANIFEST_NAME).exists():
        return [path], []
    children = sorted(
        child
        for child in path.iterdir()
        if not child.name.startswith(".")  # e.g. half-installed copies of `arena submit`
        and child.name not in IGNORED_NAMES
        and child.is_dir()
    )
    with_manifest = [child for child in children if (child / MANIFEST_NAME).exists()]
    return with_manifest, [child for child in children if child not in with_manifest]


def _collect_bot_folders(
    paths: list[tuple[Path, str | None]], registry: Registry, limits: FolderLimits
) -> None:
    seen: set[Path] = set()
    for path, plugin_source in paths:
        try:
            folders, without_manifest = _bot_folders(path)
        except OSError as error:
            registry.problems.append(Problem(f"bot path {path}", f"cannot be read: {error}"))
            continue
        for folder in without_manifest:  # listed, so that a roster naming it says why
            if folder.resolve() not in seen:
                seen.add(folder.resolve())
                registry.entries.append(BotEntry(
                    folder.name, f"folder {folder}", None, [NO_MANIFEST], folder.resolve(),
                    bundled=plugin_source == BUNDLED_LABEL, manifest=False))
        for folder in folders:
            if folder.resolve() in seen:  # e.g. ./bots is the bundled folder
                continue
            seen.add(folder.resolve())
            if plugin_source == BUNDLED_LABEL:
                source = f"folder {folder} (bundled with Ra Arena)"
            else:
                source = f"folder {folder}" + (f" of {plugin_source}" if plugin_source else "")
            try:
                spec = load_manifest(folder, registry.games, source, registry.unusable_games,
                                     limits)
            except ManifestError as error:
                name = peek_name(folder) or folder.name
                entry = BotEntry(name, source, None, list(error.problems), folder.resolve(),
                                 bundled=plugin_source == BUNDLED_LABEL)
                registry.entries.append(entry)
                continue
            entry = BotEntry(spec.name, source, spec, folder=spec.folder,
                             bundled=plugin_source == BUNDLED_LABEL)
            note = name_note(spec, folder)
            if note:
                entry.notes.append(note)
            registry.entries.append(entry)


def name_note(spec: BotSpec, folder: Path) -> str:
    """A word when a bot folder's manifest names the bot otherwise than the folder: leagues
    and rosters know it by the manifest's name ("" when they agree)."""
    called = folder.resolve().name
    if spec.name == called:
        return ""
    return (f"{folder}'s {MANIFEST_NAME} names the bot {spec.name!r}, not {called!r}: "
            f"leagues, rosters and `arena submit` use {spec.name!r}")


def _mark_clashes(registry: Registry) -> None:
    by_name: dict[str, list[BotEntry]] = {}
    for entry in registry.entries:
        if entry.manifest:  # a folder without one hides no bot of its name
            by_name.setdefault(entry.name, []).append(entry)
    for name, entries in by_name.items():
        if len(entries) < 2:
            continue
        own = [entry for entry in entries if not entry.bundled]
        if len(own) == 1:  # like PATH: the user's bot is used, the bundled one is hidden
            (user,) = own
            for entry in entries:
                if entry is not user:
                    entry.shadowed_by = user.source
                    user.shadows.append(entry.source)
            continue
        sources = " and ".join(entry.source for entry in entries)
        registry.problems.append(Problem(sources, f"bot name {name!r} is registered twice"))
        for entry in entries:
            others = ", ".join(other.source for other in entries if other is not entry)
            entry.problems.append(f"name {name!r} is also registered by {others}")
