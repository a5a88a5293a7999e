"""Ra Arena from a notebook or a script: a match or a small league in one call, its
leaderboard as rows, no trio in your code (docs/notebook.md).

    from arena.notebook import league, match

    board = league(["greedy", "random", "first"], players=[2, 3], rounds=2)
    board.rows        # [{"rank": 1, "bot": "greedy", "elo": 1687.2, ...}, ...]
    board             # in Jupyter: the table
    match("mcts", "greedy", rounds=4).rows

A call is :func:`arena.league.engine.play_league` (what ``arena run`` plays) run to its
end: the same checks, bots, sandbox, store and ratings.  It works where an event loop
already runs (Jupyter's asyncio, a trio program): the league is played by ``trio.run``
in a thread of its own while the calling thread waits, shows the progress and passes
an interrupt (Ctrl-C, Jupyter's stop button) on to the league, which ends its games and
bots before the interrupt goes on.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, TypeVar

import trio

from arena.errors import ArenaError
from arena.records import GameRecord

T = TypeVar("T")
# what names a league built from keyword arguments in messages ("league(): key 'rounds':
# ..."); relative paths start in the current folder
ORIGIN = Path("league()")
# the leaderboard's columns shown by default (every key of a row is in ``rows``)
SHOWN = ("rank", "bot", "elo", "low", "high", "ahead_of_next", "games", "first_places",
         "average_place", "average_score", "failures")


@dataclass
class LeagueResult:
    """A played league: its leaderboard as rows (the keys of ``arena leaderboard
    --json``), its notes, and the games themselves."""

    rows: list[dict[str, Any]]
    notes: list[str]
    games: list[GameRecord] = field(repr=False)
    results_dir: Path | None = None  # where the store is kept; None: it was temporary

    def column(self, key: str) -> list[Any]:
        """One column, in rank order: ``board.column("elo")``."""
        return [row.get(key) for row in self.rows]

    def story(self, game: int | str = 0) -> str:
        """A game told as ``arena replay`` tells it: by its place in :attr:`games` or
        (a prefix of) its id."""
        from arena.league.commands import tell

        return "\n".join(tell(self._game(game)))

    def _game(self, game: int | str) -> GameRecord:
        if isinstance(game, int):
            return self.games[game]
        found = [record for record in self.games if record.game_id.startswith(game)]
        if len(found) != 1:
            raise ArenaError(f"{len(found)} games have an id starting with {game!r}")
        return found[0]

    def __str__(self) -> str:
        from tabulate import tabulate

        table = tabulate([[_shown(key, row.get(key)) for key in SHOWN] for row in self.rows],
                         headers=list(SHOWN), disable_numparse=True)
        return "\n".join([table, *self.notes])

    def _repr_html_(self) -> str:  # Jupyter shows this
        head = "".join(f"<th>{escape(key)}</th>" for key in SHOWN)
        body = "".join("<tr>" + "".join(f"<td>{escape(_shown(key, row.get(key)))}</td>"
                                        for key in SHOWN) + "</tr>" for row in self.rows)
        notes = "".join(f"<p>{escape(note)}</p>" for note in self.notes)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}"


def _shown(key: str, value: Any) -> str:
    """A cell as ``arena leaderboard`` writes it."""
    from arena.report.leaderboard import DASH, failure_text, superiority_text

    if value is None:
        return DASH
    if key == "ahead_of_next":
        return superiority_text(value)
    if key == "failures":
        return failure_text(value)
    if key in ("elo", "low", "high"):
        return f"{value:.0f}"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def league(bots: Sequence[str], *, game: str = "ra", players: int | Sequence[int] = 2,
           rounds: int = 1, seed: int = 1, results_dir: str | Path | None = None,
           progress: bool = True, **keys: Any) -> LeagueResult:
    """Play a league between ``bots`` (names, as ``arena bots`` lists them, or bot
    folders) and return its leaderboard.

    ``players``: a player count or a list; ``rounds``, ``seed``: as in a league file;
    ``keys``: any other key of a league file (docs/leagues.md), e.g. ``time={
    "per_decision": 0.2}``, ``format="gauntlet", challenger="mine"``, ``options={...}``,
    ``concurrency=4``, ``limits={"sandbox": "none"}``.  ``results_dir``: where the store
    is kept (a later call with the same league plays only what is missing, as ``arena
    run`` does); without it the store is temporary and removed once read.  ``progress``:
    a line on stderr as games finish."""
    names, folders = _roster(bots)
    data: dict[str, Any] = {"name": keys.pop("name", "notebook"), "game": game,
                            "players": players if isinstance(players, int) else list(players),
                            "roster": names, "rounds": rounds, "seed": seed, **keys}
    if folders:
        data["bot_paths"] = [*data.get("bot_paths", ()), *map(str, folders)]
    temporary = results_dir is None
    folder = Path(tempfile.mkdtemp(prefix="arena-notebook-")) if temporary \
        else Path(results_dir)  # type: ignore[arg-type]
    data["results_dir"] = str(folder)
    try:
        from arena.league.config import league_from_data

        config = league_from_data(data, ORIGIN)
        _play(config, progress)
        return _board(folder, None if temporary else folder)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def match(first: str, second: str, *, rounds: int = 1, **keys: Any) -> LeagueResult:
    """Two bots head to head in two-player games (every seat rotation of each round's
    deal); the other arguments are :func:`league`'s."""
    return league([first, second], players=2, rounds=rounds, **keys)


