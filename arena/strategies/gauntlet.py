"""Is a new version of a bundled strategy stronger?  A duplicate-seed gauntlet in-process.

    python -m arena.strategies.gauntlet mcts@1.1 mcts@1.0 --players 3 4 --deals 20 \\
        --move-seconds 0.5 --out results/gauntlets/mcts-1.1.jsonl

Every *deal* (one game seed) is played in every distinct seating of one table: the
challenger, the baseline and the field (``greedy`` by default) filling the other seats.
All seatings of a deal draw the same tiles or dice, so luck cancels and only the bots'
decisions differ.  The strategies run in this process through the referee with the given
time per decision (each reads it from ``new_game``, exactly as the bot processes do), one
game at a time, so challenger and baseline always share the machine's load equally.

The result is the Bradley–Terry Elo of every bot *anchored at the baseline*: the
challenger's rating and its 95% interval are its difference to the baseline (the
leaderboard's fit, :func:`arena.rating.rate`).  Each finished game is appended to
``--out`` at once, so an interrupted gauntlet resumes where it stopped (run the same
command again) and nothing already played is lost.  ``--pool FILE ...`` plays nothing: it
rates the games of several such files together (the same challenger and baseline, other
master seeds or player counts; a game in two files counts once).

Bot names: ``greedy``, ``mcts`` (the bundled settings), ``mcts@STEP`` (an earlier version
from :data:`arena.strategies.mcts.STEPS`), ``dice-greedy``, ``dice-mcts`` and
``dice-mcts@STEP``; ``random`` and ``first`` as well.  A search bot takes options after
slashes: ``/iterations=N`` searches a fixed number of iterations per decision instead of
by time (deterministic, and independent of the machine's load), and ``/KEY=VALUE``
changes one of its settings (e.g. ``mcts/exploration=0.5``) to try an idea before it
becomes a step.  ``greedy`` and ``mcts`` take ``/engine=python`` (or ``compiled``): the
Ra engine they play on, the compiled core where it is built by default.  Plain ``mcts``
is the bundled bot, whose search depends on the engine (1.5 on the core, 1.3 on the pure
engine: :func:`arena.strategies.mcts.bundled_settings`), so ``mcts mcts/engine=python
--move-seconds 0.5`` measures what the compiled core is worth at a time control; a step
(``mcts@1.3/engine=python``) plays the same decisions on either engine, at another speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import trio

from arena.errors import ArenaError
from arena.plugins import load_game
from arena.rating import rate
from arena.records import GameResult
from arena.runner.players import PythonPlayer, first_player, random_player
from arena.runner.referee import play_game
from arena.settings import Limits, seed_option

JSON = Any


# the game each game-specific bot plays (random and first play both)
GAME_OF = {"greedy": "ra", "mcts": "ra", "dice-greedy": "ra_dice", "dice-mcts": "ra_dice"}


def make_player(spec: str) -> PythonPlayer:
    """An in-process player for a bot name as described in the module docstring."""
    name, *options = spec.split("/")
    base, _, step = name.partition("@")
    searching = base in ("mcts", "dice-mcts")
    engine, options = _engine_option(spec, base, options)
    if (step or options) and not searching:
        raise ArenaError(f"bot {spec!r}: only mcts and dice-mcts take @STEP or /KEY=VALUE")
    simple: dict[str, Callable[[], PythonPlayer]] = {
        "random": random_player, "first": first_player,
    }
    if base in simple:
        player = simple[base]()
    elif base == "greedy":
        from arena.strategies.players import greedy_player

        player = greedy_player(engine=engine)
    elif base == "dice-greedy":
        from arena.strategies.dice_greedy import dice_greedy_player

        player = dice_greedy_player()
    elif base == "mcts":
        from arena.strategies.mcts import STEPS
        from arena.strategies.players import mcts_player

        settings, iterations = _settings(STEPS, step, options, spec)
        if not step and all(option.startswith("iterations=") for option in options):
            settings = None  # the bundled bot: its settings for the engine it plays on
        player = mcts_player(iterations=iterations, settings=settings, engine=engine)
    elif base == "dice-mcts":
        from arena.strategies.dice_mcts import STEPS as DICE_STEPS
        from arena.strategies.dice_mcts import dice_mcts_player

        settings, iterations = _settings(DICE_STEPS, step, options, spec)
        player = dice_mcts_player(iterations=iterations, settings=settings)
    else:
        raise ArenaError(f"unknown bot {spec!r}; known: random, first, greedy, mcts[@STEP], "
                         "dice-greedy, dice-mcts[@STEP]")
    player.name = spec
    return player


def _engine_option(spec: str, base: str, options: Sequence[str]
                   ) -> tuple[str | None, list[str]]:
    """``/engine=compiled|python|auto`` (greedy and mcts: the Ra engine they play on), and
    the other options."""
    engine = None
    rest = []
    for option in options:
        key, _, value = option.partition("=")
        if key != "engine":
            rest.append(option)
            continue
        if base not in ("greedy", "mcts"):
            raise ArenaError(f"bot {spec!r}: only greedy and mcts take /engine=")
        from arena.games.base import GameOptionError
        from arena.games.ra import engines

        try:
            engines.resolve(value)
        except GameOptionError as error:
            raise ArenaError(f"bot {spec!r}: {error}") from None
        engine = value
    return engine, rest


def _settings(steps: dict[str, Any], step: str, options: Sequence[str],
              spec: str) -> tuple[Any, int | None]:
    """The settings of ``step`` (the newest when empty) with ``KEY=VALUE`` overrides,
    and the iteration count if one is given."""
    if step and step not in steps:
        raise ArenaError(f"bot {spec!r}: no version {step!r}; known: {', '.join(steps)}")
    settings = steps[step] if step else list(steps.values())[-1]
    iterations = None
    changes: dict[str, Any] = {}
    fields = {f.name: f.type for f in dataclasses.fields(settings)}
    for option in options:
        key, _, text = option.partition("=")
        if key == "iterations":
            if not text.isdigit() or int(text) < 1:
                raise ArenaError(f"bot {spec!r}: iterations must be a whole number >= 1")
            iterations = int(text)
            continue
        if key not in fields:
            raise ArenaError(f"bot {spec!r}: unknown option {key!r}; known: iterations, "
                             + ", ".join(fields))
        current = getattr(settings, key)
        try:
            if isinstance(current, bool):
                if text not in ("true", "false"):
                    raise ValueError(text)
                changes[key] = text == "true"
            else:
                changes[key] = text if isinstance(current, str) else type(current)(text)
        except ValueError:
            raise ArenaError(f"bot {spec!r}: {key} must be a {type(current).__name__}, "
                             f"not {text!r}") from None
    try:
        return dataclasses.replace(settings, **changes), iterations
    except ValueError as error:
        raise ArenaError(f"bot {spec!r}: {error}") from None


def deal_seed(master: int, game: str, players: int, deal: int) -> int:
    digest = hashlib.sha256(f"gauntlet:{master}:{game}:{players}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seatings(table: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct order of ``table`` (a bot named twice counts once per order)."""
    return sorted(set(itertools.permutations(table)))


