"""``arena bench formats``: how well Swiss, knockout and round robin find the truth, per
number of games.

Synthetic bots of known strength (true Elo drawn from a normal of ``SPREAD`` Elo around
1500, the same for every format in a repetition) play the leagues the real formats make:
the Swiss and knockout tournaments of :mod:`arena.league.swiss` and
:mod:`arena.league.knockout`, stage by stage, and the round robin of
:func:`arena.league.schedule.build_schedule` at the same number of games (its balanced
sample, ``max_games``: the baseline, measured in the same run on the same truths).  Every
game is a Plackett–Luce draw: each seat's true strength (natural log-odds) plus Gumbel
noise, so a pairwise result is exactly logistic in the Elo gap; the draws of a repetition
come from one generator seeded by (seed, repetition, format), the same for every row.

For each field size (``--bots``, default 16 32 64) and table size (``--players``, default
2 3), rows at about equal games:

* Swiss with ``k j`` rounds (j = 1, 2, 4) and round robin with ``j`` orbits of its sample
  (each bot in k² j games: as many as those rounds give it);
* knockout with matches of ``k``, ``2k`` and ``4k`` games (tie-break sets when needed).

Measured: how often the true best finishes first (the format's own ranking: Swiss
standings, the knockout's winner, the round robin's Elo leaderboard) with its 95% Wilson
interval, and the Spearman rank correlation between the ranking and the truth.  Goal
(issue 44): at equal games, Swiss finds the true best more often than round robin at 32
and 64 bots.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from arena.league.formats import Entrants, FeedFormat, Tournament, find_format
from arena.league.schedule import ScheduledGame, build_schedule, stable_int
from arena.rating import ELO_PER_NATURAL, build_pairs, fit_bradley_terry, wilson_interval
from arena.records import GameResult

BOTS = (16, 32, 64)
PLAYERS = (2, 3)
REPETITIONS = 200  # +-7 points on a share near one half
SPREAD = 150.0  # Elo: the standard deviation of the true ratings
ORBITS = (1, 2, 4)  # budgets: Swiss rounds k j, round robin j orbits
MATCH_DEALS = (1, 2, 4)  # knockout: games per match = k x this


class Games:
    """Plays scheduled games of bots of known strength (a repetition's truth)."""

    def __init__(self, truth: dict[str, float], rng: np.random.Generator) -> None:
        self.truth = truth
        self.rng = rng
        self.played = 0

    def play(self, games: Sequence[ScheduledGame]) -> list[GameResult]:
        results: list[GameResult] = []
        if not games:
            return results
        k = len(games[0].seats)
        noise = self.rng.gumbel(size=(len(games), k))
        for game, luck in zip(games, noise, strict=True):
            strength = np.array([self.truth[bot] for bot in game.seats]) / ELO_PER_NATURAL
            order = np.argsort(-(strength + luck), kind="stable")
            places = np.empty(k, dtype=int)
            places[order] = np.arange(1, k + 1)
            results.append(GameResult(game.game_id, "synthetic", game.seats,
                                      tuple(float(v) for v in strength + luck),
                                      tuple(int(p) for p in places)))
        self.played += len(results)
        return results


def run_tournament(tournament: Tournament, games: Games) -> list[str]:
    """Every stage to the end; the format's ranking, best first."""
    while (stage := tournament.next_stage()) is not None:
        tournament.record(games.play(stage.games))
    standings = tournament.standings()
    assert standings is not None
    return [row.bot for row in standings.rows]


def round_robin(bots: Sequence[str], k: int, orbits: int, seed: int, games: Games
                ) -> list[str]:
    """The round robin's balanced sample at ``orbits`` orbits, ranked by the leaderboard's
    Bradley–Terry fit."""
    schedule, _ = build_schedule("synthetic", bots, [k], seed=seed,
                                 max_games=orbits * len(bots) * k)
    results = games.play(schedule)
    pairs = build_pairs(results, bots)
    natural = fit_bradley_terry(pairs.matrix(), 1.0)
    return [pairs.bots[i] for i in np.argsort(-natural, kind="stable")]


def spearman(ranking: Sequence[str], truth: dict[str, float]) -> float:
    """Spearman's rank correlation of a ranking (best first) with the true strengths."""
    n = len(ranking)
    true_rank = {bot: i for i, bot in enumerate(sorted(truth, key=lambda b: -truth[b]))}
    d = np.array([i - true_rank[bot] for i, bot in enumerate(ranking)], dtype=float)
    return float(1 - 6 * (d ** 2).sum() / (n * (n * n - 1)))


Start = Callable[[Entrants], Tournament]


def formats_of(k: int) -> list[tuple[str, str, Start | int]]:
    """(format, setting, how it starts, or the round robin's orbits) for tables of k."""
    rows: list[tuple[str, str, Start | int]] = []
    for orbits in ORBITS:
        rows.append(("swiss", f"{k * orbits} rounds", _starts("swiss", rounds=k * orbits,
                                                              rounds_given=True)))
        rows.append(("round robin", f"{orbits} orbit{'s' if orbits > 1 else ''}", orbits))
    for deals in MATCH_DEALS:
        rows.append(("knockout", f"matches of {k * deals}", _starts(
            "knockout", options={"games": k * deals, "tie_breaks": 3, "advance": 1})))
    return rows


def _starts(name: str, **changes: Any) -> Start:
    """The bundled format ``name`` started on the entrants with ``changes``."""
    league_format = find_format(name)
    assert isinstance(league_format, FeedFormat)

    def start(entrants: Entrants) -> Tournament:
        return league_format.start(replace(entrants, **changes))

    return start


def measure(n: int, k: int, repetitions: int, seed: int) -> list[dict[str, Any]]:
    bots = tuple(f"bot{i:02d}" for i in range(n))
    plan = formats_of(k)
    found: dict[str, list[bool]] = {setting: [] for _, setting, _ in plan}
    rho: dict[str, list[float]] = {setting: [] for _, setting, _ in plan}
    played: dict[str, list[int]] = {setting: [] for _, setting, _ in plan}
    for repetition in range(repetitions):
        truth_rng = np.random.default_rng(stable_int("truth", seed, n, k, repetition))
        truth = dict(zip(bots, 1500 + SPREAD * truth_rng.standard_normal(n), strict=True))
        best = max(truth, key=truth.__getitem__)
        league_seed = stable_int("league", seed, n, k, repetition)
        entrants = Entrants("synthetic", bots, (k,), league_seed, 1, False, None, None,
                            {"games": k, "seeding": "order", "ratings": None})
        for name, setting, how in plan:
            games = Games(truth, np.random.default_rng(
                stable_int("games", seed, n, k, repetition, name, setting)))
            if isinstance(how, int):
                ranking = round_robin(bots, k, how, league_seed, games)
            else:
                ranking = run_tournament(how(entrants), games)
            found[setting].append(ranking[0] == best)
            rho[setting].append(spearman(ranking, truth))
            played[setting].append(games.played)
    rows = []
    for name, setting, _ in plan:
        hits = sum(found[setting])
        low, high = wilson_interval(hits, repetitions)
        rows.append({
            "bots": n, "players": k, "format": name, "setting": setting,
            "games": round(float(np.mean(played[setting]))),
            "best first": f"{100 * hits / repetitions:.0f}% ({100 * low:.0f}-{100 * high:.0f})",
            "best first (share)": hits / repetitions,
            "found": found[setting],  # per repetition, for the paired comparison
            "Spearman": float(np.mean(rho[setting])),
        })
    return rows


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    seed = int(getattr(args, "seed", 1))
    repetitions = getattr(args, "repetitions", None) or REPETITIONS
    sizes = getattr(args, "bots", None) or BOTS
    counts = getattr(args, "players", None) or PLAYERS
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for n in sizes:
        for k in counts:
            rows.extend(measure(int(n), int(k), repetitions, seed))
    shown = [{key: value for key, value in row.items()
              if key not in ("best first (share)", "found")} for row in rows]
    return {
        "title": f"Formats: how often the true best finishes first, and the rank correlation "
                 f"with the truth, per number of games; {repetitions} repetitions of bots of "
                 f"known strength (normal, sd {SPREAD:g} Elo), the same truths and seeds for "
                 "every format; baseline: the round robin at the same games, same run",
        "benchmark": "formats",
        "floatfmt": ".3f",
        "repetitions": repetitions,
        "rows": shown,
        "figures": rows,
        "notes": [*goal_lines(rows),
                  "best first: the share of repetitions whose ranking (Swiss standings, the "
                  "knockout's places, the round robin's Elo) puts the truly best bot first, "
                  "with its 95% interval; Spearman: rank correlation with the truth, mean.",
                  f"{time.perf_counter() - start:.0f} s"],
    }


def goal_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The goal (issue 44): Swiss above round robin at equal games at 32 and 64 bots."""
    lines = []
    for row in rows:
        if row["format"] != "swiss" or row["bots"] < 32:
            continue
        rounds = int(row["setting"].split()[0])
        orbits = rounds // row["players"]
        baseline = next(r for r in rows if r["format"] == "round robin"
                        and r["bots"] == row["bots"] and r["players"] == row["players"]
                        and r["setting"].startswith(f"{orbits} orbit"))
        verdict = "met" if row["best first (share)"] > baseline["best first (share)"] \
            else "NOT met"
        # paired: the same truths, so count the repetitions where only one found the best
        only_swiss = sum(a and not b for a, b in zip(row["found"], baseline["found"],
                                                      strict=True))
        only_round_robin = sum(b and not a for a, b in zip(row["found"], baseline["found"],
                                                           strict=True))
        lines.append(f"goal {verdict} at {row['bots']} bots, {row['players']} players, "
                     f"{row['games']:.0f} games: Swiss {row['best first']} against round "
                     f"robin {baseline['best first']} ({baseline['games']:.0f} games); "
                     f"only Swiss found it {only_swiss} times, only round robin "
                     f"{only_round_robin}")
    return lines
