"""Check the state rebuild of ra_adapter.py against our engine, and time the outside AIs.

    python check_mapping.py --outside PATH [--games 20] [--players 3 4] [--time-ai oracle]

Plays games of our Ra engine (seats chosen at random among the legal actions, seeded) and at
every decision rebuilds albertszeng/ra's ``GameState`` from the observation of the seat to
move, then compares the legal actions there (mapped to our JSON) with ours.  Differences
are listed by kind: those are the positions where the two rule sets disagree or the rebuild
is wrong.  ``--time-ai`` also runs that AI (without a time limit) on every ``--every``-th
position and prints the distribution of its thinking time.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from arena.games.ra import GAME

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ra_adapter as ad  # noqa: E402


def _key(action: dict[str, Any]) -> tuple[Any, ...]:
    kind = action["type"]
    if kind == "god":
        return (kind, action["tile"])
    if kind == "bid":
        return (kind, action["sun"])
    if kind == "discard":
        return (kind, action["tile"])
    return (kind,)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--outside", required=True)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-ai", choices=["oracle", "oracle-shallow", "search"])
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()
    outside, oracle, search = ad.load(Path(args.outside).resolve())

    rng = random.Random(args.seed)
    positions, problems = Counter[str](), Counter[str]()
    examples: dict[str, str] = {}
    times: dict[str, list[float]] = {}
    for g in range(args.games):
        n = args.players[g % len(args.players)]
        state = GAME.new_game(n, rng.randrange(2**31))
        decision = 0
        while not state.is_terminal():
            decision += 1
            seat = state.current_player()
            obs = state.observation(seat)
            legal = [state.action_to_json(a) for a in state.legal_actions()]
            positions[obs["phase"]] += 1
            try:
                theirs = ad.build_state(outside, obs, random.Random(decision))
                their_legal = ad.their_legal_as_ours(outside, theirs)
            except ad.Unmappable as exc:
                problems[f"unmappable {obs['phase']}"] += 1
                examples.setdefault(f"unmappable {obs['phase']}", str(exc))
                their_legal = None
            if their_legal is not None:
                ours_k = {_key(a) for a in legal}
                theirs_k = {_key(a) for a in their_legal}
                if ours_k != theirs_k:
                    only_ours = sorted(ours_k - theirs_k, key=str)
                    only_theirs = sorted(theirs_k - ours_k, key=str)
                    kind = (f"{obs['phase']}: only ours {[k[0] for k in only_ours]},"
                            f" only theirs {[k[0] for k in only_theirs]}")
                    problems[kind] += 1
                    examples.setdefault(kind, f"ours {only_ours} theirs {only_theirs}")
                if args.time_ai and decision % args.every == 0:
                    t0 = time.perf_counter()
                    with contextlib.redirect_stdout(io.StringIO()):
                        if args.time_ai == "search":
                            search.search(copy.deepcopy(theirs))
                        else:
                            oracle.oracle_search(
                                copy.deepcopy(theirs),
                                num_auctions_allowed=(
                                    1 if args.time_ai == "oracle-shallow" else None),
                            )
                    times.setdefault(f"{n}p {obs['phase']}", []).append(time.perf_counter() - t0)
            state.apply_action(rng.choice(state.legal_actions()))
    print(f"positions by phase: {dict(positions)} (total {sum(positions.values())})")
    print(f"mismatches: {sum(problems.values())}")
    for kind, count in problems.most_common():
        print(f"  {count:5d}  {kind}   e.g. {examples[kind]}")
    for kind, values in sorted(times.items()):
        values.sort()
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"{args.time_ai} {kind}: {len(values)} positions,"
              f" median {statistics.median(values):.3f} s, p90 {p90:.3f} s,"
              f" max {values[-1]:.3f} s")


if __name__ == "__main__":
    main()
