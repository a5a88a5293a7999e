"""What the games of an outside-AI league say beyond the Elo table.

    arena export WORKSPACE/outside-ra.toml -o games.jsonl
    python tools/outside_ais/analyze.py games.jsonl [--bot albertszeng-oracle] [--vs mcts]

For every wrapped bot: how its decisions went (``ai``, ``ai-shallow: cut``, ``fallback:...``:
the comments bot.py writes with each reply), by phase.  Then, per player count, ``--vs``
against ``--bot`` in the games where both sat: finishing order, mean score, mean points by
scoring category per epoch end, auctions won, suns paid, the lots' sizes and disasters
taken, Ra invoked voluntarily, and failures or timeouts.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from typing import Any

CATEGORIES = ("gods", "pharaohs", "nile", "gold", "civilizations", "monuments", "suns")
DISASTERS = {"funeral", "drought", "unrest", "earthquake"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("export", help="JSON Lines written by `arena export`")
    parser.add_argument("--bot", default="albertszeng-oracle")
    parser.add_argument("--vs", default="mcts")
    args = parser.parse_args()
    with open(args.export, encoding="utf-8") as lines:
        games = [json.loads(line) for line in lines if line.strip()]

    verdicts: dict[str, Counter[str]] = defaultdict(Counter)
    by_phase: dict[str, Counter[str]] = defaultdict(Counter)
    per_count: dict[int, dict[str, Any]] = {}
    failures: Counter[str] = Counter()
    slowest: dict[str, float] = defaultdict(float)
    for game in games:
        record = game["record"]
        seats = game["seats"]
        n = len(seats)
        engine = record["engine"]
        actions = engine["actions"]
        for failure in record.get("failures") or []:
            failures[f"{failure['bot']}: {failure['reason']}"] += 1
        for seat, timing in enumerate(record["timings"]["seats"]):
            slowest[seats[seat]] = max(slowest[seats[seat]], timing["max_seconds"] or 0.0)
        phases = _phases(actions)
        for comment in record.get("comments") or []:
            name = seats[comment["seat"]]
            kind = comment["comment"].split(" (")[0]
            verdicts[name][kind] += 1
            phase = phases.get(comment["decision"], "?")
            by_phase[f"{name} {phase}"][kind] += 1
        if args.bot not in seats or args.vs not in seats:
            continue
        stats = per_count.setdefault(n, {
            "games": 0, "ahead": 0, "behind": 0, "score": Counter(), "points": defaultdict(Counter),
            "won": Counter(), "paid": Counter(), "lot_tiles": Counter(), "disasters": Counter(),
            "invoked": Counter(), "bids": Counter(), "passes": Counter()})
        a, b = seats.index(args.vs), seats.index(args.bot)
        stats["games"] += 1
        place = game["placements"]
        stats["ahead"] += place[a] < place[b]
        stats["behind"] += place[a] > place[b]
        for name, seat in ((args.vs, a), (args.bot, b)):
            stats["score"][name] += game["scores"][seat]
        for event in engine["events"]:
            if event["type"] == "epoch_end":
                for name, seat in ((args.vs, a), (args.bot, b)):
                    for category in CATEGORIES:
                        stats["points"][name][category] += event["points"][seat][category]
            elif event["type"] == "auction":
                for bid in event["bids"]:
                    for name, seat in ((args.vs, a), (args.bot, b)):
                        if bid["seat"] == seat:
                            if bid["sun"] is None:
                                stats["passes"][name] += bid.get("could_bid", True)
                            else:
                                stats["bids"][name] += 1
                for name, seat in ((args.vs, a), (args.bot, b)):
                    if event["kind"] != "ra_drawn" and event["ra_player"] == seat:
                        stats["invoked"][name] += 1
                    if event["winner"] == seat:
                        stats["won"][name] += 1
                        stats["paid"][name] += event["sun_paid"]
                        stats["lot_tiles"][name] += len(event["lot"])
                        stats["disasters"][name] += sum(t in DISASTERS for t in event["lot"])

    print(f"{len(games)} games")
    for name, counter in sorted(verdicts.items()):
        total = sum(counter.values())
        parts = ", ".join(f"{k} {v} ({100 * v / total:.1f}%)" for k, v in counter.most_common())
        print(f"{name}: {total} commented decisions: {parts}")
    for key, counter in sorted(by_phase.items()):
        if key.split(" ")[0] in verdicts and any(k != "ai" for k in counter):
            print(f"  {key}: {dict(counter)}")
    print(f"failures (forfeits): {dict(failures) or 'none'}")
    print("slowest decision: " + ", ".join(f"{k} {v:.3f} s" for k, v in sorted(slowest.items())))
    for n, stats in sorted(per_count.items()):
        g = stats["games"]
        print(f"\n{n} players, {g} games with both {args.vs} and {args.bot}: {args.vs} ahead in"
              f" {stats['ahead']}, behind in {stats['behind']}")
        for name in (args.vs, args.bot):
            won = stats["won"][name]
            points = stats["points"][name]
            print(f"  {name}: mean score {stats['score'][name] / g:.1f}; per game: auctions won"
                  f" {won / g:.2f}, mean sun paid {stats['paid'][name] / max(won, 1):.1f},"
                  f" tiles per lot {stats['lot_tiles'][name] / max(won, 1):.2f}, disaster tiles"
                  f" taken {stats['disasters'][name] / g:.2f},"
                  f" Ra invoked {stats['invoked'][name] / g:.2f},"
                  f" bids {stats['bids'][name] / g:.1f}, passes {stats['passes'][name] / g:.1f}")
            print("    points per game by category: " + ", ".join(
                f"{c} {points[c] / g:+.1f}" for c in CATEGORIES))


def _phases(actions: list[dict[str, Any]]) -> dict[int, str]:
    """Decision number -> what kind of decision it was (from the chosen action's type)."""
    kinds = {"draw": "turn", "invoke_ra": "turn", "god": "turn", "bid": "auction",
             "pass": "auction", "end_turn": "god", "discard": "disaster"}
    return {i + 1: kinds.get(action["json"]["type"], "?") for i, action in enumerate(actions)}


if __name__ == "__main__":
    main()
