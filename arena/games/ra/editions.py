"""Ra's editions: the rules on which the rulebooks disagree, as a game option.

``{"edition": "classic"}`` (the default) follows the classic books (1999 alea and Rio
Grande, 2008 Rio Grande); ``{"edition": "2023"}`` the 2023 edition.  Every difference and
the line of each book that states it is in docs/rules-ra.md.

A record whose ``options`` hold no edition was played before editions existed; it is
replayed under the rules the engine had then (:data:`BEFORE_EDITIONS`), so every stored
game still replays exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.games.base import GameOptionError

CLASSIC, EDITION_2023 = "classic", "2023"
EDITIONS = (CLASSIC, EDITION_2023)
DEFAULT_EDITION = CLASSIC


@dataclass(frozen=True)
class Rules:
    """The rules one edition applies where the books differ."""

    edition: str | None  # None: a record from before editions
    # After an auction the Ra player takes the next turn (2023), instead of the first
    # seat to his left (classic).
    ra_player_continues: bool
    # A disaster taken with a god strikes at once, before the next god take (2023),
    # instead of after every tile taken with gods this turn is placed (classic, book 004).
    god_disasters_at_once: bool
    # The highest sun breaks only a tie for the win, as every book says; other equal
    # scores share a place.  Records from before editions broke every tie by the sun.
    only_the_win_tie_broken: bool


RULES: dict[str, Rules] = {
    CLASSIC: Rules(CLASSIC, ra_player_continues=False, god_disasters_at_once=False,
                   only_the_win_tie_broken=True),
    EDITION_2023: Rules(EDITION_2023, ra_player_continues=True,
                        god_disasters_at_once=True, only_the_win_tie_broken=True),
}
BEFORE_EDITIONS = Rules(None, ra_player_continues=False, god_disasters_at_once=True,
                        only_the_win_tie_broken=False)


def full_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Ra's options with the default filled in; ``GameOptionError`` for anything else."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise GameOptionError(f"Ra's options must be a table, not {options!r}")
    unknown = sorted(map(str, set(options) - {"edition"}))
    if unknown:
        raise GameOptionError(f"Ra has no option {', '.join(unknown)}; its only option is "
                              f"edition ({' or '.join(map(repr, EDITIONS))})")
    edition = options.get("edition", DEFAULT_EDITION)
    if edition not in EDITIONS:
        raise GameOptionError(f"Ra's edition must be {' or '.join(map(repr, EDITIONS))}, "
                              f"not {edition!r}")
    return {"edition": edition}


def rules_of(options: Mapping[str, Any]) -> Rules:
    """The rules of a state's (full) options; no edition means a record from before."""
    edition = options.get("edition")
    return BEFORE_EDITIONS if edition is None else RULES[edition]
