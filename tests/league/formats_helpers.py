"""Driving a feed format's tournament without a league: results made up from each game's
seed and the bots' made-up strengths, so every run of the same tournament is the same."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from arena.league.formats import Entrants, Stage, Tournament, find_format
from arena.league.schedule import ScheduledGame
from arena.records import GameResult

Outcome = Callable[[ScheduledGame], GameResult]


def names(n: int) -> tuple[str, ...]:
    return tuple(f"bot{i:02d}" for i in range(n))


def entrants(n: int, k: int, options: Mapping[str, object] | None = None, *,
             seed: int = 1, rounds: int | None = None) -> Entrants:
    return Entrants(game="ra", bots=names(n), players=(k,), seed=seed,
                    rounds=rounds or 1, rounds_given=rounds is not None, max_games=None,
                    challenger=None, options=dict(options or {}))


def start(name: str, n: int, k: int, options: Mapping[str, object] | None = None, *,
          seed: int = 1, rounds: int | None = None) -> Tournament:
    return find_format(name).start(entrants(n, k, options, seed=seed, rounds=rounds))


def by_strength(strength: Mapping[str, float], noise: float = 1.0, ties: float = 0.0
                ) -> Outcome:
    """Placements by strength plus noise drawn from the game's seed and seating (a tie
    for first with chance ``ties``)."""

    def outcome(game: ScheduledGame) -> GameResult:
        rng = random.Random(f"{game.seed}:{','.join(game.seats)}")
        value = [strength[bot] + rng.gauss(0, noise) for bot in game.seats]
        places = [1 + sum(other > mine for other in value) for mine in value]
        if rng.random() < ties:
            places = [1 if place <= 2 else place for place in places]
        return GameResult(game.game_id, "ra", game.seats,
                          tuple(float(v) for v in value), tuple(places))

    return outcome


def ranked_strength(bots: Sequence[str]) -> dict[str, float]:
    """The first bot strongest, a step of one noise's worth between neighbours."""
    return {bot: float(len(bots) - i) for i, bot in enumerate(bots)}


def play_out(tournament: Tournament, outcome: Outcome,
             before: Callable[[Stage], None] = lambda stage: None) -> list[Stage]:
    """Every stage to the end; ``before`` sees each stage before its results go in."""
    stages = []
    while (stage := tournament.next_stage()) is not None:
        before(stage)
        stages.append(stage)
        tournament.record([outcome(game) for game in stage.games])
    return stages
