"""``arena bench tune`` and ``arena bench tune-greedy``: how well ``arena tune`` tunes.

``tune``: a synthetic bot whose strength is a known function of its parameters (Elo
falling with the square of the distance to an optimum), playing simulated games against a
field at that optimum's strength.  SPSA runs through the real tuner (the league engine,
the store, the feed; only the games are simulated), and its end point's distance to the
optimum is set against **random search** given the same games on the same seeds and
seats: ``sqrt(games / 2)`` candidates drawn uniformly in the bounds, each playing an equal
share of the games, the best scoring one kept.  Distances are in units of each
parameter's range (0: the optimum, 1: a whole range away).

``tune-greedy``: the bundled greedy bot started from deliberately bad weights
(:data:`BAD_GREEDY`), tuned at 3 players against two copies of itself at its defaults,
in-process (sandbox trusted), dealt from a key made of ``--seed`` (the same command,
the same figures); the verification match then rates the tuned weights, the bad ones and
the defaults in the same games: how much of the Elo between the bad weights and the
defaults the tune recovered, with 95% intervals.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import trio

from arena.league.backends import FunctionBackend
from arena.league.schedule import ScheduledGame, stable_int
from arena.rating import ELO_PER_NATURAL
from arena.records import GameRecord, PlayerEntry
from arena.runner.botspec import BotSpec, Parameter
from arena.settings import Limits
from arena.tune.spsa import share_ahead
from arena.tune.tuner import TunePlan, TuneSetup, tune

# the synthetic bot: four parameters on different ranges, an optimum off the defaults
SYNTHETIC = (
    Parameter("alpha", default=5.0, minimum=0.0, maximum=10.0, c_end=0.5, r_end=0.1),
    Parameter("beta", default=2.0, minimum=-4.0, maximum=4.0, c_end=0.4, r_end=0.1),
    Parameter("gamma", default=50.0, minimum=0.0, maximum=100.0, c_end=5.0, r_end=0.1),
    Parameter("delta", default=0.5, minimum=0.0, maximum=1.0, c_end=0.05, r_end=0.1),
)
OPTIMUM = (7.0, -1.0, 35.0, 0.8)
CURVATURE = (1.0, 0.5, 2.0, 1.0)  # how fast each parameter costs Elo away from the optimum
ELO_SCALE = 1000.0  # Elo lost a whole range away along a parameter of curvature 1
DEAL_SHARE = 0.5  # of a game's luck, the share its deal brings (a pair shares its deal)
SYNTHETIC_BUDGETS = (400, 1600, 6400)
SYNTHETIC_PLAYERS = 3

# greedy's deliberately bad start (docs/tuning.md): its margins and valuation weights
# pushed the wrong way, each within its bounds
BAD_GREEDY = {"denial": 1.8, "bid_margin": 3.0, "pharaohs": 2.5, "civilizations": 0.3,
              "monuments": 0.2, "sun_tempo": 2.5}
GREEDY_GAMES = 20_000
GREEDY_PLAYERS = 3
GREEDY_VERIFY_GAMES = 6000


def strength(values: Sequence[float]) -> float:
    """The synthetic bot's Elo with ``values`` (0 at the optimum, the field's)."""
    return -ELO_SCALE * sum(
        weight * ((value - best) / (p.maximum - p.minimum)) ** 2
        for p, value, best, weight in zip(SYNTHETIC, values, OPTIMUM, CURVATURE, strict=True))


def distance(values: Sequence[float]) -> float:
    """Euclidean distance to the optimum in units of each parameter's range."""
    return math.sqrt(sum(((value - best) / (p.maximum - p.minimum)) ** 2
                         for p, value, best in zip(SYNTHETIC, values, OPTIMUM, strict=True)))


def _gumbel(*key: object) -> float:
    u = (stable_int("bench tune", *key) + 0.5) / float(1 << 63)
    return -math.log(-math.log(u))


def simulated_placements(elos: Sequence[float], seed: int, own: object) -> tuple[int, ...]:
    """Places (1 = first) from each seat's Elo plus Gumbel luck on the Elo scale: the
    deal's (from ``seed`` and the seat: the same for both games of a pair) and the game's
    own (from ``own``)."""
    performance = [
        elo + ELO_PER_NATURAL * (DEAL_SHARE * _gumbel("deal", seed, seat)
                                 + (1 - DEAL_SHARE) * _gumbel("own", own, seat))
        for seat, elo in enumerate(elos)]
    order = sorted(range(len(elos)), key=lambda seat: -performance[seat])
    places = [0] * len(elos)
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return tuple(places)


