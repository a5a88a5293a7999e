"""``arena run``, ``arena export`` and ``arena replay``."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.league.config import (
    DEFAULT_LEAGUE,
    bundled_leagues,
    find_league,
    load_league,
    results_of,
    with_overrides,
)
from arena.league.store import DB_NAME, Store, open_store
from arena.records import GameRecord, GameResult
from arena.settings import SANDBOX_LEVELS, seed_option

if TYPE_CHECKING:
    from arena.games.base import Game


def run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "league",
        nargs="?",
        default=None,
        metavar="LEAGUE",
        help=f"a league file, or the name of a bundled league: "
        f"{', '.join(bundled_leagues())} (default: ./league.toml if there is one, else "
        f"the bundled league {DEFAULT_LEAGUE!r})",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress (for CI)")
    parser.add_argument("--rounds", type=int, help="rounds to play (overrides the file's)")
    parser.add_argument("--seed", type=seed_option, help="master seed (overrides the file's)")
    parser.add_argument("--results-dir", metavar="DIR",
                        help="where the store goes (overrides the file's; relative to the "
                             "current folder)")
    parser.add_argument("--sandbox", choices=SANDBOX_LEVELS,
                        help="sandbox level for the bots (overrides the file's)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check the file, the bots and the stored games; say what would be played",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        help="games in flight at once (default: the file's, else the number of CPUs)",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="play only slice I of N of the league, into its own store (default: beside "
        "the league's, RESULTS.shard-I-of-N); join the slices with `arena merge`; needs "
        "--deal-key",
    )
    parser.add_argument(
        "--deal-key",
        metavar="FILE",
        help="deal the games from the secret key in FILE, made there (mode 0600) if it does "
        "not exist: one key for every shard of a league, copied to each machine (a league "
        "otherwise keeps its own random key in its store; docs/leagues.md)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on the Dask cluster whose scheduler is at ADDRESS, e.g. "
        "tcp://127.0.0.1:8786 (overrides [cluster] address; see docs/cluster.md)",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="allow a --cluster address off this machine without TLS (a Dask scheduler "
        "runs any code it is sent: only on a network you trust)",
    )
    from arena.runner.trace import add_trace_argument

    add_trace_argument(parser)  # the games are then played in this process


def run_command(args: argparse.Namespace) -> int:
    from arena.league.run import run_league

    if args.concurrency is not None and args.concurrency < 1:
        raise ArenaError("--concurrency must be at least 1")
    config = with_overrides(
        load_league(find_league(args.league)), rounds=args.rounds, seed=args.seed,
        results_dir=args.results_dir, sandbox=args.sandbox,
    )
    shard = None
    if getattr(args, "shard", None) is not None:
        from dataclasses import replace

        from arena.league.plan import Shard

        shard = Shard.parse(args.shard)
        config = replace(config, results_dir=shard.folder(config.results_dir))
    deal_key = None
    if getattr(args, "deal_key", None) is not None:
        from arena.deals import deal_key_file

        deal_key = deal_key_file(Path(args.deal_key))
    elif shard is not None and not config.public_deals:
        raise ArenaError(
            "--shard: the shards of a league deal their games from one secret key: add "
            "--deal-key FILE (made on first use; copy it to the other machines and keep it "
            "private), or set public_deals = true in the league file")
    cluster = config.cluster
    if getattr(args, "cluster", None) is not None:
        from dataclasses import replace as with_changes

        from arena.league.cluster import ClusterSettings

        cluster = (with_changes(cluster, address=args.cluster) if cluster is not None
                   else ClusterSettings(args.cluster))
    if cluster is not None and getattr(args, "insecure", False):
        from dataclasses import replace as with_changes

        cluster = with_changes(cluster, insecure=True)
    if cluster is not None:
        from arena.league.cluster import check_address

        check_address(cluster)  # before anything is opened or played
    from arena.league.run import played_here
    from arena.runner.trace import traces

    if getattr(args, "trace", None):
        config = played_here(config, cluster)
    with traces(getattr(args, "trace", None)):
        return run_league(
            config, quiet=args.quiet, concurrency=args.concurrency, dry_run=args.dry_run,
            shard=shard, cluster=cluster, deal_key=deal_key,
        )


def _results_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        nargs="?",
        default=None,
        metavar="RESULTS_DIR_OR_LEAGUE",
        help="a league's results folder, its league file or a bundled league's name "
        "(default: the league `arena run` plays)",
    )


def resolve_store(target: Path | str | None) -> Store:
    """The store of a results folder, or of the league a league file (or a bundled
    league's name, or None: the default league) describes."""
    return open_store(results_of(target)[0])


def games_arguments(parser: argparse.ArgumentParser) -> None:
    _results_argument(parser)
    parser.add_argument("--bot", action="append", metavar="NAME",
                        help="only games this bot sat in (repeat: games with all of them)")
    parser.add_argument("--game", help="only games of this game")
    parser.add_argument("--players", type=int, help="only games with this many players")
    parser.add_argument("--failed", action="store_true",
                        help="only games where a bot failed, each failure with its detail")
    parser.add_argument("--limit", type=int, default=50,
                        help="show the last N games that match (default 50; 0: all)")


def games_command(args: argparse.Namespace) -> int:
    """The stored games of a league, one line each: where to find a game id."""
    from tabulate import tabulate

    if args.limit < 0:
        raise ArenaError(f"--limit must be 0 (all) or more, not {args.limit}")
    store = resolve_store(args.results)
    try:
        results = store.results(args.game, args.players)
        where = store.path.parent
        wanted = set(args.bot or ())
        chosen = [r for r in results
                  if wanted <= set(r.bots) and (r.failures or not args.failed)]
        shown = chosen[-args.limit:] if args.limit else chosen
        # the failure list says why, too: the details are in the records
        details = {} if not args.failed else {
            record.game_id: {failure["seat"]: failure["detail"] for failure in record.failures}
            for record in store.records_of([r.game_id for r in shown])}
    finally:
        store.close()

    def failure(result: GameResult, seat: int, reason: str) -> str:
        detail = details.get(result.game_id, {}).get(seat)
        why = reason if not detail else f"{reason}: {_clipped(detail, FAILED_DETAIL_CHARS)}"
        return f"{result.bots[seat]}: {why}"

    rows = [{
        "game id": r.game_id,
        "game": r.game,
        "seats (place)": ", ".join(f"{bot} ({place})"
                                   for bot, place in zip(r.bots, r.placements, strict=True)),
        "failures": ", ".join(failure(r, seat, why) for seat, why in sorted(r.failures.items())),
    } for r in shown]
    if rows:
        print(tabulate(rows, headers="keys"))
    hidden = len(chosen) - len(shown)
    more = f" (the last {len(shown)} shown; --limit 0 shows all)" if hidden else ""
    print(f"{len(chosen)} of {len(results)} games in {where} match{more}; "
          "`arena replay GAME_ID` tells one", file=sys.stderr)
    return 0


# a failure's detail in `arena games --failed` (`arena replay GAME_ID` tells it whole)
FAILED_DETAIL_CHARS = 110


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def export_arguments(parser: argparse.ArgumentParser) -> None:
    _results_argument(parser)
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="write to this file (default, or -: standard output)")
    parser.add_argument("--game", help="only games of this game")
    parser.add_argument("--players", type=int, help="only games with this many players")


