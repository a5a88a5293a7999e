"""``arena merge STORE... -o STORE``: join the stores of one league's shards (``arena run
--shard I/N`` on machines that cannot reach each other) into one.

Only stores of the same league are joined: the same game settings (game, options, seed,
time control, limits), the same deal key (``--deal-key``) and, for every bot they share,
the same version and files.  A game
is keyed by its id, so merging twice, or merging overlapping stores, stores nothing twice;
a game stored in two shards with different results (a nondeterministic bot) keeps the
first and is counted.  The output is written as a league run writes it: one transaction
per game, under the store's lock, so an interrupted merge is resumed by running it again.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.league.store import Store, StoredBot, create_store
from arena.records import GameRecord


@dataclass(frozen=True)
class MergeSummary:
    sources: int
    added: int
    already_there: int
    conflicting: list[str]  # ids of games whose results differ between stores
    total: int


def merge_stores(sources: Sequence[Store], output: Path) -> MergeSummary:
    """Copy every game of ``sources`` into the store in ``output`` (created if needed)."""
    if not sources:
        raise ArenaError("nothing to merge: name at least one store")
    reference = _settings(sources[0])
    for store in sources[1:]:
        _check_same_league(sources[0], store, reference)
    bots = _joined_bots(sources)
    key = _joined_deal_key(sources)
    target = create_store(output)
    try:
        if target.count():
            _check_same_league(sources[0], target, reference)
            _joined_bots([*sources, target])
        if key is not None:  # the merged league resumes dealing from its shards' key
            target.deal_key(key)
        first = sources[0]
        target.save_setup(first.league_name, first.config_snapshot or {}, reference,
                          list(bots.values()))
        added = already = 0
        conflicting: list[str] = []
        for record in _by_finishing_time(sources):
            if target.add_game(record):
                added += 1
                continue
            already += 1
            kept = target.find_game(record.game_id)
            if (kept.scores, kept.placements, kept.forfeits) != (
                record.scores, record.placements, record.forfeits
            ):
                conflicting.append(record.game_id)
        return MergeSummary(len(sources), added, already, conflicting, target.count())
    finally:
        target.close()


def _settings(store: Store) -> dict[str, Any]:
    settings = store.game_settings
    if settings is None:
        raise ArenaError(f"{store.path}: not a league's store (no settings recorded)")
    return settings


def _check_same_league(first: Store, other: Store, reference: dict[str, Any]) -> None:
    settings = _settings(other)
    changed = sorted(key for key in set(reference) | set(settings)
                     if reference.get(key) != settings.get(key))
    if changed:
        what = "; ".join(
            f"{key}: {_short(reference.get(key))} in {first.path.parent}, "
            f"{_short(settings.get(key))} in {other.path.parent}"
            for key in changed
        )
        raise ArenaError(f"{other.path.parent} is not the same league as "
                         f"{first.path.parent} ({what}); only shards of one league merge")


def _joined_bots(stores: Sequence[Store]) -> dict[str, StoredBot]:
    joined: dict[str, tuple[StoredBot, Path]] = {}
    for store in stores:
        for name, bot in store.bots().items():
            seen = joined.get(name)
            if seen is None:
                joined[name] = (bot, store.path.parent)
            elif (seen[0].version, seen[0].content_hash) != (bot.version, bot.content_hash):
                raise ArenaError(
                    f"bot {name!r} differs between {seen[1]} (version {seen[0].version}) and "
                    f"{store.path.parent} (version {bot.version}"
                    f"{', other files' if seen[0].version == bot.version else ''}); "
                    "its games cannot share one rating"
                )
    return {name: bot for name, (bot, _) in joined.items()}


def _joined_deal_key(stores: Sequence[Store]) -> str | None:
    """The one deal key of the shards (None: their deals were public); shards dealt from
    different keys are not one league's (``arena run --shard I/N --deal-key FILE``)."""
    keys = {store.path.parent: key for store in stores
            if (key := store.stored_deal_key()) is not None}
    if len(set(keys.values())) > 1:
        folders = " and ".join(str(folder) for folder in keys)
        raise ArenaError(f"{folders} dealt their games from different deal keys: the shards "
                         "of one league share one (arena run --shard I/N --deal-key FILE)")
    return next(iter(keys.values()), None)


def _by_finishing_time(stores: Sequence[Store]) -> Iterator[GameRecord]:
    """Every game of every store, interleaved by when it finished (each store's own order
    is its finishing order), one record in memory per store."""
    return heapq.merge(*(store.games() for store in stores),
                       key=lambda record: record.finished_at or 0.0)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
