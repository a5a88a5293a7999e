"""Finding the league's bots: the one place that asks plugin discovery for them.

``find_bots(config)`` returns the roster as :class:`BotSpec` objects, checked against the
league's game and player counts.  It uses ``arena.plugins.discover`` when that is
available, and otherwise a minimal reader of ``bot.toml`` folders (kept only so leagues
work while discovery is being built; it reads the same manifest format).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

from arena.errors import ArenaError
from arena.league.config import LeagueConfig
from arena.runner.botspec import BotSpec

BUNDLED_BOTS = Path(__file__).resolve().parents[2] / "bots"


def default_bot_paths(config: LeagueConfig) -> list[Path]:
    if config.bot_paths:
        return list(config.bot_paths)
    paths = [Path.cwd() / "bots", BUNDLED_BOTS]
    unique: list[Path] = []
    for path in paths:
        if path.resolve() not in [p.resolve() for p in unique]:
            unique.append(path)
    return unique


def discover_bots(paths: Sequence[Path]) -> dict[str, BotSpec]:
    """Every ready bot, by name."""
    try:
        from arena.plugins import discover  # type: ignore[attr-defined]
    except ImportError:
        return _read_folders(paths)
    registry = discover(list(paths))
    return dict(registry.bots)


def find_bots(config: LeagueConfig, available: dict[str, BotSpec] | None = None) -> list[BotSpec]:
    """The bots of the league (the gauntlet's challenger first), checked to play its game
    at every player count of the league."""
    bots = available if available is not None else discover_bots(default_bot_paths(config))
    if config.roster is None:
        chosen = [
            spec
            for name, spec in sorted(bots.items())
            if name != config.challenger
            and all(spec.plays(config.game, k) for k in config.players)
        ]
        if not chosen:
            raise ArenaError(
                f"{config.path}: roster = \"all\" but no bot found plays {config.game} "
                f"with {_counts(config.players)} players (looked in "
                f"{', '.join(str(p) for p in default_bot_paths(config))})"
            )
    else:
        chosen = [_lookup(bots, name, config) for name in config.roster]
    if config.challenger is not None:
        chosen.insert(0, _lookup(bots, config.challenger, config))
    return chosen


def _lookup(bots: dict[str, BotSpec], name: str, config: LeagueConfig) -> BotSpec:
    if name not in bots:
        known = ", ".join(sorted(bots)) or "none"
        raise ArenaError(f"{config.path}: unknown bot {name!r}; bots found: {known}")
    spec = bots[name]
    missing = [k for k in config.players if not spec.plays(config.game, k)]
    if missing:
        plays = spec.games.get(config.game)
        can = f"plays it with {_counts(plays)} players" if plays else "does not play it"
        raise ArenaError(
            f"{config.path}: bot {name!r} cannot play {config.game} with "
            f"{_counts(missing)} players (it {can}); remove it from the roster or "
            "change players"
        )
    return spec


def _counts(counts: Sequence[int] | None) -> str:
    return ", ".join(str(c) for c in counts or ())


def _read_folders(paths: Sequence[Path]) -> dict[str, BotSpec]:
    found: dict[str, BotSpec] = {}
    for root in paths:
        if not root.is_dir():
            continue
        for manifest in sorted(root.glob("*/bot.toml")):
            try:
                data = tomllib.loads(manifest.read_text(encoding="utf-8"))
                spec = BotSpec(
                    name=str(data["name"]),
                    version=str(data["version"]),
                    command=tuple(str(part) for part in data["command"]),
                    folder=manifest.parent,
                    games={g: tuple(c) for g, c in dict(data.get("games", {})).items()},
                    source=f"folder {manifest.parent}",
                    description=str(data.get("description", "")),
                    resources=dict(data.get("resources", {})),
                )
            except (OSError, ValueError, KeyError, TypeError) as problem:
                raise ArenaError(f"{manifest}: cannot read the bot manifest: {problem}") from None
            found.setdefault(spec.name, spec)
    return found
