"""The whole plugin contract of Ra Arena, in one place.

A plugin is a module (or any object) whose functions carry the ``hookimpl`` marker and are
named after the hooks below.  A third-party package exposes one through an entry point in
the group ``arena``::

    # pyproject.toml of the plugin's distribution
    [project.entry-points.arena]
    my_games = "my_package.arena_plugin"

    # my_package/arena_plugin.py
    from arena.plugins import hookimpl

    @hookimpl
    def arena_register_games():
        return [MyGame()]

The registration hooks (games, bots, bot folders, league formats) take no arguments and
return a list; an implementation may return an empty list.  What one plugin returns is
checked on its own: a plugin that fails (raises, returns the wrong type, registers a name
another plugin already uses) is reported with its name in ``Registry.problems`` and the
other plugins still load.

``arena_open_bot`` is different: it is asked each time a bot must be reached, and the
first implementation that answers (not None) wins, so a plugin can add a transport (a
websocket, a bot in a container) without touching the arena.  The bundled transports (the
local process, the bwrap sandbox and TCP: :func:`arena.runner.transports.bundled_opener`)
are an implementation of it too, asked after every plugin's.

Every hook is called through one plugin manager (:mod:`arena.plugins.manager`), which loads
each plugin once per process.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from arena.games.base import Game
from arena.runner.botspec import BotSpec
from arena.runner.channel import ChannelOpener  # what arena_open_bot returns

if TYPE_CHECKING:
    from arena.league.formats import LeagueFormat
    from arena.settings import Limits

PROJECT_NAME = "arena"
ENTRY_POINT_GROUP = "arena"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def arena_register_games() -> list[Game]:  # type: ignore[empty-body]
    """Games this plugin provides, as :class:`arena.games.base.Game` objects.

    Each game's ``name`` must be unique among all plugins (the bundled games "ra" and
    "ra_dice", which register through this hook too, included); it is the name manifests,
    league files, the protocol and the commands (``arena selfplay``, ``arena bench``) use."""


@hookspec
def arena_register_bots() -> list[BotSpec]:  # type: ignore[empty-body]
    """Bots this plugin provides, fully described as :class:`arena.runner.botspec.BotSpec`.

    Use this for bots that are not a folder with a ``bot.toml`` (e.g. a bot whose command
    is an executable installed with the distribution).  Set ``source`` to anything: the
    arena replaces it with the plugin's name.  The spec is checked like a manifest (name,
    games and player counts, command) and an invalid one is listed by ``arena bots`` with
    what is wrong."""


@hookspec
def arena_bot_folders() -> list[Path]:  # type: ignore[empty-body]
    """Folders holding bots with a ``bot.toml`` manifest, shipped inside the distribution.

    Each path may be a bot folder itself or a folder of bot folders, exactly like the
    ``--path`` option of ``arena bots``."""


@hookspec
def arena_register_formats() -> list[LeagueFormat]:  # type: ignore[empty-body]
    """League formats this plugin provides: objects of a subclass of
    :class:`arena.league.formats.ScheduleFormat` (every game made in advance from the
    league file) or :class:`arena.league.formats.FeedFormat` (stages of games, each chosen
    from the stored results of the stages before: Swiss rounds, a knockout's rounds).

    Each format's ``name`` must be unique among all plugins (the bundled "round-robin",
    "gauntlet", "swiss", "knockout" and "ladder", registered through this hook by
    :mod:`arena.league.formats`, included); it is what a league file's ``format`` key
    names.  Its ``check`` reads its own keys of the file (``format = { name = ..., KEY =
    ... }``).  A feed's stages must be pure functions of the league file and the results
    of the earlier stages: resuming replays them against the store (docs/leagues.md,
    *Formats*)."""


@hookspec(firstresult=True)
def arena_open_bot(spec: BotSpec, limits: Limits) -> ChannelOpener | None:  # type: ignore[empty-body]
    """How to reach ``spec``'s bot under ``limits``: a
    :data:`~arena.runner.channel.ChannelOpener`, or None if this transport does not serve
    it (the next one is asked).

    The opener is called with the nursery that owns the bot's helpers (e.g. stderr
    drainers) and the folder for its logs, and returns a
    :class:`arena.runner.channel.BotChannel` (send lines, receive lines, close, abort);
    :class:`arena.runner.channel.StreamChannel` wraps any trio byte stream.  The
    conversation on top (handshake, time limits, failure reasons) is the arena's,
    identical for every transport.  Raise :class:`arena.runner.failures.BotFailure`
    ("crash") when the bot cannot be reached.
    A task the opener starts in the nursery (a reader, a bot in memory) lives as long as
    the arena's pool and must end quietly when its channel is closed: an exception there
    stops the pool."""


REGISTRATION_HOOKS: tuple[str, ...] = (
    "arena_register_games", "arena_register_bots", "arena_bot_folders",
    "arena_register_formats",
)
HOOK_NAMES: tuple[str, ...] = (*REGISTRATION_HOOKS, "arena_open_bot")