def synthetic_bot() -> BotSpec:
    return BotSpec(name="synthetic", version="1", command=("synthetic",), folder=None,
                   games={"synthetic": (2, 3, 4)}, source="arena bench tune",
                   parameters=SYNTHETIC)


def synthetic_field(players: int) -> tuple[BotSpec, ...]:
    return tuple(BotSpec(name=f"field-{i}", version="1", command=("field",), folder=None,
                         games={"synthetic": (2, 3, 4)}, source="arena bench tune")
                 for i in range(players - 1))


async def _simulate(game: ScheduledGame) -> GameRecord:
    """A scheduled game of the synthetic bot against the field (at Elo 0)."""
    chosen = dict(game.parameters)
    elos = [strength([v for _, v in chosen[name]]) if name in chosen else 0.0
            for name in game.seats]
    places = simulated_placements(elos, game.seed, game.game_id)
    players = tuple(PlayerEntry(seat=seat, name=name, version="1", kind="synthetic")
                    for seat, name in enumerate(game.seats))
    return GameRecord(game="synthetic", options={}, seed=game.seed, players=players,
                      scores=tuple(float(len(places) - p) for p in places),
                      engine_placements=places, placements=places
                      ).in_league(game.game_id, game.table, game.round)


def spsa_end(games: int, players: int, seed: int, folder: Path) -> tuple[float, ...]:
    """Where SPSA ends after ``games`` simulated games (the real tuner, a fresh store)."""
    setup = TuneSetup(bot=synthetic_bot(), opponents=synthetic_field(players),
                      game="synthetic", players=players, games=games,
                      start=tuple(p.default for p in SYNTHETIC), results_dir=folder,
                      verify_games=0, seed=seed, in_flight=1, limits=Limits(),
                      concurrency=2)
    outcome = trio.run(lambda: tune(setup, backend=FunctionBackend(_simulate)))
    return outcome.final


def random_search_end(games: int, players: int, seed: int) -> tuple[float, ...]:
    """Random search with the same budget on the same seeds and seats as SPSA's games:
    ``round(sqrt(games / 2))`` candidates, each its share of the games in order."""
    plan = TunePlan(TuneSetup(
        bot=synthetic_bot(), opponents=synthetic_field(players), game="synthetic",
        players=players, games=games, start=tuple(p.default for p in SYNTHETIC),
        results_dir=Path("."), verify_games=0, seed=seed).design)
    rng = random.Random(stable_int("random search", seed))
    count = max(1, round(math.sqrt(games / 2)))
    candidates = [tuple(rng.uniform(p.minimum, p.maximum) for p in SYNTHETIC)
                  for _ in range(count)]
    scores = [0.0] * count
    played = [0] * count
    for j in range(games):
        c = j * count // games  # candidate c plays games c*games/count ... in order
        k, side = j // 2 + 1, ("plus", "minus")[j % 2]
        seats = plan.pair_seats(k, side)
        seat = next(i for i, name in enumerate(seats) if name.endswith(":" + side))
        elos = [strength(candidates[c]) if i == seat else 0.0 for i in range(players)]
        places = simulated_placements(elos, plan.pair_seed(k), ("random", j))
        scores[c] += share_ahead(places, seat)
        played[c] += 1
    best = max(range(count), key=lambda c: (scores[c] / max(1, played[c]), -c))
    return candidates[best]


@dataclass(frozen=True)
class _Summary:
    mean: float
    sd: float
    worst: float


def _summary(values: Sequence[float]) -> _Summary:
    array = np.array(values)
    return _Summary(float(array.mean()), float(array.std(ddof=1)) if len(array) > 1 else 0.0,
                    float(array.max()))


