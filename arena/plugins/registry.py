"""What discovery found: games, bots (usable or not, with the reason) and load problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, did_you_mean
from arena.games.base import Game
from arena.runner.botspec import BotSpec


@dataclass(frozen=True)
class Problem:
    """Something that could not be loaded: ``source`` says where, ``message`` why."""

    source: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


@dataclass
class BotEntry:
    """One bot as discovery saw it.  ``spec`` is None when its manifest cannot be read;
    ``problems`` empty means ready to play."""

    name: str
    source: str
    spec: BotSpec | None
    problems: list[str] = field(default_factory=list)
    folder: Path | None = None  # the bot folder, when it has one
    # names resolve like PATH: a user's bot hides a bundled one of the same name
    shadows: list[str] = field(default_factory=list)  # sources of the bots it hides
    shadowed_by: str | None = None  # the source of the bot used instead of this one
    bundled: bool = False
    manifest: bool = True  # False: a folder among the bots that has no bot.toml
    notes: list[str] = field(default_factory=list)  # said beside "ready" (no problem)

    @property
    def ready(self) -> bool:
        return self.spec is not None and not self.problems and self.shadowed_by is None

    @property
    def status(self) -> str:
        if self.shadowed_by is not None:
            return f"not used: {self.shadowed_by} has its name"
        if not self.ready:
            return "; ".join(self.problems)
        return "; ".join(["ready", *(["used instead of " + ", ".join(self.shadows)]
                                     if self.shadows else []), *self.notes])


@dataclass
class Registry:
    games: dict[str, Game] = field(default_factory=dict)
    game_sources: dict[str, str] = field(default_factory=dict)
    # game name -> why it cannot be used (its name was registered twice)
    unusable_games: dict[str, str] = field(default_factory=dict)
    # plugins that failed to load or to register their games: an unknown game may be theirs
    game_problems: list[Problem] = field(default_factory=list)
    entries: list[BotEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # league formats by name (arena.league.formats objects: the layer above, so not typed
    # here) and who registered each
    formats: dict[str, Any] = field(default_factory=dict)
    format_sources: dict[str, str] = field(default_factory=dict)

    @property
    def bots(self) -> dict[str, BotSpec]:
        """The bots ready to play, by name."""
        return {e.name: e.spec for e in self.entries if e.ready and e.spec is not None}

    def bot(self, name: str) -> BotSpec:
        """The ready bot called ``name``; an ArenaError saying why not otherwise."""
        matches = [entry for entry in self.entries if entry.name == name]
        for entry in matches:
            if entry.ready and entry.spec is not None:
                return entry.spec
        if matches:
            reasons = "; ".join(f"{entry.source}: {entry.status}" for entry in matches)
            raise ArenaError(f"bot {name!r} cannot be used: {reasons}")
        known = ", ".join(sorted(self.bots)) or "none (put bot folders with a bot.toml in bots/)"
        hint = did_you_mean(name, self.bots)
        for entry in self.entries:  # a bot whose manifest gives it another name
            if entry.folder is not None and entry.folder.name == name and entry.manifest:
                hint = (f" (the folder {entry.folder} holds the bot {entry.name!r}: the "
                        "name in its bot.toml is the one leagues use)")
        raise ArenaError(f"unknown bot {name!r}{hint}; known bots: {known}")

    def game(self, name: str) -> Game:
        try:
            return self.games[name]
        except KeyError:
            if name in self.unusable_games:
                reason = self.unusable_games[name]
                raise ArenaError(f"game {name!r} cannot be used: {reason}") from None
            known = ", ".join(sorted(self.games)) or "none"
            hint = did_you_mean(name, self.games)
            failed = "; ".join(str(problem) for problem in self.game_problems)
            failed = f" (plugins that failed to load: {failed})" if failed else ""
            raise ArenaError(f"unknown game {name!r}{hint}; known games: {known}{failed}"
                             ) from None

    def format(self, name: str) -> Any:
        """The league format called ``name``; an ArenaError naming the known ones."""
        try:
            return self.formats[name]
        except KeyError:
            known = ", ".join(self.formats) or "none"
            hint = did_you_mean(name, self.formats)
            failed = "; ".join(str(problem) for problem in self.problems)
            failed = f" (plugins that failed to load: {failed})" if failed else ""
            raise ArenaError(f"unknown format {name!r}{hint}; known formats: {known}{failed}"
                             ) from None

