"""A Ra Arena protocol bot around an AI of albertszeng/ra (see ra_adapter.py and ../README.md).

    python bot.py --ai oracle|search [--outside PATH]

``--outside`` is the root of a checkout of https://github.com/albertszeng/ra (the folder
holding ``game/``); default: ``$RA_OUTSIDE_ALBERTSZENG``, else ``./outside`` beside this
file (where ``install.py`` puts a copy, since the sandbox lets a bot read only its folder).

On each request the bot rebuilds the outside program's own ``GameState`` from our
observation (the bag's hidden order drawn from the arena's seed), asks the AI for a move and
maps it back to one of our legal actions.  When that fails (the AI raises, its move has no
counterpart in our legal list, the state cannot be rebuilt, or the AI is still thinking at
its time budget) the bot falls back deterministically: pass if it may, else draw, else the
first legal action.  Every reply carries a comment saying which way it went (``ai``,
``ai-shallow``, ``fallback:REASON``), so the game records count them
(``count_fallbacks.py``); the totals also go to stderr after each game.

Time: the AIs have no time or iteration knob.  ``oracle`` is run first to the end of the
next auction, then at its own depth (two auctions at 3-4 players), the deeper answer
replacing the shallower when it finishes within the budget: ``--budget`` of the time per
decision (``move_ms``, never the overage bank) minus ``--margin`` seconds, by default 0.6 and
0.08 s, which is exactly the thinking time the bundled mcts gives itself (0.22 s of 0.5 s).
``search`` runs once under the same budget.  The budget is enforced with a SIGALRM timer.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import random
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from arena.sdk import run, seconds_for

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ra_adapter as ad  # noqa: E402  (beside this file)

VERSION = "1.0.1"


class _Cut(Exception):
    """The time budget ran out inside the outside AI."""


_ARMED = [False]  # the alarm only interrupts the outside AI, never our own code


def _on_alarm(signum: int, frame: Any) -> None:
    if _ARMED[0]:
        _ARMED[0] = False
        raise _Cut()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ai", choices=["oracle", "search"], required=True)
    parser.add_argument("--outside", default=None)
    parser.add_argument("--budget", type=float, default=0.6)
    parser.add_argument("--margin", type=float, default=0.08)
    args = parser.parse_args()
    root = Path(
        args.outside or os.environ.get("RA_OUTSIDE_ALBERTSZENG") or HERE / "outside"
    ).resolve()
    outside, oracle, search = ad.load(root)
    signal.signal(signal.SIGALRM, _on_alarm)

    rng = random.Random(0)
    limit: list[float | None] = [None]
    counts: Counter[str] = Counter()
    game_counts: Counter[str] = Counter()

    def on_new_game(message: dict[str, Any]) -> None:
        seed = int(message.get("seed") or 0)
        rng.seed(seed)
        random.seed(seed)  # their engine draws with the global random module
        game_counts.clear()

    def on_request(message: dict[str, Any]) -> None:
        # the time per decision (move_ms), not the overage bank: mcts plans on it alone
        hard = seconds_for(message)
        move_ms = (message.get("time") or {}).get("move_ms")
        per_decision = move_ms / 1000 if isinstance(move_ms, int | float) else hard
        limit[0] = per_decision if hard is None or per_decision is None else min(per_decision, hard)

    def on_game_over(message: dict[str, Any]) -> None:
        print(f"{args.ai}: this game {dict(game_counts)}; all games {dict(counts)}",
              file=sys.stderr, flush=True)

    def fallback(legal: list[dict[str, Any]]) -> int:
        for kind in ("pass", "draw", "end_turn"):
            index = ad.find(legal, {"type": kind})
            if index is not None:
                return index
        return 0

    def ask(state: Any, deep: bool) -> int:
        with contextlib.redirect_stdout(sys.stderr):  # their search prints to stdout
            if args.ai == "search":
                return int(search.search(state))
            if deep:
                return int(oracle.oracle_search(state))
            return int(oracle.oracle_search(state, num_auctions_allowed=1))

    def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> tuple[int, str]:
        start = time.monotonic()
        allowed = limit[0] if limit[0] is not None else 1.0
        budget = max(0.02, allowed * args.budget - args.margin)
        problem = ""  # why the AI's deepest answer is missing, if it is
        try:
            state = ad.build_state(outside, obs, rng)
        except (ad.Unmappable, KeyError, ValueError) as exc:
            state, problem = None, f"state ({exc})"
        answers: list[tuple[str, int]] = []
        if state is not None:
            levels = [True] if args.ai == "search" else [False, True]
            for deep in levels:
                left = budget - (time.monotonic() - start)
                if left <= 0.001:
                    problem = "cut"
                    break
                try:
                    try:
                        _ARMED[0] = True
                        signal.setitimer(signal.ITIMER_REAL, left)
                        # a fresh copy each time: their search must not see another's leftovers
                        move = ask(copy.deepcopy(state), deep)
                    finally:
                        _ARMED[0] = False
                        signal.setitimer(signal.ITIMER_REAL, 0)
                except _Cut:  # also when it fires between the answer and the disarming
                    problem = "cut"
                    break
                except Exception as exc:  # their AI failed on this position
                    problem = f"error ({type(exc).__name__}: {exc})"
                    break
                answers.append(("ai" if deep else "ai-shallow", move))
        index = None
        if answers:
            label, move = answers[-1]
            try:
                wanted = ad.to_our_json(outside, state, move)
                if obs.get("phase") == "god" and wanted["type"] != "god":
                    wanted = {"type": "end_turn"}  # their god take ends the turn
                index = ad.find(legal, wanted)
                if index is None:
                    problem = f"unmapped {wanted}"
            except ad.Unmappable as exc:
                problem = f"move ({exc})"
        if index is None:
            kind = "fallback:" + problem.split(" ")[0]
            index = fallback(legal)
            comment = f"fallback:{problem}"
        else:
            kind = label if label == "ai" else f"{label}:{problem.split(' ')[0]}"
            comment = kind if label == "ai" else f"{label} ({problem})"
        counts[kind] += 1
        game_counts[kind] += 1
        return index, comment[:200]

    run(choose, name=f"albertszeng-{args.ai}", version=VERSION, on_new_game=on_new_game,
        on_request=on_request, on_game_over=on_game_over)


if __name__ == "__main__":
    main()