def run_synthetic(budgets: Sequence[int], repetitions: int, players: int, seed: int
                  ) -> dict[str, Any]:
    rows = []
    start = tuple(p.default for p in SYNTHETIC)
    with tempfile.TemporaryDirectory(prefix="arena-bench-tune-") as folder:
        for games in budgets:
            ends: dict[str, list[tuple[float, ...]]] = {"SPSA": [], "random search": []}
            seconds = {"SPSA": 0.0, "random search": 0.0}
            for r in range(repetitions):
                run_seed = seed * 1000 + r
                began = time.perf_counter()
                ends["SPSA"].append(spsa_end(games, players, run_seed,
                                             Path(folder) / f"{games}-{r}"))
                seconds["SPSA"] += time.perf_counter() - began
                began = time.perf_counter()
                ends["random search"].append(random_search_end(games, players, run_seed))
                seconds["random search"] += time.perf_counter() - began
            for method, points in ends.items():
                far = _summary([distance(p) for p in points])
                loss = _summary([-strength(p) for p in points])
                rows.append({
                    "games": games, "method": method, "runs": repetitions,
                    "distance": f"{far.mean:.3f} ± {far.sd:.3f}",
                    "worst": f"{far.worst:.3f}",
                    "Elo short of the optimum": f"{loss.mean:.1f} ± {loss.sd:.1f}",
                    "seconds per run": seconds[method] / repetitions,
                })
    return {
        "title": f"arena bench tune: the synthetic bot at {players} players, from "
                 f"distance {distance(start):.3f} ({-strength(start):.0f} Elo short of the "
                 "optimum), SPSA against random search on the same games (mean ± sd over "
                 "runs)",
        "rows": rows,
        "notes": [f"load average at the end: {_load()}",
                  "distance: to the optimum, in units of each parameter's range; a run's "
                  "seed changes SPSA's signs and the games' luck (docs/tuning.md)"],
    }


def run_greedy(games: int, verify_games: int, seed: int, results: Path | None
               ) -> dict[str, Any]:
    """The greedy measurement (docs/tuning.md): tune from BAD_GREEDY, then the
    verification match's Elo of the tuned weights and of the defaults over the bad ones."""
    from arena.plugins import discover

    registry = discover()
    greedy = registry.bot("greedy")
    start = tuple(BAD_GREEDY.get(p.name, p.default) for p in greedy.parameters)
    folder = results or Path("results") / f"bench-tune-greedy-{games}-seed{seed}"
    setup = TuneSetup(bot=greedy, opponents=(greedy, _copy(greedy, 2)), game="ra",
                      players=GREEDY_PLAYERS, games=games, start=start, results_dir=folder,
                      verify_games=verify_games, seed=seed,
                      in_flight=max(1, (os.cpu_count() or 2) // 2),
                      limits=Limits(sandbox="trusted"), name=folder.name)
    # dealt from a key made of the seed: the same command gives the same games (greedy
    # plays the same given a deal), so the same figures; a research run, not a contest
    deal_key = hashlib.sha256(f"arena bench tune-greedy {seed}".encode()).hexdigest()
    began = time.perf_counter()
    outcome = trio.run(lambda: tune(setup, deal_key=deal_key))
    elapsed = time.perf_counter() - began
    verification = outcome.verification
    tuned = verification.elo(setup.role("tuned"))
    default = verification.elo("greedy")
    rows = []
    for label, elo in (("tuned over bad", tuned), ("defaults over bad", default)):
        if elo is not None:
            rows.append({"measure": label, "Elo": elo[0], "95% low": elo[1],
                         "95% high": elo[2]})
    notes = [f"{games} tuning games and {verification.games} verification games at "
             f"{GREEDY_PLAYERS} players in {elapsed / 60:.1f} min on {os.cpu_count()} "
             f"CPUs, load average at the end {_load()}; store: {folder}",
             "bad start: " + ", ".join(f"{k} {v:g}" for k, v in BAD_GREEDY.items()),
             "tuned: " + ", ".join(f"{p.name} {value:.3g}" for p, value
                                   in zip(greedy.parameters, outcome.final, strict=True)),
             "defaults: " + ", ".join(f"{p.name} {p.default:g}" for p in greedy.parameters)]
    if tuned is not None and default is not None and default[0] > 0:
        notes.append(f"recovered {100 * tuned[0] / default[0]:.0f}% of the Elo between the "
                     f"bad weights and the defaults (the issue asks 80%, with the tuned "
                     f"interval above 0: {'yes' if tuned[1] > 0 else 'no'})")
    return {"title": "arena bench tune-greedy: greedy tuned from bad weights against its "
                     "defaults (verification match)", "rows": rows, "notes": notes}


def _copy(spec: BotSpec, number: int) -> BotSpec:
    from dataclasses import replace

    return replace(spec, name=f"{spec.name}#{number}")


def _load() -> str:
    try:
        return " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "?"


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    seed = int(getattr(args, "seed", 1))
    if args.target == "tune-greedy":
        games = args.games or GREEDY_GAMES
        return run_greedy(games, GREEDY_VERIFY_GAMES, seed, None)
    budgets = (args.games,) if args.games else SYNTHETIC_BUDGETS
    players = (args.players or [SYNTHETIC_PLAYERS])[0]
    return run_synthetic(budgets, args.repetitions or 5, players, seed)