def table_for(challenger: str, baseline: str, field: Sequence[str], players: int) -> list[str]:
    if players < 2:
        raise ArenaError("a table needs at least 2 players")
    rest = players - 2
    if not field and rest:
        raise ArenaError("the field is empty: name at least one --field bot")
    return [challenger, baseline, *(field[i % len(field)] for i in range(rest))]


def load_done(path: Path) -> list[dict[str, JSON]]:
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            # only a crash in the middle of writing the last line can leave this
            raise ArenaError(f"{path}:{number}: not a JSON line; remove it to resume") from None
    return rows


def play(args: argparse.Namespace) -> list[dict[str, JSON]]:
    game = load_game(args.game)
    limits = Limits(move_seconds=args.move_seconds, bank_seconds=args.overage)
    out = Path(args.out) if args.out else None
    handle = _locked(out) if out else None
    try:
        rows = load_done(out) if out else []
        return _play(args, game, limits, out, handle, rows)
    finally:
        if handle:
            handle.close()


def _locked(out: Path) -> IO[str]:
    """``out`` open for appending, locked: two gauntlets writing one file would play
    the same games twice."""
    try:
        handle = out.open("a")
    except OSError as error:
        raise ArenaError(f"cannot write {out}: {error.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ArenaError(f"another gauntlet is writing {out}; wait for it or use another "
                         "--out file") from None
    return handle


