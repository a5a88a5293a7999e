"""What is left to play: the schedule minus what the store already holds.

This is where a changed league file is checked against the games already played.  What
may change freely: concurrency, the rating settings, the league's name, the sandbox level
(it contains bots; it changes no rule or limit), and anything that only *adds* games (a
new bot, more rounds, another player count).  What is refused, with a message saying what
changed: the game, its options, the seed, the time control, the
limits, a bot whose version or content changed, and anything that would drop games
already played from the schedule (removing a bot, fewer rounds, a different cap).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.league import formats
from arena.league.config import LeagueConfig, toml_value
from arena.league.schedule import Balance, ScheduledGame, stable_int
from arena.league.store import LeagueStore, StoredBot
from arena.runner.botspec import BotSpec


@dataclass(frozen=True)
class Plan:
    schedule: list[ScheduledGame]
    to_play: list[ScheduledGame]
    balances: dict[int, Balance]

    @property
    def done(self) -> int:
        return len(self.schedule) - len(self.to_play)


@dataclass(frozen=True)
class Shard:
    """Slice ``index`` (1-based) of ``count`` of a league (``arena run --shard I/N``), for
    machines that cannot reach each other; ``arena merge`` joins the slices' stores.

    A table (all its seat rotations) belongs to one shard, chosen from a hash of the table
    and its round: the same on every machine, and unchanged when the league grows."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, slash, count = text.partition("/")
        if not (slash and index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(
            count
        ):
            raise ArenaError(
                f"--shard wants I/N with 1 <= I <= N, e.g. 2/4 for the second of four, "
                f"not {text[:40]!r}"
            )
        return cls(int(index), int(count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, game: ScheduledGame) -> bool:
        return stable_int("shard", game.table, game.round) % self.count == self.index - 1

    def folder(self, results_dir: Path) -> Path:
        """Where a shard's store goes unless told: beside the league's own."""
        return results_dir.with_name(f"{results_dir.name}.shard-{self.index}-of-{self.count}")


def league_schedule(
    config: LeagueConfig, bots: Sequence[BotSpec]
) -> tuple[list[ScheduledGame], dict[int, Balance]]:
    """Every game of a league whose format makes its schedule in advance."""
    league_format = formats.league_format(config)
    if not isinstance(league_format, formats.ScheduleFormat):
        raise ArenaError(f"{config.path}: format {config.format!r} chooses its games as "
                         "the league goes; it has no schedule made in advance")
    entrants = formats.entrants_of(config, [bot.name for bot in bots])
    try:
        return league_format.schedule(entrants)
    except ArenaError as problem:  # too few bots, a cap too small: name the file
        raise ArenaError(f"{config.path}: {problem}") from None


def prepare(
    config: LeagueConfig,
    bots: Sequence[BotSpec],
    store: LeagueStore | None,
    *,
    save: bool = True,
    shard: Shard | None = None,
    rules: Mapping[str, Any] | None = None,
) -> Plan:
    """Check the file against the store (None: no games yet), record the setup (unless
    ``save`` is false: a dry run), and list the missing games (of ``shard`` only, if
    given)."""
    schedule, balances = league_schedule(config, bots)
    if shard is not None:
        schedule = [game for game in schedule if shard.holds(game)]
    played = store.played_ids() if store is not None else set()
    check_setup(config, bots, store, save=False, rules=rules)
    if store is not None and played:
        _check_schedule(config, schedule, played, store)
    if store is not None and save:
        record_setup(config, bots, store)
    to_play = [game for game in schedule if game.game_id not in played]
    return Plan(schedule, to_play, balances)


def check_setup(
    config: LeagueConfig, bots: Sequence[BotSpec], store: LeagueStore | None, *,
    save: bool = True, rules: Mapping[str, Any] | None = None,
) -> None:
    """Check the file's settings and the bots against the games ``store`` holds, and
    record the setup (unless ``save`` is false): for a fixed schedule
    (:func:`prepare`) and for open-ended play alike.  ``rules``: the game's full options
    this file plays under (its engine's defaults filled in), when the engine is known."""
    if store is not None and store.count():
        _check_settings(config, store.game_settings or {})
        if rules is not None:
            _check_rules(config, store, rules)
        _check_bots(config, bots, store.bots(), store.bots_with_games())
    if store is not None and save:
        record_setup(config, bots, store)


def record_setup(config: LeagueConfig, bots: Sequence[BotSpec], store: LeagueStore, *,
                 field: Sequence[str] | None = None) -> None:
    """Keep the league's configuration and bots in ``store``, once checked; with
    ``field``, the bots in the order its format seeded them (a feed format's standings
    are rebuilt from it: arena.league.formats.rebuild)."""
    snapshot = config.snapshot()
    snapshot["field"] = list(field) if field is not None else [b.name for b in bots]
    store.save_setup(
        config.name,
        snapshot,
        config.game_settings(),
        [StoredBot(b.name, b.version, b.content_hash, b.source) for b in bots],
    )


def _remedy(config: LeagueConfig) -> str:
    return (
        f"put it back, or start a new league with another results_dir "
        f"(now {config.results_dir})"
    )


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and key != "options":
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


# Settings a league may change between runs although they sit beside those that may not:
# the sandbox level contains the bots, it does not change the rules, the time control or
# the limits a game is played under (and its default changed from "none" to "auto", which
# must not strand every league stored before).
FREE_SETTINGS = frozenset({"limits.sandbox"})


def _check_settings(config: LeagueConfig, stored: Mapping[str, Any]) -> None:
    old, new = _flatten(stored), _flatten(config.game_settings())
    changed = [
        f"{key} was {old.get(key)!r}, now {new.get(key)!r}"
        for key in sorted((set(old) | set(new)) - FREE_SETTINGS)
        if old.get(key) != new.get(key)
    ]
    if changed:
        raise ArenaError(
            f"{config.path}: this change would alter the games already played in "
            f"{config.results_dir}: " + "; ".join(changed) + f". {_remedy(config).capitalize()}."
        )


def _check_rules(config: LeagueConfig, store: LeagueStore, rules: Mapping[str, Any]) -> None:
    """The rules the stored games were played under (a record keeps its game's full
    options, defaults filled in) must be the rules new games would get: a league stored
    before an option existed (Ra's editions) would otherwise mix two rule sets in one
    table, although its file did not change."""
    first = next(iter(store.games()), None)
    if first is None or dict(first.options) == dict(rules):
        return
    raise ArenaError(
        f"{config.path}: the {store.count()} games in {config.results_dir} were played "
        f"under other rules (options {toml_value(dict(first.options))}) than new games "
        f"would be ({toml_value(dict(rules))}), e.g. before the game had this option; "
        f"mixing both in one rating would be wrong: start a new league with another "
        f"results_dir (now {config.results_dir})"
    )


def _check_bots(
    config: LeagueConfig,
    bots: Sequence[BotSpec],
    stored: Mapping[str, StoredBot],
    with_games: set[str],
) -> None:
    for bot in bots:
        before = stored.get(bot.name)
        if before is None or bot.name not in with_games:
            continue
        if before.version != bot.version or (
            before.content_hash and bot.content_hash and before.content_hash != bot.content_hash
        ):
            what = (
                f"version {before.version} -> {bot.version}"
                if before.version != bot.version
                else "its files changed (same version)"
            )
            raise ArenaError(
                f"bot {bot.name!r} changed since its games in {config.results_dir} were "
                f"played ({what}); mixing both in one rating would be wrong. Restore it, or "
                f"start a new league with another results_dir"
            )


def _check_schedule(
    config: LeagueConfig, schedule: Sequence[ScheduledGame], played: set[str], store: LeagueStore
) -> None:
    scheduled = {game.game_id for game in schedule}
    dropped = sorted(played - scheduled)
    if not dropped:
        return
    example = store.find_game(dropped[0])
    raise ArenaError(
        f"{config.path}: {len(dropped)} game(s) already played in {config.results_dir} are "
        f"not in this file's schedule any more (for example game {dropped[0]}: "
        f"{' vs '.join(example.seats)}, round {example.round + 1}). Removing a bot, "
        f"lowering rounds, dropping a player count or changing max_games/format/challenger "
        f"changes the league; {_remedy(config)}"
    )
