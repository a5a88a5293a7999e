"""A league's ``[stop]`` rule: end the league as soon as a sequential test has its answer.

The rule turns the schedule into *units* (the games of one table in one round, played on
one seed in every seat rotation: a pair with swapped seats head to head, a duplicate set
in a gauntlet) and feeds the test of :mod:`arena.stats.sprt` one unit at a time, **in
schedule order**: a unit counts only once it and every unit before it are complete.
Games finish out of order when several run at once, and a long game may well be a lost
one; taking units as they complete would let game length bias the test.

The scheduler calls :meth:`SequentialStop.game_done` after storing each game and stops
the league when it returns True; games still in flight are abandoned (a later run
resumes from the stored games and reaches the same decision at the same unit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.league.config import LeagueConfig, StopSettings
from arena.league.schedule import ScheduledGame
from arena.records import GameResult
from arena.stats.sprt import (
    ACCEPT_H0,
    ACCEPT_H1,
    RUNNING,
    Design,
    SequentialTests,
    against_field,
    finish_ahead_share,
    head_to_head,
    place_as_share,
    summary,
)


class SequentialStop:
    def __init__(
        self,
        settings: StopSettings,
        design: Design,
        tested: str,
        opponents: Sequence[str],
        schedule: Sequence[ScheduledGame],
    ) -> None:
        self.settings = settings
        self.design = design
        self.tested = tested
        self.opponents = tuple(opponents)
        self.test = SequentialTests(design)
        # Units round by round (then as scheduled), so with several player counts every
        # round mixes them instead of exhausting one count first.
        first_seen: dict[tuple[int, str], int] = {}
        for position, game in enumerate(schedule):
            first_seen.setdefault((game.round, game.table), position)
        order = sorted(first_seen, key=lambda key: (key[0], first_seen[key]))
        unit_of = {key: u for u, key in enumerate(order)}
        self._unit_of_game = {g.game_id: unit_of[g.round, g.table] for g in schedule}
        self._position = {g.game_id: p for p, g in enumerate(schedule)}
        self._size = np.bincount(list(self._unit_of_game.values()), minlength=len(order))
        self._shares: dict[int, list[float]] = {}
        self.units_total = len(order)
        self.next_unit = 0  # units before this one have been fed to the test

    # -- feeding -----------------------------------------------------------------------
    def order(self, games: Iterable[ScheduledGame]) -> list[ScheduledGame]:
        """The games in the order the test consumes them (play them in this order)."""
        return sorted(
            games, key=lambda g: (self._unit_of_game[g.game_id], self._position[g.game_id])
        )

    def game_done(self, result: GameResult) -> bool:
        """Take one stored game; True once the test has decided (stop the league)."""
        unit = self._unit_of_game.get(result.game_id)
        if unit is None or self.decided:
            return self.decided
        seat = result.bots.index(self.tested)
        self._shares.setdefault(unit, []).append(finish_ahead_share(result.placements, seat))
        while (
            not self.decided
            and self.next_unit < self.units_total
            and len(self._shares.get(self.next_unit, ())) == self._size[self.next_unit]
        ):
            score = float(np.mean(self._shares.pop(self.next_unit)))
            self.test.add(self.design.categories([score]))
            self.next_unit += 1
        return self.decided

    def seed(self, results: Iterable[GameResult]) -> None:
        """Feed the games stored by earlier runs (any order)."""
        for result in results:
            self.game_done(result)

    # -- state ---------------------------------------------------------------------------
    @property
    def decided(self) -> bool:
        return int(self.test.outcome[0]) != RUNNING

    @property
    def exhausted(self) -> bool:
        """Every unit of the schedule is in, and no bound was crossed."""
        return not self.decided and self.next_unit >= self.units_total

    @property
    def outcome(self) -> str:
        """"H0", "H1", "inconclusive" (schedule used up) or "running"."""
        if self.exhausted:
            return "inconclusive"
        return {ACCEPT_H0: "H0", ACCEPT_H1: "H1"}.get(int(self.test.outcome[0]), "running")

    @property
    def unit_name(self) -> str:
        return "pairs" if self.settings.test == "sprt" else "duplicate sets"

    def status(self) -> str:
        """A few words for the live progress line."""
        name = "SPRT" if self.settings.test == "sprt" else "test"
        units = f"{self.next_unit} {self.unit_name}"
        llr = float(self.test.llr[0])
        if self.outcome in ("H0", "H1"):
            return f"{name}: {self.outcome} accepted (LLR {llr:.2f}, {units})"
        return f"{name} LLR {llr:.2f} [{self.design.lower:.2f}, {self.design.upper:.2f}] {units}"

    def hypotheses(self) -> tuple[str, str]:
        """H0 and H1 in the words of the league file."""
        s, against = self.settings, " / ".join(self.opponents)
        if s.measure == "elo":
            return (
                f"{self.tested} is at most {s.h0:+g} Elo against {against}",
                f"{self.tested} is at least {s.h1:+g} Elo against {against}",
            )
        if s.measure == "ahead":
            return (
                f"{self.tested} finishes ahead of at most {100 * s.h0:g}% of the field",
                f"{self.tested} finishes ahead of at least {100 * s.h1:g}% of the field",
            )
        return (
            f"{self.tested}'s expected place is {s.h0:g} or worse",
            f"{self.tested}'s expected place is {s.h1:g} or better",
        )

    def verdict(self) -> str:
        """One sentence for the end of a run."""
        h0, h1 = self.hypotheses()
        llr = float(self.test.llr[0])
        units = f"{self.next_unit} {self.unit_name} ({self.games_used} games)"
        if self.outcome == "H1":
            return f"Sequential test: H1 accepted ({h1}); LLR {llr:.2f} after {units}."
        if self.outcome == "H0":
            return f"Sequential test: H0 accepted ({h0}); LLR {llr:.2f} after {units}."
        if self.outcome == "inconclusive":
            return (
                f"Sequential test: no decision within the schedule's {units}; LLR {llr:.2f}. "
                "Raise rounds to continue."
            )
        return f"Sequential test: undecided so far; LLR {llr:.2f} after {units}."

    @property
    def games_used(self) -> int:
        return int(self._size[: self.next_unit].sum())

    def summary(self) -> dict[str, Any]:
        """What the store keeps and the report shows."""
        h0, h1 = self.hypotheses()
        return {
            **summary(self.test),
            "test": self.settings.test,
            "outcome": self.outcome,
            "tested": self.tested,
            "opponents": list(self.opponents),
            "measure": self.settings.measure,
            "h0": self.settings.h0,
            "h1": self.settings.h1,
            "h0_text": h0,
            "h1_text": h1,
            "unit": self.unit_name,
            "units_total": self.units_total,
            "games": self.games_used,
            "verdict": self.verdict(),
        }


def build_stop(
    config: LeagueConfig, bots: Sequence[str], schedule: Sequence[ScheduledGame]
) -> SequentialStop | None:
    """The league's stop rule, or None when it has no ``[stop]`` section."""
    settings = config.stop
    if settings is None:
        return None
    if settings.test == "sprt":
        names = [config.challenger] if config.challenger else []
        names += [b for b in bots if b != config.challenger]
        if len(names) != 2:
            raise ArenaError(
                f"{config.path}: the head-to-head SPRT needs exactly two bots, but this "
                f"league has {len(names)} ({', '.join(names)})"
            )
        design = head_to_head(settings.h0, settings.h1, settings.alpha, settings.beta)
        return SequentialStop(settings, design, names[0], names[1:], schedule)
    assert config.challenger is not None  # the file's check: gauntlet tests need one
    if settings.measure == "place":
        players = config.players[0]
        shares = place_as_share(settings.h0, players), place_as_share(settings.h1, players)
    else:
        shares = settings.h0, settings.h1
    design = against_field(config.players, *shares, settings.alpha, settings.beta)
    field = sorted(b for b in bots if b != config.challenger)
    return SequentialStop(settings, design, config.challenger, field, schedule)
