"""The result of one finished game, as ratings and leaderboards consume it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class GameResult:
    game_id: str
    game: str  # engine name, e.g. "ra"
    bots: tuple[str, ...]  # bot name per seat
    scores: tuple[float, ...]  # final score per seat
    # place per seat, 1 = winner; a seat that forfeited is already placed last
    placements: tuple[int, ...]
    # seat -> failure reason ("crash", "timeout", "stall", "malformed", "illegal",
    # "oversize", "protocol") for seats whose bot failed during the game
    failures: Mapping[int, str] = field(default_factory=dict)
    # order in which games finished (0, 1, 2, ...), for "rating over games" plots
    sequence: int = 0

    @property
    def num_players(self) -> int:
        return len(self.bots)
