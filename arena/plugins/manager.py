"""The one plugin manager: every plugin loaded once per process, for every hook.

:func:`loaded_plugins` builds it on first use and keeps it.  It holds, in this order:

1. the bundled transports (:func:`arena.runner.transports.bundled_opener`), whose
   ``arena_open_bot`` is marked ``trylast``: asked after every plugin's;
2. the plugins bundled with Ra Arena (:data:`BUNDLED_PLUGINS`: its games and its league
   formats), each on its own;
3. installed distributions with entry points in the group ``arena``, sorted by
   distribution name then entry-point name.

Discovery (:mod:`arena.plugins.discovery`) calls the registration hooks through it, and
the runner reaches bots through its ``arena_open_bot`` hook: importing this module
installs :func:`open_bot` as the runner's transport lookup
(:func:`arena.runner.transports.use_transport_lookup`), so the runner never imports the
plugins layer.  A plugin that fails to load or to register is left out and kept as a
:class:`Problem`, which every :func:`arena.plugins.discover` reports.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pluggy

from arena.plugins import hookspecs
from arena.plugins.hookspecs import hookimpl
from arena.plugins.registry import Problem
from arena.runner.botspec import BotSpec
from arena.runner.channel import ChannelOpener
from arena.runner.transports import bundled_opener, use_transport_lookup
from arena.settings import Limits

# The plugins that ship inside Ra Arena: a module per bundled game, whose
# ``arena_register_games`` registers it, and the league formats' module, whose
# ``arena_register_formats`` registers them (named here as a string: the plugins layer
# never imports the league layer above it).  They are loaded exactly as an entry point is
# (import, register, the same hooks, the same checks); only their names come from here
# rather than from installed package metadata, so that they are there in any checkout or
# installation without reinstalling, and with ``discover(entry_points=False)``.
BUNDLED_PLUGINS: tuple[str, ...] = ("arena.games.ra.plugin", "arena.games.ra_dice.plugin",
                                     "arena.league.formats")
BUNDLED_TRANSPORTS = "transports bundled with Ra Arena"


class _BundledTransports:
    """The runner's own transports as an implementation of ``arena_open_bot``."""

    @hookimpl(trylast=True)
    def arena_open_bot(self, spec: BotSpec, limits: Limits) -> ChannelOpener | None:
        return bundled_opener(spec, limits)


@dataclass(frozen=True)
class LoadedPlugins:
    """The plugin manager, what could not be loaded into it, and which of its plugins are
    bundled with Ra Arena (the rest came from entry points)."""

    manager: pluggy.PluginManager
    problems: tuple[Problem, ...]
    bundled: frozenset[str]

    def problems_of(self, *, entry_points: bool = True) -> list[Problem]:
        """The loading problems, or only the bundled plugins' without ``entry_points``."""
        return [p for p in self.problems if entry_points or p.source in self.bundled]

    def call_each(
        self, hook_name: str, problems: list[Problem], *, entry_points: bool = True
    ) -> Iterator[tuple[str, list[Any]]]:
        """(plugin name, returned list) of each implementation of a registration hook, in
        the order the plugins were loaded; a failure is appended to ``problems`` and the
        other plugins are still called.  Without ``entry_points``, bundled plugins only."""
        for impl in getattr(self.manager.hook, hook_name).get_hookimpls():
            if not entry_points and impl.plugin_name not in self.bundled:
                continue
            try:
                result = impl.function()
            except (Exception, SystemExit) as error:  # a plugin must not stop the arena
                problems.append(Problem(impl.plugin_name,
                                        f"{hook_name} failed: {describe(error)}"))
                continue
            if not isinstance(result, list | tuple):
                message = f"{hook_name} returned {type(result).__name__}, not a list"
                problems.append(Problem(impl.plugin_name, message))
                continue
            yield impl.plugin_name, list(result)


@functools.cache
def loaded_plugins() -> LoadedPlugins:
    """The plugin manager of this process, built on first use (see the module docstring).
    ``loaded_plugins.cache_clear()`` makes the next call read the entry points again."""
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    manager.register(_BundledTransports(), name=BUNDLED_TRANSPORTS)
    problems: list[Problem] = []
    bundled = {BUNDLED_TRANSPORTS}
    plugins: list[tuple[str, Callable[[], Any]]] = []
    for module in BUNDLED_PLUGINS:
        source = f"plugin {module} (bundled with Ra Arena)"
        bundled.add(source)
        plugins.append((source, functools.partial(importlib.import_module, module)))
    plugins.extend(_entry_point_plugins())
    for source, load in plugins:
        try:
            plugin = load()
        except (Exception, SystemExit) as error:  # a plugin's import may fail in any way
            problems.append(Problem(source, f"failed to import: {describe(error)}"))
            continue
        _register(manager, problems, source, plugin)
    return LoadedPlugins(manager, tuple(problems), frozenset(bundled))


def open_bot(spec: BotSpec, limits: Limits) -> ChannelOpener | None:
    """The ``arena_open_bot`` hook: the first transport that serves ``spec`` (plugins'
    first, the bundled ones last), or None.  The runner's transport lookup."""
    opener: ChannelOpener | None = loaded_plugins().manager.hook.arena_open_bot(
        spec=spec, limits=limits)
    return opener


use_transport_lookup(open_bot)


def describe(error: BaseException) -> str:
    """``Type: message`` of an error a plugin raised (just the type without a message)."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _entry_point_plugins() -> Iterator[tuple[str, Callable[[], Any]]]:
    """(source, loader) of each entry point in the group, deduplicated and sorted."""
    found: dict[tuple[str, str], tuple[str, Callable[[], Any]]] = {}
    for dist in importlib.metadata.distributions():
        dist_name = dist.metadata["Name"] or "unknown distribution"
        for entry_point in dist.entry_points.select(group=hookspecs.ENTRY_POINT_GROUP):
            key = (dist_name.lower(), entry_point.name)
            source = f"entry point {entry_point.name} (distribution {dist_name} {dist.version})"
            # the first occurrence on sys.path is the one Python would import
            found.setdefault(key, (source, entry_point.load))
    for key in sorted(found):
        yield found[key]


def _register(
    manager: pluggy.PluginManager, problems: list[Problem], source: str, plugin: object
) -> None:
    try:
        manager.register(plugin, name=source)
    except (ValueError, pluggy.PluginValidationError) as error:
        problems.append(Problem(source, f"not a valid plugin: {error}"))
        return
    unknown = [c.name for c in manager.get_hookcallers(plugin) or [] if not c.has_spec()]
    if unknown:
        manager.unregister(plugin)
        known = ", ".join(hookspecs.HOOK_NAMES)
        problems.append(
            Problem(source, f"unknown hook {', '.join(unknown)}; the hooks are: {known}")
        )