def export_command(args: argparse.Namespace) -> int:
    from arena.outputs import STDOUT, open_output, output_target

    target = output_target(STDOUT if args.output is None else args.output)  # said at once
    store = resolve_store(args.results)
    unreadable: list[str] = []  # a damaged store: every readable game still goes out
    try:
        with open_output(target) as out:  # a file: never a half-written export
            count = store.export(out, args.game, args.players, unreadable)
        print(f"exported {count} games from {store.path}", file=sys.stderr)
    finally:
        store.close()
    if unreadable:
        shown = ", ".join(unreadable[:20]) + (" ..." if len(unreadable) > 20 else "")
        print(f"{len(unreadable)} games cannot be read (damaged records): {shown}",
              file=sys.stderr)
        return 1
    return 0


def merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "stores", type=Path, nargs="+", metavar="RESULTS_DIR_OR_LEAGUE_FILE",
        help="the shards' results folders (or league files)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True,
        help="the results folder to merge into (created if needed; may hold games already)",
    )


def merge_command(args: argparse.Namespace) -> int:
    from arena.league.merge import merge_stores

    _check_merge_output(args.output)
    output = args.output.resolve()
    sources = []
    try:
        for target in args.stores:
            store = resolve_store(target)
            sources.append(store)
            if store.path.parent.resolve() == output:
                raise ArenaError(f"{target} is the output itself; name another -o folder")
        summary = merge_stores(sources, args.output)
    finally:
        for store in sources:
            store.close()
    print(
        f"merged {summary.sources} store(s) into {args.output}: {summary.added} games added, "
        f"{summary.already_there} already there, {summary.total} in all",
        file=sys.stderr,
    )
    if summary.conflicting:
        print(
            f"warning: {len(summary.conflicting)} game(s) were stored with different results "
            f"in two stores (kept the first), e.g. {summary.conflicting[0]}: a bot that does "
            "not play deterministically",
            file=sys.stderr,
        )
    print(f"next: arena leaderboard {args.output}", file=sys.stderr)
    return 0


