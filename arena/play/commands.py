"""``arena play``: a person plays a game in the terminal against bots; the game is stored
like a league's (the person's seat is named ``human:NAME``)."""

from __future__ import annotations

import argparse
import getpass
import hashlib
import re
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.games.base import Game
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.players import Player
from arena.settings import Limits, seed_option

DEFAULT_RESULTS = Path("results") / "play"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 24 * 3600:
        raise argparse.ArgumentTypeError("must be more than 0 and at most a day (86400)")
    return value


def play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="the game: ra or ra_dice (or a plugin's)")
    parser.add_argument("--bots", nargs="+", required=True, metavar="BOT",
                        help="the bots you play against, one per seat (bundled or installed: "
                             "see `arena bots`)")
    parser.add_argument("--name", help="your name in the record, as human:NAME "
                                       "(default: your login name)")
    parser.add_argument("--seat", type=int, default=0,
                        help="your seat, 0 = first to play (default 0)")
    parser.add_argument("--seed", type=seed_option,
                        help="the game's seed (default: a random one, printed so you can "
                             "play it again)")
    parser.add_argument("--seconds", type=_positive_seconds, default=300.0,
                        help="your time per move (default 300)")
    parser.add_argument("--clock", type=_positive_seconds, metavar="SECONDS",
                        help="a whole-game clock for you (default: none)")
    parser.add_argument("--bot-seconds", type=_positive_seconds, default=Limits().move_seconds,
                        help="each bot's time per move (default: a league's, "
                             f"{Limits().move_seconds:g})")
    parser.add_argument("--results", type=Path, metavar="DIR", default=DEFAULT_RESULTS,
                        help=f"where the game is stored (default {DEFAULT_RESULTS})")


def _player_name(given: str | None) -> str:
    if given is None:
        try:
            given = getpass.getuser()
        except (KeyError, OSError):  # no login name (e.g. a container's bare uid)
            given = "you"
        given = re.sub(r"[^A-Za-z0-9_.-]", "", given) or "you"
    if not NAME.fullmatch(given):
        raise ArenaError(f"--name {given!r}: use 1-32 letters, digits, '_', '.' or '-', "
                         "starting with a letter or digit")
    return given[:32]


def play_command(args: argparse.Namespace) -> int:
    from arena.plugins import discover

    registry = discover()
    engine = registry.game(args.game)
    players = len(args.bots) + 1
    if not engine.min_players <= players <= engine.max_players:
        raise ArenaError(
            f"{engine.title} is for {engine.min_players}-{engine.max_players} players; you and "
            f"{len(args.bots)} bot(s) make {players}: give "
            f"{engine.min_players - 1}-{engine.max_players - 1} names to --bots")
    if not 0 <= args.seat < players:
        raise ArenaError(f"--seat {args.seat}: the seats of a {players}-player game are "
                         f"0-{players - 1}")
    specs = [registry.bot(name) for name in args.bots]
    for spec in specs:
        if not spec.plays(engine.name, players):
            raise ArenaError(f"bot {spec.name!r} does not play {engine.name} with {players} "
                             "players (see `arena bots`)")
    from arena.plugins.commands import built_for_command

    specs = [built_for_command(spec, None) for spec in specs]  # (a build step: built now)
    name = _player_name(args.name)
    seed = args.seed if args.seed is not None else secrets.randbits(48)
    if not sys.stdin.isatty():
        print("arena play: reading moves from stdin, which is not a terminal", file=sys.stderr)
    print(f"Seed {seed} (play this game again with --seed {seed}).")
    record = trio.run(_play, engine, specs, name, args, seed)
    if isinstance(record, str):
        print(f"\nGame abandoned ({record}); nothing was stored.")
        return 1
    game_id = hashlib.sha256(
        f"{engine.name}|{'|'.join(record.seats)}|{seed}|{time.time_ns()}".encode()
    ).hexdigest()[:16]
    record = record.in_league(game_id, "play", 0)
    _store(record, args.results)
    print(f"\nStored as game {game_id} in {args.results}. See it again with:\n"
          f"  arena replay {game_id[:8]} --results {args.results} --html -o {game_id[:8]}.html")
    return 0


async def _play(engine: Game, specs: list[BotSpec], name: str, args: argparse.Namespace,
                seed: int) -> GameRecord | str:
    """The played game's record, or why the person left it."""
    from arena.play.human import BotAtItsOwnPace, HumanPlayer, HumanQuit, LineReader
    from arena.runner.pool import open_bot_pool
    from arena.runner.referee import play_game

    # the game's limits are the person's; each bot is held to its own (BotAtItsOwnPace)
    limits = replace(Limits(), move_seconds=args.seconds, game_seconds=args.clock)
    reader = LineReader(sys.stdin.fileno())
    try:
        async with open_bot_pool(Limits()) as pool, pool.seated(specs) as bots:
            seats: list[Player] = [BotAtItsOwnPace(bot, args.bot_seconds) for bot in bots]
            seats.insert(args.seat, HumanPlayer(name, reader, engine))
            try:
                return await play_game(engine, seats, seed, limits=limits)
            except HumanQuit as why:  # here, before the pool's nursery wraps it in a group
                return str(why)
    finally:
        await reader.aclose()


def _store(record: GameRecord, results: Path) -> None:
    from arena.league.store import create_store

    store = create_store(results)
    try:
        store.add_game(record)
    finally:
        store.close()
