"""``arena bench sprt``: how many games the head-to-head SPRT needs, against the
fixed-length test of the same error rates (the baseline, computed in the same run).

Synthetic pairs (:class:`arena.bench.synthetic.PairModel`) at several true Elo
differences; for each, many SPRT(elo0 = 0, elo1 = 10, α = β = 0.05) run in lock step until
all have decided.  The baseline is the number of pairs a one-off z-test needs for the
same α and β at the same hypotheses, from the pair scores' variance measured on the same
model: ``((z(1-α) + z(1-β)) σ / (s1 - s0))²``.
"""

from __future__ import annotations

import argparse
import math
import time
from statistics import NormalDist
from typing import Any

import numpy as np

from arena.bench.synthetic import PairModel
from arena.stats.sprt import ACCEPT_H1, RUNNING, SequentialTests, head_to_head

TRUE_ELO = (-10.0, 0.0, 5.0, 10.0, 20.0, 50.0, 100.0)
TESTS = 400  # simulated SPRTs per row
ELO0, ELO1, ALPHA, BETA = 0.0, 10.0, 0.05, 0.05


def fixed_length_pairs(model: PairModel, rng: np.random.Generator) -> float:
    design = head_to_head(ELO0, ELO1, ALPHA, BETA)
    sd = float(np.std(model.draw_units(rng, 200_000) / 4))
    z = NormalDist().inv_cdf
    spread = z(1 - ALPHA) + z(1 - BETA)
    return (spread * sd / (design.score1 - design.score0)) ** 2


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    seed = int(getattr(args, "seed", 1))
    design = head_to_head(ELO0, ELO1, ALPHA, BETA)
    rows = []
    for k, elo in enumerate(TRUE_ELO):
        model = PairModel(elo)
        rng = np.random.default_rng(seed * 1000 + k)
        start = time.perf_counter()
        tests = SequentialTests(design, TESTS)
        while (tests.outcome == RUNNING).any():
            tests.add(model.draw_units(rng, TESTS))
        elapsed = time.perf_counter() - start
        fixed = fixed_length_pairs(model, rng)
        rows.append(
            {
                "true Elo": elo,
                "P(accept H1)": f"{100 * float(np.mean(tests.outcome == ACCEPT_H1)):.1f}%",
                "mean games": 2 * float(tests.units.mean()),
                "median games": 2 * float(np.median(tests.units)),
                "95th pct games": 2 * float(np.percentile(tests.units, 95)),
                "fixed-length games": 2 * math.ceil(fixed),
                "SPRT / fixed": f"{float(tests.units.mean()) / math.ceil(fixed):.2f}",
                "seconds": elapsed,
            }
        )
    return {
        "title": f"SPRT(elo0={ELO0:g}, elo1={ELO1:g}, alpha={ALPHA}, beta={BETA}) on "
        f"synthetic game pairs, {TESTS} tests per row; baseline: the fixed-length test of "
        "the same error rates, same run",
        "rows": rows,
        "notes": [
            "P(accept H1) should be at most alpha at 0 Elo and at least 1 - beta at 10 Elo.",
            "games = 2 x pairs; the SPRT's mean is far below the fixed test's away from "
            "the hypotheses and near it between them.",
        ],
    }