def _check_merge_output(output: Path) -> None:
    """``merge -o`` names a results folder (a SQLite store with its journal beside it):
    not standard output, not a device or a FIFO, not a file."""
    import os
    import stat

    if str(output) == "-":
        raise ArenaError("merge writes a results folder (a SQLite store), not a stream: "
                         "-o must name a folder, not - (standard output)")
    try:
        mode = os.stat(output).st_mode
    except FileNotFoundError:
        return  # created by the merge
    except OSError as problem:
        raise ArenaError(f"cannot merge into {output}: {problem.strerror or problem}") \
            from None
    if not stat.S_ISDIR(mode):
        kind = "a file" if stat.S_ISREG(mode) else "a special file (device, FIFO, socket)"
        raise ArenaError(f"cannot merge into {output}: it is {kind}; -o names a results "
                         "folder (created if needed)")


def replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game_id", metavar="GAME_ID", help="the game's id (a unique prefix works)")
    parser.add_argument(
        "--results",
        type=Path,
        metavar="RESULTS_DIR_OR_LEAGUE_FILE",
        help="where to look (default: every league under ./results)",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print the raw stored game")
    shown.add_argument("--html", action="store_true",
                       help="write a page that draws the game move by move (open it in a "
                            "browser; it needs no network)")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="where --html writes (default: GAME_ID.html here; -: standard "
                             "output)")


def replay_command(args: argparse.Namespace) -> int:
    if args.output is not None and not args.html:
        raise ArenaError("-o/--output is for --html (the story and --json go to stdout)")
    record = _find_anywhere(args.game_id, args.results)
    if args.html:
        from arena.outputs import output_target, write_output
        from arena.viewer.page import render_replay

        output = output_target(args.output or Path(f"{record.game_id or 'game'}.html"))
        page = render_replay(record)
        write_output(output, page)
        print(f"wrote {output} ({len(page.encode()) // 1024} KB; open it in a browser)",
              file=output.notes)
        return 0
    if args.json:
        print(json.dumps(record.to_json(), indent=2))
        return 0
    for line in tell(record):
        print(line)
    return 0


def _find_anywhere(game_id: str, target: Path | None) -> GameRecord:
    if target is not None:
        store = resolve_store(target)
        try:
            return store.find_game(game_id)
        finally:
            store.close()
    stores = sorted(Path("results").glob(f"**/{DB_NAME}"))
    if not stores:
        raise ArenaError("no leagues under ./results; say where with --results")
    matches: list[tuple[Path, str]] = []  # (results folder, game id)
    for path in stores:
        store = open_store(path.parent)
        try:
            matches += [(path.parent, found) for found in store.game_ids_matching(game_id)]
        finally:
            store.close()
    if len(matches) != 1:
        where = ", ".join(str(p.parent) for p in stores)
        if not matches:
            raise ArenaError(f"no game matching {game_id!r} in {where}; `arena games "
                             "[RESULTS_DIR]` lists the stored games and their ids")
        shown = ", ".join(f"{found} ({folder})" for folder, found in matches[:6])
        raise ArenaError(f"{game_id!r} matches several games: {shown}"
                         f"{' ...' if len(matches) > 6 else ''}; give more characters, or "
                         "say where with --results")
    folder, found_id = matches[0]
    store = open_store(folder)
    try:
        found = [store.find_game(found_id)]
    finally:
        store.close()
    return found[0]