def _roster(bots: Sequence[str]) -> tuple[list[str], list[Path]]:
    """The bots' names, a folder given by its path read for its manifest's name."""
    from arena.plugins.manifest import MANIFEST_NAME, peek_name

    if isinstance(bots, str):
        raise ArenaError("bots: give a list of bot names, e.g. ['greedy', 'random']")
    names, folders = [], []
    for bot in bots:
        path = Path(bot).expanduser()
        if ("/" in str(bot) or str(bot).startswith(".")) and path.is_dir():
            name = peek_name(path)
            if name is None:
                raise ArenaError(f"{bot}: no readable {MANIFEST_NAME} with a name")
            names.append(name)
            folders.append(path.parent if path.name == name else path)
        else:
            names.append(str(bot))
    return names, folders


def _play(config: Any, progress: bool) -> None:
    from arena.league.engine import League, LeagueListener, play_league

    state = {"played": 0, "total": 0}

    class Count(LeagueListener):
        def league_started(self, league: League) -> None:
            state["total"] = len(league.plan.to_play) if league.plan is not None else 0

        def game_stored(self, league: League, game: Any) -> None:
            state["played"] += 1

    shown = [""]
    # a line rewritten in place where "\r" works (a terminal, Jupyter), else at the end
    live = sys.stderr.isatty() or "ipykernel" in sys.modules

    def show(last: bool = False) -> None:
        line = f"{state['played']}/{state['total']} games"
        if progress and state["total"] and line != shown[0] and (live or last):
            print(f"\r{line}" if live else line, end="" if live else "\n",
                  file=sys.stderr, flush=True)
            shown[0] = line

    run_sync(lambda: play_league(config, listeners=[Count()]), show)
    show(last=True)
    if shown[0] and live:
        print(file=sys.stderr)


def _board(folder: Path, kept: Path | None) -> LeagueResult:
    from arena.league.store import open_store
    from arena.report.leaderboard import build_leaderboard, leaderboard_json

    store = open_store(folder)
    try:
        results, games = store.results(), list(store.games())
    finally:
        store.close()
    if not results:
        return LeagueResult([], ["No games were played."], games, kept)
    board = leaderboard_json(build_leaderboard(results))
    return LeagueResult(board["bots"], board["notes"], games, kept)


def run_sync(function: Callable[[], Awaitable[T]], tick: Callable[[], None] = lambda: None
             ) -> T:
    """``await function()`` from synchronous code, whether or not an event loop runs in
    this thread: ``trio.run`` in a thread of its own, ``tick`` called while waiting.  An
    interrupt while waiting cancels the run, waits for it to end (its bots stopped), and
    goes on."""
    outcome: dict[str, Any] = {}
    started = threading.Event()
    token: list[trio.lowlevel.TrioToken] = []
    scope = trio.CancelScope()

    async def main() -> None:
        token.append(trio.lowlevel.current_trio_token())
        started.set()
        with scope:
            outcome["value"] = await function()

    def thread_main() -> None:
        try:
            trio.run(main)
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error
        finally:
            started.set()

    worker = threading.Thread(target=thread_main, name="arena-league", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
            tick()
    except KeyboardInterrupt:
        started.wait()
        if token:
            with contextlib.suppress(trio.RunFinishedError):  # it ended meanwhile
                trio.from_thread.run_sync(scope.cancel, trio_token=token[0])
        worker.join()
        raise
    tick()
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        raise error
    if "value" not in outcome:  # cancelled from elsewhere
        raise ArenaError("the league was interrupted")
    value: T = outcome["value"]
    return value


__all__ = ["LeagueResult", "league", "match", "run_sync"]