def _play(args: argparse.Namespace, game: Any, limits: Limits, out: Path | None,
          handle: IO[str] | None, rows: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    done = {(row["players"], row["deal"], tuple(row["bots"])) for row in rows}
    settings_key = {"challenger": args.challenger, "baseline": args.baseline,
                    "field": args.field, "game": args.game, "seed": args.seed,
                    "move_seconds": args.move_seconds, "overage": args.overage}
    for row in rows:
        if row.get("settings") != settings_key:
            raise ArenaError(f"{out} holds games played with other settings "
                             f"({row.get('settings')}); use another --out file")
    todo = []
    for players in args.players:
        table = table_for(args.challenger, args.baseline, args.field, players)
        for deal in range(args.deals):
            for seating in seatings(table):
                if (players, deal, seating) not in done:
                    todo.append((players, deal, seating))
    total = len(todo) + len(rows)
    started = time.perf_counter()
    try:
        for players, deal, seating in todo:
            seed = deal_seed(args.seed, args.game, players, deal)
            seats = [make_player(name) for name in seating]
            record = trio.run(play_game, game, seats, seed, None, limits)
            timings = record.timings["seats"]
            row = {
                "settings": settings_key, "players": players, "deal": deal, "seed": seed,
                "bots": list(seating), "scores": list(record.scores),
                "placements": list(record.placements),
                "failures": {str(seat): reason for seat, reason in record.forfeits.items()},
                "max_seconds": [t["max_seconds"] for t in timings],
                "decisions": [t["decisions"] for t in timings],
                "seconds": [t["seconds"] for t in timings],
                "load": round(os.getloadavg()[0], 2),
            }
            rows.append(row)
            if handle:
                handle.write(json.dumps(row) + "\n")
                handle.flush()
            if not args.quiet:
                elapsed = time.perf_counter() - started
                print(f"\r{len(rows)}/{total} games, {elapsed:.0f} s, load "
                      f"{row['load']:.1f}", end="", file=sys.stderr, flush=True)
    finally:
        if not args.quiet and todo:
            print(file=sys.stderr)
    return rows


def summary(rows: Sequence[dict[str, JSON]], baseline: str, challenger: str,
            bootstrap: int = 400) -> dict[str, JSON]:
    """Elo anchored at the baseline (overall and per player count), head-to-head record,
    failures and the slowest decision per bot."""
    def results(chosen: Sequence[dict[str, JSON]]) -> list[GameResult]:
        # the game's own seed tells deals of different master seeds apart (pooled files)
        return [GameResult(game_id=f"{r['players']}:{r.get('seed', r['deal'])}:"
                                   f"{','.join(r['bots'])}",
                           game="g", bots=tuple(r["bots"]), scores=tuple(r["scores"]),
                           placements=tuple(r["placements"])) for r in chosen]

    def elo(chosen: Sequence[dict[str, JSON]]) -> dict[str, JSON]:
        ratings = rate(results(chosen), anchor=baseline, anchor_elo=0.0, bootstrap=bootstrap)
        return {bot: [round(float(ratings.elo[i])), round(float(ratings.low[i])),
                      round(float(ratings.high[i]))] for i, bot in enumerate(ratings.bots)}

    ahead = behind = 0
    for r in rows:
        seats = r["bots"]
        c, b = seats.index(challenger), seats.index(baseline)
        ahead += r["placements"][c] < r["placements"][b]
        behind += r["placements"][c] > r["placements"][b]
    slowest: dict[str, float] = {}
    failures: dict[str, int] = {}
    for r in rows:
        for seat, bot in enumerate(r["bots"]):
            slowest[bot] = max(slowest.get(bot, 0.0), r["max_seconds"][seat])
            failures[bot] = failures.get(bot, 0) + (str(seat) in r["failures"])
    counts = sorted({r["players"] for r in rows})
    loads = [r["load"] for r in rows]
    return {
        "games": len(rows),
        "elo": elo(rows),
        "by_players": {n: {"games": sum(r["players"] == n for r in rows),
                           "elo": elo([r for r in rows if r["players"] == n])}
                       for n in counts} if len(counts) > 1 else {},
        "head_to_head": {"ahead": ahead, "behind": behind},
        "failures": failures,
        "slowest_decision": {bot: round(s, 3) for bot, s in slowest.items()},
        "load": [min(loads), round(sum(loads) / len(loads), 2), max(loads)] if loads else [],
    }


def print_summary(info: dict[str, JSON], baseline: str, challenger: str) -> None:
    def line(label: str, table: dict[str, JSON]) -> None:
        parts = [f"{bot} {e:+d} [{lo:+d}, {hi:+d}]" for bot, (e, lo, hi) in
                 sorted(table.items(), key=lambda kv: -kv[1][0]) if bot != baseline]
        print(f"{label}: " + "; ".join(parts))

    print(f"{info['games']} games; Elo relative to {baseline} (95% intervals)")
    line("all", info["elo"])
    for players, part in info["by_players"].items():
        line(f"{players} players ({part['games']} games)", part["elo"])
    h2h = info["head_to_head"]
    print(f"{challenger} finished ahead of {baseline} in {h2h['ahead']} games, behind in "
          f"{h2h['behind']}")
    print("failures: " + ", ".join(f"{b} {n}" for b, n in info["failures"].items()))
    print("slowest decision (s): " + ", ".join(
        f"{b} {s}" for b, s in info["slowest_decision"].items()))
    if info["load"]:
        low, mean, high = info["load"]
        print(f"load average (1 min) while playing: {low}-{high}, mean {mean}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m arena.strategies.gauntlet",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m arena.strategies.gauntlet mcts mcts@1.0 --players 3 "
               "--deals 10 --move-seconds 0.5 --out /tmp/g.jsonl")
    parser.add_argument("challenger", help="the new version, e.g. mcts")
    parser.add_argument("baseline", help="the version it must beat, e.g. mcts@1.0")
    parser.add_argument("--game", default="ra", choices=["ra", "ra_dice"])
    parser.add_argument("--field", nargs="*", default=None,
                        help="bots filling the other seats (default: greedy, or dice-greedy)")
    parser.add_argument("--players", type=int, nargs="+", default=[3])
    parser.add_argument("--deals", type=int, default=10,
                        help="game seeds per player count, each played in every seating")
    parser.add_argument("--move-seconds", type=float, default=0.5,
                        help="the arena's time per decision")
    parser.add_argument("--overage", type=float, default=None,
                        help="a per-game overage bank in seconds (default none)")
    parser.add_argument("--seed", type=seed_option, default=1, help="master seed of the deals")
    parser.add_argument("--out", help="JSON lines file: resume from it, append to it")
    parser.add_argument("--pool", nargs="+", metavar="FILE",
                        help="play nothing: the summary over the games of these --out files "
                             "(the same challenger and baseline; any seeds, player counts)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if args.field is None:
        args.field = ["dice-greedy" if args.game == "ra_dice" else "greedy"]
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if not args.move_seconds > 0:
        parser.error("--move-seconds must be more than 0")
    if args.challenger == args.baseline:
        parser.error("the challenger and the baseline must differ")
    if args.challenger in args.field:
        parser.error("the field may not contain the challenger")
    game = load_game(args.game)
    for players in args.players:
        if not game.min_players <= players <= game.max_players:
            parser.error(f"{game.title} is for {game.min_players}-{game.max_players} "
                         f"players, not {players}")
    if args.overage is not None and args.overage < 0:
        parser.error("--overage must be 0 or more")
    for spec in sorted({args.challenger, args.baseline, *args.field}):
        make_player(spec)  # a misspelt bot stops here, before any game
        base = spec.split("/")[0].partition("@")[0]
        plays = GAME_OF.get(base)
        if plays is not None and plays != args.game:
            parser.error(f"{spec} plays {plays}, not {args.game}")
    return args


def pooled(paths: Sequence[str], challenger: str, baseline: str, game: str
           ) -> list[dict[str, JSON]]:
    """The finished games of several gauntlets of ``challenger`` against ``baseline`` at
    ``game`` (e.g. other master seeds), each game once."""
    rows: dict[tuple[JSON, ...], dict[str, JSON]] = {}
    for name in paths:
        path = Path(name)
        if not path.exists():
            raise ArenaError(f"{path}: no such file")
        for row in load_done(path):
            settings = row.get("settings", {})
            if (settings.get("challenger"), settings.get("baseline")) != (challenger, baseline):
                raise ArenaError(f"{path}: a gauntlet of {settings.get('challenger')} against "
                                 f"{settings.get('baseline')}, not {challenger} against "
                                 f"{baseline}")
            if settings.get("game") != game:
                raise ArenaError(f"{path}: games of {settings.get('game')}, not {game}")
            rows[(row["players"], row.get("seed", row["deal"]), tuple(row["bots"]))] = row
    if not rows:
        raise ArenaError("no finished games in " + ", ".join(paths))
    return list(rows.values())


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(argv)
        rows = pooled(args.pool, args.challenger, args.baseline, args.game) if args.pool \
            else play(args)
    except ArenaError as error:
        print(f"gauntlet: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ngauntlet: interrupted; run the same command to resume", file=sys.stderr)
        return 130
    info = summary(rows, args.baseline, args.challenger)
    if args.json:
        print(json.dumps(info, indent=1))
    else:
        print_summary(info, args.baseline, args.challenger)
    return 0


if __name__ == "__main__":
    sys.exit(main())