def tell(record: GameRecord) -> list[str]:
    """A stored game told as a person would tell it: who sat where, the engine's own
    narration, then the result and any failures."""
    from arena.games.base import GameError
    from arena.plugins import load_game
    from arena.runner.diagnosis import died_at_start, stderr_to_show

    seats = record.seats
    lines = [
        f"Game {record.game_id} ({record.game}, {len(seats)} players, seed {record.seed}, "
        f"round {record.round + 1})",
        "Seats: " + ", ".join(f"{i}: {bot}" for i, bot in enumerate(seats)),
        "",
    ]
    fallback: dict[int, tuple[int, int]] = {}
    try:
        game = load_game(record.game)
        story = game.narrate(record.engine)
        fallback = _fallback_in_story(record, game, story)
    except (ArenaError, ImportError) as problem:
        story = [f"(no narration: {problem})"]
    except (GameError, KeyError, TypeError, ValueError) as problem:  # a foreign record
        story = [f"(no narration: the {record.game} engine cannot read this record: "
                 f"{type(problem).__name__}: {problem})"]
    for seat, decision in sorted(_fallback_decisions(record).items()):
        marked = ", marked [fallback] below" if seat in fallback else ""
        lines.insert(-1, f"{seats[seat]} (seat {seat}) failed: from decision {decision} on "
                         "its moves are the fallback's (a uniformly random legal move)"
                         f"{marked}.")
    lines += [_with_names(line, seats, _marks_on(fallback, number))
              for number, line in enumerate(_tables_with_names(story, seats))]
    forfeits = record.forfeits
    # the engine's own final ranking knows nothing of forfeits: the league's result is
    # told when the engine tells none or a bot forfeited
    if forfeits or not any(line.startswith("Final ranking") for line in story):
        lines += ["", "Result in the league (a forfeit places last):" if forfeits
                  else "Result:"]
        for seat in sorted(range(len(seats)), key=lambda s: (record.placements[s], s)):
            note = f"  (forfeit: {forfeits[seat]})" if seat in forfeits else ""
            score = float(record.scores[seat])
            lines.append(
                f"{record.placements[seat]}. {seats[seat]} (seat {seat}): "
                f"{score:g} point{'' if score == 1 else 's'}{note}"
            )
    for failure in record.failures:  # who failed, when, why, and what it said last
        when = (f"at decision {failure['decision']}" if failure.get("decision")
                else f"during {failure['phase']}")
        lines += ["", f"{failure['bot']} (seat {failure['seat']}) failed {when}: "
                      f"{failure['reason']} - {failure['detail']}"]
        shown = stderr_to_show(failure.get("stderr_tail", ""), failure["detail"], 10)
        if shown:
            lines.append("  its stderr:" if died_at_start(failure["detail"])
                         else "  last lines of its stderr:")
            lines += [f"  | {line}" for line in shown]
    for incident in record.incidents:
        lines += ["", f"{incident['bot']} (seat {incident['seat']}), {incident['phase']}: "
                      f"{incident['reason']} - {incident['detail']} (no forfeit)"]
    return lines


def _fallback_decisions(record: GameRecord) -> dict[int, int]:
    """seat -> the first decision its fallback made, for every seat that failed and had
    a move left to make: after a failure at the start, its first decision; at a
    decision, that decision (the fallback chose instead); at the notice of decision d,
    its first decision after d."""
    steps = record.engine.get("actions")
    if not isinstance(steps, list):
        return {}
    found: dict[int, int] = {}
    for failure in record.failures:
        seat, decision = failure["seat"], failure.get("decision") or 0
        after = {"start": 1, "decision": decision}.get(failure["phase"], decision + 1)
        first = next((number for number, step in enumerate(steps, start=1)
                      if number >= after and isinstance(step, dict)
                      and step.get("seat") == seat), None)
        if first is not None and seat not in found:
            found[seat] = first
    return found


def _fallback_in_story(record: GameRecord, game: Game, story: Sequence[str]
                       ) -> dict[int, tuple[int, int]]:
    """seat -> (line, column) of ``story`` from which the seat's moves are its
    fallback's: where the story of the game stopped just before the fallback's first
    move stops agreeing with the whole story.  An engine whose records cannot be
    replayed this way gets no marks (the header still says who moved)."""
    from arena.games.base import GameError
    from arena.viewer.frames import start_state

    whole = "\n".join(story)
    marks: dict[int, tuple[int, int]] = {}
    for seat, decision in _fallback_decisions(record).items():
        try:
            state = start_state(record, game)
            for step in record.engine["actions"][:decision - 1]:
                state.apply_action(int(step["action"]))
            before = dict(state.record())
            if "seed" in record.engine:  # told as the whole record tells its deal
                before["seed"] = record.engine["seed"]
            else:
                before.pop("seed", None)
            prefix = "\n".join(game.narrate(before))
        except (ArenaError, GameError, KeyError, TypeError, ValueError):
            continue
        agree = next((i for i, (a, b) in enumerate(zip(whole, prefix, strict=False))
                      if a != b), min(len(whole), len(prefix)))
        line = whole.count("\n", 0, agree)
        marks[seat] = (line, agree - (whole.rfind("\n", 0, agree) + 1))
    return marks


def _marks_on(fallback: dict[int, tuple[int, int]], number: int) -> dict[int, int]:
    """seat -> the column of story line ``number`` from which the seat is its fallback."""
    return {seat: column if line == number else 0
            for seat, (line, column) in fallback.items() if line <= number}


_TABLE_ROW = re.compile(r"^(\s+)seat (\d+)(\s{2,})", re.IGNORECASE)
_RULE = re.compile(r"^(\s*)(-+)(\s.*)$")


def _tables_with_names(story: Sequence[str], seats: Sequence[str]) -> list[str]:
    """The engine's score tables label their rows "Seat N": there the bot's name goes,
    and the label column is widened (its header and rule too) so the columns stay
    aligned."""
    lines = list(story)
    for at, line in enumerate(lines):
        rule = _RULE.match(line)
        if rule is None or at == 0:
            continue
        rows = range(at + 1, len(lines))
        table = [row for row in rows if _TABLE_ROW.match(lines[row])]
        table = [row for n, row in enumerate(table) if row == at + 1 + n]  # contiguous
        if not table:
            continue
        width = len(rule[2])
        names = {row: seats[int(m[2])] if int(m[2]) < len(seats) else f"Seat {m[2]}"
                 for row in table if (m := _TABLE_ROW.match(lines[row]))}
        grow = max(0, max(len(name) for name in names.values()) - width)
        lines[at - 1] = lines[at - 1][:len(rule[1]) + width] + " " * grow \
            + lines[at - 1][len(rule[1]) + width:]
        lines[at] = f"{rule[1]}{rule[2]}{'-' * grow}{rule[3]}"
        for row, name in names.items():
            m = _TABLE_ROW.match(lines[row])
            assert m is not None
            rest = lines[row][len(m[1]) + width:]
            lines[row] = f"{m[1]}{name.ljust(width + grow)}{rest}"
    return lines


def _with_names(line: str, seats: Sequence[str], fallback: Mapping[int, int] = {}) -> str:
    """The engine says "seat 2"; a reader wants the bot's name, and "[fallback]" after it
    where the seat was played by the fallback (``fallback``: seat -> the column from
    which it was).  A table row still labelled "Seat N" (one :func:`_tables_with_names`
    did not recognise) keeps its label, so that its columns stay aligned."""
    if _TABLE_ROW.match(line):
        return line

    def name(m: re.Match[str]) -> str:
        seat = int(m[1])
        if seat >= len(seats):
            return m[0]
        moved_by_fallback = seat in fallback and m.start() >= fallback[seat]
        return seats[seat] + (" [fallback]" if moved_by_fallback else "")

    return re.sub(r"\bseat (\d+)\b", name, line, flags=re.IGNORECASE)
